package transfer_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"loregate/lore/sharedtest"
	"math/big"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/transfer"
)

// corpus reads a file of ../shared/corpus (relative to the repository).
func corpus(t testing.TB, rel string) []byte {
	t.Helper()
	return sharedtest.Read(t, "corpus", rel)
}

const (
	eorzea  = "st-worldinfo/bronya-rand__Eorzea.json" // 29 entries
	eldoria = "st-worldinfo/sillytavern__Eldoria.json"
)

type bundle struct {
	ctx   context.Context
	pool  *pgxpool.Pool
	store *postgres.Store
}

func setup(t testing.TB) *bundle {
	t.Helper()
	pool := postgrestest.NewPool(t)
	return &bundle{ctx: context.Background(), pool: pool, store: postgres.New(pool)}
}

// server registers a new server with a random snowflake.
func (b *bundle) server(t testing.TB) string {
	t.Helper()
	n, err := rand.Int(rand.Reader, big.NewInt(1e17))
	require.NoError(t, err)
	id := fmt.Sprintf("1%017d", n)
	_, err = b.store.UpsertServer(b.ctx, id, "Guild")
	require.NoError(t, err)
	return id
}

func (b *bundle) collection(t testing.TB, server, name string) lore.Collection {
	t.Helper()
	c, err := b.store.CreateCollection(b.ctx, lore.Collection{Server: server, Name: name, Enabled: true})
	require.NoError(t, err)
	return c
}

func (b *bundle) hand(t testing.TB, server string, lineage lore.Lineage, collection string, contents ...string) []lore.Entry {
	t.Helper()
	if lineage.IsServerwide() && collection == "" {
		collection = lore.DefaultCollection
		if _, err := b.store.GetCollectionByName(b.ctx, server, collection); err != nil {
			b.collection(t, server, collection)
		}
	}
	out := make([]lore.Entry, len(contents))
	for i, c := range contents {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Collection = server, lineage, collection
		e.Title, e.Content, e.Keys = "hand "+c, c, []string{"k " + c}
		var err error
		out[i], err = b.store.InsertEntry(b.ctx, e)
		require.NoError(t, err)
	}
	return out
}

func (b *bundle) importFile(t testing.TB, target lore.ImportTarget, rel string) transfer.Result {
	t.Helper()
	res, err := transfer.Import(b.ctx, b.store, transfer.Request{Target: target, FileName: filepath.Base(rel), Data: corpus(t, rel), Actor: "test"})
	require.NoError(t, err)
	require.NotZero(t, res.ImportID)
	return res
}

func (b *bundle) all(t testing.TB, server string) []lore.Entry {
	t.Helper()
	es, err := b.store.ListServerEntries(b.ctx, server)
	require.NoError(t, err)
	return es
}

func (b *bundle) historyLen(t testing.TB, server string) int {
	t.Helper()
	recs, _, err := b.store.History(b.ctx, server, 100, 0)
	require.NoError(t, err)
	return len(recs)
}

func entryIDs(es []lore.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	slices.Sort(out)
	return out
}

// TestPreviewEqualsWrite: for every target shape and mode, the preview's
// counts are exactly what the import then does, and the preview writes
// nothing (no entry, no collection, no history, no version bump).
func TestPreviewEqualsWrite(t *testing.T) {
	b := setup(t)
	type prep func(t *testing.T, server string) lore.ImportTarget
	tests := []struct {
		name string
		prep prep
		file string
	}{
		{"new collection", func(t *testing.T, s string) lore.ImportTarget {
			b.hand(t, s, lore.Serverwide, "", "general lore")
			return lore.ImportTarget{Server: s, NewName: "Eorzea"}
		}, eorzea},
		{"append into a collection holding the same book", func(t *testing.T, s string) lore.ImportTarget {
			c := b.collection(t, s, "Book")
			tg := lore.ImportTarget{Server: s, CollectionID: c.ID, Collection: c.Name}
			b.importFile(t, tg, eorzea)
			b.hand(t, s, lore.Serverwide, "Book", "extra")
			return tg
		}, eorzea},
		{"replace a collection, others kept", func(t *testing.T, s string) lore.ImportTarget {
			c := b.collection(t, s, "Book")
			b.collection(t, s, "Other")
			b.hand(t, s, lore.Serverwide, "Book", "a", "b")
			b.hand(t, s, lore.Serverwide, "Other", "c")
			return lore.ImportTarget{Server: s, CollectionID: c.ID, Collection: c.Name, Mode: lore.Replace}
		}, eorzea},
		{"persona append with partial overlap", func(t *testing.T, s string) lore.ImportTarget {
			tg := lore.ImportTarget{Server: s, Lineage: 4}
			b.importFile(t, tg, eldoria)
			return tg
		}, eldoria},
		{"persona replace", func(t *testing.T, s string) lore.ImportTarget {
			b.hand(t, s, 4, "", "x", "y", "z")
			return lore.ImportTarget{Server: s, Lineage: 4, Mode: lore.Replace}
		}, eorzea},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := b.server(t)
			target := tt.prep(t, s)
			req := transfer.Request{Target: target, FileName: filepath.Base(tt.file), Data: corpus(t, tt.file), Actor: "test"}
			before := b.all(t, s)
			hist := b.historyLen(t, s)
			sv, err := b.store.GetServer(b.ctx, s)
			require.NoError(t, err)

			plan, err := transfer.Preview(b.ctx, b.store, req)
			require.NoError(t, err)
			require.Zero(t, plan.ImportID)
			require.Equal(t, before, b.all(t, s), "the preview wrote nothing")
			require.Equal(t, hist, b.historyLen(t, s), "the preview recorded nothing")
			after, err := b.store.GetServer(b.ctx, s)
			require.NoError(t, err)
			require.Equal(t, sv.LoreVersion, after.LoreVersion)

			res, err := transfer.Import(b.ctx, b.store, req)
			require.NoError(t, err)
			require.NotZero(t, res.ImportID)
			for _, f := range []struct {
				name       string
				plan, done any
			}{
				{"added", plan.Added, res.Added}, {"duplicates", plan.Duplicates, res.Duplicates},
				{"replaced", plan.Replaced, res.Replaced}, {"scope before", plan.ScopeBefore, res.ScopeBefore},
				{"scope after", plan.ScopeAfter, res.ScopeAfter}, {"collection", plan.CollectionName, res.CollectionName},
				{"new collection", plan.NewCollection, res.NewCollection}, {"report", plan.Conversion, res.Conversion},
			} {
				require.Equal(t, f.plan, f.done, f.name)
			}
			counts, err := b.store.CountByScope(b.ctx, s)
			require.NoError(t, err)
			require.Equal(t, res.ScopeAfter, counts[target.Lineage], "scope after is the stored count")
			rec, err := b.store.HistoryRecord(b.ctx, s, res.ImportID)
			require.NoError(t, err)
			require.Len(t, rec.CreatedIDs, res.Added)
			require.Len(t, rec.RemovedIDs, res.Replaced)
		})
	}
}

// TestUndoAfterEditsAndNewLore: undoing a persona replacement removes every
// entry it created, edited or not, restores the hand-authored book with its
// ids, keeps lore authored since, is recorded, and cannot run twice.
func TestUndoAfterEditsAndNewLore(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	orig := b.hand(t, s, 3, "", "one", "two", "three")
	other := b.hand(t, s, lore.Serverwide, "", "serverwide stays")
	res := b.importFile(t, lore.ImportTarget{Server: s, Lineage: 3, Mode: lore.Replace}, eorzea)
	require.Equal(t, 29, res.Added)
	require.Equal(t, 3, res.Replaced)

	book, err := b.store.ListScope(b.ctx, s, 3, "")
	require.NoError(t, err)
	edited := "edited after the import"
	_, err = b.store.UpdateEntry(b.ctx, s, 3, book[0].ID, lore.EntryPatch{Content: &edited})
	require.NoError(t, err)
	require.NoError(t, b.store.DeleteEntry(b.ctx, s, 3, book[1].ID))
	newer := b.hand(t, s, 3, "", "authored since")

	u, err := transfer.Undo(b.ctx, b.store, s, res.ImportID, "user:1")
	require.NoError(t, err)
	require.Equal(t, 3, u.Restored)
	require.Equal(t, 28, u.Removed, "the edited entry too; the deleted one is missing")
	require.Equal(t, 1, u.Missing)

	book, err = b.store.ListScope(b.ctx, s, 3, "")
	require.NoError(t, err)
	require.Equal(t, entryIDs(append(slices.Clone(orig), newer...)), entryIDs(book), "original ids back, newer lore kept")
	for _, e := range book {
		for _, o := range orig {
			if o.ID == e.ID {
				require.Equal(t, o.Content, e.Content)
				require.Equal(t, o.Keys, e.Keys)
				require.True(t, o.CreatedAt.Equal(e.CreatedAt), "timestamps restored")
			}
		}
	}
	sw, err := b.store.ListScope(b.ctx, s, lore.Serverwide, "")
	require.NoError(t, err)
	require.Equal(t, entryIDs(other), entryIDs(sw), "other scopes untouched")

	rec, err := b.store.HistoryRecord(b.ctx, s, res.ImportID)
	require.NoError(t, err)
	require.Equal(t, u.Record.ID, rec.UndoneBy)
	require.Equal(t, lore.HistoryUndo, u.Record.Kind)
	require.Equal(t, res.ImportID, u.Record.UndoOf)

	_, err = transfer.Undo(b.ctx, b.store, s, res.ImportID, "user:1")
	require.ErrorIs(t, err, lore.ErrInvalid, "not twice")
	require.ErrorContains(t, err, "already undone")
	_, err = transfer.Undo(b.ctx, b.store, s, u.Record.ID, "user:1")
	require.ErrorIs(t, err, lore.ErrInvalid, "an undo is not undone")
}

// TestUndoOrder: an import whose entries a later import replaced is refused
// until the later one is undone; then both undo in turn back to the start.
func TestUndoOrder(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	c := b.collection(t, s, "Book")
	orig := b.hand(t, s, lore.Serverwide, "Book", "hand")
	tg := lore.ImportTarget{Server: s, CollectionID: c.ID, Collection: c.Name, Mode: lore.Replace}
	first := b.importFile(t, tg, eorzea)
	second := b.importFile(t, tg, eldoria)

	_, err := transfer.Undo(b.ctx, b.store, s, first.ImportID, "cli")
	require.ErrorIs(t, err, lore.ErrInvalid)
	require.ErrorContains(t, err, fmt.Sprintf("undo %d first", second.ImportID))

	u2, err := transfer.Undo(b.ctx, b.store, s, second.ImportID, "cli")
	require.NoError(t, err)
	require.Equal(t, 29, u2.Restored)
	u1, err := transfer.Undo(b.ctx, b.store, s, first.ImportID, "cli")
	require.NoError(t, err)
	require.Equal(t, 29, u1.Removed)
	book, err := b.store.ListScope(b.ctx, s, lore.Serverwide, "Book")
	require.NoError(t, err)
	require.Equal(t, entryIDs(orig), entryIDs(book))
}

// TestUndoNewCollectionAndDeletedServer: undoing an import that created a
// collection removes the collection too; an import of a server deleted
// since cannot be undone and its record stays listed.
func TestUndoNewCollectionAndDeletedServer(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	res := b.importFile(t, lore.ImportTarget{Server: s}, eorzea)
	require.True(t, res.NewCollection)
	_, err := transfer.Undo(b.ctx, b.store, s, res.ImportID, "cli")
	require.NoError(t, err)
	cols, err := b.store.ListCollections(b.ctx, s)
	require.NoError(t, err)
	require.Empty(t, cols, "the created collection went with its entries")

	gone := b.server(t)
	res = b.importFile(t, lore.ImportTarget{Server: gone, Lineage: 2}, eorzea)
	require.NoError(t, b.store.DeleteServer(b.ctx, gone))
	_, err = transfer.Undo(b.ctx, b.store, gone, res.ImportID, "cli")
	require.ErrorIs(t, err, lore.ErrNotFound, "a deleted server is skipped")
	require.ErrorContains(t, err, "server "+gone)
	rec, err := b.store.HistoryRecord(b.ctx, gone, res.ImportID)
	require.NoError(t, err, "the record outlives its server")
	require.Zero(t, rec.UndoneBy)
}

// TestUndoOccupiedIDAndOverflow: an occupied original id or a scope that
// would exceed its limit aborts the undo of a collection delete with
// nothing changed; once resolved, the collection and its entries return.
func TestUndoOccupiedIDAndOverflow(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	c := b.collection(t, s, "Doomed")
	removed := b.hand(t, s, lore.Serverwide, "Doomed", "d1", "d2", "d3")
	recID, err := transfer.DeleteCollection(b.ctx, b.store, s, c.ID, "user:7")
	require.NoError(t, err)
	before := b.all(t, s)

	// Another scope's entry holds one of the removed ids again.
	_, err = b.pool.Exec(b.ctx, `INSERT INTO lorebook_entries (id, server_id, lineage_id, content) OVERRIDING SYSTEM VALUE
VALUES ($1, $2, 9, 'squatter')`, removed[1].ID, s)
	require.NoError(t, err)
	squatted := b.all(t, s)
	_, err = transfer.Undo(b.ctx, b.store, s, recID, "user:7")
	require.ErrorIs(t, err, lore.ErrInvalid)
	require.ErrorContains(t, err, fmt.Sprintf("entry id %d", removed[1].ID))
	require.Equal(t, squatted, b.all(t, s), "nothing changed")
	_, err = b.pool.Exec(b.ctx, `DELETE FROM lorebook_entries WHERE id = $1`, removed[1].ID)
	require.NoError(t, err)
	require.Equal(t, before, b.all(t, s))

	// A smaller scope limit: restoring 3 entries next to 2 new ones
	// overflows a limit of 4.
	small := b.store.WithLimits(lore.Limits{ScopeEntries: 4})
	b.hand(t, s, lore.Serverwide, "", "new 1", "new 2")
	_, err = transfer.Undo(b.ctx, small, s, recID, "user:7")
	require.ErrorIs(t, err, lore.ErrScopeFull)
	_, err = b.store.GetCollectionByName(b.ctx, s, "Doomed")
	require.ErrorIs(t, err, lore.ErrNotFound, "nothing restored")

	u, err := transfer.Undo(b.ctx, b.store, s, recID, "user:7")
	require.NoError(t, err)
	require.Equal(t, 3, u.Restored)
	back, err := b.store.ListScope(b.ctx, s, lore.Serverwide, "Doomed")
	require.NoError(t, err)
	require.Equal(t, entryIDs(removed), entryIDs(back))
}

// TestUndoWipe: a wipe is recorded with everything it removed and its undo
// brings back the collections (with their settings) and entries.
func TestUndoWipe(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	c := b.collection(t, s, "Closed")
	_, err := b.store.SetCollectionEnabled(b.ctx, s, c.ID, false)
	require.NoError(t, err)
	b.hand(t, s, lore.Serverwide, "Closed", "sw")
	b.hand(t, s, 5, "", "persona")
	before := b.all(t, s)
	recID, err := transfer.WipeServerLore(b.ctx, b.store, s, false, "user:1")
	require.NoError(t, err)
	require.Empty(t, b.all(t, s))
	u, err := transfer.Undo(b.ctx, b.store, s, recID, "user:1")
	require.NoError(t, err)
	require.Equal(t, 2, u.Restored)
	require.Equal(t, entryIDs(before), entryIDs(b.all(t, s)))
	got, err := b.store.GetCollectionByName(b.ctx, s, "Closed")
	require.NoError(t, err)
	require.False(t, got.Enabled, "collection settings restored")
}

// TestPersonaCardRecorded: a character card replacing a persona's book is
// recorded, and its undo brings the hand-authored book back.
func TestPersonaCardRecorded(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: s, ID: 1, Lineage: 6, Name: "Mira"})
	require.NoError(t, err)
	orig := b.hand(t, s, 6, "", "hand 1", "hand 2")
	card := lore.NewEntry()
	card.Title, card.Content, card.Keys = "card", "from the card", []string{"card"}
	p, res, recID, err := transfer.ImportPersonaCard(b.ctx, b.store, lore.PersonaCardImport{Server: s, PersonaID: 1, Entries: []lore.Entry{card}}, nil,
		"mira.png", []byte("card bytes"), "user:1")
	require.NoError(t, err)
	require.Equal(t, lore.Lineage(6), p.Lineage)
	require.Equal(t, 1, res.Added)
	rec, err := b.store.HistoryRecord(b.ctx, s, recID)
	require.NoError(t, err)
	require.Equal(t, entryIDs(orig), slices.Sorted(slices.Values(rec.RemovedIDs)))
	require.Len(t, rec.CreatedIDs, 1)
	_, err = transfer.Undo(b.ctx, b.store, s, recID, "user:1")
	require.NoError(t, err)
	book, err := b.store.ListScope(b.ctx, s, 6, "")
	require.NoError(t, err)
	require.Equal(t, entryIDs(orig), entryIDs(book))
}

// TestSnapshotRetention: once the retention drops a record's snapshot, an
// import that replaced entries can no longer be undone (and says why); one
// that only added entries still can.
func TestSnapshotRetention(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	b.hand(t, s, 2, "", "old")
	replaced := b.importFile(t, lore.ImportTarget{Server: s, Lineage: 2, Mode: lore.Replace}, eorzea)
	appended := b.importFile(t, lore.ImportTarget{Server: s, Lineage: 8}, eorzea)
	n, err := b.store.PruneSnapshots(b.ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, int64(1))
	rec, err := b.store.HistoryRecord(b.ctx, s, replaced.ImportID)
	require.NoError(t, err)
	require.True(t, rec.SnapshotPruned)
	require.Nil(t, rec.Snapshot)
	_, err = transfer.Undo(b.ctx, b.store, s, replaced.ImportID, "cli")
	require.ErrorIs(t, err, lore.ErrInvalid)
	require.ErrorContains(t, err, "retention")
	u, err := transfer.Undo(b.ctx, b.store, s, appended.ImportID, "cli")
	require.NoError(t, err)
	require.Equal(t, 29, u.Removed)
}

// TestUndoRestoresBookSettings: a Replace that stored the file's book
// settings and book-level source fields (book_sources) is undone with the
// book's previous settings and source fields, byte for byte (issue 26: the
// file's fields stayed); an append that gave a book its first source
// fields is undone without them; fields a later import wrote stay.
func TestUndoRestoresBookSettings(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	three := 3
	p3 := &three
	_, err := b.store.UpdatePersonaBookSettings(b.ctx, s, 9, lore.BookSettingsPatch{ScanDepth: &p3})
	require.NoError(t, err)
	b.hand(t, s, 9, "", "hand")
	old := lore.BookSource{Server: s, Lineage: 9, Name: "Old Lore", Description: "The old book.",
		Fields: map[string]json.RawMessage{"st/_meta": json.RawMessage(`{"version" :  "V1.2", "n": 1.50}`)}}
	require.NoError(t, b.store.PutBookSource(b.ctx, old, true))
	source := func(lineage lore.Lineage, collection int64) *lore.BookSource {
		src, err := b.store.GetBookSource(b.ctx, s, lineage, collection)
		if errors.Is(err, lore.ErrNotFound) {
			return nil
		}
		require.NoError(t, err)
		src.UpdatedAt = time.Time{}
		return &src
	}
	card := []byte(`{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Card",
		"character_book": {"name": "Card Lore", "description": "From the card.", "x_tool": {"v" : 2}, "scan_depth": 7,
		  "entries": [{"keys": ["a"], "content": "from the card", "enabled": true, "insertion_order": 0}]}}}`)
	res, err := transfer.Import(b.ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: s, Lineage: 9, Mode: lore.Replace},
		FileName: "card.json", Data: card})
	require.NoError(t, err)
	got, err := b.store.PersonaBookSettings(b.ctx, s, 9)
	require.NoError(t, err)
	require.NotNil(t, got.ScanDepth)
	require.Equal(t, 7, *got.ScanDepth, "the file's settings replaced the book's")
	u, err := transfer.Undo(b.ctx, b.store, s, res.ImportID, "cli")
	require.NoError(t, err)
	require.False(t, u.BookSettingsKept)
	got, err = b.store.PersonaBookSettings(b.ctx, s, 9)
	require.NoError(t, err)
	require.Equal(t, 3, *got.ScanDepth, "the undo put the book's settings back")
	require.Equal(t, &old, source(9, 0), "the undo put the book's source fields back, byte for byte")

	// An append into a book without source fields gives it the file's;
	// its undo takes them away again.
	c := b.collection(t, s, "Harbor")
	wi := []byte(`{"name": "Harbor", "_meta": {"build" : 7}, "entries": {"0": {"uid": 0, "key": ["pier"], "content": "The pier."}}}`)
	req := transfer.Request{Target: lore.ImportTarget{Server: s, CollectionID: c.ID, Collection: c.Name, Mode: lore.Append}, FileName: "harbor.json", Data: wi}
	res, err = transfer.Import(b.ctx, b.store, req)
	require.NoError(t, err)
	require.JSONEq(t, `{"build": 7}`, string(source(0, c.ID).Fields["st/_meta"]))
	_, err = transfer.Undo(b.ctx, b.store, s, res.ImportID, "cli")
	require.NoError(t, err)
	require.Nil(t, source(0, c.ID), "the book had no source fields before the append")

	// Two Replaces undone in turn give each book's fields back.
	req.Target.Mode = lore.Replace
	first, err := transfer.Import(b.ctx, b.store, req)
	require.NoError(t, err)
	kept := source(0, c.ID)
	req.Data = []byte(`{"name": "Harbor", "_meta": {"build": 8}, "entries": {"0": {"uid": 0, "key": ["gull"], "content": "A gull."}}}`)
	second, err := transfer.Import(b.ctx, b.store, req)
	require.NoError(t, err)
	require.JSONEq(t, `{"build": 8}`, string(source(0, c.ID).Fields["st/_meta"]))
	for _, id := range []int64{second.ImportID, first.ImportID} {
		_, err = transfer.Undo(b.ctx, b.store, s, id, "cli")
		require.NoError(t, err)
		require.Equal(t, kept, source(0, c.ID))
		kept = nil
	}
}

// TestUndoRestoresBookCard: undoing a Replace puts back the card the book
// came in (book_cards) byte for byte, its time included (a PNG card with
// its image), and none when the book had none; a card a later import
// wrote stays until that import is undone (docs/imports.md#undo).
func TestUndoRestoresBookCard(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	card := func() *lore.BookCard {
		c, err := b.store.GetBookCard(b.ctx, s, 9, 0)
		if errors.Is(err, lore.ErrNotFound) {
			return nil
		}
		require.NoError(t, err)
		return &c
	}
	write := func(mode lore.ImportMode, name string, data []byte) int64 {
		res, err := transfer.Import(b.ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: s, Lineage: 9, Mode: mode},
			FileName: name, Data: data})
		require.NoError(t, err)
		return res.ImportID
	}
	replace := func(name string, data []byte) int64 { return write(lore.Replace, name, data) }
	undo := func(id int64) {
		_, err := transfer.Undo(b.ctx, b.store, s, id, "cli")
		require.NoError(t, err)
	}
	cardJSON := func(name string) []byte {
		return []byte(`{"spec": "chara_card_v2",  "spec_version": "2.0", "data": {"name": "` + name + `",
			"character_book": {"entries": [{"keys": ["a"], "content": "from ` + name + `", "enabled": true, "insertion_order": 0}]}}}`)
	}
	b.hand(t, s, 9, "", "hand")
	first := replace("first.json", cardJSON("First"))
	require.NotNil(t, card())
	undo(first)
	require.Nil(t, card(), "the book had no card before the import")

	png := corpus(t, "png/sillytavern__default_Seraphina.png")
	replace("sera.png", png)
	sera := card()
	require.NotNil(t, sera)
	require.Equal(t, "png", sera.Container)
	second := replace("second.json", cardJSON("Second"))
	require.Equal(t, "json", card().Container)
	third := write(lore.Append, "third.json", cardJSON("Third"))
	undo(third)
	require.Contains(t, string(card().Card), `"Second"`)
	undo(second)
	require.Equal(t, sera, card(), "the undo put the PNG card back, byte for byte")

	fourth := replace("fourth.json", cardJSON("Fourth"))
	write(lore.Append, "fifth.json", cardJSON("Fifth"))
	undo(fourth)
	require.Contains(t, string(card().Card), `"Fifth"`, "a card a later import wrote stays")

	// A collection's card: the Replace's undo takes the card it gave a
	// collection that had none away again.
	c := b.collection(t, s, "Harbor")
	b.hand(t, s, 0, c.Name, "pier")
	res, err := transfer.Import(b.ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: s, CollectionID: c.ID,
		Collection: c.Name, Mode: lore.Replace}, FileName: "harbor.json", Data: cardJSON("Harbor")})
	require.NoError(t, err)
	_, err = b.store.GetBookCard(b.ctx, s, 0, c.ID)
	require.NoError(t, err)
	// Renamed since: the undo finds the collection by its id.
	_, err = b.store.RenameCollection(b.ctx, s, c.ID, "Old harbor")
	require.NoError(t, err)
	undo(res.ImportID)
	_, err = b.store.GetBookCard(b.ctx, s, 0, c.ID)
	require.ErrorIs(t, err, lore.ErrNotFound, "the collection had no card before the import")
}

// TestUndoKeepsBookSettingsChangedSince: settings a manager changed after
// a Replace import stay when the import is undone (as lore written since
// does), and the undo says so; its entries still go.
func TestUndoKeepsBookSettingsChangedSince(t *testing.T) {
	b := setup(t)
	s := b.server(t)
	three, five := 3, 5
	p3, p5 := &three, &five
	_, err := b.store.UpdatePersonaBookSettings(b.ctx, s, 9, lore.BookSettingsPatch{ScanDepth: &p3})
	require.NoError(t, err)
	card := []byte(`{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Card",
		"character_book": {"scan_depth": 7, "entries": [{"keys": ["a"], "content": "from the card", "enabled": true, "insertion_order": 0}]}}}`)
	res, err := transfer.Import(b.ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: s, Lineage: 9, Mode: lore.Replace},
		FileName: "card.json", Data: card})
	require.NoError(t, err)
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, s, 9, lore.BookSettingsPatch{ScanDepth: &p5})
	require.NoError(t, err)
	u, err := transfer.Undo(b.ctx, b.store, s, res.ImportID, "cli")
	require.NoError(t, err)
	require.True(t, u.BookSettingsKept)
	require.Equal(t, 1, u.Removed)
	got, err := b.store.PersonaBookSettings(b.ctx, s, 9)
	require.NoError(t, err)
	require.Equal(t, 5, *got.ScanDepth, "the manager's later settings stay")
}
