package activation

import (
	"slices"
	"sync"
)

// This file holds the chat memo: the key nodes each chat message reaches
// in a Matcher's own automata. A bot sends its conversation's newest
// messages every turn, so all but the newest were scanned by the turn
// before; their nodes are marked from the memo instead of scanning the
// text again (docs/benchmarks.md "Activation engine"). Macro keys (the
// names change) and regex keys are not memoised.

// chatMemoBytes bounds the message text (plus 4 bytes per node) a
// Matcher's chat memo holds (a 100-message window of 300 CJK characters,
// four of 300 Latin ones); past it the memo starts again empty, and a
// turn whose messages are not in it scans them as before. A window larger
// than the bound is scanned without the memo.
const chatMemoBytes = 128 << 10

// chatMemo maps message text to the nodes it reaches.
type chatMemo struct {
	mu    sync.RWMutex
	hits  map[string]*contentHits
	bytes int
}

// hitsOf scans text into the scratch's own marks and returns the nodes
// it reaches per own automaton.
func (ts *turnScan) hitsOf(text string) *contentHits {
	m, sc := ts.m, ts.s
	h := &contentHits{}
	for slot, a := range m.autos {
		if a == nil {
			continue
		}
		if len(sc.mdone[slot]) < len(a.term) || sc.mgen[slot] == 1<<32-1 {
			sc.mdone[slot], sc.mgen[slot] = make([]uint32, len(a.term)), 0
		}
		sc.mgen[slot]++
		gen := sc.mgen[slot]
		sc.hits = sc.hits[:0]
		ts.scanText(a, text, slot == autoFold, &marks{done: sc.mdone[slot], g0: gen, touched: &sc.hits}, gen)
		h.nodes[slot] = slices.Clone(sc.hits)
	}
	return h
}

// chatHits returns the memoised nodes of every message of msgs, scanning
// (and memoising) those the memo lacks; out is reused.
func (ts *turnScan) chatHits(msgs []string, out []*contentHits) []*contentHits {
	memo := &ts.m.chat
	out = slices.Grow(out[:0], len(msgs))[:len(msgs)]
	missing := false
	memo.mu.RLock()
	for k, msg := range msgs {
		out[k] = memo.hits[msg]
		missing = missing || out[k] == nil
	}
	memo.mu.RUnlock()
	if !missing {
		return out
	}
	for k, msg := range msgs {
		if out[k] == nil {
			out[k] = ts.hitsOf(msg)
		}
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	for k, msg := range msgs {
		if _, ok := memo.hits[msg]; ok {
			continue
		}
		size := len(msg) + 4*(len(out[k].nodes[0])+len(out[k].nodes[1]))
		if memo.hits == nil || memo.bytes+size > chatMemoBytes {
			memo.hits, memo.bytes = make(map[string]*contentHits, len(msgs)), 0
		}
		if size <= chatMemoBytes {
			memo.hits[msg] = out[k]
			memo.bytes += size
		}
	}
	return out
}

// fitsMemo reports whether the text of msgs fits the chat memo's bound.
func fitsMemo(msgs []string) bool {
	n := 0
	for _, m := range msgs {
		n += len(m)
	}
	return n <= chatMemoBytes
}
