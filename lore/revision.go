package lore

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"
)

// RevisionKind is the kind of write a revision recorded
// (docs/workbench.md#revisions).
type RevisionKind string

// The kinds of writes that record revisions.
const (
	RevisionCreate   RevisionKind = "create"
	RevisionUpdate   RevisionKind = "update"
	RevisionDelete   RevisionKind = "delete"
	RevisionImport   RevisionKind = "import"
	RevisionUndo     RevisionKind = "undo"
	RevisionMove     RevisionKind = "move"
	RevisionRestore  RevisionKind = "restore"
	RevisionProposal RevisionKind = "proposal"
	RevisionBulk     RevisionKind = "bulk"
)

// Revision is one recorded state of an entry: the whole canonical entry as
// a write left it (for a delete, its last state; Deleted is then true).
type Revision struct {
	ID      int64
	Server  string
	EntryID int64
	Kind    RevisionKind
	// Actor is who wrote ("user:<discord id>", "service:<name>", "cli",
	// "job" or "" when unknown).
	Actor   string
	At      time.Time
	Deleted bool
	// Entry is the state; a revision taken before a later migration added
	// a field reads with that field's default.
	Entry Entry
	// Changed names the fields (JSON names of Entry) that differ from the
	// entry's previous revision; nil for its first.
	Changed []string
}

// RevisionStore is the revision history of a Store (lore/postgres
// implements it). Revisions are written by the store itself with every
// entry write, in its transaction; these methods read and restore them.
type RevisionStore interface {
	// EntryRevisions lists one entry's revisions newest first: at most
	// first, older than revision before (0: from the newest); more
	// reports whether older ones exist. The entry is addressed by server
	// and id (it may be deleted); another server's entry has none. server
	// "" reads the entry whatever its server: the caller must then check
	// that it may read Revision.Server.
	EntryRevisions(ctx context.Context, server string, entryID int64, first int, before int64) (revs []Revision, more bool, err error)
	// DeletedEntries lists the deleting revisions of the server's entries
	// that are deleted now (moves left out), newest first, paged like
	// EntryRevisions.
	DeletedEntries(ctx context.Context, server string, first int, before int64) (revs []Revision, more bool, err error)
	// Revision returns one revision of the server (ErrNotFound).
	Revision(ctx context.Context, server string, id int64) (Revision, error)
	// RestoreRevision writes revision id's state as a new write (kind
	// restore): in place when the entry exists, else re-created with its
	// id in its scope (ErrScopeFull when full, ErrNotFound when its
	// collection is gone). expected, when set, is the entry's UpdatedAt as
	// the caller read it (*StaleError when it differs; a deleted entry has
	// none, so any expectation is stale).
	RestoreRevision(ctx context.Context, server string, id int64, expected *time.Time) (Entry, error)
	// PruneRevisions deletes revisions beyond the newest keep of each entry
	// and those older than olderThan, and returns how many.
	PruneRevisions(ctx context.Context, keep int, olderThan time.Time) (int64, error)
}

// Defaults of the revision retention (docs/workbench.md#revisions).
const (
	// DefaultRevisionRetention is how many revisions of each entry are
	// kept (LOREGATE_REVISION_RETENTION).
	DefaultRevisionRetention = 100
	// DefaultRevisionMaxAge is how long revisions are kept
	// (LOREGATE_REVISION_MAX_AGE): 90 days.
	DefaultRevisionMaxAge = 2160 * time.Hour
)

type writeMetaKey struct{}

// WriteMeta says who makes the writes of a context and, optionally, what
// kind of write they are; the store records both on the revisions it
// writes. An empty Kind lets the store choose (create, update, delete, or
// the operation's own kind).
type WriteMeta struct {
	Actor string
	Kind  RevisionKind
}

// WithActor returns ctx whose writes are recorded as made by actor
// ("user:<discord id>", "service:<name>", "cli", "job"); an empty actor
// returns ctx as it is.
func WithActor(ctx context.Context, actor string) context.Context {
	if actor == "" {
		return ctx
	}
	m := WriteMetaFrom(ctx)
	m.Actor = actor
	return context.WithValue(ctx, writeMetaKey{}, m)
}

// WithRevisionKind returns ctx whose writes record revisions of kind k.
func WithRevisionKind(ctx context.Context, k RevisionKind) context.Context {
	m := WriteMetaFrom(ctx)
	m.Kind = k
	return context.WithValue(ctx, writeMetaKey{}, m)
}

// WriteMetaFrom returns the WriteMeta of ctx (zero when none).
func WriteMetaFrom(ctx context.Context) WriteMeta {
	m, _ := ctx.Value(writeMetaKey{}).(WriteMeta)
	return m
}

// revisionIgnored are the Entry fields ChangedFields leaves out: identity
// and times change with every write or never.
var revisionIgnored = []string{"id", "server", "createdAt", "updatedAt"}

// ChangedFields returns the JSON names of the Entry fields that differ
// between prev and next, sorted (extensions compare as one field).
func ChangedFields(prev, next Entry) []string {
	a, b := entryFieldMap(prev), entryFieldMap(next)
	var out []string
	for k, v := range b {
		if w, ok := a[k]; !ok || !bytes.Equal(v, w) {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	out = slices.DeleteFunc(out, func(k string) bool { return slices.Contains(revisionIgnored, k) })
	slices.Sort(out)
	return slices.Compact(out)
}

// entryFieldMap returns e's fields by JSON name, with empty lists and
// zero values as absent (omitempty) so nil and empty compare equal.
func entryFieldMap(e Entry) map[string]json.RawMessage {
	for _, p := range []*[]string{&e.Keys, &e.SecondaryKeys, &e.ChannelIDs, &e.LegacyChannelTags} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	if len(e.Extensions) == 0 {
		e.Extensions = nil
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return m
}
