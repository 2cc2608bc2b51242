package format_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// TestFileCategoriesCrossFormats: offline convert carries a NovelAI
// category into a RisuAI folder and world info, and a RisuAI folder into a
// NovelAI category, as an import and an export do (format.WriteFileCategories,
// docs/workbench.md#categories): importing the converted file gives each
// entry the category its source gave it.
func TestFileCategoriesCrossFormats(t *testing.T) {
	novel := readCorpus(t, "novelai/travelingrobot__the_descriptor_v1_2.lorebook")
	risu := []byte(`{"type": "risu", "ver": 1, "data": [
		{"key": "\uf000folder:f1", "comment": "Places", "content": "", "mode": "folder", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "enabled": false},
		{"key": "lisbon", "comment": "Lisbon", "content": "Seven hills.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "folder": "\uf000folder:f1"},
		{"key": "faro", "comment": "Faro", "content": "The south.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false}]}`)
	categories := func(name string, data []byte) map[string]string {
		t.Helper()
		res, err := format.Import(name, data, format.Options{})
		require.NoError(t, err)
		out := map[string]string{}
		for _, e := range res.Book.Entries {
			c, ok := format.EntryCategory(res.Book, e)
			if ok {
				out[e.Title] = c.Name + map[bool]string{true: "", false: " (disabled)"}[c.Enabled]
			} else {
				out[e.Title] = ""
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		data []byte
		to   format.Kind
		enc  func(format.Book) ([]byte, error)
		file string
	}{
		{"descriptor.lorebook", novel, format.KindRisu, format.ExportRisu, "out.risu.json"},
		{"descriptor.lorebook", novel, format.KindSTWorldInfo, format.ExportST, "out.json"},
		{"places.json", risu, format.KindNovelAI, format.ExportNovelAI, "out.lorebook"},
		{"places.json", risu, format.KindWorldbook, format.ExportWorldbook, "out.worldbook.json"},
		{"places.json", risu, format.KindV3Card, format.ExportCardJSON, "out.card.json"},
	} {
		want := categories(c.name, c.data)
		res, err := format.Import(c.name, c.data, format.Options{})
		require.NoError(t, err)
		format.WriteFileCategories(&res.Book, c.to)
		out, err := c.enc(res.Book)
		require.NoError(t, err)
		require.True(t, json.Valid(out))
		require.Equal(t, want, categories(c.file, out), "%s to %s", c.name, c.to)
	}
}

// TestCategoriesOfWorldInfoCardInWorldInfo: a card loregate wrote from
// world info (its entry keeps a field cards lack), imported and filed under
// a category, keeps the category in a world info export (its entries write
// no other card fields there).
func TestCategoriesOfWorldInfoCardInWorldInfo(t *testing.T) {
	wi, err := format.Import("harbor.json", []byte(`{"entries": {"0": {"uid": 0, "key": ["pier"], "comment": "Pier",
		"content": "The pier.", "x_tool": {"v": 1}}}}`), format.Options{})
	require.NoError(t, err)
	card, err := format.ExportCardJSON(wi.Book)
	require.NoError(t, err)
	res, err := format.Import("harbor.card.json", card, format.Options{})
	require.NoError(t, err)
	book := res.Book
	require.NotEmpty(t, book.Entries)
	for i := range book.Entries {
		book.Entries[i].CategoryID = 7
	}
	format.WriteCategories(&book, []lore.Category{{ID: 7, Name: "Places", Enabled: false}}, format.KindSTWorldInfo)
	out, err := format.ExportST(book)
	require.NoError(t, err)
	again, err := format.Import("again.json", out, format.Options{})
	require.NoError(t, err)
	require.Len(t, again.Book.Entries, len(book.Entries))
	for _, e := range again.Book.Entries {
		c, ok := format.EntryCategory(again.Book, e)
		require.True(t, ok, e.Title)
		require.Equal(t, format.Category{Name: "Places", Enabled: false}, c)
	}
}
