package postgres

import (
	"container/list"
	"context"
	"sync"
	"time"

	"loregate/lore/turnstate"
)

// DefaultTurnCacheRecords bounds the state records a TurnStore keeps, over
// all its conversations (about 150 bytes each); each conversation counts as
// one record more, plus one per 150 bytes of the turn ids it keeps, so
// conversations whose turns keep no state are bounded too.
const DefaultTurnCacheRecords = 100_000

// turnCacheSkip is how many turns of a conversation go to BeginTurn after
// another process or request recorded one of its turns first: turns that
// alternate between processes (replicas behind a balancer) then run the
// engine twice once in that many turns, not every other turn.
const turnCacheSkip = 16

// turnCache keeps, per conversation, the state its last turn committed
// through this process and that state's identity (turnVersion), most
// recently used first, up to max records in all.
type turnCache struct {
	mu      sync.Mutex
	max     int
	records int
	lru     *list.List // of *cachedTurn, most recent first
	byConv  map[Conversation]*list.Element
	// dq is the queue of deferred commits (DeferredTurnStore); nil: a
	// cached turn commits itself.
	dq *turnQueue
	// gens is the last generation given (newGen).
	gens uint64
}

// turnCacheRecent is how many of a conversation's last turn ids its entry
// keeps: a retry of one goes to BeginTurn at once (it replays there)
// instead of running the engine on the kept state first.
const turnCacheRecent = 8

// cachedTurn is one conversation's entry: its state (nil while skipped),
// the turns left to skip and the ids of its last turns committed here.
type cachedTurn struct {
	conv   Conversation
	at     turnVersion
	state  turnstate.State
	skip   int
	recent [turnCacheRecent]string
	next   int // the slot of recent the next turn id takes
	weight int // what it counts towards turnCache.max (weigh)
	// gen identifies the state kept (newGen, never repeated within the
	// cache, not even by an entry made again for the conversation after
	// it left): a turn opened on the cache defers its commit only onto the
	// state it was opened on.
	gen uint64
	// holds counts the turns of the conversation on the lock path in this
	// process: while one runs no turn opens on the cache nor defers.
	holds int
	deferred
}

// weigh sets e's weight, its share of tc.max (records, each about 150
// bytes): its state's records, one for the entry itself and one per 150
// bytes of its ids.
func (tc *turnCache) weigh(e *cachedTurn) {
	n := len(e.conv.Server) + len(e.conv.Channel)
	for _, id := range e.recent {
		n += len(id)
	}
	n += 40 * len(e.ids) // a map slot a turn id
	w := len(e.state) + 1 + n/150
	if e.busy() {
		w += len(e.durable) // else the same map as e.state
	}
	tc.records += w - e.weight
	e.weight = w
}

func newTurnCache(maxRecords int) *turnCache {
	return &turnCache{max: maxRecords, lru: list.New(), byConv: map[Conversation]*list.Element{}}
}

// get returns c's kept state and its identity for turn turnID, or false
// (none, c is skipping turns: one fewer then, or turnID is one of c's
// last turns: a retry).
func (tc *turnCache) get(c Conversation, turnID string) (turnVersion, turnstate.State, uint64, bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	el, ok := tc.byConv[c]
	if !ok {
		return turnVersion{}, nil, 0, false
	}
	e := el.Value.(*cachedTurn)
	for _, id := range e.recent {
		if id == turnID {
			return turnVersion{}, nil, 0, false
		}
	}
	if q := tc.dq; q != nil && q.active() && e.ids != nil && !q.fresh(e, turnID) {
		return turnVersion{}, nil, 0, false
	}
	if e.skip > 0 || e.state == nil || e.holds > 0 {
		if e.skip > 0 {
			e.skip--
		}
		return turnVersion{}, nil, 0, false
	}
	tc.lru.MoveToFront(el)
	return e.at, e.state, e.gen, true
}

// put keeps st as c's state at at after its turn turnID, unless a newer
// one is kept (another turn of c committed meanwhile). Times are kept as
// Postgres stores them (microseconds).
func (tc *turnCache) put(c Conversation, at turnVersion, st turnstate.State, turnID string) {
	tc.keep(c, at, st, turnID, nil)
}

// keep is put with ids, the hashes of every turn id logged for c before
// turnID (DeferredTurnStore's lock path reads them; nil: not read).
func (tc *turnCache) keep(c Conversation, at turnVersion, st turnstate.State, turnID string, ids map[uint64]struct{}) {
	truncateTimes(st)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	el := tc.entryLocked(c)
	e := el.Value.(*cachedTurn)
	if e.state != nil && e.at.id == at.id && e.at.version >= at.version {
		return
	}
	e.at, e.state, e.durable = at, st, st
	e.gen = tc.newGen()
	e.recent[e.next], e.next = turnID, (e.next+1)%turnCacheRecent
	if tc.dq != nil {
		tc.dq.learnIDs(e, ids, turnID)
	}
	tc.weigh(e)
	tc.lru.MoveToFront(el)
	tc.evictLocked()
}

// entryLocked returns c's entry, made (with no state) when c has none.
func (tc *turnCache) entryLocked(c Conversation) *list.Element {
	el, ok := tc.byConv[c]
	if !ok {
		el = tc.lru.PushFront(&cachedTurn{conv: c})
		tc.byConv[c] = el
		tc.weigh(el.Value.(*cachedTurn))
	}
	return el
}

// truncateTimes sets st's times to what Postgres keeps (microseconds).
func truncateTimes(st turnstate.State) {
	for id, r := range st {
		r.FirstAt, r.LastAt = r.FirstAt.Truncate(time.Microsecond), r.LastAt.Truncate(time.Microsecond)
		st[id] = r
	}
}

// evictLocked drops the least recently used conversations while the
// records kept exceed tc.max, but never the most recent one nor one with
// turns held, queued or being written.
func (tc *turnCache) evictLocked() {
	for el := tc.lru.Back(); el != nil && tc.records > tc.max && el != tc.lru.Front(); {
		prev := el.Prev()
		if e := el.Value.(*cachedTurn); e.holds == 0 && !e.busy() {
			tc.removeLocked(el)
		}
		el = prev
	}
}

// stale drops c's state found stale at at. current is the conversation's
// version then (nil: the conversation is gone): when another turn moved it
// on, c's next turnCacheSkip turns skip the cache.
func (tc *turnCache) stale(c Conversation, at turnVersion, current *int64) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	el, ok := tc.byConv[c]
	if !ok {
		return
	}
	e := el.Value.(*cachedTurn)
	if e.at != at {
		return // a newer state is kept already
	}
	if (current == nil || *current == at.version) && e.holds == 0 && !e.busy() {
		tc.removeLocked(el)
		return
	}
	tc.forget(e)
	if current != nil && *current != at.version {
		e.skip = turnCacheSkip
	}
	tc.weigh(e)
}

// drop forgets c's state (a reset through this process).
func (tc *turnCache) drop(c Conversation) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if el, ok := tc.byConv[c]; ok {
		if e := el.Value.(*cachedTurn); e.holds > 0 || e.busy() {
			tc.forget(e)
			tc.weigh(e)
			return
		}
		tc.removeLocked(el)
	}
}

// forget drops e's state (kept, durable and the turn ids known) but keeps
// e: its holds, or its turns queued or being written, still count.
func (tc *turnCache) forget(e *cachedTurn) {
	e.state, e.durable, e.ids = nil, nil, nil
	e.gen = tc.newGen()
}

// newGen is a generation no state of tc had (under tc.mu).
func (tc *turnCache) newGen() uint64 {
	tc.gens++
	return tc.gens
}

func (tc *turnCache) removeLocked(el *list.Element) {
	e := tc.lru.Remove(el).(*cachedTurn)
	delete(tc.byConv, e.conv)
	tc.records -= e.weight
}

// BeginCachedTurn opens turnID of c on the state its last turn recorded
// through this TurnStore committed, without a database round trip; nil
// when none is kept (or c skips the cache, or ctx carries a transaction,
// or turnID is one of c's last eight turns here: a retry, which
// BeginTurn replays).
// The turn's Retry is nil; its Commit locks the server and writes in one
// round trip, and is turnstate.ErrStale, nothing written, when the
// conversation or the server's lore changed since or turnID was used
// (docs/turns.md#cached-state).
func (t turnStore) BeginCachedTurn(ctx context.Context, c Conversation, turnID string) turnstate.Turn {
	if _, ok := t.pool(ctx); !ok || checkConversation(c) != nil || checkTurnID(turnID) != nil {
		return nil
	}
	at, st, gen, ok := t.cache.get(c, turnID)
	if !ok {
		return nil
	}
	return &Turn{conv: c, at: at, State: st, store: t.Store, cache: t.cache, gen: gen}
}
