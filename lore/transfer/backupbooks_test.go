package transfer_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

// bookView is what a book's organisation looks like to its users: its
// categories (every field of lore.Category but the ids and times), its
// written description and tags, and which category each entry is in.
type bookView struct {
	Categories  []map[string]any
	Description string
	Tags        []string
	EntryIn     map[string]string // entry title -> category name
}

// categoryIdentity are the lore.Category fields that a copy of a book
// gets anew.
var categoryIdentity = map[string]bool{"ID": true, "Server": true, "CollectionID": true, "Lineage": true,
	"CreatedAt": true, "UpdatedAt": true}

func (b *bundle) bookView(t *testing.T, server string, lineage lore.Lineage, collection string) bookView {
	t.Helper()
	var collectionID int64
	if collection != "" {
		c, err := b.store.GetCollectionByName(b.ctx, server, collection)
		require.NoError(t, err)
		collectionID = c.ID
	}
	cats, err := b.store.ListCategories(b.ctx, server, lineage, collectionID)
	require.NoError(t, err)
	v := bookView{EntryIn: map[string]string{}}
	names := map[int64]string{}
	for _, c := range cats {
		names[c.ID] = c.Name
		fields := map[string]any{}
		rv := reflect.ValueOf(c)
		for i := range rv.NumField() {
			if f := rv.Type().Field(i).Name; !categoryIdentity[f] {
				fields[f] = rv.Field(i).Interface()
			}
		}
		v.Categories = append(v.Categories, fields)
	}
	info, err := b.store.GetBookInfo(b.ctx, server, lineage, collectionID)
	require.NoError(t, err)
	v.Description, v.Tags = info.Description, info.Tags
	es, err := b.store.ListScope(b.ctx, server, lineage, collection)
	require.NoError(t, err)
	for _, e := range es {
		v.EntryIn[e.Title] = names[e.CategoryID]
	}
	return v
}

// TestBackupCarriesBookOrganisation: a workspace backup carries each
// book's categories (name, sort order, enabled), its entries' categories,
// and its written description and tags; imported into another server
// every one of them comes back (a category the destination book has by
// that name is reused and takes the backup's order and flag), so a field
// dropped on the way fails this test.
func TestBackupCarriesBookOrganisation(t *testing.T) {
	b := setup(t)
	src, dst := b.server(t), b.server(t)
	persona := b.hand(t, src, 3, "", "persona one", "persona two", "persona three")
	b.collection(t, src, "World")
	world := b.hand(t, src, lore.Serverwide, "World", "world one")
	cat := func(server string, lineage lore.Lineage, collectionID int64, name string, order int, enabled bool) int64 {
		c, err := b.store.CreateCategory(b.ctx, lore.Category{Server: server, Lineage: lineage, CollectionID: collectionID,
			Name: name, SortOrder: order, Enabled: enabled})
		require.NoError(t, err)
		return c.ID
	}
	file := func(server string, lineage lore.Lineage, id, category int64) {
		_, err := b.store.UpdateEntry(b.ctx, server, lineage, id, lore.EntryPatch{CategoryID: &category})
		require.NoError(t, err)
	}
	info := func(server string, lineage lore.Lineage, collectionID int64, desc string, tags ...string) {
		_, err := b.store.UpdateBookInfo(b.ctx, server, lineage, collectionID, lore.BookInfoPatch{Description: &desc, Tags: &tags})
		require.NoError(t, err)
	}
	file(src, 3, persona[0].ID, cat(src, 3, 0, "Places", 2, true))
	file(src, 3, persona[1].ID, cat(src, 3, 0, "Secrets", 1, false))
	info(src, 3, 0, "The host's own book", "host", "canon")
	wc, err := b.store.GetCollectionByName(b.ctx, src, "World")
	require.NoError(t, err)
	file(src, lore.Serverwide, world[0].ID, cat(src, lore.Serverwide, wc.ID, "Realms", 5, true))
	info(src, lore.Serverwide, wc.ID, "Where it happens", "setting")
	// the destination's persona book already has a "Places", ordered and
	// flagged otherwise: reused, with the backup's order and flag.
	places := cat(dst, 3, 0, "Places", 9, false)

	ws, err := b.store.ReadWorkspace(b.ctx, src)
	require.NoError(t, err)
	data, err := backup.Encode(backup.Build(ws.Server, ws.Personas, ws.Collections, ws.Entries, ws.Books(), time.Now()))
	require.NoError(t, err)
	rep, err := transfer.ImportBackup(b.ctx, b.store, dst, "backup.json", data, nil, "user:1")
	require.NoError(t, err)

	for _, book := range []struct {
		lineage    lore.Lineage
		collection string
		filed      int
	}{{3, "", 2}, {lore.Serverwide, "World", 1}} {
		want := b.bookView(t, src, book.lineage, book.collection)
		require.NotEmpty(t, want.Description, "the test writes a description")
		require.NotEmpty(t, want.Tags, "the test writes tags")
		filed := 0
		for _, c := range want.EntryIn {
			if c != "" {
				filed++
			}
		}
		require.Equal(t, book.filed, filed, "the test files entries under categories")
		require.Equal(t, want, b.bookView(t, dst, book.lineage, book.collection), "book %d %q after the round trip", book.lineage, book.collection)
	}
	cats, err := b.store.ListCategories(b.ctx, dst, 3, 0)
	require.NoError(t, err)
	require.Equal(t, places, cats[1].ID, "the destination's Places is reused (Secrets sorts first)")
	require.Len(t, cats, 2)

	// the undo removes what the import created and puts Places back.
	u, err := transfer.Undo(b.ctx, b.store, dst, rep.ImportID, "user:1")
	require.NoError(t, err)
	require.Equal(t, 3, u.Categories, "Secrets and Realms removed, Places put back")
	cats, err = b.store.ListCategories(b.ctx, dst, 3, 0)
	require.NoError(t, err)
	require.Len(t, cats, 1)
	require.Equal(t, lore.Category{ID: places, Name: "Places", SortOrder: 9, Enabled: false},
		lore.Category{ID: cats[0].ID, Name: cats[0].Name, SortOrder: cats[0].SortOrder, Enabled: cats[0].Enabled})
	_, err = b.store.GetCollectionByName(b.ctx, dst, "World")
	require.ErrorIs(t, err, lore.ErrNotFound, "the collection the import created goes, with its categories")
}
