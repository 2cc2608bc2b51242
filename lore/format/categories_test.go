package format_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

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
