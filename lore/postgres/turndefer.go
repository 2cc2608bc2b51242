package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"

	"loregate/lore"
	"loregate/lore/turnstate"
)

// Deferred commits (docs/turns.md#durability, DeferredTurnStore): a turn
// opened on a conversation's kept state is answered at once; its log row
// and the state it left wait in a queue that one flusher writes every
// interval, all queued turns in one transaction: turnFlushSettings, then
// turnFlush, one statement for every conversation and turn of the batch.

// Limits of DeferredTurns.
const (
	DefaultTurnFlushInterval = 10 * time.Millisecond
	MinTurnFlushInterval     = time.Millisecond
	MaxTurnFlushInterval     = time.Second
	DefaultTurnQueue         = 1024
	// DefaultTurnQueueBytes is DeferredTurns.MaxQueuedBytes' default:
	// 64 MiB, about 15,000 stored results of 4.2 KB, the benchmark turn's
	// with the trace (768 bytes without it since 2 December 2026:
	// docs/benchmarks.md#deferred-turns), or 1,024 queued turns of about
	// 64 KB each.
	DefaultTurnQueueBytes = 64 << 20
	// turnFlushAt is how many queued turns start a flush before the
	// interval ends.
	turnFlushAt = 256
	// DefaultKnownTurnIDs is DeferredTurns.MaxTurnIDs' default.
	DefaultKnownTurnIDs = 16384
)

// DeferredTurns configures DeferredTurnStore.
type DeferredTurns struct {
	// Interval is how long a turn waits in the queue at most before a
	// flush starts (MinTurnFlushInterval..MaxTurnFlushInterval; 0:
	// DefaultTurnFlushInterval). A flush starts sooner when turnFlushAt
	// turns are queued or a lock-path turn waits for one.
	Interval time.Duration
	// MaxQueued bounds the turns queued or being written (0:
	// DefaultTurnQueue); a turn past it waits for a flush.
	MaxQueued int
	// MaxQueuedBytes bounds the bytes the turns queued or being written
	// hold (0: DefaultTurnQueueBytes): their log rows' columns (the
	// stored result, the admitted entries, the ids) and queuedTurnSize
	// each. A turn that would pass it waits for a flush; one larger than
	// the whole bound does not defer: its commit is turnstate.ErrStale,
	// nothing queued, and lore/turn's Record runs it again under the
	// lock (a synchronous commit).
	MaxQueuedBytes int64
	// OnLost, when set, is called with the number of answered turns a
	// flush did not record (their conversation or their server's lore
	// moved on, or the write failed); it must be fast.
	OnLost func(turns int)
	// OnError, when set, is called with the errors of a flush's writes
	// (the turns of a batch that failed are then written conversation by
	// conversation, again while the database is unavailable, once a round
	// reported); it must be fast.
	OnError func(error)
	// MaxTurnIDs bounds the turn ids kept per conversation (0:
	// DefaultKnownTurnIDs; about 40 bytes each, weighed in the cache's
	// records; the log keeps 500 a conversation after its hourly prune,
	// LOREGATE_ACTIVATION_LOG_ROWS): a turn defers only when its id is
	// known unused. A conversation with more logged commits its turns on
	// the kept state itself, as TurnStore's do, until a lock-path turn
	// (which reads the ids, MaxTurnIDs + 1 at most) finds fewer.
	MaxTurnIDs int
	// WriteTimeout bounds each flush, its writes again while the database
	// is unavailable included, the last flush's too (0: 30 s; a shutdown
	// bounds them sooner with TurnFlusher.Cut); the turns it could not
	// write by then are lost (OnLost).
	WriteTimeout time.Duration
}

// TurnFlusher writes a DeferredTurnStore's queued turns (Start).
type TurnFlusher struct {
	store *Store
	tc    *turnCache
	// wire holds the write's parameter buffers from one flush to the
	// next (a batch's are about 4.5 KB a turn), up to maxKeptFlushWire.
	wire turnWire
	// written counts the queued turns written (Written).
	written atomic.Int64
	// writes is the context of every write (Start's values), cut by
	// Cut.
	writes context.Context
	cut    context.CancelFunc
}

// Written returns how many queued turns f has written since it started
// (the turns it did not record are DeferredTurns.OnLost's).
func (f *TurnFlusher) Written() int64 { return f.written.Load() }

// maxKeptFlushWire is the largest parameter buffer the flusher keeps.
const maxKeptFlushWire = 4 << 20

// DeferredTurnStore is TurnStore whose turns on a conversation's kept
// state (docs/turns.md#cached-state) commit later: the turn is answered
// once its state is kept in memory, and the returned flusher writes the
// queued turns in batches once started (TurnFlusher.Start,
// docs/turns.md#durability). Until it starts, and after it stopped, those
// turns commit themselves as TurnStore's do.
// A turn on the lock path first waits until the conversation's queued
// turns are written; so do ResetTurnState and ActivationLog. TurnState
// returns the kept state while turns of the conversation are queued.
// lore.ErrInvalid when cfg is out of its limits.
func (s *Store) DeferredTurnStore(cfg DeferredTurns) (turnstate.Store, *TurnFlusher, error) {
	if cfg.Interval == 0 {
		cfg.Interval = DefaultTurnFlushInterval
	}
	if cfg.MaxQueued == 0 {
		cfg.MaxQueued = DefaultTurnQueue
	}
	if cfg.MaxQueuedBytes == 0 {
		cfg.MaxQueuedBytes = DefaultTurnQueueBytes
	}
	if cfg.MaxTurnIDs == 0 {
		cfg.MaxTurnIDs = DefaultKnownTurnIDs
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.Interval < MinTurnFlushInterval || cfg.Interval > MaxTurnFlushInterval || cfg.MaxQueued < 1 || cfg.MaxTurnIDs < 1 || cfg.MaxQueuedBytes < 1 {
		return nil, nil, fmt.Errorf("deferred turns: %w: flush interval %v (%v..%v), queue %d, queue bytes %d and turn ids %d (at least 1)",
			lore.ErrInvalid, cfg.Interval, MinTurnFlushInterval, MaxTurnFlushInterval, cfg.MaxQueued, cfg.MaxQueuedBytes, cfg.MaxTurnIDs)
	}
	tc := newTurnCache(DefaultTurnCacheRecords)
	tc.dq = &turnQueue{cfg: cfg, seed: maphash.MakeSeed(), slots: make(chan struct{}, cfg.MaxQueued),
		wake: make(chan struct{}, 1), now: make(chan struct{}, 1), flushed: make(chan struct{})}
	return turnStore{Store: s, cache: tc}, &TurnFlusher{store: s, tc: tc}, nil
}

// turnQueue is a turnCache's queue of deferred commits; its fields but
// the channels are guarded by the cache's mutex.
type turnQueue struct {
	cfg     DeferredTurns
	seed    maphash.Seed
	dirty   []*cachedTurn // conversations with pending turns
	queued  int           // pending turns over all conversations
	bytes   int64         // queuedTurn.size of the pending and in-flight turns
	running bool          // the flusher started
	closed  bool          // the flusher is stopping: no turn defers
	slots   chan struct{} // a queued or in-flight turn holds one
	wake    chan struct{} // a turn was queued to an empty queue
	now     chan struct{} // flush without waiting for the interval
	flushed chan struct{} // closed when a flush ends, then replaced
	// arena holds the log columns of the pending turns that are bytes
	// (queuedTurn's admitted and result, hold), in chunks of
	// turnArenaChunk bytes; takeBatch hands them to the flush, which
	// gives them back once written (at most maxFreeTurnChunks kept in
	// free), so queued turns allocate nothing of their own for their
	// stored results, and a batch grown large while a write was held
	// copies nothing as it grows. scratch encodes a turn's admitted list.
	arena, free [][]byte
	scratch     []byte
}

// The arena's chunks: 64 KiB (about 13 turns of the 4.2 KB stored result
// of docs/benchmarks.md#deferred-turns), 32 kept for the next batches.
const (
	turnArenaChunk    = 64 << 10
	maxFreeTurnChunks = 32
)

// hold copies b into the arena and returns the copy (under the cache's
// mutex). A value longer than a chunk gets a chunk of its own.
func (q *turnQueue) hold(b []byte) []byte {
	n := len(q.arena)
	if n == 0 || cap(q.arena[n-1])-len(q.arena[n-1]) < len(b) {
		var c []byte
		if k := len(q.free); k > 0 && len(b) <= turnArenaChunk {
			c, q.free = q.free[k-1], q.free[:k-1]
		} else {
			c = make([]byte, 0, max(turnArenaChunk, len(b)))
		}
		q.arena, n = append(q.arena, c), n+1
	}
	c := q.arena[n-1]
	start := len(c)
	q.arena[n-1] = append(c, b...)
	return q.arena[n-1][start : start+len(b) : start+len(b)]
}

// deferred is one conversation's part of the deferred commits.
type deferred struct {
	// durable is the state stored at the entry's version; the entry's
	// state is ahead of it by the pending and in-flight turns.
	durable  turnstate.State
	pending  []queuedTurn // answered, not yet written, oldest first
	inflight int          // turns a flush is writing
	queued   bool         // in turnQueue.dirty
	// ids holds the hashes of every turn id logged or queued for the
	// conversation (nil: not known, no turn defers).
	ids map[uint64]struct{}
}

func (d *deferred) busy() bool { return len(d.pending) > 0 || d.inflight > 0 }

// queuedTurn is a deferred turn's log row, its columns as the flush
// sends them. Queued (deferTurn), admitted and result are in the
// queue's arena; before, entries are the log's admitted entries (encoded
// into admitted then) and result the caller's.
type queuedTurn struct {
	turnID, sha256, unit, response string
	count, limit, used             int32
	size                           int32 // its bytes, for MaxQueuedBytes (deferTurn)
	admitted                       []byte
	result                         []byte // nil: NULL
	at                             time.Time
	entries                        []LoggedEntry
}

func (q *turnQueue) hash(turnID string) uint64 { return maphash.String(q.seed, turnID) }

// maxIDs is DeferredTurns.MaxTurnIDs (its default when unset).
func (q *turnQueue) maxIDs() int {
	if q.cfg.MaxTurnIDs > 0 {
		return q.cfg.MaxTurnIDs
	}
	return DefaultKnownTurnIDs
}

// maxBytes is DeferredTurns.MaxQueuedBytes (its default when unset).
func (q *turnQueue) maxBytes() int64 {
	if q.cfg.MaxQueuedBytes > 0 {
		return q.cfg.MaxQueuedBytes
	}
	return DefaultTurnQueueBytes
}

// active reports whether turns defer now (under the cache's mutex).
func (q *turnQueue) active() bool { return q.running && !q.closed }

// fresh reports whether turnID is known unused in e's conversation
// (under the cache's mutex): false when e does not know its turn ids.
func (q *turnQueue) fresh(e *cachedTurn, turnID string) bool {
	if e.ids == nil {
		return false
	}
	_, used := e.ids[q.hash(turnID)]
	return !used
}

// learnIDs records in e the turn ids a lock-path turn read (ids, nil:
// none read) and turnID, which it committed.
func (q *turnQueue) learnIDs(e *cachedTurn, ids map[uint64]struct{}, turnID string) {
	if ids != nil {
		e.ids = ids
	}
	if e.ids == nil {
		return
	}
	if len(e.ids) >= q.maxIDs() {
		e.ids = nil
		return
	}
	e.ids[q.hash(turnID)] = struct{}{}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// reserve takes a queue slot for a turn, waiting for a flush while the
// queue is full; ctx's error when it ends first.
func (q *turnQueue) reserve(ctx context.Context) error {
	select {
	case q.slots <- struct{}{}:
		return nil
	default:
	}
	signal(q.wake)
	signal(q.now)
	select {
	case q.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *turnQueue) release(n int) {
	for range n {
		<-q.slots
	}
}

// queuedTurnSize is what a queued turn holds besides its columns' bytes:
// its queuedTurn in a conversation's pending list.
const queuedTurnSize = int(unsafe.Sizeof(queuedTurn{}))

// deferTurn queues qt, a turn of c opened on the kept state gen, and keeps
// next as c's state. False, nothing queued, when that state is no longer
// kept, a lock-path turn of c runs, the turn id is not known unused,
// turns do not defer now, or qt's bytes alone pass MaxQueuedBytes (it
// commits under the lock: waiting for a queue with nothing in it, which
// steady traffic never leaves, could last until its request ends); full,
// a channel closed at the next flush's end, and nothing queued when qt's
// bytes would pass MaxQueuedBytes with the turns queued or being written.
func (tc *turnCache) deferTurn(c Conversation, gen uint64, next turnstate.State, qt queuedTurn) (queued bool, full <-chan struct{}) {
	truncateTimes(next)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	q := tc.dq
	el, ok := tc.byConv[c]
	if !ok || !q.active() {
		return false, nil
	}
	e := el.Value.(*cachedTurn)
	if e.state == nil || e.gen != gen || e.holds > 0 || !q.fresh(e, qt.turnID) {
		return false, nil
	}
	q.scratch = appendLoggedEntries(q.scratch[:0], qt.entries)
	size := queuedTurnSize + len(q.scratch) + len(qt.result) + len(qt.turnID) + len(qt.sha256) + len(qt.unit) + len(qt.response)
	if int64(size) > q.maxBytes() {
		return false, nil
	}
	if q.bytes+int64(size) > q.maxBytes() {
		signal(q.wake)
		signal(q.now)
		return false, q.flushed
	}
	if !e.busy() {
		e.durable = e.state
	}
	q.learnIDs(e, nil, qt.turnID)
	q.bytes += int64(size)
	qt.size = int32(min(size, math.MaxInt32))
	qt.admitted, qt.entries = q.hold(q.scratch), nil
	if qt.result != nil {
		qt.result = q.hold(qt.result)
	}
	e.recent[e.next], e.next = qt.turnID, (e.next+1)%turnCacheRecent
	e.state = next
	e.gen = tc.newGen()
	e.pending = append(e.pending, qt)
	if !e.queued {
		e.queued = true
		q.dirty = append(q.dirty, e)
	}
	q.queued++
	if q.queued == 1 {
		signal(q.wake)
	}
	if q.queued >= turnFlushAt {
		signal(q.now)
	}
	tc.weigh(e)
	tc.lru.MoveToFront(el)
	return true, nil
}

// hold marks a lock-path turn of c running (no turn of c opens on the
// kept state nor defers until unhold).
func (tc *turnCache) hold(c Conversation) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.entryLocked(c).Value.(*cachedTurn).holds++
}

// unhold ends hold; c's entry goes when it is left with nothing (no state,
// no turns to skip, held or queued): a lock-path turn that committed
// nothing, or a reset, keeps no entry for c.
func (tc *turnCache) unhold(c Conversation) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if el, ok := tc.byConv[c]; ok {
		e := el.Value.(*cachedTurn)
		if e.holds--; e.holds == 0 && e.state == nil && e.skip == 0 && !e.busy() {
			tc.removeLocked(el)
		}
	}
}

// settle waits until no turn of c is queued or being written (at once
// when none is); ctx's error when it ends first.
func (tc *turnCache) settle(ctx context.Context, c Conversation) error {
	for {
		tc.mu.Lock()
		el, ok := tc.byConv[c]
		busy := ok && el.Value.(*cachedTurn).busy()
		flushed := tc.dq.flushed
		tc.mu.Unlock()
		if !busy {
			return nil
		}
		signal(tc.dq.wake)
		signal(tc.dq.now)
		select {
		case <-flushed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// queuedState is c's kept state while turns of c are queued or being
// written (the state the last of them was answered on), else nil.
func (tc *turnCache) queuedState(c Conversation) turnstate.State {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if el, ok := tc.byConv[c]; ok && el.Value.(*cachedTurn).busy() {
		return el.Value.(*cachedTurn).state
	}
	return nil
}

// flushItem is one conversation's part of a flush: its turns queued
// since the last flush, the state they started from (at, durable) and the
// state they left.
type flushItem struct {
	e       *cachedTurn
	conv    Conversation
	at      turnVersion
	durable turnstate.State
	state   turnstate.State
	turns   []queuedTurn
}

// takeBatch moves every pending turn in flight, and with them the arena
// their bytes are in (applyBatch's to give back).
func (tc *turnCache) takeBatch() ([]flushItem, [][]byte) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	q := tc.dq
	arena := q.arena
	q.arena = nil
	items := make([]flushItem, 0, len(q.dirty))
	for _, e := range q.dirty {
		e.queued = false
		if len(e.pending) == 0 {
			continue
		}
		items = append(items, flushItem{e: e, conv: e.conv, at: e.at, durable: e.durable, state: e.state, turns: e.pending})
		e.inflight += len(e.pending)
		e.pending = nil
	}
	q.dirty, q.queued = q.dirty[:0], 0
	return items, arena
}

// applyBatch ends a flush: items[i]'s conversation is now at written[i],
// or, nil, its turns were not recorded: they and the turns queued after
// them are dropped with the kept state. The chunks of the batch's
// arena, read no more, go back to the queue's free ones. It returns how
// many turns were dropped and wakes settle's waiters.
func (tc *turnCache) applyBatch(items []flushItem, written []*turnVersion, arena [][]byte) int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	q := tc.dq
	for _, c := range arena {
		if cap(c) == turnArenaChunk && len(q.free) < maxFreeTurnChunks {
			q.free = append(q.free, c[:0])
		}
	}
	lost, done := 0, 0
	for i, it := range items {
		e := it.e
		e.inflight -= len(it.turns)
		done += len(it.turns)
		q.bytes -= turnBytes(it.turns)
		switch {
		case written[i] != nil && e.state != nil:
			e.at, e.durable = *written[i], it.state
		case written[i] == nil:
			lost += len(it.turns) + len(e.pending)
			done += len(e.pending)
			q.queued -= len(e.pending)
			q.bytes -= turnBytes(e.pending)
			e.pending = nil
			tc.forget(e)
		}
		if !e.busy() {
			e.durable = e.state
		}
		if len(e.pending) == 0 && cap(it.turns) <= turnFlushAt {
			clear(it.turns) // the next turns of e reuse it
			e.pending = it.turns[:0]
		}
		tc.weigh(e)
	}
	q.release(done)
	close(q.flushed)
	q.flushed = make(chan struct{})
	return lost
}

// turnBytes is the sum of turns' sizes (queuedTurn.size).
func turnBytes(turns []queuedTurn) int64 {
	var n int64
	for i := range turns {
		n += int64(turns[i].size)
	}
	return n
}

// Start starts writing the queued turns, in a goroutine of its own,
// until ctx ends or stop is called; from then no turn defers, what is
// left is written and stop returns. A write in progress is cancelled
// only by Cut (each is bounded by DeferredTurns.WriteTimeout): a turn
// answered before stop returned is written or counted lost
// (DeferredTurns.OnLost) by then. Call Start once; stop may be called
// more than once.
func (f *TurnFlusher) Start(ctx context.Context) (stop func()) {
	q := f.tc.dq
	f.tc.mu.Lock()
	q.running = true
	f.tc.mu.Unlock()
	f.writes, f.cut = context.WithCancel(context.WithoutCancel(ctx))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx)
	}()
	return sync.OnceFunc(func() {
		cancel()
		<-done
	})
}

// Cut ends every write of f in progress or to come, the last flush's
// included, by at (each is still bounded by DeferredTurns.WriteTimeout);
// a shutdown's deadline. The turns of a write cut short count as lost
// (DeferredTurns.OnLost), though a commit it had sent may have reached
// the database: a retry of such a turn replays it. Call after Start.
func (f *TurnFlusher) Cut(at time.Time) {
	if d := time.Until(at); d > 0 {
		time.AfterFunc(d, f.cut)
		return
	}
	f.cut()
}

// run is Start's goroutine.
func (f *TurnFlusher) run(ctx context.Context) {
	q := f.tc.dq
	timer := time.NewTimer(q.cfg.Interval)
	timer.Stop()
	defer func() {
		timer.Stop()
		f.tc.mu.Lock()
		q.closed = true
		f.tc.mu.Unlock()
		f.flush()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		timer.Reset(q.cfg.Interval)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-q.now:
			timer.Stop()
		}
		f.flush()
	}
}

// flush writes every queued turn (writeBatch), bounded by
// DeferredTurns.WriteTimeout and Cut (Start's end does not cancel it).
func (f *TurnFlusher) flush() {
	ctx, cancel := context.WithTimeout(f.writes, f.tc.dq.cfg.WriteTimeout)
	defer cancel()
	items, arena := f.tc.takeBatch()
	written := make([]*turnVersion, len(items))
	if len(items) > 0 {
		f.writeBatch(ctx, items, written)
	}
	n := 0
	for i, it := range items {
		if written[i] != nil {
			n += len(it.turns)
		}
	}
	f.written.Add(int64(n))
	if lost := f.tc.applyBatch(items, written, arena); lost > 0 && f.tc.dq.cfg.OnLost != nil {
		f.tc.dq.cfg.OnLost(lost)
	}
}

// writeBatch writes items: all conversations in one transaction or, when
// that fails, each in its own, again and again (10 ms apart, doubling up
// to 1 s) while the database is unavailable (retryable) until ctx ends.
// An item that a write whose answer was lost may have written, and that a
// later write finds moved on, is looked up (flushedBefore). The items it
// could not write are left with written[i] nil.
func (f *TurnFlusher) writeBatch(ctx context.Context, items []flushItem, written []*turnVersion) {
	err := f.write(ctx, items, written)
	if err == nil {
		return
	}
	f.report(err)
	var todo []int
	unsure := make([]bool, len(items)) // a write of it got no answer
	if len(items) > 1 || retryable(err) {
		todo = make([]int, len(items))
		for i := range todo {
			todo[i], unsure[i] = i, unanswered(err)
		}
	}
	for wait := time.Duration(0); len(todo) > 0; wait = min(max(2*wait, 10*time.Millisecond), time.Second) {
		if wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
		}
		again, last := todo[:0], error(nil)
		for _, i := range todo {
			switch err := f.write(ctx, items[i:i+1], written[i:i+1]); {
			case err == nil && written[i] == nil && unsure[i]:
				written[i] = f.flushedBefore(ctx, &items[i])
			case err == nil:
			case retryable(err):
				again, last = append(again, i), err
				unsure[i] = unsure[i] || unanswered(err)
			default:
				f.report(err)
			}
		}
		f.report(last) // once a round
		todo = again
	}
}

// retryable reports whether a write that failed with err may succeed
// again: the connection failed or was refused, the server is shutting
// down or short of resources, a deadlock, a serialization failure, a lock
// or statement timeout; not an error of the statement or its data.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return errors.Is(err, lore.ErrUnavailable)
	}
	switch {
	case len(pgErr.Code) != 5:
		return false
	case strings.Contains(" 08 40 53 57 58 ", " "+pgErr.Code[:2]+" "):
		return true
	}
	return pgErr.Code == "55P03" // lock_not_available
}

func (f *TurnFlusher) report(err error) {
	if err != nil && f.tc.dq.cfg.OnError != nil {
		f.tc.dq.cfg.OnError(err)
	}
}

// turnFlush writes the queued turns of conversations $1 (each at version
// $2, row version $3, with its server $6 at lore_version $4, recording $5
// turns) in one statement: for each conversation still at those versions
// it bumps the version by $5, upserts its records ($8, their conversation
// in $7) of entries that exist, deletes its records of entries $10 ($9),
// and inserts its log rows ($11..$21, in order). It returns the new
// version and row version of each conversation written; the others
// (moved on, reset or gone) have nothing written.
const turnFlush = `WITH v AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::int[], $6::text[])
        AS v(id, version, xmin, lore, n, server)
), s AS (
    SELECT id, lore_version FROM servers WHERE id = ANY($6::text[]) FOR KEY SHARE
), c AS (
    UPDATE turn_conversations t SET version = t.version + v.n, last_turn_at = now()
    FROM v, s
    WHERE t.id = v.id AND t.version = v.version AND t.xmin = v.xmin::text::xid
        AND s.id = t.server_id AND s.id = v.server AND s.lore_version = v.lore
    RETURNING t.id, t.version, t.xmin
), u AS (
    INSERT INTO turn_entry_state (conversation_id, ` + turnStateColumns + `)
    SELECT c.id, ` + turnStateColumns + `
    FROM unnest($7::bigint[], $8::text::turn_state_record[]) AS r(cid) JOIN c ON c.id = r.cid
    WHERE (SELECT true FROM lorebook_entries e WHERE e.id = r.entry_id)
    ` + turnStateUpsert + `
), d AS (
    DELETE FROM turn_entry_state x USING c, unnest($9::bigint[], $10::bigint[]) AS g(cid, eid)
    WHERE x.conversation_id = c.id AND g.cid = c.id AND x.entry_id = g.eid
), l AS (
    INSERT INTO activation_log (conversation_id, ` + turnLogColumns + `)
    SELECT q.cid, q.turn_id, q.n, q.sha, q.admitted::jsonb, q.unit, q.lim, q.used, q.response::jsonb, q.result, q.at
    FROM unnest($11::bigint[], $12::text[], $13::int[], $14::text[], $15::text[], $16::text[], $17::int[],
        $18::int[], $19::text[], $20::bytea[], $21::timestamptz[])
        WITH ORDINALITY AS q(cid, turn_id, n, sha, admitted, unit, lim, used, response, result, at, ord)
    WHERE q.cid IN (SELECT id FROM c)
    ORDER BY q.ord
)
SELECT id, version, xmin FROM c`

// turnFlushSettings plans turnFlush once per connection (its transaction
// only); the flush commits with the server's synchronous_commit.
const turnFlushSettings = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

// write writes items in one transaction and sets written[i] to the new
// version of items[i]'s conversation, or leaves it nil when that
// conversation had moved on (nothing of it written). On error nothing
// was written.
func (f *TurnFlusher) write(ctx context.Context, items []flushItem, written []*turnVersion) error {
	pool, ok := f.store.pool(ctx)
	if !ok {
		return errors.New("write deferred turns: the store is not on a pool")
	}
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return wrapErr("write deferred turns", err)
	}
	defer pc.Release()
	byID := make(map[int64]int, len(items))
	for i, it := range items {
		byID[it.at.id] = i
	}
	var got []turnVersion
	defer func() {
		if cap(f.wire.buf) > maxKeptFlushWire {
			f.wire = turnWire{}
		}
	}()
	err = pipeWire(ctx, pc.Conn(), &f.wire, []wireStatement{{turnFlushSettings, nil}, {turnFlush, flushArgs(items)}}, func(stmt int, values [][]byte) error {
		if stmt != 1 {
			return nil
		}
		if len(values) != 3 {
			return fmt.Errorf("flush statement: %d columns", len(values))
		}
		id, err := wireInt8(values[0])
		if err != nil {
			return err
		}
		version, err := wireInt8(values[1])
		if err != nil {
			return err
		}
		xmin, err := wireXID(values[2])
		if err != nil {
			return err
		}
		if id == nil || version == nil || xmin == nil {
			return errors.New("flush statement: a NULL version")
		}
		got = append(got, turnVersion{id: *id, version: *version, xmin: *xmin})
		return nil
	})
	if err != nil {
		return wrapErr("write deferred turns", err)
	}
	for _, v := range got {
		if i, ok := byID[v.id]; ok {
			v.lore = items[i].at.lore
			written[i] = &v
		}
	}
	return nil
}

// flushArgs are turnFlush's arguments for items.
func flushArgs(items []flushItem) []any {
	var (
		ids, versions, xmins, lores, recConv, delConv, delEntry []int64
		counts                                                  []int32
		servers                                                 []string
		recs                                                    []turnstate.Record
		l                                                       logArrays
	)
	for _, it := range items {
		ids, versions = append(ids, it.at.id), append(versions, it.at.version)
		xmins, lores = append(xmins, int64(it.at.xmin)), append(lores, it.at.lore)
		counts, servers = append(counts, int32(len(it.turns))), append(servers, it.conv.Server)
		upsert, del := turnstate.Diff(it.durable, it.state)
		for range upsert {
			recConv = append(recConv, it.at.id)
		}
		recs = append(recs, upsert...)
		for _, id := range del {
			delConv, delEntry = append(delConv, it.at.id), append(delEntry, id)
		}
		for _, qt := range it.turns {
			l.add(it.at.id, qt)
		}
	}
	return []any{ids, versions, xmins, lores, counts, servers, recConv, stateRecords(recs), delConv, delEntry,
		l.conv, l.turnID, l.count, l.sha256, l.admitted, l.unit, l.limit, l.used, l.response, l.result, l.at}
}

// logArrays are the log rows of a flush, column by column.
type logArrays struct {
	conv                           []int64
	turnID, sha256, unit, response []string
	count, limit, used             []int32
	admitted, result               [][]byte
	at                             []time.Time
}

func (l *logArrays) add(conv int64, qt queuedTurn) {
	l.conv, l.turnID, l.count = append(l.conv, conv), append(l.turnID, qt.turnID), append(l.count, qt.count)
	l.sha256, l.admitted, l.unit = append(l.sha256, qt.sha256), append(l.admitted, qt.admitted), append(l.unit, qt.unit)
	l.limit, l.used, l.response = append(l.limit, qt.limit), append(l.used, qt.used), append(l.response, qt.response)
	l.result, l.at = append(l.result, qt.result), append(l.at, qt.at)
}

// deferCommit queues t's commit (Turn.Commit of a turn opened on a
// DeferredTurnStore's kept state). handled is false when the turn should
// commit itself: turns do not defer now (the flusher is not running) or
// its conversation's turn ids are not known (more than MaxTurnIDs),
// and the state t was opened on is the stored one. A turn that can do
// neither, or larger than MaxQueuedBytes, is turnstate.ErrStale, nothing
// queued: lore/turn's Record runs it again under the lock.
func (t *Turn) deferCommit(ctx context.Context, next turnstate.State, log LoggedTurn) (handled bool, err error) {
	q := t.cache.dq
	if deferNow, stored := t.cache.deferrable(t, log.TurnID); !deferNow {
		if stored {
			return false, nil
		}
		return true, turnstate.ErrStale
	}
	// The columns as logColumns gives them; the bytes go to the queue's
	// arena (deferTurn: the caller reuses its result's buffer).
	qt := queuedTurn{turnID: log.TurnID, sha256: log.InputSHA256, unit: log.BudgetUnit, response: "{}",
		count: int32(log.MessageCount), limit: int32(log.BudgetLimit), used: int32(log.BudgetUsed), at: log.CreatedAt,
		entries: log.Admitted, result: log.Response}
	if qt.at.IsZero() {
		qt.at = time.Now()
	}
	if len(log.Response) > 0 && log.Response[0] == '{' {
		qt.response, qt.result = string(log.Response), nil
	} else if len(log.Response) == 0 {
		qt.result = nil
	}
	if err := q.reserve(ctx); err != nil {
		return true, wrapErr("commit turn", err)
	}
	for {
		queued, full := t.cache.deferTurn(t.conv, t.gen, next, qt)
		if queued {
			return true, nil
		}
		if full == nil {
			q.release(1)
			return true, turnstate.ErrStale
		}
		select { // MaxQueuedBytes: wait for a flush
		case <-full:
		case <-ctx.Done():
			q.release(1)
			return true, wrapErr("commit turn", ctx.Err())
		}
	}
}

// deferrable reports whether t's turn turnID may defer (the flusher runs
// and its conversation's turn ids are known; deferTurn checks the rest)
// and, when not, whether the state t was opened on is still the kept one
// and stored (no turn of it queued or lost since).
func (tc *turnCache) deferrable(t *Turn, turnID string) (deferNow, stored bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	el, ok := tc.byConv[t.conv]
	if !ok {
		return tc.dq.active(), false
	}
	e := el.Value.(*cachedTurn)
	if tc.dq.active() && e.ids != nil {
		return true, false
	}
	return false, e.gen == t.gen && !e.busy() && e.at == t.at
}
