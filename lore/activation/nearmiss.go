package activation

import (
	"context"
	"strconv"
	"strings"
)

// NearMissBudget bounds the near-miss search of one traced turn
// (Options.NearMisses), in bytes searched: looking for one literal key in
// one message costs the message's length plus the key's. 64 MiB is a few
// tens of milliseconds of CPU (docs/api.md#operations). When the budget runs
// out, or the turn's context ends, the search stops: every no_key_match
// entry left unsearched says so in its detail (nearMissCutDetail), and the
// turn's verdicts and answer are unchanged.
const NearMissBudget = 64 << 20

// nearMissCutDetail ends the trace detail of a no_key_match entry whose
// near-miss search did not run to its end.
const nearMissCutDetail = "; near-miss search cut: the turn's near-miss budget ran out"

// nearMissScan is the near-miss search state of one turn: each scanned
// message is lower-cased once (on first use) and every search is charged to
// one work budget. The zero value searches nothing (cut from the start).
type nearMissScan struct {
	ctx context.Context
	// folded[i] is the lower-cased form of message i once has[i].
	folded []string
	has    []bool
	// left is the budget left; work is the budget spent.
	left, work int64
	// cut: the budget or the context ended the search.
	cut bool
}

// newNearMissScan returns the near-miss state of a turn of n messages with
// the whole NearMissBudget.
func newNearMissScan(ctx context.Context, n int) nearMissScan {
	return nearMissScan{ctx: ctx, folded: make([]string, n), has: make([]bool, n), left: NearMissBudget}
}

// nearMiss returns "; near miss: ..." naming the first literal primary key
// of ce found inside a word of the newest depth chat messages (whole words
// are on for ce, so it did not match there), nearMissCutDetail when the
// turn's search was cut before it could answer, or "".
func (t *turn) nearMiss(ce *compiledEntry, depth int) string {
	first := len(t.in.Messages) - depth
	for j, ref := range ce.primary {
		if ref.kind != keyLiteral || j >= len(ce.primaryText) {
			continue
		}
		orig := strings.TrimSpace(ce.primaryText[j])
		if orig == "" {
			continue
		}
		key := orig
		if !ce.sens {
			key = strings.ToLower(orig)
		}
		for i := first; i < len(t.in.Messages); i++ {
			found, ok := t.near.contains(t.in.Messages, i, key, ce.sens)
			if !ok {
				return nearMissCutDetail
			}
			if found {
				return "; near miss: key " + strconv.Quote(orig) + " appears inside a word, and whole words are on"
			}
		}
	}
	return ""
}

// contains reports whether key (already lower-cased unless sens) occurs in
// message i of msgs as a substring, folding case unless sens. ok is false
// when the search was cut (budget spent or context ended) and found is then
// meaningless.
func (s *nearMissScan) contains(msgs []string, i int, key string, sens bool) (found, ok bool) {
	if s.cut || s.ctx == nil || s.ctx.Err() != nil {
		s.cut = true
		return false, false
	}
	text := msgs[i]
	if !sens {
		if !s.has[i] {
			s.folded[i], s.has[i] = strings.ToLower(text), true
		}
		text = s.folded[i]
	}
	if len(key) > len(text) {
		return false, true
	}
	cost := int64(len(text) + len(key))
	if cost > s.left {
		s.cut = true
		return false, false
	}
	s.left -= cost
	s.work += cost
	return strings.Contains(text, key), true
}
