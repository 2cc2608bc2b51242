package postgres

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestSortByInsertion: the per-turn read's in-place sort gives insertion
// order with ties by id for every arrangement tried (cycles of any length,
// entries already in place, repeated orders).
func TestSortByInsertion(t *testing.T) {
	seed := uint32(2463534242)
	next := func(n int) int { // xorshift32
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed % uint32(n))
	}
	for n := range 40 {
		entries := make([]lore.Entry, n)
		for i := range entries {
			entries[i] = lore.Entry{ID: int64(i + 1), Order: next(5), Title: string(rune('a' + i%26))}
		}
		for i := n - 1; i > 0; i-- {
			j := next(i + 1)
			entries[i], entries[j] = entries[j], entries[i]
		}
		want := slices.Clone(entries)
		slices.SortFunc(want, func(x, y lore.Entry) int { return cmp.Or(cmp.Compare(x.Order, y.Order), cmp.Compare(x.ID, y.ID)) })
		sortByInsertion(entries)
		require.Equal(t, want, entries, "%d entries", n)
	}
}
