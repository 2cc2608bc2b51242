package format_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
)

// TestLargeChineseWorldInfo covers the corpus's largest book (3.5 MB, 947
// entries, Chinese keys mixed with Latin names): the default 2 MB JSON
// limit refuses it with the limit and its setting named; a raised limit
// imports it (its one long entry split), it round-trips, and a Latin name written inside Chinese text activates its
// entry.
func TestLargeChineseWorldInfo(t *testing.T) {
	const path = "st-worldinfo/soranokiseki1437__Eldoria_V10.28.1_zh_947entries.json"
	src := readCorpus(t, path)

	_, err := format.Import("big.json", src, format.Options{})
	require.ErrorIs(t, err, format.ErrTooLarge)
	require.ErrorContains(t, err, "1507913 over the limit of 2000000 bytes")
	require.ErrorContains(t, err, lore.EnvMaxJSONBytes)

	res, err := format.Import("big.json", src, format.Options{MaxJSONBytes: 4 << 20})
	require.NoError(t, err)
	require.Equal(t, format.KindSTWorldInfo, res.Format)
	require.Empty(t, res.Report.Skipped)
	require.Len(t, res.Report.Split, 1, "one entry is over 4,000 characters and is split")
	require.Len(t, res.Book.Entries, 946+res.Report.Split[0].Parts)

	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	requireSameWorldInfo(t, src, out)

	joined := lore.JoinSplit(res.Book.Entries)
	// Its 814 depth entries keep their position, depth and role (null =
	// system), and nothing is reported collapsed.
	require.Zero(t, res.Report.CollapsedPlacements)
	var wi struct {
		Entries map[string]struct {
			Position int  `json:"position"`
			Depth    int  `json:"depth"`
			Role     *int `json:"role"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(src, &wi))
	atDepth := 0
	for _, e := range joined {
		var uid int
		require.NoError(t, json.Unmarshal(e.Extensions["st/uid"], &uid))
		want := wi.Entries[strconv.Itoa(uid)]
		kind, _ := lore.PositionFromST(want.Position)
		require.Equal(t, kind, e.Position, "uid %d", uid)
		require.Equal(t, want.Depth, e.Depth, "uid %d", uid)
		role := lore.RoleSystem
		if want.Role != nil && *want.Role == 1 {
			role = lore.RoleUser
		} else if want.Role != nil && *want.Role == 2 {
			role = lore.RoleAssistant
		}
		require.Equal(t, role, e.Role, "uid %d", uid)
		if e.Position == lore.PositionAtDepth {
			atDepth++
		}
	}
	require.Equal(t, 814, atDepth)
	entries := make([]lore.Entry, len(joined))
	for i, e := range joined {
		e.ID, e.Collection = int64(i+1), lore.DefaultCollection
		entries[i] = e
	}
	r, err := activation.Activate(context.Background(), activation.Input{
		Entries:     entries,
		Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
		Messages:    []string{"他握紧了Thalion的法杖，望向远方。"},
	}, activation.Options{CharBudget: -1})
	require.NoError(t, err)
	found := false
	for _, a := range r.Admitted() {
		if a.Entry.Title == "守护者法杖" {
			found = true
		}
	}
	require.True(t, found, "the staff entry (key Thalion的法杖) is admitted")
}
