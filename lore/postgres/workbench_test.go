package postgres_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/transfer"
)

func refs(es ...lore.Entry) []lore.EntryRef {
	out := make([]lore.EntryRef, len(es))
	for i, e := range es {
		out[i] = lore.EntryRef{ID: e.ID}
	}
	return out
}

func TestMoveEntriesAcrossScopesAndUndo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := lore.WithActor(b.ctx, "user:7")
	world := b.collection(t, "World")
	p := entry(b.server, 4, "", "persona lore")
	p.ChannelIDs = []string{"323456789012345678"}
	p.LegacyChannelTags = []string{"tavern"}
	src := b.insert(t, p, entry(b.server, 4, "", "second"))
	res, err := b.store.MoveEntries(ctx, lore.MoveRequest{Server: b.server, From: 4, Entries: refs(src...),
		To: lore.BookRef{Lineage: 0, CollectionID: world.ID}})
	require.NoError(t, err)
	require.False(t, res.KeptIDs)
	require.True(t, res.ChannelsFromCollection, "persona channel ids give way to the collection's")
	require.Len(t, res.Moved, 2)
	require.NotEqual(t, src[0].ID, res.Moved[0].To)
	require.Equal(t, src[0].ID, res.Moved[0].From)
	require.Zero(t, b.scopeCount(t, 4))
	moved, err := b.store.GetEntry(b.ctx, b.server, 0, res.Moved[0].To)
	require.NoError(t, err)
	require.Equal(t, "World", moved.Collection)
	require.Empty(t, moved.ChannelIDs)
	require.Equal(t, []string{"tavern"}, moved.LegacyChannelTags)
	revs := b.revisions(t, moved.ID)
	require.Equal(t, lore.RevisionMove, revs[0].Kind)
	require.Equal(t, "user:7", revs[0].Actor)
	// The old ids are not "deleted entries": they live on under new ids.
	del, _, err := b.store.DeletedEntries(b.ctx, b.server, 10, 0)
	require.NoError(t, err)
	require.Empty(t, del)

	// Undo puts the originals back with their ids and channels.
	u, err := transfer.Undo(b.ctx, b.store, b.server, res.HistoryID, "user:7")
	require.NoError(t, err)
	require.Equal(t, 2, u.Restored)
	require.Equal(t, 2, u.Removed)
	back, err := b.store.GetEntry(b.ctx, b.server, 4, src[0].ID)
	require.NoError(t, err)
	require.Equal(t, p.ChannelIDs, back.ChannelIDs)
	require.Zero(t, b.scopeCount(t, 0))
	// The restore is recorded as the undo's revision, by its actor.
	revs = b.revisions(t, back.ID)
	require.Equal(t, lore.RevisionUndo, revs[0].Kind)
	require.Equal(t, "user:7", revs[0].Actor)
}

func TestMoveBetweenCollectionsKeepsIds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "A")
	dst := b.collection(t, "B")
	es := b.insert(t, entry(b.server, 0, "A", "one"), entry(b.server, 0, "A", "two"))
	res, err := b.store.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, Entries: refs(es...), To: lore.BookRef{CollectionID: dst.ID}})
	require.NoError(t, err)
	require.True(t, res.KeptIDs)
	require.Equal(t, []lore.MovedEntry{{From: es[0].ID, To: es[0].ID}, {From: es[1].ID, To: es[1].ID}}, res.Moved)
	got, err := b.store.GetEntry(b.ctx, b.server, 0, es[0].ID)
	require.NoError(t, err)
	require.Equal(t, "B", got.Collection)
	// Moving into the book they are in is refused.
	_, err = b.store.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, Entries: refs(es...), To: lore.BookRef{CollectionID: dst.ID}})
	requireInvalidField(t, err, "target")
	// Undo moves them back (same ids).
	_, err = transfer.Undo(b.ctx, b.store, b.server, res.HistoryID, "")
	require.NoError(t, err)
	got, err = b.store.GetEntry(b.ctx, b.server, 0, es[0].ID)
	require.NoError(t, err)
	require.Equal(t, "A", got.Collection)
}

func TestMoveRefusedWholeAndStale(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.store.WithLimits(lore.Limits{ScopeEntries: 3})
	b.insert(t, entries(b.server, 2, "", "full", 2)...)
	src := b.insert(t, entries(b.server, 5, "", "src", 3)...)
	_, err := st.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, From: 5, Entries: refs(src...), To: lore.BookRef{Lineage: 2}})
	var full *lore.ScopeFullError
	require.ErrorAs(t, err, &full)
	require.Contains(t, err.Error(), "2 over the limit of 3")
	require.Equal(t, 3, b.scopeCount(t, 5), "nothing moved")

	stale := refs(src[:1]...)
	old := src[0].UpdatedAt
	_, err = b.store.UpdateEntry(b.ctx, b.server, 5, src[0].ID, lore.EntryPatch{Order: ptr(9)})
	require.NoError(t, err)
	stale[0].ExpectedUpdatedAt = &old
	_, err = b.store.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, From: 5, Entries: stale, To: lore.BookRef{Lineage: 2}})
	require.ErrorIs(t, err, lore.ErrStaleTarget)
	_, err = b.store.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, From: 5, Entries: []lore.EntryRef{{ID: 999999999}}, To: lore.BookRef{Lineage: 2}})
	require.ErrorIs(t, err, lore.ErrNotFound)

	// Copy: the originals stay; into the same book is a duplicate.
	res, err := b.store.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, From: 5, Entries: refs(src[1]), To: lore.BookRef{Lineage: 5}, Copy: true})
	require.NoError(t, err)
	require.Equal(t, 4, b.scopeCount(t, 5))
	require.NotEqual(t, src[1].ID, res.Moved[0].To)
	require.Equal(t, src[1].Content, res.Entries[0].Content)
}

// TestConcurrentMovesNeverOverfill: writers moving entries into one book
// at once never take it past its limit: every move counts the target under
// the server-row lock. Without that lock (count, then insert) several
// writers see room for themselves and the book ends over the limit.
func TestConcurrentMovesNeverOverfill(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const limit, writers = 10, 8
	st := b.store.WithLimits(lore.Limits{ScopeEntries: limit})
	b.insert(t, entries(b.server, 1, "", "target", limit-4)...)
	sources := make([][]lore.Entry, writers)
	for w := range writers {
		sources[w] = b.insert(t, entries(b.server, lore.Lineage(10+w), "", fmt.Sprint("w", w), 2)...)
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	start := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[w] = st.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, From: lore.Lineage(10 + w), Entries: refs(sources[w]...), To: lore.BookRef{Lineage: 1}})
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, lore.ErrScopeFull)
		}
	}
	require.Equal(t, 2, ok, "room for exactly two moves of two")
	require.Equal(t, limit, b.scopeCount(t, 1))
}

func TestEditEntriesAndUndo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	es := b.insert(t, entries(b.server, 3, "", "dragon", 3)...)
	res, err := b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Entries: refs(es[:2]...), Op: lore.BulkSetEnabled})
	require.NoError(t, err)
	require.Len(t, res.After, 2)
	for _, e := range res.After {
		require.False(t, e.Enabled)
	}
	require.Equal(t, lore.RevisionBulk, b.revisions(t, es[0].ID)[0].Kind)
	_, err = transfer.Undo(b.ctx, b.store, b.server, res.HistoryID, "")
	require.NoError(t, err)
	got, err := b.store.GetEntry(b.ctx, b.server, 3, es[0].ID)
	require.NoError(t, err)
	require.True(t, got.Enabled)

	// A patch invalid for one entry is refused whole.
	res, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Entries: refs(es...), Op: lore.BulkPatch,
		Patch: lore.EntryPatch{Probability: ptr(101)}})
	requireInvalidField(t, err, "entries[0].probability")
	res, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Entries: refs(es...), Op: lore.BulkPatch,
		Patch: lore.EntryPatch{Probability: ptr(40), Group: ptr("weather")}})
	require.NoError(t, err)
	require.Equal(t, 40, res.After[2].Probability)

	// Replace with preview: nothing written; then written.
	rep := lore.Replacement{Find: "DRAGON", With: "wyrm", Title: true, Keys: true, Content: true}
	res, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Op: lore.BulkReplace, Replace: rep, Preview: true})
	require.NoError(t, err)
	require.Len(t, res.After, 3)
	require.Equal(t, "wyrm-0", res.After[0].Content)
	require.Zero(t, res.HistoryID)
	got, err = b.store.GetEntry(b.ctx, b.server, 3, es[0].ID)
	require.NoError(t, err)
	require.Equal(t, "dragon-0", got.Content)
	rep.CaseSensitive = true
	res, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Op: lore.BulkReplace, Replace: rep})
	require.NoError(t, err)
	require.Empty(t, res.After, "case-sensitive DRAGON matches nothing")
	rep.CaseSensitive = false
	res, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Op: lore.BulkReplace, Replace: rep})
	require.NoError(t, err)
	got, err = b.store.GetEntry(b.ctx, b.server, 3, es[1].ID)
	require.NoError(t, err)
	require.Equal(t, "wyrm-1", got.Content)
	require.Equal(t, []string{"key wyrm-1"}, got.Keys)

	// Delete many: listed as deleted; undo brings them back.
	res, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: 3, Entries: refs(es...), Op: lore.BulkDelete})
	require.NoError(t, err)
	require.Zero(t, b.scopeCount(t, 3))
	del, _, err := b.store.DeletedEntries(b.ctx, b.server, 10, 0)
	require.NoError(t, err)
	require.Len(t, del, 3)
	_, err = transfer.Undo(b.ctx, b.store, b.server, res.HistoryID, "")
	require.NoError(t, err)
	require.Equal(t, 3, b.scopeCount(t, 3))
	rec, err := b.store.HistoryRecord(b.ctx, b.server, res.HistoryID)
	require.NoError(t, err)
	require.Equal(t, lore.HistoryBulk, rec.Kind)
	var report map[string]any
	require.NoError(t, json.Unmarshal(rec.Report, &report))
	require.Equal(t, "delete", report["operation"])
}

// TestUndoCopyAndDuplicate: undoing a copy (copyEntries) or a duplicate
// (duplicateEntry: a copy of one entry into its own book) removes exactly
// the copies it made, keeps the originals as they are, lists the removed
// copies as undo revisions, and is refused while a later write that
// touched a copy is not undone.
func TestUndoCopyAndDuplicate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := lore.WithActor(b.ctx, "user:8")
	world := b.collection(t, "World")
	src := b.insert(t, entry(b.server, 4, "", "alpha"), entry(b.server, 4, "", "beta"))
	before, err := b.store.ListScope(b.ctx, b.server, 4, "")
	require.NoError(t, err)

	// A copy into a collection, undone.
	cp, err := b.store.MoveEntries(ctx, lore.MoveRequest{Server: b.server, From: 4, Entries: refs(src...),
		To: lore.BookRef{CollectionID: world.ID}, Copy: true})
	require.NoError(t, err)
	require.Equal(t, 2, b.scopeCount(t, 0))
	u, err := transfer.Undo(ctx, b.store, b.server, cp.HistoryID, "user:8")
	require.NoError(t, err)
	require.Equal(t, 2, u.Removed)
	require.Zero(t, u.Restored, "a copy replaced nothing")
	require.Zero(t, b.scopeCount(t, 0))
	after, err := b.store.ListScope(b.ctx, b.server, 4, "")
	require.NoError(t, err)
	require.Equal(t, before, after, "the originals are untouched")
	for _, m := range cp.Moved {
		_, err := b.store.GetEntry(b.ctx, b.server, 0, m.To)
		require.ErrorIs(t, err, lore.ErrNotFound)
		revs := b.revisions(t, m.To)
		require.True(t, revs[0].Deleted, "the removed copy's last revision is its deletion")
		require.Equal(t, lore.RevisionUndo, revs[0].Kind)
	}

	// A duplicate in the entry's own book, edited afterwards: the undo
	// waits for the edit's own undo (here: refused while the copy was
	// changed by a later bulk edit), then removes the duplicate only.
	dup, err := b.store.MoveEntries(ctx, lore.MoveRequest{Server: b.server, From: 4, Entries: refs(src[0]),
		To: lore.BookRef{Lineage: 4}, Copy: true})
	require.NoError(t, err)
	require.Equal(t, 3, b.scopeCount(t, 4))
	copyID := dup.Moved[0].To
	require.NotEqual(t, src[0].ID, copyID)
	edit, err := b.store.EditEntries(ctx, lore.BulkEdit{Server: b.server, Lineage: 4, Entries: []lore.EntryRef{{ID: copyID}},
		Op: lore.BulkPatch, Patch: lore.EntryPatch{Order: ptr(42)}})
	require.NoError(t, err)
	_, err = transfer.Undo(ctx, b.store, b.server, dup.HistoryID, "user:8")
	require.ErrorIs(t, err, lore.ErrInvalid, "a later write changed the duplicate")
	require.Equal(t, 3, b.scopeCount(t, 4), "nothing was undone")
	_, err = transfer.Undo(ctx, b.store, b.server, edit.HistoryID, "user:8")
	require.NoError(t, err)
	u, err = transfer.Undo(ctx, b.store, b.server, dup.HistoryID, "user:8")
	require.NoError(t, err)
	require.Equal(t, 1, u.Removed)
	after, err = b.store.ListScope(b.ctx, b.server, 4, "")
	require.NoError(t, err)
	require.Equal(t, before, after, "only the duplicate went")
}
