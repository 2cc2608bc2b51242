package lore

import (
	"context"
	"time"
)

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
	// PersonaBook is the book settings of Lineage's book (zero for
	// Serverwide snapshots and lineages without settings).
	PersonaBook BookSettings
	// Character is the character of the card last imported onto a persona
	// of Lineage (importPersonaCard; the persona not removed and with the
	// lowest id first when several share the lineage), nil when none: a
	// request without context.character uses it.
	Character *CharacterContext
	// UnknownLineage is set when Lineage is a persona lineage the server
	// does not know: no persona (removed or not) reads it and it owns no
	// lore there (Store.LineageKnown false). Such a turn has Serverwide
	// lore only; the API warns the caller (docs/api.md "Activation
	// notices").
	UnknownLineage bool
}

// ScopeCounts maps a lineage to its entry count (disabled entries
// included); the Serverwide key is Serverwide (0), the seed's NULL key, and
// is always present. Persona lineages appear when they hold entries.
type ScopeCounts map[Lineage]int

// EntryPatch is a partial edit of an entry. Nil fields keep the stored
// value, so an edit never drops activation fields or channels the caller did
// not touch (docs/contract.md#panel: edits keep activation fields and stored
// channel ids the member did not change).
type EntryPatch struct {
	Title         *string
	Content       *string
	Keys          *[]string
	SecondaryKeys *[]string
	Logic         *SelectiveLogic
	Constant      *bool
	Enabled       *bool
	// ScanDepth: a non-nil pointer to nil clears the override.
	ScanDepth   **int
	Probability *int
	Order       *int
	Priority    *int
	// Placement without Position sets Position to BEFORE_CHAR or
	// AFTER_CHAR when it changes the entry's placement (an unchanged
	// placement keeps the position, so a client that knows only
	// placements never loses one); with Position it must agree with it
	// (else the edit fails on "position").
	Placement *Placement
	Role      *Role
	// Position sets the kind (and the derived placement); Depth and Outlet
	// replace those fields.
	Position *PositionKind
	Depth    *int
	Outlet   *string
	// Match sets the flags that are non-nil.
	Match MatchPatch
	// CharacterFilter sets the parts that are non-nil.
	CharacterFilter CharacterFilterPatch
	// GenerationTypes replaces the list (empty = every type).
	GenerationTypes *[]GenerationType
	CaseSensitive   **bool
	WholeWords      **bool
	IgnoreBudget    *bool
	Vectorized      *bool
	// CategoryID sets the entry's category (0: none); it must be a
	// category of the entry's book. Note sets the creator note.
	CategoryID *int64
	Note       *string
	// Inclusion groups, recursion flags and timed effects (see Entry).
	// UseGroupScoring: a non-nil pointer to nil clears the override.
	Group               *string
	GroupOverride       *bool
	GroupWeight         *int
	UseGroupScoring     **bool
	ExcludeRecursion    *bool
	PreventRecursion    *bool
	DelayUntilRecursion *int
	Sticky              *int
	Cooldown            *int
	Delay               *int
	// ChannelIDs (persona entries only): when the new set differs from the
	// stored one, pending LegacyChannelTags are cleared deliberately; when it
	// is equal (as a set) they survive.
	ChannelIDs *[]string
	// ExpectedUpdatedAt, when set, is the entry's UpdatedAt as the caller
	// read it: under the server lock a different stored value fails the
	// edit with a *StaleError and nothing is written (CheckUpdatedAt).
	ExpectedUpdatedAt *time.Time
}

// ImportMode selects how an import writes into an existing book.
//
// Duplicate identity: an entry is "already present" when the target book
// (the persona lineage, or the one Serverwide collection) holds an entry
// with the same DuplicateKey (title, content, primary and secondary keys,
// exact and in order), or an earlier entry of the same batch does.
// Activation settings, flags, channels, pending legacy names, extensions and
// collection settings do not take part. The same entry in another
// Serverwide collection is not a duplicate.
type ImportMode int

const (
	// Append adds entries not already present (see ImportMode) and counts
	// the rest as ImportResult.Duplicates; the whole batch is refused with
	// ErrScopeFull if the added entries would overflow the scope.
	Append ImportMode = iota
	// Replace replaces the target book: one persona lineage, or one
	// Serverwide collection (other collections stay and count against the
	// shared limit).
	Replace
)

// ImportTarget names the book an import writes into; it is the one target
// type of every import path (API, jobs, Discord, CLI; lore/transfer). For
// Serverwide scope CollectionID and Collection are the id and name the
// caller saw when it prepared the import; under the lock both must still
// match, else the write fails with ErrStaleTarget. CollectionID 0 on
// Serverwide scope creates a new collection named NewName (else the book's
// name, else the file name).
type ImportTarget struct {
	Server       string
	Lineage      Lineage
	CollectionID int64
	Collection   string
	// NewName names a new Serverwide collection (CollectionID 0).
	NewName string
	// Mode is Append or Replace (lore/transfer; Store.ImportEntries takes
	// its mode as a parameter).
	Mode ImportMode
	// Settings, when non-nil, are the imported book's settings: a Replace
	// stores them as the target book's settings (validated against the
	// server's budget unit); an Append keeps the book's own settings.
	Settings *BookSettings
}

// ImportResult counts what an import batch did.
type ImportResult struct {
	// Added is the number of entries written.
	Added int
	// Duplicates is the number of batch entries skipped as already present.
	Duplicates int
	// Replaced is the number of stored entries a replacement deleted.
	Replaced int
	// Collection is the target collection after the write (Serverwide only).
	Collection *Collection
}

// MaxEntriesByID bounds the ids of one Store.EntriesByID read: two full
// scopes (the Serverwide one and a persona book).
const MaxEntriesByID = 2 * MaxEntriesPerScope

// Store is loregate's persistence contract (docs/contract.md#storage). Every method takes a context first and is scoped by server
// (a Discord snowflake; anything else is ErrInvalid with field "server");
// entry methods address an entry by (server, lineage, id) together, so an id
// of another server or scope is ErrNotFound, never a leak, and an edit can
// never move an entry to another scope. Every lore write (entries,
// collections, server settings) runs in one transaction that locks the
// server row before counting or deleting, so concurrent writers never take
// a scope past MaxEntriesPerScope, and increments Server.LoreVersion on
// success. Entries are validated with Entry.Validate before anything is
// written (whole batches first; field names are prefixed "entries[i]").
// Errors wrap the sentinels of this package; a database failure wraps
// ErrUnavailable. lore/postgres is the implementation; its Store also offers
// WithTx/InTx to join lore writes with other writes (River's InsertTx) in
// one transaction.
type Store interface {
	// UpsertServer creates a server with DefaultServerSettings or renames
	// it; settings are kept on rename.
	UpsertServer(ctx context.Context, id, name string) (Server, error)
	// GetServer returns ErrNotFound for an unknown server.
	GetServer(ctx context.Context, id string) (Server, error)
	// UpdateServerSettings replaces the settings and bumps LoreVersion
	// (settings change matching). ErrNotFound for an unknown server.
	UpdateServerSettings(ctx context.Context, id string, s ServerSettings) (Server, error)
	// PatchServerSettings changes only the settings p sets, in one
	// statement, so concurrent partial updates never undo each other.
	PatchServerSettings(ctx context.Context, id string, p SettingsPatch) (Server, error)
	// DeleteServer removes the server and cascades all its lore.
	DeleteServer(ctx context.Context, id string) error

	// UpsertPersona registers a persona or renames it; re-registering a
	// removed persona restores it (under p.Lineage). A persona that is not
	// removed never moves to another lineage: p.Lineage naming another one
	// is ErrInvalid (reason i18n.PersonaOtherLineage). Lore is keyed by
	// lineage and untouched. ErrNotFound for an unknown server.
	UpsertPersona(ctx context.Context, p Persona) (Persona, error)
	// RemovePersona marks the persona removed; its lineage's lore stays.
	RemovePersona(ctx context.Context, server string, id int64) error
	// ListPersonas returns the registry, removed personas included, by id.
	ListPersonas(ctx context.Context, server string) ([]Persona, error)
	// LineageKnown reports whether a lineage is registered on the server
	// (by a persona, removed or not) or owns lore there.
	LineageKnown(ctx context.Context, server string, lineage Lineage) (bool, error)

	// CreateCollection creates a Serverwide collection with c's name,
	// enabled flag and channels. ErrDuplicateName when the name is taken;
	// ErrInvalid past MaxCollectionsPerServer.
	CreateCollection(ctx context.Context, c Collection) (Collection, error)
	// CreateCollectionWithEntries creates the collection and its entries in
	// one transaction: a failed or oversized batch leaves no empty book.
	// Duplicates inside the batch are skipped and counted.
	CreateCollectionWithEntries(ctx context.Context, c Collection, entries []Entry) (Collection, ImportResult, error)
	// RenameCollection renames; the entries follow. The new name must be
	// free (ErrDuplicateName).
	RenameCollection(ctx context.Context, server string, id int64, newName string) (Collection, error)
	// DeleteCollection removes the collection, its entries and their
	// pending channel markers.
	DeleteCollection(ctx context.Context, server string, id int64) error
	// SetCollectionEnabled turns the whole book on or off without changing
	// its entries' own flags.
	SetCollectionEnabled(ctx context.Context, server string, id int64, enabled bool) (Collection, error)
	// SetCollectionChannels replaces the book's channel ids (snowflake
	// syntax, at most MaxChannelIDs, no duplicates; empty = all channels).
	SetCollectionChannels(ctx context.Context, server string, id int64, channelIDs []string) (Collection, error)
	// GetCollection and GetCollectionByName return the collection with its
	// entry count, or ErrNotFound.
	GetCollection(ctx context.Context, server string, id int64) (Collection, error)
	GetCollectionByName(ctx context.Context, server, name string) (Collection, error)
	// ListCollections returns the server's collections by name with counts.
	ListCollections(ctx context.Context, server string) ([]Collection, error)
	// UpdateCollectionSettings applies p to the collection's book settings
	// under the server lock and validates the result against the server's
	// budget unit.
	UpdateCollectionSettings(ctx context.Context, server string, id int64, p BookSettingsPatch) (Collection, error)

	// PersonaBookSettings returns a persona lineage's book settings (zero
	// when none are stored).
	PersonaBookSettings(ctx context.Context, server string, lineage Lineage) (BookSettings, error)
	// PersonaBookUpdatedAt returns when a persona lineage's book settings
	// were last written; zero when none are stored.
	PersonaBookUpdatedAt(ctx context.Context, server string, lineage Lineage) (time.Time, error)
	// UpdatePersonaBookSettings applies p to a persona lineage's book
	// settings like UpdateCollectionSettings. The lineage need not be
	// registered.
	UpdatePersonaBookSettings(ctx context.Context, server string, lineage Lineage, p BookSettingsPatch) (BookSettings, error)

	// InsertEntry stores e in its scope (e.Server, e.Lineage and, for
	// Serverwide, the existing collection e.Collection). ErrScopeFull when
	// the scope holds MaxEntriesPerScope entries; ErrNotFound for an
	// unknown server or collection. Returns the entry with id and times.
	InsertEntry(ctx context.Context, e Entry) (Entry, error)
	// UpdateEntry applies p (see EntryPatch for the channel and legacy-name
	// rule) and validates the result.
	UpdateEntry(ctx context.Context, server string, lineage Lineage, id int64, p EntryPatch) (Entry, error)
	// DeleteEntry removes the entry and its pending legacy channel names.
	DeleteEntry(ctx context.Context, server string, lineage Lineage, id int64) error
	// SetEntryEnabled sets the entry's own enabled flag.
	SetEntryEnabled(ctx context.Context, server string, lineage Lineage, id int64, enabled bool) (Entry, error)
	// GetEntry returns the entry with its LegacyChannelTags.
	GetEntry(ctx context.Context, server string, lineage Lineage, id int64) (Entry, error)
	// EntriesByID returns the server's entries with these ids, in any
	// scope, in the order of ids; an id of another server, an unknown id
	// and a repeat are left out. At most MaxEntriesByID ids (more is
	// ErrInvalid).
	EntriesByID(ctx context.Context, server string, ids []int64) ([]Entry, error)

	// LoadEnabledForScope is the per-turn read: one indexed query. On
	// failure it returns an empty snapshot and the error (callers at run
	// time log it and go on with no lore). An unknown server is
	// ErrNotFound; a known server with an empty scope is a snapshot with no
	// entries and the server's settings. Lineage Serverwide reads only the
	// Serverwide entries.
	LoadEnabledForScope(ctx context.Context, server string, lineage Lineage) (Snapshot, error)
	// ListScope returns exactly one scope, disabled entries included, in
	// insertion order. For Serverwide scope, collection "" lists every
	// collection's entries, a name lists one (ErrNotFound when there is no
	// such collection); a persona lineage with a collection name is
	// ErrInvalid. Failure wraps ErrUnavailable, so the panel can show
	// "unavailable" instead of an empty scope.
	ListScope(ctx context.Context, server string, lineage Lineage, collection string) ([]Entry, error)
	// ListEntries returns one page of one book's entries, filtered,
	// sorted and counted in the database (see EntryQuery); the work is
	// bounded by the scope's size and the page's limit. ErrInvalid for a
	// bad query; an unknown server, lineage or collection is an empty page.
	ListEntries(ctx context.Context, q EntryQuery) (EntryPage, error)
	// ListServers returns one page of servers by name, then id (see
	// ServerQuery); ids that are not snowflakes are ignored.
	ListServers(ctx context.Context, q ServerQuery) (ServerPage, error)
	// CountByScope returns entry counts keyed by lineage (see ScopeCounts);
	// nil and an ErrUnavailable error on failure.
	CountByScope(ctx context.Context, server string) (ScopeCounts, error)

	// ReplacePersonaBook validates the whole batch, then deletes and inserts
	// in one transaction. An empty batch clears the lineage; more than
	// MaxEntriesPerScope is ErrScopeFull; any failure keeps the previous
	// book. Collection names on the entries are ignored.
	ReplacePersonaBook(ctx context.Context, server string, lineage Lineage, entries []Entry) (ImportResult, error)
	// ImportEntries appends to or replaces one book under the server lock.
	// A Serverwide target must still exist with target.CollectionID and
	// target.Collection under the lock, else ErrStaleTarget and nothing is
	// written. Replacing a collection counts the other collections against
	// the shared limit and leaves them intact; the book's settings are kept.
	// Persona Replace is ReplacePersonaBook.
	ImportEntries(ctx context.Context, target ImportTarget, mode ImportMode, entries []Entry) (ImportResult, error)
	// ReplaceScopes replaces whole scopes for a workspace backup in one
	// transaction; unlisted scopes are untouched (see ScopeReplacement).
	ReplaceScopes(ctx context.Context, server string, scopes []ScopeReplacement) error
	// ImportPersonaCard writes a character card import: a new persona (an
	// "alter") with the next free persona id and a new lineage, or an
	// existing persona; the card's book replaces the lineage's book. Persona
	// and lore commit together: when the lore write fails, a new persona is
	// not created and nothing else changes. ErrNotFound for an unknown
	// server or persona.
	ImportPersonaCard(ctx context.Context, c PersonaCardImport) (Persona, ImportResult, error)
	// WipeServerLore deletes Serverwide lore, collections and their markers
	// in one transaction; persona lore too unless preservePersonas. The
	// persona registry stays.
	WipeServerLore(ctx context.Context, server string, preservePersonas bool) error
}

// ScopeReplacement is one scope of a workspace backup import: its complete
// set of entries and, for Serverwide scope, the collections' settings.
// Each lineage may appear once per call; at most MaxEntriesPerScope
// entries.
type ScopeReplacement struct {
	Lineage Lineage
	// Entries is the scope's complete content. Persona entries ignore
	// collection names; Serverwide entries name their collection ("" means
	// DefaultCollection).
	Entries []Entry
	// Positions, when set, gives each of Entries its position in the
	// input the caller read (a backup file's scope, before the import's
	// ordering by source id), which an invalid entry's field names
	// ("scopes[i].entries[Positions[j]]"); nil: its index in Entries.
	Positions []int
	// Collections carries Serverwide collection settings (Name, Enabled,
	// ChannelIDs; other fields ignored). A name may repeat, e.g. once per
	// entry as a backup decoder reads the per-entry lorebook_enabled and
	// lorebook_channel_disc_ids, but every occurrence must agree on Enabled
	// and on the channel set, else ErrInvalid. A collection used by Entries
	// and absent here is restored enabled for every channel. The
	// Serverwide scope is replaced as a whole: collections are upserted by
	// name (keeping their ids), and collections neither used nor listed
	// are deleted. Ignored for persona scopes.
	Collections []Collection
}

// PersonaCardImport is a character card imported as a persona (docs/contract.md#imports:
// alter imports).
type PersonaCardImport struct {
	Server string
	// PersonaID is the existing persona whose lineage's book the card
	// replaces; 0 creates a new persona (an alter) with the next free
	// persona id and a new lineage.
	PersonaID int64
	// Name is the new persona's display name (ignored for an existing
	// persona, which keeps its name).
	Name string
	// Entries is the card's book, at most MaxEntriesPerScope entries. nil
	// (a card without a book) leaves the lineage's lore as it is; a
	// non-nil slice, even empty, replaces the lineage's whole book.
	Entries []Entry
	// Settings, when non-nil (and Entries is), replace the lineage's book
	// settings, validated in the server's budget unit.
	Settings *BookSettings
	// Character is the card's character, kept on the persona (nil clears
	// what an earlier card left); Snapshot.Character reads it back.
	Character *CharacterContext
	// Source, when non-nil (and Entries is), is kept as the book's source
	// fields (BookSource; its Server, Lineage and CollectionID are set by
	// the import), so every export of the book writes them.
	Source *BookSource
}
