package postgres_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// kinds returns the kinds of revs, newest first.
func kinds(revs []lore.Revision) []lore.RevisionKind {
	out := make([]lore.RevisionKind, len(revs))
	for i, r := range revs {
		out[i] = r.Kind
	}
	return out
}

func (b *testBundle) revisions(t testing.TB, id int64) []lore.Revision {
	t.Helper()
	revs, more, err := b.store.EntryRevisions(b.ctx, b.server, id, 100, 0)
	require.NoError(t, err)
	require.False(t, more)
	return revs
}

func TestRevisionsAfterEveryKindOfWrite(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := lore.WithActor(b.ctx, "user:42")
	in := entry(b.server, 7, "", "Dragons hoard gold.")
	in.LegacyChannelTags = []string{"tavern"}
	in.Extensions = map[string]json.RawMessage{"st.depth": json.RawMessage(`4`)}
	e, err := b.store.InsertEntry(ctx, in)
	require.NoError(t, err)
	e, err = b.store.UpdateEntry(ctx, b.server, 7, e.ID, lore.EntryPatch{Content: ptr("Dragons hoard silver.")})
	require.NoError(t, err)
	_, err = b.store.SetEntryEnabled(b.ctx, b.server, 7, e.ID, false)
	require.NoError(t, err)

	revs := b.revisions(t, e.ID)
	require.Equal(t, []lore.RevisionKind{lore.RevisionUpdate, lore.RevisionUpdate, lore.RevisionCreate}, kinds(revs))
	require.Equal(t, "user:42", revs[1].Actor)
	require.Equal(t, "", revs[0].Actor, "a write without an actor records none")
	// The create holds the whole entry, legacy names and extensions included.
	require.Equal(t, "Dragons hoard gold.", revs[2].Entry.Content)
	require.Equal(t, []string{"tavern"}, revs[2].Entry.LegacyChannelTags)
	require.JSONEq(t, `4`, string(revs[2].Entry.Extensions["st.depth"]))
	require.Nil(t, revs[2].Changed, "the first revision compares with nothing")
	require.Equal(t, []string{"content"}, revs[1].Changed)
	require.Equal(t, []string{"enabled"}, revs[0].Changed)
	require.False(t, revs[0].Entry.Enabled)

	// Paging: newest first, older than the cursor, Changed still filled.
	page, more, err := b.store.EntryRevisions(b.ctx, b.server, e.ID, 1, revs[0].ID)
	require.NoError(t, err)
	require.True(t, more)
	require.Equal(t, revs[1].ID, page[0].ID)
	require.Equal(t, []string{"content"}, page[0].Changed)

	// Another server sees none of them.
	other := snowflake(t)
	_, err = b.store.UpsertServer(b.ctx, other, "Other")
	require.NoError(t, err)
	none, _, err := b.store.EntryRevisions(b.ctx, other, e.ID, 10, 0)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = b.store.RestoreRevision(b.ctx, other, revs[2].ID, nil)
	require.ErrorIs(t, err, lore.ErrNotFound)

	// Delete: the revision holds the last state; the entry is listed as deleted.
	require.NoError(t, b.store.DeleteEntry(ctx, b.server, 7, e.ID))
	revs = b.revisions(t, e.ID)
	require.Equal(t, lore.RevisionDelete, revs[0].Kind)
	require.True(t, revs[0].Deleted)
	require.Equal(t, "Dragons hoard silver.", revs[0].Entry.Content)
	require.Equal(t, []string{"tavern"}, revs[0].Entry.LegacyChannelTags)
	deleted, _, err := b.store.DeletedEntries(b.ctx, b.server, 10, 0)
	require.NoError(t, err)
	require.Len(t, deleted, 1)
	require.Equal(t, e.ID, deleted[0].EntryID)

	// Restoring a deleted entry: a new write, same id; expecting a version is stale.
	_, err = b.store.RestoreRevision(ctx, b.server, revs[3].ID, &e.UpdatedAt)
	require.ErrorIs(t, err, lore.ErrStaleTarget)
	got, err := b.store.RestoreRevision(ctx, b.server, revs[3].ID, nil)
	require.NoError(t, err)
	require.Equal(t, e.ID, got.ID)
	require.Equal(t, "Dragons hoard gold.", got.Content)
	require.Equal(t, []string{"tavern"}, got.LegacyChannelTags)
	require.True(t, got.Enabled)
	deleted, _, err = b.store.DeletedEntries(b.ctx, b.server, 10, 0)
	require.NoError(t, err)
	require.Empty(t, deleted, "a restored entry is no longer deleted")
	revs = b.revisions(t, e.ID)
	require.Equal(t, lore.RevisionRestore, revs[0].Kind)
	require.Len(t, revs, 5)

	// Restoring in place: STALE_TARGET only when the expectation is stale.
	_, err = b.store.RestoreRevision(ctx, b.server, revs[3].ID, &e.UpdatedAt)
	require.ErrorIs(t, err, lore.ErrStaleTarget)
	got, err = b.store.RestoreRevision(ctx, b.server, revs[3].ID, &got.UpdatedAt)
	require.NoError(t, err)
	require.Equal(t, "Dragons hoard silver.", got.Content)
	read, err := b.store.GetEntry(b.ctx, b.server, 7, e.ID)
	require.NoError(t, err)
	require.Equal(t, got.UpdatedAt, read.UpdatedAt)
}

func TestRevisionsOfImportsUndoAndWipe(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res, err := b.store.ReplacePersonaBook(b.ctx, b.server, 3, entries(b.server, 3, "", "a", 2))
	require.NoError(t, err)
	require.Equal(t, 2, res.Added)
	list, err := b.store.ListScope(b.ctx, b.server, 3, "")
	require.NoError(t, err)
	require.Equal(t, []lore.RevisionKind{lore.RevisionImport}, kinds(b.revisions(t, list[0].ID)))
	// A replace deletes the old entries as an import.
	_, err = b.store.ReplacePersonaBook(b.ctx, b.server, 3, entries(b.server, 3, "", "b", 1))
	require.NoError(t, err)
	revs := b.revisions(t, list[0].ID)
	require.Equal(t, []lore.RevisionKind{lore.RevisionImport, lore.RevisionImport}, kinds(revs))
	require.True(t, revs[0].Deleted)

	// A wipe's deletions are revisions too; a server delete takes them all.
	b.collection(t, "World")
	w := b.insert(t, entry(b.server, 0, "World", "sky"))[0]
	require.NoError(t, b.store.WipeServerLore(b.ctx, b.server, false))
	require.True(t, b.revisions(t, w.ID)[0].Deleted)
	require.NoError(t, b.store.DeleteServer(b.ctx, b.server))
	require.Zero(t, b.count(t, `SELECT count(*) FROM entry_revisions WHERE server_id = $1`, b.server))
}

func TestRevisionRestoreIntoFullScopeAndDeletedCollection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.store.WithLimits(lore.Limits{ScopeEntries: 2})
	b.collection(t, "World")
	e := b.insert(t, entry(b.server, 0, "World", "one"))[0]
	require.NoError(t, st.DeleteEntry(b.ctx, b.server, 0, e.ID))
	b.insert(t, entry(b.server, 0, "World", "two"), entry(b.server, 0, "World", "three"))
	del := b.revisions(t, e.ID)[0]
	_, err := st.RestoreRevision(b.ctx, b.server, del.ID, nil)
	require.ErrorIs(t, err, lore.ErrScopeFull)

	c := b.collection(t, "Gone")
	g := b.insert(t, entry(b.server, 0, "Gone", "four"))[0]
	require.NoError(t, b.store.DeleteCollection(b.ctx, b.server, c.ID))
	_, err = b.store.RestoreRevision(b.ctx, b.server, b.revisions(t, g.ID)[0].ID, nil)
	require.ErrorIs(t, err, lore.ErrNotFound)
}

func TestRevisionRestoreFillsColumnsAddedLater(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.insert(t, entry(b.server, 5, "", "old"))[0]
	require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, 5, e.ID))
	// A revision written before a migration added columns lacks their keys.
	_, err := b.pool.Exec(b.ctx, `UPDATE entry_revisions SET entry = entry - 'priority' - 'sticky' - 'group_weight' WHERE entry_id = $1`, e.ID)
	require.NoError(t, err)
	got, err := b.store.RestoreRevision(b.ctx, b.server, b.revisions(t, e.ID)[0].ID, nil)
	require.NoError(t, err)
	require.Equal(t, lore.DefaultPriority, got.Priority)
	require.Equal(t, lore.DefaultGroupWeight, got.GroupWeight)
	require.Zero(t, got.Sticky)
}

func TestPruneRevisions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.insert(t, entry(b.server, 5, "", "v0"))[0]
	for i := 1; i <= 4; i++ {
		_, err := b.store.UpdateEntry(b.ctx, b.server, 5, e.ID, lore.EntryPatch{Order: ptr(i)})
		require.NoError(t, err)
	}
	f := b.insert(t, entry(b.server, 5, "", "other"))[0]
	_, err := b.pool.Exec(b.ctx, `UPDATE entry_revisions SET at = now() - interval '10 days' WHERE entry_id = $1`, f.ID)
	require.NoError(t, err)
	n, err := b.store.PruneRevisions(b.ctx, 3, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, int64(3))
	revs := b.revisions(t, e.ID)
	require.Len(t, revs, 3)
	require.Equal(t, 4, revs[0].Entry.Order, "the newest are kept")
	require.Empty(t, b.revisions(t, f.ID))
}
