package lore

import "context"

// Snapshot is what the per-turn read returns for one (server, lineage):
// the enabled entries of enabled Serverwide collections plus the enabled
// entries of the lineage, and the collections those entries belong to, so
// the engine can apply the collection gates itself.
type Snapshot struct {
	Server  Server
	Lineage Lineage
	Entries []Entry
	// Collections are keyed by name.
	Collections map[string]Collection
}

// ScopeCounts maps a lineage to its entry count; the Serverwide key is
// Serverwide (0), the seed's NULL key.
type ScopeCounts map[Lineage]int

// EntryPatch is a partial edit of an entry. Nil fields keep the stored
// value, so an edit never drops activation fields or channels the caller did
// not touch (seed 000, "Edits keep activation fields and stored channel ids
// the member did not change").
type EntryPatch struct {
	Title         *string
	Content       *string
	Keys          *[]string
	SecondaryKeys *[]string
	Logic         *SelectiveLogic
	Constant      *bool
	Enabled       *bool
	// ScanDepth: a non-nil pointer to nil clears the override.
	ScanDepth     **int
	Probability   *int
	Order         *int
	Priority      *int
	Placement     *Placement
	Role          *Role
	CaseSensitive **bool
	WholeWords    **bool
	// ChannelIDs (persona entries only): when the new set differs from the
	// stored one, pending LegacyChannelTags are cleared deliberately; when it
	// is equal (as a set) they survive.
	ChannelIDs *[]string
}

// ImportMode selects how an import writes into an existing book.
type ImportMode int

const (
	// Append adds entries not already present (see DuplicateKey) and skips
	// the rest; the whole batch is refused if the scope would overflow.
	Append ImportMode = iota
	// Replace replaces the target book: one persona lineage, or one
	// Serverwide collection (other collections stay and count against the
	// shared limit).
	Replace
)

// ImportTarget names the book an import writes into. For Serverwide scope
// CollectionID and Collection are the id and name the caller saw when it
// prepared the import; under the lock both must still match, else the write
// fails with ErrStaleTarget.
type ImportTarget struct {
	Server       string
	Lineage      Lineage
	CollectionID int64
	Collection   string
}

// ImportResult counts what an import batch did.
type ImportResult struct {
	Added      int
	Duplicates int
	Replaced   int
	// Collection is the target collection after the write (Serverwide only).
	Collection *Collection
}

// Store is loregate's persistence contract (seed 000 "Storage and
// ownership"). Every method is scoped by server; entry methods address an
// entry by (server, lineage, id) together, so an id of another server or
// scope is ErrNotFound. Writes that add or replace entries lock the server
// row before counting. Errors wrap the sentinels of this package; a
// database failure wraps ErrUnavailable.
type Store interface {
	// UpsertServer creates or renames a server; settings are kept on rename.
	UpsertServer(ctx context.Context, id, name string) (Server, error)
	// GetServer returns ErrNotFound for an unknown server.
	GetServer(ctx context.Context, id string) (Server, error)
	UpdateServerSettings(ctx context.Context, id string, s ServerSettings) (Server, error)
	// DeleteServer removes the server and cascades all its lore.
	DeleteServer(ctx context.Context, id string) error

	UpsertPersona(ctx context.Context, p Persona) (Persona, error)
	// RemovePersona marks the persona removed; its lineage's lore stays.
	RemovePersona(ctx context.Context, server string, id int64) error
	ListPersonas(ctx context.Context, server string) ([]Persona, error)
	// LineageKnown reports whether a lineage is registered on the server
	// (by a persona, removed or not) or owns lore there.
	LineageKnown(ctx context.Context, server string, lineage Lineage) (bool, error)

	CreateCollection(ctx context.Context, c Collection) (Collection, error)
	// CreateCollectionWithEntries creates the collection and its entries in
	// one transaction: a failed or oversized batch leaves no empty book.
	CreateCollectionWithEntries(ctx context.Context, c Collection, entries []Entry) (Collection, ImportResult, error)
	RenameCollection(ctx context.Context, server string, id int64, newName string) (Collection, error)
	// DeleteCollection removes the collection, its entries and their
	// pending channel markers.
	DeleteCollection(ctx context.Context, server string, id int64) error
	SetCollectionEnabled(ctx context.Context, server string, id int64, enabled bool) (Collection, error)
	SetCollectionChannels(ctx context.Context, server string, id int64, channelIDs []string) (Collection, error)
	GetCollection(ctx context.Context, server string, id int64) (Collection, error)
	GetCollectionByName(ctx context.Context, server, name string) (Collection, error)
	// ListCollections returns the server's collections by name with counts.
	ListCollections(ctx context.Context, server string) ([]Collection, error)

	InsertEntry(ctx context.Context, e Entry) (Entry, error)
	UpdateEntry(ctx context.Context, server string, lineage Lineage, id int64, p EntryPatch) (Entry, error)
	DeleteEntry(ctx context.Context, server string, lineage Lineage, id int64) error
	SetEntryEnabled(ctx context.Context, server string, lineage Lineage, id int64, enabled bool) (Entry, error)
	GetEntry(ctx context.Context, server string, lineage Lineage, id int64) (Entry, error)

	// LoadEnabledForScope is the per-turn read: one indexed query. On
	// failure it returns an empty snapshot and the error (callers at run
	// time log it and go on with no lore).
	LoadEnabledForScope(ctx context.Context, server string, lineage Lineage) (Snapshot, error)
	// ListScope returns exactly one scope, disabled entries included, in
	// insertion order. For Serverwide scope, collection "" lists every
	// collection's entries, a name lists one. Failure wraps ErrUnavailable.
	ListScope(ctx context.Context, server string, lineage Lineage, collection string) ([]Entry, error)
	// CountByScope returns entry counts keyed by lineage (Serverwide = 0).
	CountByScope(ctx context.Context, server string) (ScopeCounts, error)

	// ReplacePersonaBook validates the whole batch, then deletes and inserts
	// in one transaction. An empty batch clears the lineage.
	ReplacePersonaBook(ctx context.Context, server string, lineage Lineage, entries []Entry) (ImportResult, error)
	// ImportEntries appends to or replaces one book under the server lock.
	ImportEntries(ctx context.Context, target ImportTarget, mode ImportMode, entries []Entry) (ImportResult, error)
	// ReplaceScopes replaces whole scopes for a workspace backup: entries
	// carry collection names; collections carries each collection's
	// settings (enabled, channels), restored in the same transaction.
	ReplaceScopes(ctx context.Context, server string, scopes []ScopeReplacement) error
	// WipeServerLore deletes Serverwide lore, collections and their markers;
	// persona lore too unless preservePersonas.
	WipeServerLore(ctx context.Context, server string, preservePersonas bool) error
}

// ScopeReplacement is one scope of a workspace backup import: its complete
// set of entries and, for Serverwide scope, the collections' settings.
type ScopeReplacement struct {
	Lineage     Lineage
	Entries     []Entry
	Collections []Collection
}
