package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres"
	"loregate/lore/turnstate"
)

// countedDeferred is a DeferredTurnStore of store whose flusher runs
// (its interval the longest), with the turns it did not record counted in
// lost and the errors of its writes, which the test provokes, in failed.
func countedDeferred(t *testing.T, store *postgres.Store) (st turnstate.Store, lost, failed *atomic.Int64, stop func()) {
	t.Helper()
	lost, failed = &atomic.Int64{}, &atomic.Int64{}
	st, f, err := store.DeferredTurnStore(postgres.DeferredTurns{Interval: postgres.MaxTurnFlushInterval,
		OnLost: func(n int) { lost.Add(int64(n)) }, OnError: func(error) { failed.Add(1) }})
	require.NoError(t, err)
	stop = f.Start(context.Background())
	t.Cleanup(stop)
	return st, lost, failed, stop
}

// TestTurnDeferredArenaKeepsEachTurn: the queue's arena (its chunks
// reused from flush to flush) leaves every queued turn its own stored
// result and admitted list: over many flushes, with results larger than
// a chunk, the caller's buffer overwritten after each commit, and turns
// queued into new chunks while a write of the chunks before is held and
// tried again, each log row holds the bytes its turn committed.
func TestTurnDeferredArenaKeepsEachTurn(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"), entry(b.server, 3, "", "b"))
	st, lost, failed, stop := countedDeferred(t, b.store)

	convs := make([]cachedTurns, 3)
	for i := range convs {
		convs[i] = cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	}
	want := map[string][]byte{} // turn id: its stored result
	cost := map[string]int{}    // turn id: its admitted entry's cost
	buf := make([]byte, 0, 160<<10)
	n := 0
	record := func(ct cachedTurns) (deferred bool) {
		n++
		id := fmt.Sprint("t", n)
		size := []int{700, 20 << 10, 70 << 10, 64 << 10, 5 << 10, 150 << 10, 1}[n%7]
		buf = append(buf[:0], '\x01')
		for len(buf) < size {
			buf = append(buf, id...)
			buf = append(buf, byte(len(buf)))
		}
		buf = buf[:size]
		want[id], cost[id] = bytes.Clone(buf), n
		tx, cached := ct.begin(id)
		next, _ := turnstate.Derive(tx.Stored(), es, 2*n)
		next = turnstate.Advance(next, es, []int64{es[n%2].ID}, 2*n, time.Now())
		require.NoError(t, tx.Commit(b.ctx, next, turnstate.LoggedTurn{TurnID: id, MessageCount: 2 * n,
			InputSHA256: fmt.Sprintf("%064x", n), BudgetUnit: "tokens", Response: buf,
			Admitted: []postgres.LoggedEntry{{ID: es[n%2].ID, Group: "activated", Placement: "before", Pass: 1, Cost: n}}}))
		for i := range buf {
			buf[i] = 'X' // the caller reuses its buffer
		}
		return cached
	}
	flush := func() {
		_, err := st.ActivationLog(b.ctx, convs[0].c, 1)
		require.NoError(t, err)
	}
	for _, ct := range convs {
		require.False(t, record(ct), "a conversation's first turn here: under the lock")
	}
	for range 6 { // flushes reusing the chunks of the ones before
		for range 5 {
			for _, ct := range convs {
				require.True(t, record(ct))
			}
		}
		flush()
	}

	// A write held behind a lock, tried again while turns queue.
	for range 4 {
		for _, ct := range convs {
			require.True(t, record(ct))
		}
	}
	lock, err := pgx.Connect(b.ctx, b.pool.Config().ConnString())
	require.NoError(t, err)
	defer lock.Close(b.ctx)
	setTimeout := func(v string) {
		_, err := b.pool.Exec(b.ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = `+v+`', current_database()); END $$`)
		require.NoError(t, err)
		b.pool.Reset()
	}
	setTimeout("100")
	tx, err := lock.Begin(b.ctx)
	require.NoError(t, err)
	_, err = tx.Exec(b.ctx, `LOCK TABLE turn_conversations IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	settled := make(chan error, 1)
	go func() {
		_, err := st.ActivationLog(b.ctx, convs[1].c, 1)
		settled <- err
	}()
	require.Eventually(t, func() bool { return failed.Load() >= 2 }, 20*time.Second, 5*time.Millisecond)
	for range 6 {
		for _, ct := range convs[1:] {
			require.True(t, record(ct), "queued behind the write in flight")
		}
	}
	require.NoError(t, tx.Rollback(b.ctx))
	require.NoError(t, <-settled)
	setTimeout("0")
	for range 3 {
		for _, ct := range convs {
			require.True(t, record(ct))
		}
		flush()
	}
	stop()
	require.Zero(t, lost.Load())

	rows := 0
	for _, ct := range convs {
		logs, err := b.store.ActivationLog(b.ctx, ct.c, 200)
		require.NoError(t, err)
		for _, l := range logs {
			require.Equal(t, want[l.TurnID], l.Response, "turn %s's stored result", l.TurnID)
			require.Len(t, l.Admitted, 1)
			require.Equal(t, cost[l.TurnID], l.Admitted[0].Cost, "turn %s's admitted list", l.TurnID)
			rows++
		}
		ct.stored(b)
	}
	require.Equal(t, n, rows)
}
