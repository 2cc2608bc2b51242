package activation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestNearMissBudget: the issue-26 attack at a quarter of its message size
// (250 entries of 100 literal whole-word keys, none in a 256 KiB message,
// with NearMisses) spends at most NearMissBudget of near-miss work instead
// of 25,000 searches of the whole message: the entries searched within the
// budget keep their near miss, the later ones say the search was cut, and
// no verdict changes.
func TestNearMissBudget(t *testing.T) {
	msg := strings.Repeat("lorem ipsum dolor sit amet ", 10000)[:256<<10] + " everglades"
	var entries []lore.Entry
	for i := range 250 {
		keys := make([]string, 100)
		for j := range keys {
			keys[j] = fmt.Sprintf("zq%dx%d", i, j)
		}
		if i == 0 {
			keys[99] = "glade"
		}
		entries = append(entries, ent(int64(i+1), keys, "x"))
	}
	m := Compile(entries, MatchOptions{})
	res, err := m.Activate(context.Background(), baseInput(entries, msg), Options{NearMisses: true})
	require.NoError(t, err)
	require.Len(t, res.Trace, 250)
	unbounded := int64(250 * 100 * len(msg))
	require.Greater(t, unbounded, int64(90*NearMissBudget), "the attack is far over the budget")
	require.LessOrEqual(t, res.nearMissWork, int64(NearMissBudget))
	require.Greater(t, res.nearMissWork, int64(NearMissBudget-2*len(msg)), "the budget is spent, not abandoned early")
	require.Contains(t, res.Trace[0].Detail, `near miss: key "glade" appears inside a word`)
	require.NotContains(t, res.Trace[1].Detail, "cut", "the second entry is searched within the budget")
	cut := 0
	for _, tr := range res.Trace {
		require.Equal(t, VerdictNoKeyMatch, tr.Verdict)
		require.True(t, strings.HasPrefix(tr.Detail, "no key in the last 1 message"), tr.Detail)
		if strings.HasSuffix(tr.Detail, nearMissCutDetail) {
			cut++
		}
	}
	// 256 searches of the message fit: the first two entries and part of
	// the third are searched.
	require.Equal(t, 248, cut)

	// The same turn without NearMisses does no near-miss work.
	res, err = m.Activate(context.Background(), baseInput(entries, msg), Options{})
	require.NoError(t, err)
	require.Zero(t, res.nearMissWork)
	require.NotContains(t, res.Trace[249].Detail, "near-miss")
}

// TestNearMissScan: each message is lower-cased once and every search is
// charged; the search stops when the context ends or the budget is spent.
func TestNearMissScan(t *testing.T) {
	msgs := []string{"The EVERGLADES", "river"}
	s := newNearMissScan(context.Background(), len(msgs))
	for range 3 {
		found, ok := s.contains(msgs, 0, "glade", false)
		require.True(t, ok)
		require.True(t, found)
	}
	require.True(t, s.has[0])
	require.False(t, s.has[1], "a message not searched is not folded")
	require.Equal(t, int64(3*(len(msgs[0])+5)), s.work)
	found, ok := s.contains(msgs, 0, "glade", true)
	require.True(t, ok)
	require.False(t, found, "case-sensitive search reads the text as written")
	found, ok = s.contains(msgs, 1, "longer than river", false)
	require.True(t, ok)
	require.False(t, found)

	s.left = 3
	_, ok = s.contains(msgs, 1, "riv", false)
	require.False(t, ok, "a search over the budget is cut")
	require.True(t, s.cut)
	_, ok = s.contains(msgs, 1, "x", false)
	require.False(t, ok, "once cut, the search stays cut")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = newNearMissScan(ctx, len(msgs))
	_, ok = s.contains(msgs, 0, "glade", false)
	require.False(t, ok, "an ended context cuts the search")
	require.Zero(t, s.work)
}
