//go:build soak

package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSoakNearMissTrace: issue 26's trace attack at its repro size, 25,000
// literal whole-word keys (a full persona scope of 250 entries of 100 keys)
// that never match, over a 1 MiB message, with the trace selected. Before
// the near-miss budget each key lower-cased and searched the whole message
// again (about 15 s of CPU); now the request is answered with a 200 and the
// trace within the hostile bounds (2 s of CPU, idle 1 s after), and the
// entries left unsearched say the near-miss search was cut. Run by `make soak`.
func TestSoakNearMissTrace(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var p struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 70, "l": 7, "n": "Vex"}, "upsertPersona", &p)
	require.Nil(t, p.Error)
	book := make([]map[string]any, 250)
	for i := range book {
		keys := make([]string, 100)
		for j := range keys {
			keys[j] = fmt.Sprintf("zq%dx%d", i, j)
		}
		book[i] = map[string]any{"title": fmt.Sprintf("keys %d", i), "content": "x", "keys": keys}
	}
	var rp struct {
		Count *int
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $e: [EntryInput!]!) { replacePersonaBook(input: {serverDiscordId: $s, lineageId: 7, entries: $e}) { count error { code message field } } }`,
		map[string]any{"s": serverA, "e": book}, "replacePersonaBook", &rp)
	require.Nil(t, rp.Error)
	require.Equal(t, 250, *rp.Count)
	msg := strings.Repeat("lorem ipsum dolor sit amet ", 40000)[:1<<20-64]
	turn := map[string]any{"serverDiscordId": serverA, "lineageId": 7, "messages": []map[string]any{{"content": msg}}}
	var act activationResult
	bounded(t, func() {
		a.must(serviceKey, qActivate, map[string]any{"input": turn}, "activate", &act)
	})
	require.Len(t, act.Trace, 250)
	cut := 0
	for _, tr := range act.Trace {
		require.Equal(t, "no_key_match", tr.Verdict, tr.Title)
		if tr.Detail != nil && strings.Contains(*tr.Detail, "near-miss search cut") {
			cut++
		}
	}
	require.Greater(t, cut, 240, "the entries past the budget say the search was cut")
}
