package semantic

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestTermMemoHoldsWhatItCounts: a message repeating one term
// memoises a []termCount whose capacity is the number of occurrences,
// while the bound counts 8 bytes per distinct term: the memo must keep
// only the distinct terms, or it holds several times its bound.
func TestTermMemoHoldsWhatItCounts(t *testing.T) {
	x := NewLexical([]Doc{{ID: 1, Title: "Zu", Text: "zu zu zu kotori"}, {ID: 2, Title: "other", Text: "mana reine"}})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 21 {
		msg := strings.Repeat("zu ", 1000) + strconv.Itoa(i) // 3 KB, 1000 occurrences of one term
		x.textTerms(msg, nil)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	retained := 0
	for k, tc := range x.memo.terms {
		retained += len(k) + 8*cap(tc)
	}
	t.Logf("memo counts %d bytes (bound %d); keys+slices retain %d bytes; heap grew %d", x.memo.bytes, termMemoBytes, retained, int64(after.HeapAlloc)-int64(before.HeapAlloc))
	if retained > 2*termMemoBytes {
		t.Errorf("memo retains %d bytes against a bound of %d", retained, termMemoBytes)
	}
}
