package semantic

import (
	"slices"
	"sync"
)

// This file holds the term memo: each query message's terms, cut and
// looked up once per index. A bot sends its conversation's newest
// messages every turn, so a turn's query (its newest messages) mostly
// holds messages an earlier turn cut already, as the keyword matcher's
// chat memo (lore/activation) finds for its scan
// (docs/benchmarks.md#retrieval).

// termMemoBytes bounds the message text (plus 8 bytes per term and 64 per
// message) an index's term memo holds; past it the memo starts again
// empty. A message larger than the bound is cut every time.
const termMemoBytes = 64 << 10

// termCount is one term of a text: its id and how many times the text
// holds it.
type termCount struct{ id, n int32 }

// termMemo maps message text to its terms (Lexical.textTerms).
type termMemo struct {
	mu    sync.RWMutex
	terms map[string][]termCount
	bytes int
}

// textTerms returns the terms of text that some profile holds, by id
// ascending, each once with its count: from the memo, or cut (queryTerms)
// and memoised. ids is a work array; the result is shared and read-only.
func (x *Lexical) textTerms(text string, ids []int32) ([]termCount, []int32) {
	memo := &x.memo
	memo.mu.RLock()
	tc, ok := memo.terms[text]
	memo.mu.RUnlock()
	if ok {
		return tc, ids
	}
	ids = x.queryTerms(text, ids[:0])
	sortIDs(ids)
	distinct := 0 // the memo keeps the distinct terms alone: 8 bytes a term, as the bound counts
	for k, id := range ids {
		if k == 0 || id != ids[k-1] {
			distinct++
		}
	}
	tc = make([]termCount, 0, distinct)
	for _, id := range ids {
		if k := len(tc) - 1; k >= 0 && tc[k].id == id {
			tc[k].n++
			continue
		}
		tc = append(tc, termCount{id, 1})
	}
	size := len(text) + 8*len(tc) + 64
	if size > termMemoBytes {
		return tc, ids
	}
	memo.mu.Lock()
	if memo.terms == nil || memo.bytes+size > termMemoBytes {
		memo.terms, memo.bytes = map[string][]termCount{}, 0
	}
	if _, ok := memo.terms[text]; !ok {
		memo.terms[text] = tc
		memo.bytes += size
	}
	memo.mu.Unlock()
	return tc, ids
}

// insertionMax is the most ids sortIDs sorts by insertion: a chat
// message's terms, which it sorts in about half slices.Sort's time (30 to
// 100 random ids; 0.9x at 256).
const insertionMax = 128

// sortIDs sorts ids ascending.
func sortIDs(ids []int32) {
	if len(ids) > insertionMax {
		slices.Sort(ids)
		return
	}
	for i := 1; i < len(ids); i++ {
		v, j := ids[i], i
		for ; j > 0 && ids[j-1] > v; j-- {
			ids[j] = ids[j-1]
		}
		ids[j] = v
	}
}

// mergeTerms appends to dst the terms of a and b (each by id ascending,
// each once) by id ascending, each once with the sum of its counts.
func mergeTerms(dst, a, b []termCount) []termCount {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].id < b[j].id:
			dst = append(dst, a[i])
			i++
		case a[i].id > b[j].id:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, termCount{a[i].id, a[i].n + b[j].n})
			i, j = i+1, j+1
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}
