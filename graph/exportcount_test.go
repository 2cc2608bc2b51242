package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExportEntriesCountsTheFile: exportLorebook's entries is the number of
// entries in the exported file, where a split entry is one entry again, not
// the rows it is stored as (a 9,000-character entry stored as parts and a
// short one export as 2 entries in every format; the count said 3).
func TestExportEntriesCountsTheFile(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	book := `{"entries": {"0": {"uid": 0, "key": ["saga"], "comment": "Saga", "content": "` + strings.Repeat("The long saga. ", 600) +
		`"}, "1": {"uid": 1, "key": ["glade"], "comment": "Glade", "content": "A quiet glade."}}}`
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Sagas"}, "sagas.json", []byte(book))
	require.Nil(t, imp.Error)
	require.Greater(t, imp.Added, 2, "the long entry is stored as parts")
	for _, tc := range []struct {
		format string
		count  func(t *testing.T, js string) int
	}{
		{"ST_WORLD_INFO", func(t *testing.T, js string) int {
			var v struct{ Entries map[string]json.RawMessage }
			require.NoError(t, json.Unmarshal([]byte(js), &v))
			return len(v.Entries)
		}},
		{"CCV3_LOREBOOK", func(t *testing.T, js string) int {
			var v struct {
				Data struct{ Entries []json.RawMessage }
			}
			require.NoError(t, json.Unmarshal([]byte(js), &v))
			return len(v.Data.Entries)
		}},
		{"NOVELAI_LOREBOOK", func(t *testing.T, js string) int {
			var v struct{ Entries []json.RawMessage }
			require.NoError(t, json.Unmarshal([]byte(js), &v))
			return len(v.Entries)
		}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var ex struct {
				JSON    *string
				Entries int
				Error   *mutationError
			}
			a.must(serviceKey, qExport, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0,
				"collectionId": imp.Collection.ID, "format": tc.format}}, "exportLorebook", &ex)
			require.Nil(t, ex.Error)
			require.Equal(t, 2, tc.count(t, *ex.JSON), "the file joins the parts")
			require.Equal(t, 2, ex.Entries, "entries counts the file's entries")
		})
	}
}
