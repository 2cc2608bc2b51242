package format_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format"
	"loregate/lore/format/sillytavern"
)

// requireSameWorldInfo compares two world info files as JSON, member order
// ignored, entries matched by position in ST iteration order; a field
// missing on one side must hold ST's default on the other.
func requireSameWorldInfo(t *testing.T, src, got []byte) {
	t.Helper()
	var a, b struct {
		Entries map[string]map[string]json.RawMessage `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(src, &a))
	require.NoError(t, json.Unmarshal(got, &b))
	require.Equal(t, len(a.Entries), len(b.Entries), "entry count")
	defaults := sillytavern.Defaults()
	for uid, se := range a.Entries {
		ge, ok := b.Entries[uid]
		require.True(t, ok, "entry %s missing from export", uid)
		for name, sv := range se {
			gv, ok := ge[name]
			require.True(t, ok, "entry %s: field %s missing from export", uid, name)
			require.JSONEq(t, string(sv), string(gv), "entry %s field %s", uid, name)
		}
		for name, gv := range ge {
			if _, ok := se[name]; ok {
				continue
			}
			d, ok := defaults[name]
			if name == "displayIndex" || name == "addMemo" {
				continue // editor-derived fields
			}
			require.True(t, ok, "entry %s: export added non-default field %s", uid, name)
			require.JSONEq(t, string(d), string(gv), "entry %s: added field %s is not ST's default", uid, name)
		}
	}
}

func TestWorldInfoRoundTrip(t *testing.T) {
	for _, tc := range corpusFiles {
		if tc.kind != format.KindSTWorldInfo {
			continue
		}
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			src := readCorpus(t, tc.path)
			res, err := format.Import(filepath.Base(tc.path), src, format.Options{})
			require.NoError(t, err)
			if len(res.Report.Skipped) > 0 {
				// Skipped entries cannot come back; compare the rest.
				src = dropEntries(t, src, res.Report.Skipped)
			}
			out, err := format.ExportST(res.Book)
			require.NoError(t, err)
			requireSameWorldInfo(t, src, out)

			// Export, import again, export again: a fixed point.
			res2, err := format.Import("again.json", out, format.Options{})
			require.NoError(t, err)
			require.Equal(t, len(res.Book.Entries), len(res2.Book.Entries))
			out2, err := format.ExportST(res2.Book)
			require.NoError(t, err)
			require.JSONEq(t, string(out), string(out2))
		})
	}
}

// dropEntries removes the skipped entries (by ST iteration position) from a
// world info file whose entries object has ascending numeric keys.
func dropEntries(t *testing.T, src []byte, skipped []format.Skip) []byte {
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(src, &doc))
	var entries map[string]map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc["entries"], &entries))
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sortNumeric(keys)
	for _, s := range skipped {
		delete(entries, keys[s.Index])
	}
	b, err := json.Marshal(entries)
	require.NoError(t, err)
	doc["entries"] = b
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

func sortNumeric(keys []string) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && less(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

func less(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return strings.Compare(a, b) < 0
}
