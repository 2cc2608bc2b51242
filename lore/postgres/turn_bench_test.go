package postgres_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres"
	"loregate/lore/turnstate"
)

// BenchmarkTurn measures what a recorded turn adds to a turn at the store:
// BeginTurn and Commit (two round trips) of a turn that admits four
// entries and records a 30 KB response, next to one bare round trip
// (SELECT 1) on the same pool, so the ratio shows how much of a turn is
// round-trip latency.
//
//	make bench PKGS=./lore/postgres/ BENCH=Turn
func BenchmarkTurn(b *testing.B) {
	tb := setup(b)
	es := tb.insert(b, entries(tb.server, 3, "", "e", 4)...)
	ids := make([]int64, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	c := tb.conversation(b)
	response := json.RawMessage(`{"trace":"` + strings.Repeat("x", 30_000) + `"}`)
	b.Run("select1", func(b *testing.B) {
		for b.Loop() {
			var one int
			require.NoError(b, tb.pool.QueryRow(tb.ctx, `SELECT 1`).Scan(&one))
		}
	})
	n := 0
	b.Run("turn", func(b *testing.B) {
		for b.Loop() {
			n++
			turn, err := tb.store.BeginTurn(tb.ctx, c, fmt.Sprint("t", n))
			require.NoError(b, err)
			next, _ := turnstate.Derive(turn.State, es, n)
			next = turnstate.Advance(next, es, ids, n, time.Now())
			require.NoError(b, turn.Commit(tb.ctx, next, postgres.LoggedTurn{TurnID: fmt.Sprint("t", n), MessageCount: n,
				InputSHA256: fmt.Sprintf("%064x", n), BudgetUnit: "utf16", Response: response}))
		}
	})
}
