package postgres_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestCategories: a book's categories, an entry's category and note, a
// disabled category gating its entries, and what moves, deletes and
// restores do to an entry's category (docs/workbench.md#categories).
func TestCategories(t *testing.T) {
	t.Parallel()
	b := setup(t)
	coll := b.collection(t, "Places")
	places, err := b.store.CreateCategory(b.ctx, lore.Category{Server: b.server, CollectionID: coll.ID, Name: "Cities", Enabled: true})
	require.NoError(t, err)
	_, err = b.store.CreateCategory(b.ctx, lore.Category{Server: b.server, CollectionID: coll.ID, Name: "Cities", Enabled: true})
	requireInvalidField(t, err, "name")
	require.Contains(t, err.Error(), `a category named "Cities" already exists in this book`)
	persona, err := b.store.CreateCategory(b.ctx, lore.Category{Server: b.server, Lineage: 7, Name: "Cities", SortOrder: 2, Enabled: true})
	require.NoError(t, err, "the same name in another book")
	first, err := b.store.CreateCategory(b.ctx, lore.Category{Server: b.server, Lineage: 7, Name: "Allies", SortOrder: 1, Enabled: true})
	require.NoError(t, err)
	cs, err := b.store.ListCategories(b.ctx, b.server, 7, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Allies", "Cities"}, []string{cs[0].Name, cs[1].Name}, "by sortOrder")
	// Many books of one server in one read, grouped by book; another
	// server's rows are never read, whatever ids it is asked for.
	otherServer := snowflake(t)
	_, err = b.store.UpsertServer(b.ctx, otherServer, "Other Guild")
	require.NoError(t, err)
	_, err = b.store.CreateCategory(b.ctx, lore.Category{Server: otherServer, Lineage: 7, Name: "Rivals", Enabled: true})
	require.NoError(t, err)
	type bookCat struct {
		Coll int64
		Lin  lore.Lineage
		Name string
	}
	books := func(server string) []bookCat {
		cs, err := b.store.ListBooksCategories(b.ctx, server, []int64{coll.ID, coll.ID + 1000}, []lore.Lineage{7, 8})
		require.NoError(t, err)
		var out []bookCat
		for _, c := range cs {
			require.Equal(t, server, c.Server)
			out = append(out, bookCat{c.CollectionID, c.Lineage, c.Name})
		}
		return out
	}
	require.Equal(t, []bookCat{{0, 7, "Allies"}, {0, 7, "Cities"}, {coll.ID, 0, "Cities"}}, books(b.server))
	require.Equal(t, []bookCat{{0, 7, "Rivals"}}, books(otherServer))
	_, err = b.store.ListBooksCategories(b.ctx, b.server, make([]int64, lore.MaxBooksPerCategoryRead), []lore.Lineage{7})
	requireInvalidField(t, err, "ids")
	_, err = b.store.CreateCategory(b.ctx, lore.Category{Server: b.server, CollectionID: coll.ID, Name: " padded", Enabled: true})
	requireInvalidField(t, err, "name")

	// An entry takes a category of its own book only, and a note.
	e := entry(b.server, lore.Serverwide, "Places", "Lisbon sits on seven hills.")
	e.CategoryID, e.Note = persona.ID, "check the hill count"
	_, err = b.store.InsertEntry(b.ctx, e)
	requireInvalidField(t, err, "categoryId")
	require.Contains(t, err.Error(), "is not a category of the entry's book")
	e.CategoryID = places.ID
	e = b.insert(t, e)[0]
	got, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, e.ID)
	require.NoError(t, err)
	require.Equal(t, places.ID, got.CategoryID)
	require.Equal(t, "check the hill count", got.Note)
	other := b.insert(t, entry(b.server, lore.Serverwide, "Places", "Porto has a bridge."))[0]
	_, err = b.store.UpdateEntry(b.ctx, b.server, lore.Serverwide, other.ID, lore.EntryPatch{CategoryID: &first.ID})
	requireInvalidField(t, err, "categoryId")
	// A bulk patch and a member's proposal are refused the same way, not
	// stored without a category behind the answer's back.
	_, err = b.store.EditEntries(b.ctx, lore.BulkEdit{Server: b.server, Lineage: lore.Serverwide, Entries: []lore.EntryRef{{ID: other.ID}},
		Op: lore.BulkPatch, Patch: lore.EntryPatch{CategoryID: &first.ID}})
	requireInvalidField(t, err, "entries[0].categoryId")
	_, err = b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "900000000000000077", Kind: lore.ProposeUpdate,
		Lineage: lore.Serverwide, EntryID: other.ID, Patch: &lore.EntryPatch{CategoryID: &first.ID}})
	requireInvalidField(t, err, "patch.categoryId")

	// A disabled category keeps its entries out of the per-turn read, the
	// entries' own flags untouched, and moves the lore version.
	v := b.loreVersion(t)
	off := false
	_, err = b.store.UpdateCategory(b.ctx, b.server, places.ID, lore.CategoryPatch{Enabled: &off})
	require.NoError(t, err)
	require.Greater(t, b.loreVersion(t), v)
	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, lore.Serverwide)
	require.NoError(t, err)
	require.Equal(t, []string{"Porto has a bridge."}, contents(snap.Entries))
	got, err = b.store.GetEntry(b.ctx, b.server, lore.Serverwide, e.ID)
	require.NoError(t, err)
	require.True(t, got.Enabled)

	// Moved into a persona book, the entry leaves its category behind.
	moved, err := b.store.MoveEntries(b.ctx, lore.MoveRequest{Server: b.server, From: lore.Serverwide,
		Entries: []lore.EntryRef{{ID: e.ID}}, To: lore.BookRef{Lineage: 7}})
	require.NoError(t, err)
	require.Zero(t, moved.Entries[0].CategoryID)
	require.Equal(t, "check the hill count", moved.Entries[0].Note, "the note travels")

	// A deleted category leaves its entries without one; restoring a
	// revision that named it does too.
	in := entry(b.server, 7, "", "Rui is an ally.")
	in.CategoryID = first.ID
	ally := b.insert(t, in)[0]
	require.NoError(t, b.store.DeleteCategory(b.ctx, b.server, first.ID))
	got, err = b.store.GetEntry(b.ctx, b.server, 7, ally.ID)
	require.NoError(t, err)
	require.Zero(t, got.CategoryID)
	revs := b.revisions(t, ally.ID)
	require.Equal(t, first.ID, revs[len(revs)-1].Entry.CategoryID, "the creating revision")
	restored, err := b.store.RestoreRevision(b.ctx, b.server, revs[len(revs)-1].ID, nil)
	require.NoError(t, err)
	require.Zero(t, restored.CategoryID)
	require.ErrorIs(t, b.store.DeleteCategory(b.ctx, b.server, first.ID), lore.ErrNotFound)
}

// TestBookInfo: a book's description and tags, the world info file's own
// description read as the book's until an edit replaces it.
func TestBookInfo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	coll := b.collection(t, "Lore")
	info, err := b.store.GetBookInfo(b.ctx, b.server, lore.Serverwide, coll.ID)
	require.NoError(t, err)
	require.Zero(t, info)
	require.NoError(t, b.store.PutBookSource(b.ctx, lore.BookSource{Server: b.server, CollectionID: coll.ID, Name: "lore",
		Fields: map[string]json.RawMessage{"st/description": json.RawMessage(`"From the file."`), "st/_meta": json.RawMessage(`{"a": 1}`)}}, true))
	info, err = b.store.GetBookInfo(b.ctx, b.server, lore.Serverwide, coll.ID)
	require.NoError(t, err)
	require.Equal(t, "From the file.", info.Description)

	d, tags := "Edited by hand.", []string{" war ", "", "Maps"}
	info, err = b.store.UpdateBookInfo(b.ctx, b.server, lore.Serverwide, coll.ID, lore.BookInfoPatch{Description: &d, Tags: &tags})
	require.NoError(t, err)
	require.Equal(t, []string{"war", "Maps"}, info.Tags)
	info, err = b.store.GetBookInfo(b.ctx, b.server, lore.Serverwide, coll.ID)
	require.NoError(t, err)
	require.Equal(t, "Edited by hand.", info.Description, "the written description wins over the file's")
	src, err := b.store.GetBookSource(b.ctx, b.server, lore.Serverwide, coll.ID)
	require.NoError(t, err)
	require.JSONEq(t, `"From the file."`, string(src.Fields["st/description"]), "the file's fields stay as kept")

	stale := info.UpdatedAt.Add(-1)
	_, err = b.store.UpdateBookInfo(b.ctx, b.server, lore.Serverwide, coll.ID, lore.BookInfoPatch{Description: &d, ExpectedUpdatedAt: &stale})
	require.ErrorIs(t, err, lore.ErrStaleTarget)
	for _, bad := range []struct {
		tags  []string
		field string
	}{{[]string{"war", "WAR"}, "tags[1]"}, {[]string{"a\x01"}, "tags[0]"}} {
		_, err = b.store.UpdateBookInfo(b.ctx, b.server, lore.Serverwide, coll.ID, lore.BookInfoPatch{Tags: &bad.tags})
		requireInvalidField(t, err, bad.field)
	}
	_, err = b.store.UpdateBookInfo(b.ctx, b.server, lore.Serverwide, 1<<40, lore.BookInfoPatch{Description: &d})
	require.ErrorIs(t, err, lore.ErrNotFound)

	// A persona book's info, kept apart.
	pd := "Her diary."
	_, err = b.store.UpdateBookInfo(b.ctx, b.server, 4, 0, lore.BookInfoPatch{Description: &pd})
	require.NoError(t, err)
	info, err = b.store.GetBookInfo(b.ctx, b.server, 4, 0)
	require.NoError(t, err)
	require.Equal(t, "Her diary.", info.Description)
	require.Nil(t, info.Tags)
}
