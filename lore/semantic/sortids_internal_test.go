package semantic

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortIDs: sortIDs orders ids as slices.Sort does, by insertion up to
// insertionMax ids and beyond it, duplicates and sorted or reversed input
// included.
func TestSortIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 40))
	random := func(n, max int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(r.IntN(max))
		}
		return s
	}
	tests := []struct {
		name string
		ids  []int32
	}{
		{"empty", nil},
		{"one", []int32{5}},
		{"two reversed", []int32{9, 2}},
		{"duplicates", []int32{3, 1, 3, 3, 0, 1}},
		{"sorted", []int32{1, 2, 3, 4, 5, 6, 7}},
		{"reversed at the limit", slices.Sorted(slices.Values(random(insertionMax, 1000)))},
		{"random at the limit", random(insertionMax, 50)},
		{"random past the limit", random(insertionMax+1, 50)},
		{"random long", random(300, 5000)},
	}
	slices.Reverse(tests[5].ids)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := slices.Sorted(slices.Values(tc.ids))
			got := slices.Clone(tc.ids)
			sortIDs(got)
			if !slices.Equal(got, want) {
				t.Fatalf("sortIDs(%v) = %v, want %v", tc.ids, got, want)
			}
		})
	}
}
