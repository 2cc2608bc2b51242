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
// the same name.
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
	for _, data := range [][]byte{risu, bytes.Replace(risu, []byte("Seven hills."), []byte("Seven hills and a river."), 1)} {
		_, err = transfer.Import(b.ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: s, Lineage: 5, Mode: lore.Append},
			FileName: "places.json", Data: data, Actor: "test"})
		require.NoError(t, err)
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
}
