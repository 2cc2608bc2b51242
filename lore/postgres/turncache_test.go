package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// cachedTurns drives a TurnStore as lore/turn's Record does: the kept
// state first, BeginTurn when there is none or it is stale.
type cachedTurns struct {
	t     *testing.T
	store turnstate.Store
	c     postgres.Conversation
	es    []lore.Entry
}

// begin opens turn id on the kept state (cached true) or under the lock.
func (ct cachedTurns) begin(id string) (tx turnstate.Turn, cached bool) {
	if tx := ct.store.(turn.CachedRecorder).BeginCachedTurn(context.Background(), ct.c, id); tx != nil {
		return tx, true
	}
	tx, err := ct.store.BeginTurn(context.Background(), ct.c, id)
	require.NoError(ct.t, err)
	ct.t.Cleanup(func() { tx.Rollback(context.Background()) }) // a failed check must not leave it open
	return tx, false
}

// commit records tx as turn id at count admitting ids.
func (ct cachedTurns) commit(tx turnstate.Turn, id string, count int, ids ...int64) error {
	next, _ := turnstate.Derive(tx.Stored(), ct.es, count)
	next = turnstate.Advance(next, ct.es, ids, count, time.Now())
	return tx.Commit(context.Background(), next, turnstate.LoggedTurn{TurnID: id, MessageCount: count,
		InputSHA256: fmt.Sprintf("%064x", count), BudgetUnit: "utf16"})
}

// record records turn id, reporting whether it went through the kept state.
func (ct cachedTurns) record(id string, count int, ids ...int64) (cached bool) {
	ct.t.Helper()
	tx, cached := ct.begin(id)
	err := ct.commit(tx, id, count, ids...)
	if cached && err == turnstate.ErrStale {
		tx, _ = ct.begin(id)
		err = ct.commit(tx, id, count, ids...)
	}
	require.NoError(ct.t, err)
	return cached
}

// stored checks that the kept state is the stored one.
func (ct cachedTurns) stored(b *testBundle) {
	ct.t.Helper()
	tx, cached := ct.begin("probe")
	defer tx.Rollback(b.ctx)
	require.True(ct.t, cached)
	want, err := b.store.TurnState(b.ctx, ct.c)
	require.NoError(ct.t, err)
	require.Equal(ct.t, want, tx.Stored())
}

func logRows(t *testing.T, b *testBundle, c postgres.Conversation) int {
	logs, err := b.store.ActivationLog(b.ctx, c, 200)
	require.NoError(t, err)
	return len(logs)
}

// TestTurnCachedState: a TurnStore opens a conversation's next turn on the
// state its last turn committed (docs/turns.md#cached-state) and commits
// it only where nothing changed since: another process's turn, a reset,
// a lore write of the server or a used turn id make the commit
// turnstate.ErrStale with nothing written, and the turn runs again under
// the lock.
func TestTurnCachedState(t *testing.T) {
	b := setup(t)
	es := b.insert(t, withTimed(entry(b.server, 3, "", "a"), 3, 2), entry(b.server, 3, "", "b"), entry(b.server, 3, "", "c"))
	a := cachedTurns{t: t, store: b.store.TurnStore(), c: b.conversation(t), es: es}
	other := a
	other.store = postgres.New(b.pool).TurnStore()

	require.False(t, a.record("t1", 2, es[0].ID), "a conversation's first turn here: under the lock")
	require.True(t, a.record("t2", 4, es[1].ID))
	for i := 3; i <= 10; i++ {
		require.True(t, a.record(fmt.Sprint("t", i), 2*i))
	}
	a.stored(b)
	require.Equal(t, 10, logRows(t, b, a.c))

	// A used turn id: one of the last eight goes under the lock at once
	// (a retry, replayed there); an older one is stale, nothing written,
	// and the kept state stays.
	tx, cached := a.begin("t10")
	require.False(t, cached)
	require.NotNil(t, tx.Retry())
	tx.Rollback(b.ctx)
	tx, cached = a.begin("t2")
	require.True(t, cached)
	require.ErrorIs(t, a.commit(tx, "t2", 22, es[2].ID), turnstate.ErrStale)
	require.Equal(t, 10, logRows(t, b, a.c))
	a.stored(b)

	// Another process's turn: stale, nothing written, and the next turns
	// here go under the lock for a while.
	require.False(t, other.record("o1", 24, es[2].ID))
	tx, cached = a.begin("t11")
	require.True(t, cached)
	require.ErrorIs(t, a.commit(tx, "t11", 26, es[0].ID), turnstate.ErrStale)
	require.Equal(t, 11, logRows(t, b, a.c))
	for i := range 16 {
		require.False(t, a.record(fmt.Sprint("s", i), 28+i), "turn %d after a stale state", i)
	}
	require.True(t, a.record("t12", 48))
	a.stored(b)

	// A process of an older version (which updates the conversation's row
	// without counting its version): stale too.
	_, err := b.pool.Exec(b.ctx, `UPDATE turn_conversations SET last_turn_at = now() WHERE channel_id = $1`, a.c.Channel)
	require.NoError(t, err)
	tx, cached = a.begin("u6")
	require.True(t, cached)
	require.ErrorIs(t, a.commit(tx, "u6", 50), turnstate.ErrStale)
	require.Equal(t, 12+16, logRows(t, b, a.c))
	require.False(t, a.record("u6", 50))

	// A lore write of the server (an entry may be gone, or restored with
	// its id): stale, with no wait after it.
	_, err = b.store.UpdateEntry(b.ctx, b.server, 3, es[1].ID, lore.EntryPatch{Content: ptr("edited")})
	require.NoError(t, err)
	tx, cached = a.begin("u6b")
	require.True(t, cached)
	require.ErrorIs(t, a.commit(tx, "u6b", 52, es[0].ID), turnstate.ErrStale)
	require.False(t, a.record("u6b", 52, es[0].ID))
	require.True(t, a.record("u7", 54))
	a.stored(b)

	// A record of an entry deleted before the turn is not written, nor
	// kept.
	require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, 3, es[2].ID))
	require.True(t, a.record("u8", 56, es[2].ID, es[1].ID))
	a.stored(b)

	// Resets: through this store the state kept is dropped; through
	// another the version moved on.
	_, err = a.store.ResetTurnState(b.ctx, a.c)
	require.NoError(t, err)
	require.False(t, a.record("u9", 58, es[1].ID))
	_, err = other.store.ResetTurnState(b.ctx, a.c)
	require.NoError(t, err)
	tx, cached = a.begin("u13")
	require.True(t, cached)
	require.ErrorIs(t, a.commit(tx, "u13", 60), turnstate.ErrStale)
	st, err := b.store.TurnState(b.ctx, a.c)
	require.NoError(t, err)
	require.Empty(t, st)
}

// TestTurnCachedCommitCancelled: a cached commit whose context ends while
// its pipeline waits on a lock returns the context's error; the pool
// drops the connection the pipeline left mid-way, Postgres cancels the
// waiting statement (nothing written), and the turn retried under the
// same id is recorded once.
func TestTurnCachedCommitCancelled(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	a := cachedTurns{t: t, store: b.store.TurnStore(), c: b.conversation(t), es: es}
	require.False(t, a.record("t1", 2, es[0].ID))
	require.True(t, a.record("t2", 4))

	// The pipeline's first statement waits for the server's row.
	blocker, err := b.pool.Begin(b.ctx)
	require.NoError(t, err)
	_, err = blocker.Exec(b.ctx, `SELECT 1 FROM servers WHERE id = $1 FOR UPDATE`, b.server)
	require.NoError(t, err)
	tx, cached := a.begin("t3")
	require.True(t, cached)
	next, _ := turnstate.Derive(tx.Stored(), es, 6)
	next = turnstate.Advance(next, es, []int64{es[0].ID}, 6, time.Now())
	ctx, cancel := context.WithTimeout(b.ctx, 200*time.Millisecond)
	defer cancel()
	err = tx.Commit(ctx, next, turnstate.LoggedTurn{TurnID: "t3", MessageCount: 6, InputSHA256: fmt.Sprintf("%064x", 6), BudgetUnit: "utf16"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// pgconn cancels the waiting statement as it drops the connection:
	// once no backend waits for the lock, the turn cannot commit.
	require.Eventually(t, func() bool {
		var waiting int
		err := blocker.QueryRow(b.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		return err == nil && waiting == 0
	}, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, blocker.Rollback(b.ctx))

	// The connection the cancelled pipeline broke is destroyed in the
	// background.
	require.Eventually(t, func() bool { return b.pool.Stat().AcquiredConns() == 0 }, 10*time.Second, 10*time.Millisecond,
		"%d connections acquired", b.pool.Stat().AcquiredConns())
	require.Equal(t, 2, logRows(t, b, a.c))
	require.True(t, a.record("t3", 6, es[0].ID), "the kept state is still the stored one")
	require.True(t, a.record("t4", 8))
	require.Equal(t, 4, logRows(t, b, a.c))
	a.stored(b)
}
