package lore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// HistoryKind is what a history record recorded (docs/imports.md
// "History and undo").
type HistoryKind string

// The kinds of history records.
const (
	// HistoryFile is a lorebook file import (importLorebook, the panel, the
	// CLI).
	HistoryFile HistoryKind = "file"
	// HistoryBackup is a workspace backup import.
	HistoryBackup HistoryKind = "backup"
	// HistoryMigration is one server's block of a legacy memory migration.
	HistoryMigration HistoryKind = "migration"
	// HistoryCollectionDelete is a deleted Serverwide collection.
	HistoryCollectionDelete HistoryKind = "collection_delete"
	// HistoryScopeWipe is a wipe of a server's lore (WipeServerLore).
	HistoryScopeWipe HistoryKind = "scope_wipe"
	// HistoryUndo is the undo of another record.
	HistoryUndo HistoryKind = "undo"
	// HistoryBulk is a bulk operation of the workbench (moves, copies,
	// bulk edits and deletes; docs/workbench.md). A record of an edit in
	// place lists the entries as created and removed: its undo removes
	// them and restores the snapshot.
	HistoryBulk HistoryKind = "bulk"
)

// HistoryTarget is where a recorded operation wrote: a persona lineage, one
// Serverwide collection (CollectionID and Collection), or the whole server
// (Whole: backups, wipes).
type HistoryTarget struct {
	Lineage      Lineage `json:"lineage,omitempty"`
	CollectionID int64   `json:"collectionId,omitempty"`
	Collection   string  `json:"collection,omitempty"`
	Whole        bool    `json:"whole,omitempty"`
}

// HistorySnapshot is what an operation replaced or removed: the entries as
// they were (ids, timestamps and pending channel names included), the
// Serverwide collections it removed, with their settings, and the book
// settings it replaced.
type HistorySnapshot struct {
	Entries     []Entry      `json:"entries"`
	Collections []Collection `json:"collections,omitempty"`
	// BookSettings are the target book's settings before a Replace that
	// stored the file's (nil when the import kept them).
	BookSettings *BookSettings `json:"bookSettings,omitempty"`
	// BookSettingsAfter are the target book's settings as the operation
	// left them (set with BookSettings). An undo puts BookSettings back only
	// while the book still has these; settings changed since stay
	// (UndoResult.BookSettingsKept), as lore written since does. Records
	// from before this field restore BookSettings unconditionally.
	BookSettingsAfter *BookSettings `json:"bookSettingsAfter,omitempty"`
	// ChangedCollections are the Serverwide collections the operation kept
	// but changed (enabled flag, channels, book settings: a backup import
	// sets the backup's), as they were before it, and CollectionsAfter the
	// same collections as it left them. An undo puts the state before back
	// on the collection of the same name while that collection is still as
	// the operation left it; one changed since keeps its current state
	// (UndoResult.CollectionsKept).
	ChangedCollections []Collection `json:"changedCollections,omitempty"`
	CollectionsAfter   []Collection `json:"collectionsAfter,omitempty"`
	// CreatedCollections name the Serverwide collections the operation
	// created (a backup import); an undo removes each one that is empty
	// again.
	CreatedCollections []string `json:"createdCollections,omitempty"`
	// CreatedCategories are the categories the operation created (an import filing entries under its file's categories, a
	// backup import); an undo removes each one no entry is in any more.
	// ChangedCategories are the categories it kept but changed (a backup
	// import sets the backup's sort order and enabled flag), as they were
	// before, and CategoriesAfter as it left them: an undo puts the state
	// before back while the category is still as the operation left it
	// (docs/workbench.md#categories).
	CreatedCategories []Category `json:"createdCategories,omitempty"`
	ChangedCategories []Category `json:"changedCategories,omitempty"`
	CategoriesAfter   []Category `json:"categoriesAfter,omitempty"`
	// PersonaBooks are the persona book settings a backup import replaced
	// (the backup carried them), as they were before and as it left them:
	// an undo puts Before back while the book still has After; one
	// changed since keeps its settings (UndoResult.BookSettingsKept).
	PersonaBooks []PersonaBookSnapshot `json:"personaBooks,omitempty"`
	// ServerSettings are the server's settings a backup import replaced
	// (the backup carried them), as they were before and as it left them;
	// Workbench the same for the workbench settings. An undo puts Before
	// back while the server still has After; settings changed since stay
	// (UndoResult.ServerSettingsKept).
	ServerSettings *ServerSettingsSnapshot `json:"serverSettings,omitempty"`
	Workbench      *WorkbenchSnapshot      `json:"workbench,omitempty"`
	// Card is the card character of the existing persona a persona card
	// import wrote onto (nil for other records, and for a persona the
	// import created, which an undo removes).
	Card *CardSnapshot `json:"card,omitempty"`
	// Source is the target book's kept source fields (BookSource,
	// book_sources) before the operation and as it left them, when it
	// wrote them onto a book that existed (a Replace, an append into a
	// book without any, a persona card onto an existing persona); nil
	// otherwise and in records from before this field.
	Source *SourceSnapshot `json:"source,omitempty"`
	// BookCard is the target book's kept card (BookCard, book_cards)
	// before the operation and a digest of the one it left, when it wrote
	// a card onto a book that existed (a Replace or append of a card file,
	// a persona card onto an existing persona); nil otherwise and in
	// records from before this field.
	BookCard *BookCardSnapshot `json:"bookCard,omitempty"`
}

// BookCardSnapshot is a book's kept card before an operation (Before,
// nil: none) and the CardDigest of the one it left (After). An undo puts
// Before back, byte for byte with its time (none: the row is deleted),
// while the book still has the card the operation left.
type BookCardSnapshot struct {
	Before *KeptCard `json:"before,omitempty"`
	After  string    `json:"after"`
}

// KeptCard is a BookCard as a history snapshot holds it: the card JSON's
// text as a string (the snapshot is jsonb, which would reformat it), the
// PNG or CHARX file as base64 (nil for a JSON card).
type KeptCard struct {
	Container string    `json:"container"`
	Card      string    `json:"card"`
	File      []byte    `json:"file,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// KeepCard returns c as a snapshot holds it (nil for nil).
func KeepCard(c *BookCard) *KeptCard {
	if c == nil {
		return nil
	}
	return &KeptCard{Container: c.Container, Card: string(c.Card), File: c.File, UpdatedAt: c.UpdatedAt}
}

// BookCard returns the card k holds (nil for nil); its Server, Lineage and
// CollectionID are left for the caller.
func (k *KeptCard) BookCard() *BookCard {
	if k == nil {
		return nil
	}
	return &BookCard{Container: k.Container, Card: []byte(k.Card), File: k.File, UpdatedAt: k.UpdatedAt}
}

// CardDigest is the SHA-256 (hex) of c's container, card and file, "" for
// nil: two cards with one digest are the same card.
func CardDigest(c *BookCard) string {
	if c == nil {
		return ""
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(c.Container), c.Card, c.File} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SourceSnapshot is a book's kept source fields before an operation
// (Before, nil: none) and as it left them (After). An undo puts Before
// back (none: the row is deleted) while the book still has After; fields
// a later import wrote stay, as its own undo puts After back.
type SourceSnapshot struct {
	Before *KeptSource `json:"before,omitempty"`
	After  *KeptSource `json:"after,omitempty"`
}

// KeepSource returns s as a snapshot holds it (nil for nil).
func KeepSource(s *BookSource) *KeptSource {
	if s == nil {
		return nil
	}
	k := &KeptSource{Name: s.Name, NameFromFile: s.NameFromFile, Description: s.Description}
	if len(s.Fields) > 0 {
		k.Fields = make(map[string]string, len(s.Fields))
		for name, v := range s.Fields {
			k.Fields[name] = string(v)
		}
	}
	return k
}

// KeptSource is a BookSource as a history snapshot holds it: each field's
// JSON text as a string, so the values come back byte for byte (the
// snapshot is jsonb, which would reformat raw values).
type KeptSource struct {
	Name         string            `json:"name"`
	NameFromFile bool              `json:"nameFromFile,omitempty"`
	Description  string            `json:"description,omitempty"`
	Fields       map[string]string `json:"fields,omitempty"`
}

// Source returns the BookSource k holds (nil for nil); its Server,
// Lineage and CollectionID are left for the caller.
func (k *KeptSource) Source() *BookSource {
	if k == nil {
		return nil
	}
	s := &BookSource{Name: k.Name, NameFromFile: k.NameFromFile, Description: k.Description}
	if len(k.Fields) > 0 {
		s.Fields = make(map[string]json.RawMessage, len(k.Fields))
		for name, v := range k.Fields {
			s.Fields[name] = json.RawMessage(v)
		}
	}
	return s
}

// Equal reports whether k and o hold the same fields, byte for byte (two
// nils are equal).
func (k *KeptSource) Equal(o *KeptSource) bool {
	if k == nil || o == nil {
		return k == o
	}
	return k.Name == o.Name && k.NameFromFile == o.NameFromFile && k.Description == o.Description && maps.Equal(k.Fields, o.Fields)
}

// CardSnapshot is the card character (importPersonaCard's
// CharacterContext) of persona Persona before the import (Before, nil
// none) and as the import left it (After, nil none). An undo puts Before
// back while the persona still has After; a character changed since (a
// later card) stays (UndoResult.CardKept).
type CardSnapshot struct {
	Persona int64             `json:"persona"`
	Before  *CharacterContext `json:"before,omitempty"`
	After   *CharacterContext `json:"after,omitempty"`
}

// PersonaBookSnapshot is one persona lineage's book settings before an
// operation and after it (HistorySnapshot.PersonaBooks).
type PersonaBookSnapshot struct {
	Lineage Lineage      `json:"lineage"`
	Before  BookSettings `json:"before"`
	After   BookSettings `json:"after"`
}

// ServerSettingsSnapshot is a server's settings before an operation and
// as it left them.
type ServerSettingsSnapshot struct {
	Before ServerSettings `json:"before"`
	After  ServerSettings `json:"after"`
}

// WorkbenchSnapshot is a server's workbench settings before an operation
// and as it left them.
type WorkbenchSnapshot struct {
	Before WorkbenchSettings `json:"before"`
	After  WorkbenchSettings `json:"after"`
}

// Empty reports whether the snapshot holds nothing to restore.
func (s *HistorySnapshot) Empty() bool {
	return s == nil || (len(s.Entries) == 0 && len(s.Collections) == 0 && s.BookSettings == nil &&
		len(s.ChangedCollections) == 0 && len(s.CreatedCollections) == 0 && s.Card == nil && s.Source == nil && s.BookCard == nil &&
		len(s.PersonaBooks) == 0 && s.ServerSettings == nil && s.Workbench == nil)
}

// HistoryRecord is one row of the import history. Every import (file,
// backup, migration), collection delete, scope wipe and undo writes one in
// the transaction of its write, so a write that did not commit has none.
type HistoryRecord struct {
	ID     int64
	Server string
	Kind   HistoryKind
	// Actor is who asked ("user:<discord id>", "service:<name>", "cli").
	Actor     string
	CreatedAt time.Time
	// SourceName is the file name or the migration's source; SourceSHA256
	// the hex SHA-256 of the bytes ("" when none).
	SourceName   string
	SourceSHA256 string
	// Mode is "append", "replace" or "" (deletes, wipes, undos).
	Mode   string
	Target HistoryTarget
	// Report is what the operation reported (shape per kind, JSON object).
	Report json.RawMessage
	// CreatedIDs are the entries the operation created; RemovedIDs those
	// it replaced or removed (their content is in Snapshot).
	CreatedIDs []int64
	RemovedIDs []int64
	// CreatedCollection is a Serverwide collection the operation created
	// ("" when none); an undo removes it again when it is empty.
	CreatedCollection string
	// CreatedPersona is the persona a persona card import created (0 when
	// none); an undo removes it with its book unless entries were written
	// in that book since (docs/imports.md "Undo").
	CreatedPersona int64
	// Snapshot is nil once pruned by the retention setting (SnapshotPruned)
	// or when the operation removed nothing.
	Snapshot       *HistorySnapshot
	SnapshotPruned bool
	// UndoOf is the record an undo undid; UndoneBy the undo of this record
	// (0 when none).
	UndoOf   int64
	UndoneBy int64
	UndoneAt *time.Time
	// SourceIDs are the legacy memory ids a migration converted (write
	// only: recorded so a rerun skips them).
	SourceIDs []string `json:"-"`
}

// UndoResult counts what an undo did.
type UndoResult struct {
	// Record is the undo's own history record.
	Record HistoryRecord
	// Restored entries came back from the snapshot (with their ids);
	// Removed entries the undone operation had created were deleted (edited
	// or not). Missing counts created entries already deleted since.
	Restored, Removed, Missing int
	// Collections counts the collections whose enabled flag, channels and
	// book settings were put back (HistorySnapshot.ChangedCollections);
	// CollectionsKept those left as they are because they were changed
	// since the operation.
	Collections, CollectionsKept int
	// Categories counts the categories removed or put back
	// (HistorySnapshot.CreatedCategories, ChangedCategories);
	// CategoriesKept those left: in use again, or changed since.
	Categories, CategoriesKept int
	// BookSettingsKept: the target book's settings were changed since the
	// operation, so the undo left them as they are
	// (HistorySnapshot.BookSettingsAfter).
	BookSettingsKept bool
	// ServerSettings: the server's settings (or workbench settings) a
	// backup import replaced were put back (HistorySnapshot.
	// ServerSettings, Workbench); ServerSettingsKept: they were changed
	// since the import and stay.
	ServerSettings, ServerSettingsKept bool
	// Card: the persona card character was put back (HistorySnapshot.Card);
	// CardKept: it was changed since the import and stays.
	Card, CardKept bool
	// Persona is set when the undone import created a persona.
	Persona *UndoPersona
}

// UndoPersona is what an undo did with the persona the undone import
// created. The persona and its book (settings and kept card) are removed,
// unless entries were written in the book since the import (AuthoredSince:
// lore authored since stays, docs/imports.md "Undo"), or the persona was
// moved to another lineage since (Moved); then both stay.
type UndoPersona struct {
	ID      int64
	Lineage Lineage
	Removed bool
	// AuthoredSince counts the book's entries the import did not create.
	AuthoredSince int
	// Moved: the persona is no longer on the lineage the import gave it.
	Moved bool
}

// HistoryStore is the import history of a [Store] (lore/postgres implements
// both). Writes that record themselves take a server's lock first through
// Atomic, so the record and the write commit together.
type HistoryStore interface {
	Store
	BookCardStore
	LifecycleStore
	RevisionStore
	WorkbenchStore
	ProposalStore
	DecisionStore
	// Limits are the deployment's limits the store enforces.
	Limits() Limits
	// Atomic runs fn in one transaction that holds server's row lock
	// (ErrNotFound for an unknown server); st is bound to the transaction
	// and every write through it commits with fn's or not at all.
	Atomic(ctx context.Context, server string, fn func(ctx context.Context, st HistoryStore) error) error
	// ListServerEntries lists every entry of a server, both scopes.
	ListServerEntries(ctx context.Context, server string) ([]Entry, error)
	// RecordHistory stores r (ID and CreatedAt are set by the store) and
	// the source ids of a migration. Run it inside Atomic, after the write.
	RecordHistory(ctx context.Context, r HistoryRecord) (HistoryRecord, error)
	// History lists a server's records newest first: at most first, older
	// than the record before (0: from the newest); more reports whether
	// older ones exist.
	History(ctx context.Context, server string, first int, before int64) (records []HistoryRecord, more bool, err error)
	// HistoryCount counts a server's records, over every page of History.
	HistoryCount(ctx context.Context, server string) (int, error)
	// HistoryRecord returns one record of the server (ErrNotFound).
	HistoryRecord(ctx context.Context, server string, id int64) (HistoryRecord, error)
	// UndoStore holds the statements of an undo (lore/transfer.Undo has
	// its rules).
	UndoStore
	// MigratedSources returns which of ids a migration of server already
	// recorded.
	MigratedSources(ctx context.Context, server string, ids []string) (map[string]bool, error)
	// PruneSnapshots drops the snapshots of records created before
	// olderThan (they can no longer be undone) and returns how many.
	PruneSnapshots(ctx context.Context, olderThan time.Time) (int64, error)
}

// UndoStore is the SQL of an undo, one step each, run inside Atomic (the
// transaction holding the server's lock); lore/transfer.Undo decides what
// an undo restores. Errors are the store's (ErrNotFound, ErrScopeFull,
// ErrUnavailable).
type UndoStore interface {
	// LockHistoryRecord reads and locks record id of server (ErrNotFound).
	LockHistoryRecord(ctx context.Context, server string, id int64) (HistoryRecord, error)
	// LaterRemover returns a later record, not undone, that replaced or
	// removed one of ids, which record id created (0: none).
	LaterRemover(ctx context.Context, server string, id int64, ids []int64) (int64, error)
	// TakenEntryID returns one of ids an entry holds (0: none).
	TakenEntryID(ctx context.Context, ids []int64) (int64, error)
	// DeleteEntryIDs deletes server's entries among ids and returns the
	// ids it deleted.
	DeleteEntryIDs(ctx context.Context, server string, ids []int64) ([]int64, error)
	// CheckScopeRoom fails with ErrScopeFull when adding entries to
	// lineage's scope would pass the limit.
	CheckScopeRoom(ctx context.Context, server string, lineage Lineage, adding int) error
	// CountScopeTx counts the entries of lineage's scope.
	CountScopeTx(ctx context.Context, server string, lineage Lineage) (int, error)
	// RestoreCollection creates c (flag, channels, settings) unless a
	// collection of its name exists.
	RestoreCollection(ctx context.Context, server string, c Collection) error
	// RestoreEntries inserts entries with their ids, timestamps and pending
	// legacy channel names.
	RestoreEntries(ctx context.Context, server string, entries []Entry) error
	// TargetBook returns the settings of the target's book: its persona
	// book (empty when none is stored), or its collection by name (ok false
	// when none of that name exists). SetTargetBook stores them.
	TargetBook(ctx context.Context, server string, t HistoryTarget) (b BookSettings, ok bool, err error)
	SetTargetBook(ctx context.Context, server string, t HistoryTarget, b BookSettings) error
	// CollectionNamed returns server's collection name (ok false: none).
	CollectionNamed(ctx context.Context, server, name string) (c Collection, ok bool, err error)
	// RestoreCollectionState puts back c's enabled flag and channels, and
	// its book settings when setBook.
	RestoreCollectionState(ctx context.Context, server string, c Collection, setBook bool) error
	// DeleteCollectionIfEmpty deletes collection name when it holds no
	// entry.
	DeleteCollectionIfEmpty(ctx context.Context, server, name string) error
	// DeletePersonaOnLineage deletes persona id when it is on lineage;
	// otherwise exists says whether it is on another lineage.
	DeletePersonaOnLineage(ctx context.Context, server string, id int64, lineage Lineage) (deleted, exists bool, err error)
	// DeleteUnsharedPersonaBook deletes lineage's book settings and kept
	// card unless another persona is on the lineage.
	DeleteUnsharedPersonaBook(ctx context.Context, server string, lineage Lineage) (bool, error)
	// PersonaCard returns the card character of persona id (nil none;
	// ok false when the persona does not exist); SetPersonaCard stores c
	// (nil clears it).
	PersonaCard(ctx context.Context, server string, id int64) (c *CharacterContext, ok bool, err error)
	SetPersonaCard(ctx context.Context, server string, id int64, c *CharacterContext) error
	// TargetSource returns the kept source fields of the target's book
	// (nil: none): its persona book's, or its collection's by name (ok
	// false when none of that name exists). SetTargetSource stores src
	// over them (nil deletes them).
	TargetSource(ctx context.Context, server string, t HistoryTarget) (src *BookSource, ok bool, err error)
	SetTargetSource(ctx context.Context, server string, t HistoryTarget, src *BookSource) error
	// TargetCard returns the kept card of the target's book (nil: none),
	// as TargetSource. SetTargetCard stores c over it exactly, its
	// UpdatedAt included (nil deletes it).
	TargetCard(ctx context.Context, server string, t HistoryTarget) (c *BookCard, ok bool, err error)
	SetTargetCard(ctx context.Context, server string, t HistoryTarget, c *BookCard) error
	// ForgetMigratedSources forgets the source ids migration record id
	// recorded.
	ForgetMigratedSources(ctx context.Context, id int64) error
	// BumpLoreVersion ends a lore write of server (caches invalidated).
	BumpLoreVersion(ctx context.Context, server string) error
	// MarkUndone marks record id undone by record undoID.
	MarkUndone(ctx context.Context, id, undoID int64) error
}

// SameCollectionState reports whether a and b have the same enabled flag,
// channels (in order) and book settings: the collection state an undo puts
// back.
func SameCollectionState(a, b Collection) bool {
	return a.Enabled == b.Enabled && slices.Equal(a.ChannelIDs, b.ChannelIDs) && a.Settings.Equal(b.Settings)
}
