package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/turnstate"
)

// deferredTurns is a DeferredTurnStore whose flusher runs, with the
// turns it did not record counted in lost. Its interval is the longest,
// so turns stay queued until a lock-path turn, ActivationLog, a full
// queue or stop makes a flush start.
func deferredTurns(t *testing.T, b *testBundle, maxQueued int) (turnstate.Store, *atomic.Int64, func()) {
	t.Helper()
	lost := &atomic.Int64{}
	st, f, err := b.store.DeferredTurnStore(postgres.DeferredTurns{Interval: postgres.MaxTurnFlushInterval, MaxQueued: maxQueued, MaxTurnIDs: 100,
		OnLost: func(n int) { lost.Add(int64(n)) }, OnError: func(err error) { t.Errorf("flush: %v", err) }})
	require.NoError(t, err)
	stop := f.Start(b.ctx)
	t.Cleanup(stop)
	return st, lost, stop
}

// recordDeferred records turn id as lore/turn's Record does (the kept
// state first, the lock path when it has none or its commit is stale)
// with the response "r-"+id, and returns whether it was deferred (or
// committed on the kept state) and the response answered (a retry's
// recorded one).
func (ct cachedTurns) recordDeferred(id string, count int, ids ...int64) (deferred bool, response string) {
	ct.t.Helper()
	tx, cached := ct.begin(id)
	response, err := ct.runTurn(tx, id, count, ids)
	if cached && err == turnstate.ErrStale {
		tx, err = ct.store.BeginTurn(context.Background(), ct.c, id)
		require.NoError(ct.t, err)
		cached = false
		response, err = ct.runTurn(tx, id, count, ids)
	}
	require.NoError(ct.t, err)
	return cached && response == "r-"+id, response
}

// runTurn ends tx: the recorded response of a retry, else the turn
// committed with the response "r-"+id.
func (ct cachedTurns) runTurn(tx turnstate.Turn, id string, count int, ids []int64) (string, error) {
	if r := tx.Retry(); r != nil {
		tx.Rollback(context.Background())
		return string(r.Response), nil
	}
	next, _ := turnstate.Derive(tx.Stored(), ct.es, count)
	next = turnstate.Advance(next, ct.es, ids, count, time.Now())
	log := turnstate.LoggedTurn{TurnID: id, MessageCount: count, InputSHA256: fmt.Sprintf("%064x", count),
		BudgetUnit: "utf16", Response: []byte("r-" + id)}
	return "r-" + id, tx.Commit(context.Background(), next, log)
}

// TestTurnDeferred: a DeferredTurnStore answers a turn on the kept state
// before writing it (docs/turns.md#durability); the lock path,
// ActivationLog and stop write the queued turns first; a retry of a
// queued or logged turn id replays its recorded response and changes
// nothing; TurnState reads the state queued turns left.
func TestTurnDeferred(t *testing.T) {
	b := setup(t)
	es := b.insert(t, withTimed(entry(b.server, 3, "", "a"), 3, 2), entry(b.server, 3, "", "b"))
	st, lost, stop := deferredTurns(t, b, 0)
	a := cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	written := func() int { return logRows(t, b, a.c) } // the store's own read: no flush

	d, _ := a.recordDeferred("t1", 2, es[0].ID)
	require.False(t, d, "a conversation's first turn here: under the lock")
	for i := 2; i <= 12; i++ {
		d, _ := a.recordDeferred(fmt.Sprint("t", i), 2*i, es[i%2].ID)
		require.True(t, d, "turn %d", i)
	}
	require.Equal(t, 1, written(), "the deferred turns are queued")
	queued, err := st.TurnState(b.ctx, a.c)
	require.NoError(t, err)

	// A retry of a queued turn, one of the last eight or older: under the
	// lock, after the queue is written; the recorded response, nothing
	// written again.
	for _, id := range []string{"t12", "t3"} {
		d, resp := a.recordDeferred(id, 99, es[0].ID)
		require.False(t, d)
		require.Equal(t, "r-"+id, resp)
	}
	require.Equal(t, 12, written())
	stored, err := b.store.TurnState(b.ctx, a.c)
	require.NoError(t, err)
	require.Equal(t, queued, stored, "TurnState read the state the queued turns left")

	// Deferring again; ActivationLog writes the queue first.
	for i := 13; i <= 20; i++ {
		d, _ := a.recordDeferred(fmt.Sprint("t", i), 2*i, es[i%2].ID)
		require.True(t, d, "turn %d", i)
	}
	logs, err := st.ActivationLog(b.ctx, a.c, 200)
	require.NoError(t, err)
	require.Len(t, logs, 20)
	for i, l := range logs {
		require.Equal(t, fmt.Sprint("t", 20-i), l.TurnID, "log order")
		require.Equal(t, "r-"+l.TurnID, string(l.Response))
	}
	d, resp := a.recordDeferred("t1", 99)
	require.False(t, d, "a logged turn id goes under the lock")
	require.Equal(t, "r-t1", resp)

	// A reset through the store writes the queue first, then clears.
	for i := 21; i <= 23; i++ {
		d, _ := a.recordDeferred(fmt.Sprint("t", i), 2*i, es[0].ID)
		require.True(t, d, "turn %d", i)
	}
	n, err := st.ResetTurnState(b.ctx, a.c)
	require.NoError(t, err)
	require.Positive(t, n)
	require.Equal(t, 23, written())
	stored, err = b.store.TurnState(b.ctx, a.c)
	require.NoError(t, err)
	require.Empty(t, stored)

	// Stopping writes what is queued.
	for i := 24; i <= 30; i++ {
		a.recordDeferred(fmt.Sprint("t", i), 2*i, es[1].ID)
	}
	require.Less(t, written(), 30)
	stop()
	require.Equal(t, 30, written())
	require.Zero(t, lost.Load())
	// After stop a turn on the kept state commits itself.
	d, _ = a.recordDeferred("t31", 62)
	require.True(t, d)
	require.Equal(t, 31, written())
	a.stored(b)
}

// TestTurnDeferredConflict: queued turns whose conversation or server's
// lore moved on before the flush are not recorded (counted lost), the
// other conversations of the batch are, and the conversation's next turn
// takes the lock path on the stored state.
func TestTurnDeferredConflict(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"), entry(b.server, 3, "", "b"))
	st, lost, stop := deferredTurns(t, b, 0)
	other := postgres.New(b.pool).TurnStore()
	b2 := &testBundle{ctx: b.ctx, pool: b.pool, store: b.store, server: snowflake(t)}
	_, err := b.store.UpsertServer(b.ctx, b2.server, "Other Guild")
	require.NoError(t, err)
	es2 := b2.insert(t, entry(b2.server, 3, "", "c"))
	a := cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	c := cachedTurns{t: t, store: st, c: b2.conversation(t), es: es2}
	for _, ct := range []cachedTurns{a, c} {
		ct.recordDeferred("t1", 2, ct.es[0].ID)
		d, _ := ct.recordDeferred("t2", 4, ct.es[0].ID)
		require.True(t, d)
	}

	// An entry write of a's server: a's queued turn is not recorded, c's is.
	_, err = b.store.UpdateEntry(b.ctx, b.server, 3, es[1].ID, lore.EntryPatch{Content: ptr("edited")})
	require.NoError(t, err)
	_, err = st.ActivationLog(b.ctx, c.c, 1)
	require.NoError(t, err)
	require.Equal(t, 1, logRows(t, b, a.c))
	require.Equal(t, 2, logRows(t, b, c.c))
	require.Equal(t, int64(1), lost.Load())
	d, _ := a.recordDeferred("t3", 6, es[1].ID)
	require.False(t, d, "after a lost turn: the lock path")
	d, _ = a.recordDeferred("t4", 8)
	require.True(t, d)
	_, err = st.ActivationLog(b.ctx, a.c, 1)
	require.NoError(t, err)
	a.stored(b)

	// Another process records a turn of a: the turns queued here are not.
	d, _ = a.recordDeferred("t5", 10, es[0].ID)
	require.True(t, d)
	tx, err := other.BeginTurn(b.ctx, a.c, "o1")
	require.NoError(t, err)
	require.NoError(t, tx.Commit(b.ctx, tx.Stored(), turnstate.LoggedTurn{TurnID: "o1", MessageCount: 10,
		InputSHA256: fmt.Sprintf("%064x", 10), BudgetUnit: "utf16"}))
	stop()
	require.Equal(t, int64(2), lost.Load(), "t2 and t5")
	logs, err := b.store.ActivationLog(b.ctx, a.c, 10)
	require.NoError(t, err)
	var ids []string
	for _, l := range logs {
		ids = append(ids, l.TurnID)
	}
	require.Equal(t, []string{"o1", "t4", "t3", "t1"}, ids)
}

// TestTurnDeferredFull: past MaxQueued a turn waits for a flush (which
// the full queue starts) instead of queueing more; every turn is
// recorded once.
func TestTurnDeferredFull(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	st, lost, _ := deferredTurns(t, b, 2)
	a := cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	for i := 1; i <= 9; i++ {
		a.recordDeferred(fmt.Sprint("t", i), 2*i, es[0].ID)
		require.LessOrEqual(t, i-logRows(t, b, a.c), 2, "turn %d: at most two queued", i)
	}
	logs, err := st.ActivationLog(b.ctx, a.c, 200)
	require.NoError(t, err)
	require.Len(t, logs, 9)
	require.Zero(t, lost.Load())
	a.stored(b)
}

// TestTurnDeferredQueueBytes: past MaxQueuedBytes a turn waits for a
// flush instead of queueing more (docs/turns.md#deferred): with a bound
// of 100 KiB and stored results of 30 KiB, no more than three turns are
// ever answered and not yet logged; a turn larger than the bound does not
// defer (turnstate.ErrStale) and is committed under the lock, as
// lore/turn's Record does, so the queue never holds more than the bound.
// Every other turn is deferred; each is recorded once with its own
// result, none lost.
func TestTurnDeferredQueueBytes(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	lost := &atomic.Int64{}
	st, f, err := b.store.DeferredTurnStore(postgres.DeferredTurns{Interval: postgres.MaxTurnFlushInterval, MaxQueuedBytes: 100 << 10,
		OnLost: func(n int) { lost.Add(int64(n)) }, OnError: func(err error) { t.Errorf("flush: %v", err) }})
	require.NoError(t, err)
	t.Cleanup(f.Start(b.ctx))
	convs := []cachedTurns{{t: t, store: st, c: b.conversation(t), es: es}, {t: t, store: st, c: b.conversation(t), es: es}}
	want := map[string][]byte{} // turn id: its stored result
	unlogged := func() int {
		n := 0
		for _, ct := range convs {
			n += logRows(t, b, ct.c)
		}
		return len(want) - n
	}
	record := func(ct cachedTurns, id string, size int) (deferred bool) {
		want[id] = bytes.Repeat([]byte(id[:1]), size)
		log := turnstate.LoggedTurn{TurnID: id, MessageCount: len(want), InputSHA256: fmt.Sprintf("%064x", len(want)), BudgetUnit: "utf16", Response: want[id]}
		tx, cached := ct.begin(id)
		next, _ := turnstate.Derive(tx.Stored(), es, len(want))
		err := tx.Commit(b.ctx, next, log)
		if cached && err == turnstate.ErrStale { // again under the lock
			tx, err = st.BeginTurn(b.ctx, ct.c, id)
			require.NoError(t, err)
			next, _ = turnstate.Derive(tx.Stored(), es, len(want))
			err, cached = tx.Commit(b.ctx, next, log), false
		}
		require.NoError(t, err)
		return cached
	}
	for i, ct := range convs {
		require.False(t, record(ct, fmt.Sprint("first", i), 10), "a conversation's first turn here: under the lock")
	}
	for i := range 12 {
		require.True(t, record(convs[i%2], fmt.Sprint("t", i), 30<<10), "turn %d", i)
		require.LessOrEqual(t, unlogged(), 3, "turn %d: 90 KiB of results queued at most", i)
	}
	require.False(t, record(convs[0], "big", 150<<10), "the turn larger than the bound is not deferred")
	logs, err := b.store.ActivationLog(b.ctx, convs[0].c, 1)
	require.NoError(t, err)
	require.Equal(t, "big", logs[0].TurnID, "committed at once")
	require.True(t, record(convs[1], "u", 30<<10))
	require.True(t, record(convs[0], "v", 30<<10), "the kept state after the large turn")
	require.LessOrEqual(t, unlogged(), 3)
	for _, ct := range convs {
		logs, err := st.ActivationLog(b.ctx, ct.c, 200)
		require.NoError(t, err)
		for _, l := range logs {
			require.Equal(t, want[l.TurnID], []byte(l.Response), l.TurnID)
			delete(want, l.TurnID)
		}
	}
	require.Empty(t, want, "every turn logged once")
	require.Zero(t, lost.Load())
}

// TestTurnDeferredWriteRetried: a flush whose write fails while the
// database is unavailable (here its statements time out behind a lock)
// writes again until DeferredTurns.WriteTimeout: the turns answered
// meanwhile are recorded, none lost; the errors are reported.
func TestTurnDeferredWriteRetried(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	var lost, failed atomic.Int64
	st, f, err := b.store.DeferredTurnStore(postgres.DeferredTurns{Interval: postgres.MaxTurnFlushInterval,
		OnLost: func(n int) { lost.Add(int64(n)) }, OnError: func(error) { failed.Add(1) }})
	require.NoError(t, err)
	stop := f.Start(b.ctx)
	t.Cleanup(stop)
	a := cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	for i := 1; i <= 4; i++ {
		d, _ := a.recordDeferred(fmt.Sprint("t", i), 2*i, es[0].ID)
		require.Equal(t, i > 1, d, "turn %d", i)
	}

	lock, err := pgx.Connect(b.ctx, b.pool.Config().ConnString())
	require.NoError(t, err)
	defer lock.Close(b.ctx)
	_, err = b.pool.Exec(b.ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 100', current_database()); END $$`)
	require.NoError(t, err)
	b.pool.Reset() // the flush's connections time out from now
	tx, err := lock.Begin(b.ctx)
	require.NoError(t, err)
	_, err = tx.Exec(b.ctx, `LOCK TABLE turn_conversations IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }() // the last flush
	// Two failed writes, or the flush gave up.
	require.Eventually(t, func() bool {
		select {
		case <-stopped:
			return true
		default:
			return failed.Load() >= 2
		}
	}, 20*time.Second, 5*time.Millisecond)
	require.NoError(t, tx.Rollback(b.ctx))
	<-stopped
	require.Zero(t, lost.Load())
	require.Equal(t, 4, logRows(t, b, a.c))
	a.stored(b)
}

// TestTurnDeferredManyIDs: a conversation with more logged turns than a
// DeferredTurnStore keeps the ids of (MaxTurnIDs, 100 here) commits its turns on the kept state
// itself (written at once, as TurnStore's are), and a retry of any of its
// turns still replays.
func TestTurnDeferredManyIDs(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	st, lost, _ := deferredTurns(t, b, 0)
	a := cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	other := a
	other.store = b.store.TurnStore()
	other.recordDeferred("t0", 2)
	_, err := b.pool.Exec(b.ctx, `INSERT INTO activation_log (conversation_id, turn_id, message_count, input_sha256,
		admitted, budget_unit, budget_limit, budget_used, response, created_at)
		SELECT c.id, 'old-' || g, 1, repeat('0', 64), '[]', 'utf16', 0, 0, '{"old": 1}', now()
		FROM turn_conversations c, generate_series(1, 150) g WHERE c.channel_id = $1`, a.c.Channel)
	require.NoError(t, err)
	d, _ := a.recordDeferred("t1", 4, es[0].ID)
	require.False(t, d)
	for i := 2; i <= 5; i++ {
		d, _ := a.recordDeferred(fmt.Sprint("t", i), 2+2*i, es[0].ID)
		require.True(t, d, "on the kept state")
		var n int
		require.NoError(t, b.pool.QueryRow(b.ctx, `SELECT count(*) FROM activation_log`).Scan(&n))
		require.Equal(t, 151+i, n, "written at once")
	}
	d, resp := a.recordDeferred("old-7", 99)
	require.False(t, d)
	require.Equal(t, `{"old": 1}`, resp)
	require.Zero(t, lost.Load())
	a.stored(b)
}

// TestTurnDeferredRowsAsCommitted: the same turns recorded through a
// DeferredTurnStore and through a TurnStore, each in a conversation of
// its own, leave the same log rows, column by column as Postgres stores
// them (a stored result in bytes, a JSON response, none), and the same
// state records; a turn whose state leaves out a stored record deletes
// it at the flush as at a commit.
func TestTurnDeferredRowsAsCommitted(t *testing.T) {
	b := setup(t)
	es := b.insert(t, withTimed(entry(b.server, 3, "", "a"), 3, 2), entry(b.server, 3, "", "b"), entry(b.server, 3, "", "c"))
	st, lost, stop := deferredTurns(t, b, 0)
	at := time.Date(2026, 12, 2, 10, 40, 0, 123456789, time.UTC)
	responses := [][]byte{[]byte("\x00stored result\xff"), []byte(`{"admitted": [], "x": 1}`), nil}
	record := func(store turnstate.Store, c postgres.Conversation) (deferred int) {
		ct := cachedTurns{t: t, store: store, c: c, es: es}
		for i := range 9 {
			id, count := fmt.Sprint("t", i), 2+2*i
			tx, cached := ct.begin(id)
			next, _ := turnstate.Derive(tx.Stored(), es, count)
			admit := []int64{es[i%3].ID, es[(i+1)%3].ID}
			next = turnstate.Advance(next, es, admit, count, at.Add(time.Duration(i)*time.Second))
			if i == 5 {
				delete(next, es[2].ID) // its record goes
			}
			logged := []postgres.LoggedEntry{{ID: admit[0], Group: "activated", Placement: "before", Pass: 1, Cost: 40},
				{ID: admit[1], Group: "alwaysOn", Placement: "at_depth", Pass: 2, Cost: 7}}
			require.NoError(t, tx.Commit(b.ctx, next, turnstate.LoggedTurn{TurnID: id, MessageCount: count,
				InputSHA256: fmt.Sprintf("%064x", i), Admitted: logged, BudgetUnit: "tokens", BudgetLimit: 2048, BudgetUsed: 47,
				Response: responses[i%3], CreatedAt: at.Add(time.Duration(i) * time.Second)}), "turn %s", id)
			if cached {
				deferred++
			}
		}
		return deferred
	}
	committed, queued := b.conversation(t), b.conversation(t)
	record(b.store.TurnStore(), committed)
	require.Equal(t, 8, record(st, queued), "every turn after the first on the kept state")
	require.Less(t, logRows(t, b, queued), 9, "turns queued before stop")
	stop()
	require.Zero(t, lost.Load())

	rows := func(c postgres.Conversation, query string) [][]any {
		r, err := b.pool.Query(b.ctx, query, c.Channel)
		require.NoError(t, err)
		out, err := pgx.CollectRows(r, func(row pgx.CollectableRow) ([]any, error) { return row.Values() })
		require.NoError(t, err)
		return out
	}
	const logQuery = `SELECT l.turn_id, l.message_count, l.input_sha256, l.admitted::text, l.budget_unit, l.budget_limit,
		l.budget_used, l.response::text, l.result, l.created_at
		FROM activation_log l JOIN turn_conversations c ON c.id = l.conversation_id WHERE c.channel_id = $1 ORDER BY l.id`
	const stateQuery = `SELECT s.entry_id, s.sticky_start, s.sticky_end, s.cooldown_start, s.cooldown_end, s.cooldown_protected,
		s.first_count, s.first_at, s.last_count, s.last_at
		FROM turn_entry_state s JOIN turn_conversations c ON c.id = s.conversation_id WHERE c.channel_id = $1 ORDER BY s.entry_id`
	want := rows(committed, logQuery)
	require.Len(t, want, 9)
	require.Equal(t, want, rows(queued, logQuery))
	wantState := rows(committed, stateQuery)
	require.Len(t, wantState, 3, "c's record deleted at turn 5, written again by turns 6 and 7")
	require.Equal(t, wantState, rows(queued, stateQuery))

	// A record that no later turn writes again: deleted by the flush alone.
	st, lost, stop = deferredTurns(t, b, 0)
	drop := func(store turnstate.Store, c postgres.Conversation, id string, drop bool) (cached bool) {
		tx, cached := cachedTurns{t: t, store: store, c: c, es: es}.begin(id)
		next := maps.Clone(tx.Stored())
		if drop {
			delete(next, es[0].ID)
		}
		require.NoError(t, tx.Commit(b.ctx, next, turnstate.LoggedTurn{TurnID: id, MessageCount: 40,
			InputSHA256: fmt.Sprintf("%064x", 40), BudgetUnit: "tokens"}))
		return cached
	}
	drop(b.store.TurnStore(), committed, "u0", false)
	drop(b.store.TurnStore(), committed, "u1", true)
	require.False(t, drop(st, queued, "u0", false), "under the lock")
	require.True(t, drop(st, queued, "u1", true), "on the kept state")
	require.Len(t, rows(queued, stateQuery), 3, "the delete is queued")
	stop()
	require.Zero(t, lost.Load())
	wantState = rows(committed, stateQuery)
	require.Len(t, wantState, 2)
	require.Equal(t, wantState, rows(queued, stateQuery))
}
