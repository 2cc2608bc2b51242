package transfer_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/transfer"
)

// TestImportCategories: a NovelAI book's categories and a RisuAI book's
// folders become the book's categories, their entries filed under them
// (docs/workbench.md#categories); a second import reuses a category of
// the same name. Undoing an import removes the categories it created
// and keeps the ones it reused.
func TestImportCategories(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.server(t)
	res := b.importFile(t, lore.ImportTarget{Server: s, Lineage: lore.Serverwide}, "novelai/travelingrobot__the_descriptor_v1_2.lorebook")
	cats, err := b.store.ListCategories(b.ctx, s, lore.Serverwide, res.CollectionID)
	require.NoError(t, err)
	require.Len(t, cats, 1)
	require.Equal(t, "Prose Enhancer", cats[0].Name)
	require.True(t, cats[0].Enabled)
	es, err := b.store.ListScope(b.ctx, s, lore.Serverwide, res.CollectionName)
	require.NoError(t, err)
	require.Len(t, es, 7)
	for _, e := range es {
		require.Equal(t, cats[0].ID, e.CategoryID, e.Title)
	}

	risu := []byte(`{"type": "risu", "ver": 1, "data": [
		{"key": "\uf000folder:f1", "comment": "Places", "content": "", "mode": "folder", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false},
		{"key": "lisbon", "comment": "Lisbon", "content": "Seven hills.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "folder": "\uf000folder:f1"},
		{"key": "sea", "comment": "Sea", "content": "Salt.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false}]}`)
	var imports []int64
	for _, data := range [][]byte{risu, bytes.Replace(risu, []byte("Seven hills."), []byte("Seven hills and a river."), 1)} {
		res, err := transfer.Import(b.ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: s, Lineage: 5, Mode: lore.Append},
			FileName: "places.json", Data: data, Actor: "test"})
		require.NoError(t, err)
		imports = append(imports, res.ImportID)
	}
	cats, err = b.store.ListCategories(b.ctx, s, 5, 0)
	require.NoError(t, err)
	require.Len(t, cats, 1, "the second import reuses the category")
	require.Equal(t, "Places", cats[0].Name)
	es, err = b.store.ListScope(b.ctx, s, 5, "")
	require.NoError(t, err)
	filed := map[string][]int64{}
	for _, e := range es {
		filed[e.Title] = append(filed[e.Title], e.CategoryID)
	}
	require.Equal(t, map[string][]int64{"Lisbon": {cats[0].ID, cats[0].ID}, "Sea": {0}}, filed, "both Lisbons in the one category")

	u, err := transfer.Undo(b.ctx, b.store, s, imports[1], "user:1")
	require.NoError(t, err)
	require.Zero(t, u.Categories, "the second import created no category")
	cats, err = b.store.ListCategories(b.ctx, s, 5, 0)
	require.NoError(t, err)
	require.Len(t, cats, 1, "the category the first import made stays")
	u, err = transfer.Undo(b.ctx, b.store, s, imports[0], "user:1")
	require.NoError(t, err)
	require.Equal(t, 1, u.Categories)
	cats, err = b.store.ListCategories(b.ctx, s, 5, 0)
	require.NoError(t, err)
	require.Empty(t, cats, "undoing the import that made Places removes it")
}
