package postgres

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestSortByInsertion: the per-turn read's in-place sort gives insertion
// order with ties by id for every arrangement, cycles of any length and
// entries already in place included.
func TestSortByInsertion(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		entries := make([]lore.Entry, n)
		for i := range entries {
			entries[i] = lore.Entry{ID: int64(i + 1), Order: r.IntN(5), Title: string(rune('a' + i%26))}
		}
		r.Shuffle(n, func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		want := slices.Clone(entries)
		slices.SortFunc(want, func(x, y lore.Entry) int { return cmp.Or(cmp.Compare(x.Order, y.Order), cmp.Compare(x.ID, y.ID)) })
		sortByInsertion(entries)
		require.Equal(t, want, entries, "%d entries", n)
	}
}
