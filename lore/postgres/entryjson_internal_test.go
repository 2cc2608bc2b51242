package postgres

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestEntriesJSONEncodesLikeEncodingJSON checks the hand-written encoding
// of insertEntriesTx's rows: every value decodes to what encoding/json
// would have written for it, strings that need escapes included.
func TestEntriesJSONEncodesLikeEncodingJSON(t *testing.T) {
	depth, yes := 3, true
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tricky := []string{"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\x01", "ünï 漢字 🐉", "bad \xff utf-8", "</script>&", "\u2028"}
	var entries []lore.Entry
	for i, s := range tricky {
		e := lore.Entry{Server: "123456789012345678", Lineage: lore.Lineage(i % 2), Collection: "Book " + s,
			Title: s, Content: s, Keys: []string{s, "k"}, Logic: lore.AndAny, Enabled: true, Probability: 100,
			Order: -i, Priority: 100, CaseSensitive: &yes, Extensions: map[string]json.RawMessage{"x": json.RawMessage(`[1]`)}, Note: s, CategoryID: int64(i)}
		if i%3 == 0 {
			e.ScanDepth, e.CreatedAt = &depth, created
		}
		entries = append(entries, e)
	}
	raw, err := entriesJSON(entries, created.Add(time.Hour))
	require.NoError(t, err)
	var got []map[string]any
	require.NoError(t, json.Unmarshal(raw, &got), "%s", raw)
	require.Len(t, got, len(entries))
	for i, e := range entries {
		args, err := entryArgs(e)
		require.NoError(t, err)
		want := map[string]any{"server_id": e.Server, "lineage_id": lineageParam(e.Lineage), "lorebook_name": nil, "created_at": nil}
		if e.Lineage.IsServerwide() {
			want["lorebook_name"] = e.Collection
		}
		if !e.CreatedAt.IsZero() {
			want["created_at"] = e.CreatedAt
		}
		for j, col := range entryInsertColumns {
			v := args[j]
			if b, ok := v.([]byte); ok {
				v = json.RawMessage(b)
			}
			want[col] = v
		}
		wantRaw, err := json.Marshal(want)
		require.NoError(t, err)
		var wantRow map[string]any
		require.NoError(t, json.Unmarshal(wantRaw, &wantRow))
		require.Equal(t, wantRow, got[i], "entry %d (%q)", i, tricky[i])
	}
}
