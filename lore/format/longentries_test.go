package format_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// longCard returns a V2 card whose entry at each index of long has content
// of n paragraphs of about 1,000 characters; the others are short.
func longCard(t *testing.T, count int, long map[int]int) ([]byte, map[int]string) {
	t.Helper()
	contents := map[int]string{}
	var entries []map[string]any
	for i := range count {
		c := "short lore " + itoa(i)
		if n, ok := long[i]; ok {
			var paras []string
			for p := range n {
				paras = append(paras, strings.Repeat("Paragraph "+itoa(p)+" of a long entry. ", 28))
			}
			c = strings.Join(paras, "\n\n")
			contents[i] = c
		}
		entries = append(entries, map[string]any{"id": i, "keys": []string{"k" + itoa(i)}, "content": c,
			"enabled": true, "insertion_order": 100, "comment": "e" + itoa(i), "extensions": map[string]any{}})
	}
	b, err := json.Marshal(map[string]any{"spec": "chara_card_v2", "spec_version": "2.0",
		"data": map[string]any{"name": "Long", "first_mes": "hi", "character_book": map[string]any{"entries": entries}}})
	require.NoError(t, err)
	return b, contents
}

func TestLongEntries(t *testing.T) {
	data, contents := longCard(t, 3, map[int]int{1: 10})
	n := lore.UTF16Len(contents[1])
	require.Greater(t, n, 8000, "longer than the default budget")
	tests := []struct {
		name    string
		opts    format.Options
		rows    int
		split   []format.Split
		skipped int
	}{
		{"default splits", format.Options{}, 2 + 3, []format.Split{{Index: 1, Title: "e1", Characters: n, Parts: 3}}, 0},
		{"skip", format.Options{LongEntries: format.LongSkip}, 2, []format.Split{}, 1},
		{"raised limit keeps it whole", format.Options{Limits: lore.Limits{ContentChars: 20000}}, 3, []format.Split{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := format.Import("c.json", data, tc.opts)
			require.NoError(t, err)
			require.Len(t, res.Book.Entries, tc.rows)
			require.Equal(t, tc.split, res.Report.Split)
			require.Len(t, res.Report.Skipped, tc.skipped)
			if tc.skipped > 0 {
				require.Contains(t, res.Report.Skipped[0].Reason, "over the 4000 limit")
			}
			if len(tc.split) > 0 {
				require.Contains(t, strings.Join(res.Report.Warnings, "\n"), "can never fit the default budget of 8000")
				var group string
				for i, e := range res.Book.Entries[1:4] {
					r, ok := e.Split()
					require.True(t, ok)
					require.Equal(t, i, r.Part)
					require.Equal(t, 3, r.Parts)
					if group == "" {
						group = r.Group
					}
					require.Equal(t, group, r.Group)
					require.Equal(t, []string{"k1"}, e.Keys, "every part carries the group's keys")
					require.LessOrEqual(t, lore.UTF16Len(e.Content), lore.MaxContentLen)
					require.True(t, strings.HasSuffix(e.Content, "\n\n") || i == 2, "cut at a paragraph")
				}
			}
			// Every export joins the parts back into one entry.
			out, err := format.ExportCharacterBook(res.Book)
			require.NoError(t, err)
			var book struct {
				Entries []struct{ Content string }
			}
			require.NoError(t, json.Unmarshal(out, &book))
			if tc.skipped == 0 {
				require.Len(t, book.Entries, 3)
				require.Equal(t, contents[1], book.Entries[1].Content)
			}
		})
	}
}

// TestPersonaCardLimitAfterSplit: persona card conversion keeps the first
// 250 entries counted after splitting, never part of a split group.
func TestPersonaCardLimitAfterSplit(t *testing.T) {
	data, _ := longCard(t, 252, map[int]int{248: 10}) // parts 248-250 straddle the limit
	res, err := format.Import("c.json", data, format.Options{PersonaCard: true})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 248)
	require.Equal(t, 3+3, res.Report.Dropped, "the 3 parts of entry 248 and entries 249-251")
	res, err = format.Import("c.json", data, format.Options{PersonaCard: true, Limits: lore.Limits{ScopeEntries: 300}})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 254)
	require.Zero(t, res.Report.Dropped)
}
