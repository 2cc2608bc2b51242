package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
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

// BenchmarkTurnCachedCommit measures what Postgres does for a recorded turn
// of serve's bot (BenchmarkServeTurn's turn: one admitted entry whose state
// record changes, its log row with the 768-byte stored result of that
// turn, testdata/bench-turn-result.bin: no trace, no prompt blocks; 4.2 KB
// before 2 December 2026): b.N turns of one conversation, each
// opened on the state the turn before kept (docs/turns.md#cached-state),
// so each commits in one round trip, on a pool of one connection. It
// reports the CPU time of that one Postgres backend per turn
// (pg-cpu-us/op; walwriter and the other processes are not in it) and
// logs the backend's process id, for counting its instructions under
// valgrind (docs/benchmarks.md#turn-commit-postgres).
func BenchmarkTurnCachedCommit(b *testing.B) { turnCommitBench(b, false) }

// BenchmarkTurnDeferredCommit is BenchmarkTurnCachedCommit with deferred
// turns (docs/turns.md#deferred): each turn is queued, and the flusher
// writes them every 10 ms in one transaction; the last batch is written
// before the CPU time is read; a new conversation every 1,000 turns. Its
// allocations are the turns' and the flusher's.
func BenchmarkTurnDeferredCommit(b *testing.B) { turnCommitBench(b, true) }

func turnCommitBench(b *testing.B, deferred bool) {
	result, err := os.ReadFile("testdata/bench-turn-result.bin")
	require.NoError(b, err)
	ctx, _, store, server, clock := cpuBench(b)
	col, err := store.CreateCollection(ctx, lore.Collection{Server: server, Name: "bench", Enabled: true})
	require.NoError(b, err)
	es := make([]lore.Entry, 250)
	for i := range es {
		es[i], err = store.InsertEntry(ctx, entry(server, 0, col.Name, fmt.Sprint("e-", i)))
		require.NoError(b, err)
	}
	turns, stop := store.TurnStore(), func() {}
	if deferred {
		var f *postgres.TurnFlusher
		turns, f, err = store.DeferredTurnStore(postgres.DeferredTurns{OnLost: func(n int) { b.Errorf("%d turns lost", n) },
			OnError: func(err error) { b.Errorf("flush: %v", err) }})
		require.NoError(b, err)
		stop = f.Start(ctx)
		b.Cleanup(stop)
	}
	cached := turns.(interface {
		BeginCachedTurn(context.Context, turnstate.Conversation, string) turnstate.Turn
	})
	admitted := es[148].ID
	turn := func(k int) {
		c := postgres.Conversation{Server: server, Channel: "333333333333333333"}
		if deferred {
			// A conversation with more turn ids than DeferredTurns.MaxTurnIDs
			// stops deferring (the log keeps 500 a conversation): a new one
			// every 1,000 turns.
			c.Channel = fmt.Sprint(333333333333333333 + k/1000)
		}
		id := fmt.Sprint("t-", k)
		tx := cached.BeginCachedTurn(ctx, c, id)
		if tx == nil {
			tx, err = turns.BeginTurn(ctx, c, id)
			require.NoError(b, err)
		}
		next, _ := turnstate.Derive(tx.Stored(), es, 100+k)
		next = turnstate.Advance(next, es, []int64{admitted}, 100+k, time.Now())
		require.NoError(b, tx.Commit(ctx, next, postgres.LoggedTurn{TurnID: id, MessageCount: 100 + k,
			InputSHA256: fmt.Sprintf("%064x", k), BudgetUnit: "tokens", BudgetLimit: 2048, BudgetUsed: 400,
			Admitted: []postgres.LoggedEntry{{ID: admitted, Group: "activated", Placement: "before", Pass: 1, Cost: 400}},
			Response: result}), "turn %d", k)
	}
	for k := range 10 { // the first turn takes the lock; the plans settle
		turn(k)
	}
	b.Logf("backend pid %d", clock.backend)
	_, pg0 := clock.parts(b)
	b.ResetTimer()
	for k := range b.N {
		turn(10 + k)
	}
	stop()
	b.StopTimer()
	_, pg1 := clock.parts(b)
	b.ReportMetric(float64((pg1-pg0).Microseconds())/float64(b.N), "pg-cpu-us/op")
}
