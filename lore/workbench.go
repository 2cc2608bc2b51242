package lore

import (
	"context"
	"time"
)

// EntryRef names one entry of a bulk operation's scope, with the UpdatedAt
// the caller read (nil: no check; see CheckUpdatedAt).
type EntryRef struct {
	ID                int64
	ExpectedUpdatedAt *time.Time
}

// BookRef names a book of a server: a persona lineage, or a Serverwide
// collection by id (Lineage Serverwide).
type BookRef struct {
	Lineage      Lineage
	CollectionID int64
}

// MaxBulkEntries is the most entries one bulk operation names (a scope's
// hard ceiling).
const MaxBulkEntries = 1000

// MoveRequest moves or copies entries of one scope of a server into a book
// (docs/workbench.md#move-and-copy).
type MoveRequest struct {
	Server string
	// From is the entries' scope; Entries at most MaxBulkEntries, no
	// repeats. A part of a split group brings the group's other parts.
	From    Lineage
	Entries []EntryRef
	To      BookRef
	// Copy keeps the originals (new ids for the copies).
	Copy bool
}

// MovedEntry maps an entry to where it went: To == From when the id was
// kept (a move between Serverwide collections).
type MovedEntry struct{ From, To int64 }

// MoveResult is what MoveEntries did.
type MoveResult struct {
	Moved []MovedEntry
	// Entries are the entries as stored in the target, in Moved's order.
	Entries []Entry
	// HistoryID is the import history record (undoImport undoes it).
	HistoryID int64
	// KeptIDs: ids were kept (Serverwide collection to collection).
	KeptIDs bool
	// ChannelsFromCollection: the entries went into a collection and are
	// gated by its channels now (their own channel ids were dropped);
	// ChannelsFromSource: entries of a collection went into a persona book
	// and carry the collection's channels as their own.
	ChannelsFromCollection, ChannelsFromSource bool
}

// BulkOp is what EditEntries does to each entry.
type BulkOp int

// The bulk edits.
const (
	// BulkSetEnabled sets BulkEdit.Enabled.
	BulkSetEnabled BulkOp = iota + 1
	// BulkPatch applies BulkEdit.Patch (its ExpectedUpdatedAt ignored:
	// each EntryRef carries its own).
	BulkPatch
	// BulkDelete deletes the entries (split groups whole).
	BulkDelete
	// BulkReplace rewrites the entries Replace.Apply changes.
	BulkReplace
)

// BulkEdit is one bulk edit of entries of one scope.
type BulkEdit struct {
	Server  string
	Lineage Lineage
	// Entries at most MaxBulkEntries. For BulkReplace an empty list means
	// every entry of the book Collection (Serverwide: a collection name;
	// "" = every collection) or of the persona lineage.
	Entries    []EntryRef
	Collection string
	Op         BulkOp
	Enabled    bool
	Patch      EntryPatch
	Replace    Replacement
	// Preview computes the result and writes nothing (BulkReplace).
	Preview bool
}

// BulkResult is what EditEntries did (or, previewed, would do).
type BulkResult struct {
	// Before and After are the entries changed, as they were and are
	// (After is empty for BulkDelete).
	Before, After []Entry
	// HistoryID is the import history record (0 for a preview or when
	// nothing changed).
	HistoryID int64
}

// WorkbenchStore is the bulk part of a Store (lore/postgres implements
// it). Every method is one transaction under the server-row lock, is
// validated whole before it writes (ErrInvalid with field
// "entries[i]...", *ScopeFullError saying by how much), checks each
// EntryRef's ExpectedUpdatedAt (*StaleError) and records itself in the
// import history (HistoryBulk) so that Undo undoes it.
type WorkbenchStore interface {
	CategoryStore
	// MoveEntries moves or copies entries (see MoveRequest).
	MoveEntries(ctx context.Context, r MoveRequest) (MoveResult, error)
	// EditEntries applies one bulk edit (see BulkEdit).
	EditEntries(ctx context.Context, r BulkEdit) (BulkResult, error)
}

// MaxBooksPerCategoryRead bounds the books one
// CategoryStore.ListBooksCategories reads.
const MaxBooksPerCategoryRead = 1000

// CategoryStore keeps the categories inside books and the books'
// descriptions and tags (docs/workbench.md#categories). A book is
// addressed by collectionID (a Serverwide collection) or, with
// collectionID 0, by a persona lineage; every write holds the server lock.
type CategoryStore interface {
	// ListCategories returns a book's categories by SortOrder, then name.
	ListCategories(ctx context.Context, server string, lineage Lineage, collectionID int64) ([]Category, error)
	// ListBooksCategories returns the categories of many books of one
	// server in one read, grouped by book, each book's like ListCategories.
	ListBooksCategories(ctx context.Context, server string, collectionIDs []int64, lineages []Lineage) ([]Category, error)
	// CreateCategory adds c to its book (ErrInvalid: bad or repeated name,
	// too many; ErrNotFound: unknown collection).
	CreateCategory(ctx context.Context, c Category) (Category, error)
	// UpdateCategory applies p to category id of server.
	UpdateCategory(ctx context.Context, server string, id int64, p CategoryPatch) (Category, error)
	// DeleteCategory removes a category; its entries stay without one.
	DeleteCategory(ctx context.Context, server string, id int64) error
	// GetBookInfo returns a book's description and tags (zero: none).
	GetBookInfo(ctx context.Context, server string, lineage Lineage, collectionID int64) (BookInfo, error)
	// UpdateBookInfo applies p to a book's description and tags.
	UpdateBookInfo(ctx context.Context, server string, lineage Lineage, collectionID int64, p BookInfoPatch) (BookInfo, error)
	// TaggedBooks returns the books whose written tags hold tag, ignoring
	// case: collection ids and persona lineages.
	TaggedBooks(ctx context.Context, server, tag string) (collectionIDs []int64, lineages []Lineage, err error)
}

// CategoryPatch changes a category: nil fields keep their value.
type CategoryPatch struct {
	Name      *string
	SortOrder *int
	Enabled   *bool
	// ExpectedUpdatedAt, when set, must equal the category's UpdatedAt
	// under the lock, else a *StaleError.
	ExpectedUpdatedAt *time.Time
}

// BookInfoPatch changes a book's info: nil fields keep their value.
type BookInfoPatch struct {
	Description *string
	// Tags replaces the tags (trimmed; empty ones dropped).
	Tags *[]string
	// ExpectedUpdatedAt, when set, must equal the info's UpdatedAt under
	// the lock (zero while none is stored), else a *StaleError.
	ExpectedUpdatedAt *time.Time
}
