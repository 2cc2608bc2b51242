package lore

import (
	"context"
	"encoding/json"
	"time"
)

// Blob is an upload kept for a background job (table job_blobs): a large
// lorebook import or a workspace backup. Data is opaque and never logged.
type Blob struct {
	ID     int64
	Server string
	// Kind is BlobLorebook or BlobBackup.
	Kind     string
	FileName string
	// Size is len(Data) in bytes; SHA256 its hex digest (set by PutBlob).
	Size      int64
	SHA256    string
	Data      []byte
	CreatedAt time.Time
	// ExpiresAt is when the cleanup job may delete the blob.
	ExpiresAt time.Time
	// Meta is a JSON object stored with the upload (a backup preview's
	// lineage mapping); nil stores {}.
	Meta json.RawMessage
}

// Blob kinds.
const (
	BlobLorebook = "lorebook"
	BlobBackup   = "backup"
)

// Artifact is a file a job produced for download (job_artifacts), such as
// a workspace backup. Data is empty unless read with GetArtifactData.
type Artifact struct {
	ID     int64
	Server string
	// JobID is the River job that produced it; one artifact per job. 0
	// for an artifact no job produced (a card export).
	JobID       int64
	Kind        string
	FileName    string
	ContentType string
	// Size is len(Data) in bytes; SHA256 the hex SHA-256 digest of Data.
	Size      int64
	SHA256    string
	Data      []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// JobReport is what a finished job did (job_reports): a JSON object whose
// shape belongs to the job kind.
type JobReport struct {
	JobID     int64
	Server    string
	Kind      string
	Report    []byte
	CreatedAt time.Time
}

// BookCard is the character card a book was imported from (book_cards):
// the book is a Serverwide collection (CollectionID) or a persona
// lineage's book (Lineage, CollectionID 0).
type BookCard struct {
	Server       string
	Lineage      Lineage
	CollectionID int64
	// Container is json, png or charx.
	Container string
	// Card is the card JSON; File the original PNG or CHARX, nil for json.
	Card, File []byte
	UpdatedAt  time.Time
}

// BookCardStore keeps the card a book came in, for card exports
// (lore/postgres implements it).
type BookCardStore interface {
	// PutBookCard stores or replaces the card of c's book (a lore write of
	// the book's server; ErrNotFound for an unknown collection).
	PutBookCard(ctx context.Context, c BookCard) error
	// GetBookCard returns the card of a book (collectionID, or the
	// lineage's book when 0); ErrNotFound when it came without one.
	GetBookCard(ctx context.Context, server string, lineage Lineage, collectionID int64) (BookCard, error)
	// PutBookSource stores s as the source fields of its book: with
	// replace, over the book's previous ones; without, only when the book
	// has none (an append into an existing book keeps the book's). A lore
	// write of the book's server; ErrNotFound for an unknown collection.
	PutBookSource(ctx context.Context, s BookSource, replace bool) error
	// GetBookSource returns the source fields of a book (collectionID, or
	// the lineage's book when 0); ErrNotFound when none were kept.
	GetBookSource(ctx context.Context, server string, lineage Lineage, collectionID int64) (BookSource, error)
}

// BookSource is what a book's source file held at book level that no
// column of the store keeps (book_sources, migration 000082;
// docs/formats.md#rules-worth-knowing): SillyTavern world info `_meta` and
// `originalData`, a bare or card book's description, createdAt,
// modifiedAt, id, isGlobal, enabled and foreign fields. Exports through
// the API give them back to the book, as offline convert of the file
// writes them.
type BookSource struct {
	Server       string
	Lineage      Lineage
	CollectionID int64
	// Name is the book's name as read (the file name's stem when
	// NameFromFile: the file had no name), at most 1,024 characters.
	Name         string
	NameFromFile bool
	// Description is the book description (format.Book.Description).
	Description string
	// Fields are the book extensions (format.Book.Extensions: namespaced
	// keys, values verbatim, byte for byte), at most 16 MiB in all.
	Fields    map[string]json.RawMessage
	UpdatedAt time.Time
}

// SourceDescriptionKey is the BookSource field of a world info file's own
// top-level description (SillyTavern files that carry one): the book's
// description while none was written (BookInfo) and the file had no other.
const SourceDescriptionKey = "st/description"
