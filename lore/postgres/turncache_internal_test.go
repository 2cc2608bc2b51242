package postgres

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"

	"loregate/lore/turnstate"
)

// TestTurnCacheBoundsConversations: conversations whose turns keep no state
// record still count towards the bound (one each, more for long turn ids),
// so a caller inventing a channel per turn cannot grow the cache without
// limit; records count as before.
func TestTurnCacheBoundsConversations(t *testing.T) {
	tc := newTurnCache(100)
	for i := range 1000 {
		c := Conversation{Server: "1", Channel: strconv.Itoa(i)}
		tc.put(c, turnVersion{id: int64(i), version: 1}, turnstate.State{}, "t")
	}
	require.Equal(t, 100, tc.lru.Len())
	require.Equal(t, 100, tc.records)

	tc = newTurnCache(100)
	long := strings.Repeat("x", turnstate.MaxTurnIDLen)
	for i := range 1000 {
		c := Conversation{Server: "1", Channel: strconv.Itoa(i)}
		for k := range turnCacheRecent {
			tc.put(c, turnVersion{id: int64(i), version: int64(k + 1)}, turnstate.State{}, long+strconv.Itoa(k))
		}
	}
	require.LessOrEqual(t, tc.records, 100)
	require.Less(t, tc.lru.Len(), 100, "long turn ids weigh more than one record")

	tc = newTurnCache(100)
	st := turnstate.State{}
	for id := range int64(30) {
		st[id] = turnstate.Record{LastAt: time.Now()}
	}
	for i := range 10 {
		tc.put(Conversation{Server: "1", Channel: strconv.Itoa(i)}, turnVersion{id: int64(i), version: 1}, st, "t")
	}
	require.Equal(t, 3, tc.lru.Len(), "three conversations of 31 each fit in 100")
	tc.stale(Conversation{Server: "1", Channel: "9"}, turnVersion{id: 9, version: 1}, nil)
	require.Equal(t, 2, tc.lru.Len())
	require.Equal(t, 62, tc.records)
}

// TestLoggedEntriesJSON: a log row's admitted column is written by hand;
// it decodes to the entries given, odd strings included, and none is [].
func TestLoggedEntriesJSON(t *testing.T) {
	for _, in := range [][]turnstate.LoggedEntry{nil, {}, {
		{ID: 1, Group: "activated", Placement: "before_char", Pass: 1, Cost: 400},
		{ID: -9007199254740993, Group: `a"b\c`, Placement: "<\u2028\x01é>", Pass: 0, Cost: -1},
		{ID: 42, Group: "always_on", Placement: string([]byte{0xff, 'x'}), Pass: 3},
	}} {
		raw := appendLoggedEntries(nil, in)
		var got []turnstate.LoggedEntry
		require.NoError(t, json.Unmarshal(raw, &got), "%s", raw)
		want, err := json.Marshal(nonNil(in))
		require.NoError(t, err)
		var back []turnstate.LoggedEntry
		require.NoError(t, json.Unmarshal(want, &back))
		require.Equal(t, back, got)
		require.NotEqual(t, "null", string(raw))
	}
}

func nonNil(e []turnstate.LoggedEntry) []turnstate.LoggedEntry {
	if e == nil {
		return []turnstate.LoggedEntry{}
	}
	return e
}

// TestWireValues: the commit row's values read by hand as pgx encodes
// them in the binary format; NULLs, empty arrays and malformed values.
func TestWireValues(t *testing.T) {
	m := pgtype.NewMap()
	for _, ids := range [][]int64{nil, {}, {7}, {1, -2, 9007199254740993}} {
		raw, err := m.Encode(pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, ids, []byte{})
		require.NoError(t, err)
		got, err := wireInt8s(raw)
		require.NoError(t, err)
		if len(ids) == 0 {
			require.Empty(t, got)
		} else {
			require.Equal(t, ids, got)
		}
	}
	withNull, err := m.Encode(pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, []*int64{nil}, []byte{})
	require.NoError(t, err)
	_, err = wireInt8s(withNull)
	require.Error(t, err)
	_, err = wireInt8s([]byte{0, 0, 0, 1})
	require.Error(t, err)

	n, err := wireInt8(binary.BigEndian.AppendUint64(nil, uint64(1<<40+3)))
	require.NoError(t, err)
	require.Equal(t, int64(1<<40+3), *n)
	x, err := wireXID([]byte{0xff, 0, 0, 1})
	require.NoError(t, err)
	require.Equal(t, uint32(0xff000001), *x)
	for _, f := range []func([]byte) error{
		func(v []byte) error { _, err := wireInt8(v); return err },
		func(v []byte) error { _, err := wireXID(v); return err },
	} {
		require.NoError(t, f(nil), "NULL")
		require.Error(t, f([]byte{1, 2, 3}))
	}
}

// TestAppendTimestamp: the state records' times read back as the instant
// they were, to the microsecond, in any zone and year.
func TestAppendTimestamp(t *testing.T) {
	zone := time.FixedZone("x", -5*3600-30*60)
	for _, at := range []time.Time{
		time.Date(2026, 12, 2, 3, 32, 54, 589469123, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, zone),
		time.Date(1, 1, 1, 0, 0, 0, 999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		raw := string(appendTimestamp([]byte("x"), at))
		got, err := time.Parse("2006-01-02T15:04:05.999999Z", raw[1:])
		require.NoError(t, err, raw)
		require.True(t, at.Truncate(time.Microsecond).Equal(got), "%s: %s", at, raw)
	}
	require.Equal(t, "2026-12-02T03:04:05.000007Z", string(appendTimestamp(nil, time.Date(2026, 12, 2, 3, 4, 5, 7890, time.UTC))))
	far := time.Date(12345, 6, 7, 8, 9, 10, 11000, time.UTC)
	require.Equal(t, "12345-06-07T08:09:10.000011Z", string(appendTimestamp(nil, far)), "as AppendFormat writes it")
}

// TestTurnCacheGenerationsNeverRepeat: a turn opened on a conversation's
// kept state defers only onto that state. When the conversation's entry
// leaves the cache (evicted) and comes back, the states kept since never
// take the generation the turn was opened on: a turn still running on the
// state before is refused (it would queue its state, computed from the
// old one, over the newer one).
func TestTurnCacheGenerationsNeverRepeat(t *testing.T) {
	tc := newTurnCache(DefaultTurnCacheRecords)
	tc.dq = &turnQueue{running: true, seed: maphash.MakeSeed(), wake: make(chan struct{}, 1), now: make(chan struct{}, 1)}
	c := Conversation{Server: "1", Channel: "2"}
	for v := range int64(5) { // lock-path turns
		tc.keep(c, turnVersion{id: 1, version: v + 1}, turnstate.State{}, "t"+strconv.FormatInt(v, 10), map[uint64]struct{}{})
	}
	_, _, gen, ok := tc.get(c, "old") // a turn opened on the kept state, still running
	require.True(t, ok)

	tc.mu.Lock()
	tc.removeLocked(tc.byConv[c]) // evicted meanwhile
	tc.mu.Unlock()
	tc.keep(c, turnVersion{id: 1, version: 6}, turnstate.State{}, "t6", map[uint64]struct{}{})
	for i := range 10 {
		_, _, g, ok := tc.get(c, "u"+strconv.Itoa(i))
		require.True(t, ok)
		queued, _ := tc.deferTurn(c, gen, turnstate.State{7: {EntryID: 7}}, queuedTurn{turnID: "old"})
		require.False(t, queued, "a turn opened on the state before the eviction, after %d turns", i)
		queued, _ = tc.deferTurn(c, g, turnstate.State{}, queuedTurn{turnID: "u" + strconv.Itoa(i)})
		require.True(t, queued, "turn %d", i)
	}
}

// TestTurnCacheHoldLeavesNothing: a lock-path turn that commits nothing
// (a retry, an error) or a reset makes its conversation's entry while it
// runs and leaves none: a caller inventing conversations cannot grow the
// cache between the turns that keep a state (and evict).
func TestTurnCacheHoldLeavesNothing(t *testing.T) {
	tc := newTurnCache(100)
	tc.dq = &turnQueue{running: true, seed: maphash.MakeSeed()}
	for i := range 1000 {
		c := Conversation{Server: "1", Channel: strconv.Itoa(i)}
		tc.hold(c)
		tc.drop(c) // a reset
		tc.unhold(c)
	}
	require.Zero(t, tc.lru.Len())
	require.Zero(t, tc.records)
	c := Conversation{Server: "1", Channel: "kept"}
	tc.hold(c)
	tc.keep(c, turnVersion{id: 1, version: 1}, turnstate.State{}, "t1", map[uint64]struct{}{})
	tc.unhold(c)
	require.Equal(t, 1, tc.lru.Len(), "a committed turn's state stays")
}

// TestTurnLogIDsBounded: a lock-path turn reads one turn id more than a
// conversation's entry keeps at most (its LIMIT, MaxTurnIDs + 1), not the
// whole log.
func TestTurnLogIDsBounded(t *testing.T) {
	require.True(t, strings.HasSuffix(turnLogIDs, " LIMIT $4"), turnLogIDs)
	require.Equal(t, DefaultKnownTurnIDs, (&turnQueue{}).maxIDs())
}

// TestTurnQueueLargeTurn: a turn larger than DeferredTurns.MaxQueuedBytes
// does not wait for a queue with nothing in it, which steady traffic
// never leaves (here a turn of another conversation is answered during
// every flush): it is refused at once, nothing queued (deferCommit's
// turnstate.ErrStale, on which lore/turn's Record commits it under the
// lock), and the queue never holds more than its bound.
func TestTurnQueueLargeTurn(t *testing.T) {
	const bound = 4 << 10
	tc := newTurnCache(DefaultTurnCacheRecords)
	q := &turnQueue{cfg: DeferredTurns{MaxQueuedBytes: bound}, running: true, seed: maphash.MakeSeed(), slots: make(chan struct{}, DefaultTurnQueue),
		wake: make(chan struct{}, 1), now: make(chan struct{}, 1), flushed: make(chan struct{})}
	tc.dq = q
	busy, large := Conversation{Server: "1", Channel: "2"}, Conversation{Server: "1", Channel: "3"}
	tc.keep(busy, turnVersion{id: 1, version: 1}, turnstate.State{}, "b0", map[uint64]struct{}{})
	tc.keep(large, turnVersion{id: 2, version: 1}, turnstate.State{}, "l0", map[uint64]struct{}{})
	answer := func(c Conversation, id string, size int) (queued bool, full <-chan struct{}) {
		t.Helper()
		_, _, gen, ok := tc.get(c, id)
		require.True(t, ok, id)
		q.slots <- struct{}{} // deferCommit's reserve
		queued, full = tc.deferTurn(c, gen, turnstate.State{}, queuedTurn{turnID: id, result: make([]byte, size)})
		if !queued {
			<-q.slots
		}
		tc.mu.Lock()
		require.LessOrEqual(t, q.bytes, int64(bound), "after %s", id)
		tc.mu.Unlock()
		return queued, full
	}
	queued, _ := answer(busy, "b1", 100)
	require.True(t, queued)
	for i := 2; i < 100; i++ {
		queued, full := answer(large, "large", 2*bound)
		require.False(t, queued, "larger than the bound")
		if full == nil {
			return // refused: it commits under the lock
		}
		items, arena := tc.takeBatch() // the flush it waits for starts
		queued, _ = answer(busy, "b"+strconv.Itoa(i), 100)
		require.True(t, queued)
		written := make([]*turnVersion, len(items))
		for k := range written {
			written[k] = &turnVersion{id: 1, version: int64(i)}
		}
		tc.applyBatch(items, written, arena)
	}
	t.Fatal("the large turn waited through 98 flushes for a queue with nothing in it")
}
