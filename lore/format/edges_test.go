package format_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format"
	"loregate/lore/sharedtest"
)

// TestNamelessBookExportsItsFileName: a world info file without a name
// (case BUG-55) is named after its file, and every export with a book-name
// field carries that name (docs/formats.md "Book names").
func TestNamelessBookExportsItsFileName(t *testing.T) {
	data := sharedtest.Read(t, "cases", "turn3", "BUG-55-nameless-book-export-name", "Harbor Lore.json")
	res, err := format.Import("Harbor Lore.json", data, format.Options{})
	require.NoError(t, err)
	require.Equal(t, "Harbor Lore", res.Book.Name)
	name := func(t *testing.T, out []byte, path ...string) string {
		t.Helper()
		var v any
		require.NoError(t, json.Unmarshal(out, &v))
		for _, p := range path {
			m, ok := v.(map[string]any)
			require.True(t, ok, "%s is an object", p)
			v = m[p]
		}
		s, _ := v.(string)
		return s
	}
	for _, tc := range []struct {
		hop    string
		export func(format.Book) ([]byte, error)
		path   []string
	}{
		{"ccv3", format.ExportLorebookV3, []string{"data", "name"}},
		{"card", format.ExportCardJSON, []string{"data", "character_book", "name"}},
		{"agnai", format.ExportAgnai, []string{"name"}},
	} {
		t.Run(tc.hop, func(t *testing.T) {
			out, err := tc.export(res.Book)
			require.NoError(t, err)
			require.Equal(t, "Harbor Lore", name(t, out, tc.path...))
			back, err := format.Import("other.json", out, format.Options{})
			require.NoError(t, err)
			require.Equal(t, "Harbor Lore", back.Book.Name, "the name survives the hop")
		})
	}
	// The same-format export stays as the source was: no name added.
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	require.NotContains(t, string(out), `"name"`)
}

// TestBadEntriesNamedInReport: entries whose content or keys are not text
// (case BUG-62) are named in the report with the precise reason; nothing
// is dropped silently.
func TestBadEntriesNamedInReport(t *testing.T) {
	data := sharedtest.Read(t, "cases", "turn3", "BUG-62-bad-entries-named-in-report", "book.json")
	res, err := format.Import("book.json", data, format.Options{})
	require.NoError(t, err)
	rep := res.Report
	require.Equal(t, 3, rep.Entries)
	require.Equal(t, []format.Skip{
		{Index: 0, Title: "no-content", Reason: "no content"},
		{Index: 1, Title: "null-content", Reason: "no content"},
		{Index: 2, Title: "number-content", Reason: "content is not text (a number)"},
	}, rep.Skipped)
	require.Equal(t, []format.Inert{{Index: 4, Title: "key-number", Reason: "no usable key: keys are not text (a number)"}}, rep.Inert)
	require.Len(t, rep.UnsupportedKeys, 1)
	require.Equal(t, "keys are not text (a number)", rep.UnsupportedKeys[0].Reason)

	// The same rule in a card book and a RisuAI export.
	card := `{"spec":"chara_card_v2","data":{"name":"c","character_book":{"entries":[
	  {"keys":["a"],"content":{"t":1},"enabled":true,"insertion_order":1},
	  {"keys":12,"content":"x","enabled":true,"insertion_order":2}]}}}`
	res, err = format.Import("c.json", []byte(card), format.Options{})
	require.NoError(t, err)
	require.Equal(t, "content is not text (an object)", res.Report.Skipped[0].Reason)
	require.Equal(t, "no usable key: keys are not text (a number)", res.Report.Inert[0].Reason)
	risu := `{"type":"risu","ver":1,"data":[{"key":"a","content":true,"comment":"t","mode":"normal","insertorder":1,"alwaysActive":false,"secondkey":"","selective":false}]}`
	res, err = format.Import("r.json", []byte(risu), format.Options{})
	require.NoError(t, err)
	require.Equal(t, "content is not text (true or false)", res.Report.Skipped[0].Reason)
	for _, in := range res.Report.Inert {
		require.NotEmpty(t, strings.TrimSpace(in.Reason))
	}
}
