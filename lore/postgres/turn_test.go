package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/turnstate"
)

func (b *testBundle) conversation(t testing.TB) postgres.Conversation {
	return postgres.Conversation{Server: b.server, Lineage: 3, Channel: snowflake(t)}
}

// record runs one turn that admits ids at count and returns the state after.
func record(t testing.TB, st *postgres.Store, c postgres.Conversation, turnID string, count int, entries []lore.Entry, ids ...int64) turnstate.State {
	t.Helper()
	ctx := context.Background()
	turn, err := st.BeginTurn(ctx, c, turnID)
	require.NoError(t, err)
	require.Nil(t, turn.Recorded, "turn %s already logged", turnID)
	next, _ := turnstate.Derive(turn.State, entries, count)
	next = turnstate.Advance(next, entries, ids, count, time.Now().Truncate(time.Microsecond))
	var logged []postgres.LoggedEntry
	for _, id := range ids {
		logged = append(logged, postgres.LoggedEntry{ID: id, Group: "activated", Placement: "after", Pass: 1, Cost: 4})
	}
	require.NoError(t, turn.Commit(ctx, next, postgres.LoggedTurn{
		TurnID: turnID, MessageCount: count, InputSHA256: fmt.Sprintf("%064x", count), Admitted: logged,
		BudgetUnit: "utf16", BudgetLimit: 8000, BudgetUsed: 4 * len(ids), Response: json.RawMessage(`{"turn":"` + turnID + `"}`),
	}))
	return next
}

// TestTurnCommitDurability: a recorded turn's transaction commits
// asynchronously unless the Store was made WithDurableTurns, and the
// setting ends with the transaction (docs/turns.md#durability), on either
// path.
func TestTurnCommitDurability(t *testing.T) {
	b := setup(t)
	c := b.conversation(t)
	// The test cluster runs with synchronous_commit off: turn it on for
	// this database, on a pool of new connections.
	var db string
	require.NoError(t, b.pool.QueryRow(b.ctx, "SELECT current_database()").Scan(&db))
	_, err := b.pool.Exec(b.ctx, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET synchronous_commit = on")
	require.NoError(t, err)
	pool, err := pgxpool.NewWithConfig(b.ctx, b.pool.Config().Copy())
	require.NoError(t, err)
	defer pool.Close()
	store := postgres.New(pool)
	for _, tc := range []struct {
		store *postgres.Store
		want  string
	}{{store, "off"}, {store.WithDurableTurns(), "on"}} {
		turn, err := tc.store.BeginTurn(b.ctx, c, "durability-"+tc.want)
		require.NoError(t, err)
		defer turn.Rollback(b.ctx) // a no-op after Commit
		got, err := turn.SyncCommit(b.ctx)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
		require.NoError(t, turn.Commit(b.ctx, turn.State, postgres.LoggedTurn{TurnID: "durability-" + tc.want,
			MessageCount: 1, InputSHA256: strings.Repeat("a", 64)}))
	}
	// A turn on cached state sets them in its batch's implicit
	// transaction (docs/turns.md#cached-state).
	for _, tc := range []struct {
		store *postgres.Store
		want  string
	}{{store, "off"}, {store.WithDurableTurns(), "on"}} {
		sync, plan, err := tc.store.CachedTurnSettings(b.ctx, b.server)
		require.NoError(t, err)
		require.Equal(t, tc.want, sync)
		require.Equal(t, "force_generic_plan", plan)
	}
	var after, plan string
	require.NoError(t, pool.QueryRow(b.ctx, "SELECT current_setting('synchronous_commit'), current_setting('plan_cache_mode')").Scan(&after, &plan))
	require.Equal(t, "on", after, "SET LOCAL ends with the turn's transaction")
	require.Equal(t, "auto", plan)
}

func TestTurnRecordRetryAndLog(t *testing.T) {
	b := setup(t)
	es := b.insert(t, withTimed(entry(b.server, 3, "", "a"), 3, 2), entry(b.server, 3, "", "b"))
	c := b.conversation(t)

	want := record(t, b.store, c, "t1", 4, es, es[0].ID, es[1].ID)
	got, err := b.store.TurnState(b.ctx, c)
	require.NoError(t, err)
	require.Len(t, got, 2)
	for id, rec := range want {
		require.True(t, rec.Equal(got[id]), "entry %d: stored %+v, want %+v", id, got[id], rec)
	}

	// A retry sees the logged turn and its response; rolling back writes
	// nothing.
	turn, err := b.store.BeginTurn(b.ctx, c, "t1")
	require.NoError(t, err)
	require.NotNil(t, turn.Recorded)
	require.JSONEq(t, `{"turn":"t1"}`, string(turn.Recorded.Response))
	require.Equal(t, 4, turn.Recorded.MessageCount)
	require.Len(t, turn.Recorded.Admitted, 2)
	turn.Rollback(b.ctx)
	turn.Rollback(b.ctx) // idempotent

	record(t, b.store, c, "t2", 6, es)
	logs, err := b.store.ActivationLog(b.ctx, c, 20)
	require.NoError(t, err)
	require.Len(t, logs, 2)
	require.Equal(t, "t2", logs[0].TurnID, "newest first")
	require.Equal(t, []postgres.LoggedEntry{{ID: es[0].ID, Group: "activated", Placement: "after", Pass: 1, Cost: 4},
		{ID: es[1].ID, Group: "activated", Placement: "after", Pass: 1, Cost: 4}}, logs[1].Admitted)
	require.Empty(t, logs[0].Admitted)

	// Other conversations (another channel, another lineage) are separate.
	other := c
	other.Lineage = 0
	st, err := b.store.TurnState(b.ctx, other)
	require.NoError(t, err)
	require.Empty(t, st)

	// Deleting an entry drops its state; editing keeps it.
	_, err = b.store.UpdateEntry(b.ctx, b.server, 3, es[0].ID, lore.EntryPatch{Content: ptr("edited")})
	require.NoError(t, err)
	require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, 3, es[1].ID))
	got, err = b.store.TurnState(b.ctx, c)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.NotNil(t, got[es[0].ID].Sticky)

	n, err := b.store.ResetTurnState(b.ctx, c)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	got, err = b.store.TurnState(b.ctx, c)
	require.NoError(t, err)
	require.Empty(t, got)
}

func withTimed(e lore.Entry, sticky, cooldown int) lore.Entry {
	e.Sticky, e.Cooldown = sticky, cooldown
	return e
}

func TestTurnInputErrors(t *testing.T) {
	b := setup(t)
	c := b.conversation(t)
	for _, tt := range []struct {
		c      postgres.Conversation
		turnID string
		want   error
	}{
		{postgres.Conversation{Server: snowflake(t), Channel: c.Channel}, "x", lore.ErrNotFound},
		{postgres.Conversation{Server: b.server, Channel: "general"}, "x", lore.ErrInvalid},
		{postgres.Conversation{Server: b.server, Lineage: -1, Channel: c.Channel}, "x", lore.ErrInvalid},
		{c, " \t", lore.ErrInvalid},
		{c, string(make([]byte, 200)), lore.ErrInvalid},
	} {
		_, err := b.store.BeginTurn(b.ctx, tt.c, tt.turnID)
		require.ErrorIs(t, err, tt.want, "%+v %q", tt.c, tt.turnID)
	}
	// The failed turns left no connection in a transaction behind.
	var n int
	require.NoError(t, b.pool.QueryRow(b.ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n))
	require.Zero(t, n)
}

// TestTurnConcurrentNoLostUpdate runs turns of one conversation at once:
// each reads the state and writes it back one count further, so a lost
// update would leave the count short.
func TestTurnConcurrentNoLostUpdate(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	c := b.conversation(t)
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn, err := b.store.BeginTurn(b.ctx, c, fmt.Sprintf("turn-%d", i))
			if err != nil {
				errs <- err
				return
			}
			count := turn.State[es[0].ID].LastCount + 1
			next := turnstate.Advance(turn.State, es, []int64{es[0].ID}, count, time.Now())
			errs <- turn.Commit(b.ctx, next, postgres.LoggedTurn{TurnID: fmt.Sprintf("turn-%d", i), MessageCount: count,
				InputSHA256: fmt.Sprintf("%064x", i), BudgetUnit: "utf16"})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	st, err := b.store.TurnState(b.ctx, c)
	require.NoError(t, err)
	require.Equal(t, n, st[es[0].ID].LastCount)
	require.Equal(t, 1, st[es[0].ID].FirstCount)
	logs, err := b.store.ActivationLog(b.ctx, c, 100)
	require.NoError(t, err)
	require.Len(t, logs, n)
}

// TestTurnInTx records a turn through a Store bound to a transaction (the
// savepoint path).
func TestTurnInTx(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	c := b.conversation(t)
	err := b.store.WithTx(b.ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		record(t, st, c, "t1", 2, es, es[0].ID)
		return errors.New("roll back")
	})
	require.EqualError(t, err, "roll back")
	logs, err := b.store.ActivationLog(b.ctx, c, 5)
	require.NoError(t, err)
	require.Empty(t, logs)
	require.NoError(t, b.store.WithTx(b.ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		record(t, st, c, "t1", 2, es, es[0].ID)
		return nil
	}))
	logs, err = b.store.ActivationLog(b.ctx, c, 5)
	require.NoError(t, err)
	require.Len(t, logs, 1)
}

func TestPruneActivationLog(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	c1, c2 := b.conversation(t), b.conversation(t)
	for i := range 5 {
		record(t, b.store, c1, fmt.Sprintf("a%d", i), i+1, es)
		record(t, b.store, c2, fmt.Sprintf("b%d", i), i+1, es)
	}
	_, err := b.pool.Exec(b.ctx, `UPDATE activation_log SET created_at = now() - interval '40 days' WHERE turn_id = 'a0'`)
	require.NoError(t, err)
	n, err := b.store.PruneActivationLog(b.ctx, time.Now().Add(-30*24*time.Hour), 3)
	require.NoError(t, err)
	require.EqualValues(t, 1+1+2, n) // a0 by age; a1 and b0, b1 by count
	for _, c := range []postgres.Conversation{c1, c2} {
		logs, err := b.store.ActivationLog(b.ctx, c, 10)
		require.NoError(t, err)
		require.Len(t, logs, 3)
		require.Equal(t, 5, logs[0].MessageCount)
	}
	_, err = b.store.ActivationLog(b.ctx, c1, 0)
	require.ErrorIs(t, err, lore.ErrInvalid)
}

// TestResetWaitsForTurn: a reset that waits for a turn holding the
// conversation's lock clears what that turn committed, new records
// included (one statement's snapshot, taken before the wait, missed them).
func TestResetWaitsForTurn(t *testing.T) {
	b := setup(t)
	es := b.insert(t, withTimed(entry(b.server, 3, "", "a"), 3, 2), entry(b.server, 3, "", "b"))
	c := b.conversation(t)
	record(t, b.store, c, "r1", 2, es, es[0].ID)

	turn, err := b.store.BeginTurn(b.ctx, c, "r2")
	require.NoError(t, err)
	defer turn.Rollback(b.ctx)
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := b.store.ResetTurnState(b.ctx, c)
		done <- result{n, err}
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		err := b.pool.QueryRow(b.ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity
WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE turn_conversations SET version%')`).Scan(&waiting)
		return err == nil && waiting
	}, 10*time.Second, 10*time.Millisecond, "the reset waits for the turn's lock")

	next, _ := turnstate.Derive(turn.State, es, 4)
	next = turnstate.Advance(next, es, []int64{es[0].ID, es[1].ID}, 4, time.Now().Truncate(time.Microsecond))
	require.NoError(t, turn.Commit(b.ctx, next, postgres.LoggedTurn{TurnID: "r2", MessageCount: 4,
		InputSHA256: strings.Repeat("b", 64), BudgetUnit: "utf16", BudgetLimit: 8000}))
	got := <-done
	require.NoError(t, got.err)
	require.EqualValues(t, 2, got.n, "both records the turn left, the new one included")
	st, err := b.store.TurnState(b.ctx, c)
	require.NoError(t, err)
	require.Empty(t, st)
}
