// Package scopecache keeps the per-turn read of each scope in memory: the
// loaded snapshot (lore.Store.LoadEnabledForScope) and its compiled
// activation matchers, keyed by (server, lineage) and the server's
// lore_version, so a turn of an unchanged scope does no database read.
//
// # Freshness
//
// Every lore, collection, persona-book and settings write increments
// servers.lore_version in its own transaction, and a trigger (migration
// 000020) notifies channel [Channel] with the server id and the new version
// when that transaction commits. [Cache.Listen] keeps a dedicated
// connection LISTENing and drops the scopes of each notified server, so
// another replica's write is seen within the notification delay (measured
// in docs/operations.md). Writes made by this process call
// [Cache.Invalidate] before they are acknowledged
// (postgres.Store.WithLoreWriteHook), so a turn sees every write its own
// replica acknowledged before the turn began.
//
// While the listener is down (not yet connected, connection lost), every
// cached turn first reads the server's lore_version (one indexed single-row
// query) and reloads the scope when it changed. When the listener connects
// again every cached scope is dropped, since notifications may have been
// missed meanwhile.
//
// A load that started before an invalidation is never cached (a generation
// counter guards every insert), so a slow read of old rows cannot
// overwrite a newer invalidation.
//
// # Memory
//
// Scopes are evicted least recently used first when the estimated bytes of
// the cached snapshots and matchers exceed the configured budget
// (LOREGATE_SCOPE_CACHE_BYTES, docs/configuration.md). A scope larger than
// the whole budget is used for its turn and not cached.
package scopecache

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/semantic"
)

// Channel is the Postgres notification channel of lore_version changes.
// Payload: "<server id>:<lore_version>", or "<server id>:" when the server
// was deleted.
const Channel = "loregate_lore"

// DefaultMaxBytes is the byte budget of a Config without one: 256 MiB,
// about 330 full 250-entry scopes of 1,000-character entries
// (docs/benchmarks.md "Scope scale").
const DefaultMaxBytes = 256 << 20

// Loader is the part of lore.Store the cache reads through.
type Loader interface {
	LoadEnabledForScope(ctx context.Context, server string, lineage lore.Lineage) (lore.Snapshot, error)
	GetServer(ctx context.Context, id string) (lore.Server, error)
}

// Config configures a Cache.
type Config struct {
	// MaxBytes is the memory budget of cached scopes (snapshots plus
	// matchers, estimated); <= 0 means DefaultMaxBytes.
	MaxBytes int64
	// Registerer, when set, receives the cache's Prometheus collectors.
	Registerer prometheus.Registerer
	// Logger receives listener state changes; nil discards them.
	Logger *slog.Logger
}

// Scope is one cached scope: its snapshot and the matchers compiled from
// it. A Scope and its Snapshot are shared by concurrent turns and must not
// be modified.
type Scope struct {
	// Snapshot is the per-turn read of the scope.
	Snapshot lore.Snapshot

	bytes    int64
	mu       sync.Mutex
	matchers map[activation.MatchOptions]*activation.Matcher
	lexical  map[bool]*semantic.Lexical
	cands    map[bool]candidates
	vectors  map[vectorsKey]*semantic.Vectors
	cache    *Cache
	el       *list.Element // nil once evicted or never cached
}

// Matcher returns the scope's matcher compiled under mo, compiling it on
// first use with activation.CompileInput(in, mo) (its bytes then count
// towards the cache's budget). in is a turn's Input over this scope's
// Snapshot: its Entries, Collections and PersonaBook, which are the same
// for every turn of the scope.
func (s *Scope) Matcher(in *activation.Input, mo activation.MatchOptions) *activation.Matcher {
	s.mu.Lock()
	m := s.matchers[mo]
	s.mu.Unlock()
	if m != nil {
		return m
	}
	m = activation.CompileInput(in, mo)
	s.mu.Lock()
	if old := s.matchers[mo]; old != nil {
		s.mu.Unlock()
		return old
	}
	s.matchers[mo] = m
	s.mu.Unlock()
	if s.cache != nil {
		s.cache.grow(s, int64(m.Bytes()))
	}
	return m
}

// Lexical returns the scope's lexical index of its candidates for
// retrieval by meaning, built with build on first use; all says whether
// every entry is a candidate (semanticAllEntries) or only vectorized
// ones, so a scope holds at most two. Its bytes count towards the cache's
// budget.
func (s *Scope) Lexical(all bool, build func() *semantic.Lexical) *semantic.Lexical {
	s.mu.Lock()
	x := s.lexical[all]
	s.mu.Unlock()
	if x != nil {
		return x
	}
	x = build()
	s.mu.Lock()
	if old := s.lexical[all]; old != nil {
		s.mu.Unlock()
		return old
	}
	if s.lexical == nil {
		s.lexical = map[bool]*semantic.Lexical{}
	}
	s.lexical[all] = x
	s.mu.Unlock()
	if s.cache != nil {
		s.cache.grow(s, int64(x.Bytes()))
	}
	return x
}

// candidates is a kept result of semantic.Candidates (nil: none).
type candidates struct{ list []semantic.Candidate }

// Candidates returns the scope's candidates for retrieval by meaning
// (all: semanticAllEntries), built with build on first use; a book's own
// semanticAllEntries is part of the scope. Their bytes count towards the
// cache's budget.
func (s *Scope) Candidates(all bool, build func() []semantic.Candidate) []semantic.Candidate {
	s.mu.Lock()
	c, ok := s.cands[all]
	s.mu.Unlock()
	if ok {
		return c.list
	}
	list := build()
	size := 0
	for _, x := range list {
		size += 64 + len(x.Title) + len(x.Text) + len(x.Hash)
	}
	s.mu.Lock()
	if old, ok := s.cands[all]; ok {
		s.mu.Unlock()
		return old.list
	}
	if s.cands == nil {
		s.cands = map[bool]candidates{}
	}
	s.cands[all] = candidates{list}
	s.mu.Unlock()
	if s.cache != nil {
		s.cache.grow(s, int64(size))
	}
	return list
}

// vectorsKey names one complete set of a scope's stored vectors.
type vectorsKey struct {
	model string
	all   bool
}

// Vectors returns the scope's stored embeddings under model of its
// candidates (all: semanticAllEntries), loaded with load on first use.
// load reports complete false while some candidate's vector is pending;
// such a set is returned and not kept, so the next turn reads again and
// sees the embed job's progress (vector writes do not change the lore
// version). A kept set's bytes count towards the cache's budget.
func (s *Scope) Vectors(model string, all bool, load func() (v *semantic.Vectors, complete bool, err error)) (*semantic.Vectors, bool, error) {
	k := vectorsKey{model, all}
	s.mu.Lock()
	v := s.vectors[k]
	s.mu.Unlock()
	if v != nil {
		return v, true, nil
	}
	v, complete, err := load()
	if err != nil || !complete {
		return v, complete, err
	}
	s.mu.Lock()
	if old := s.vectors[k]; old != nil {
		s.mu.Unlock()
		return old, true, nil
	}
	if s.vectors == nil {
		s.vectors = map[vectorsKey]*semantic.Vectors{}
	}
	s.vectors[k] = v
	s.mu.Unlock()
	if s.cache != nil {
		s.cache.grow(s, int64(v.Bytes()))
	}
	return v, true, nil
}

type scopeKey struct {
	server  string
	lineage lore.Lineage
}

// Cache is the scope cache. It is safe for concurrent use. The zero value
// is not usable; call New.
type Cache struct {
	loader   Loader
	maxBytes int64
	logger   *slog.Logger
	m        metrics

	mu       sync.Mutex
	lru      *list.List // of *Scope, most recent first
	byServer map[string]map[lore.Lineage]*list.Element
	bytes    int64
	// gen increases with every invalidation; a load started under an
	// older generation is not cached.
	gen uint64
	// flights are the reads in progress, by scope.
	flights map[scopeKey]*flight

	listening atomic.Bool
}

// WithDefaults returns a copy of c with every zero field set to its
// default: MaxBytes DefaultMaxBytes, Logger one that discards.
func (c Config) WithDefaults() Config {
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// New returns a Cache reading through loader. Until Listen has connected,
// every cached turn checks the server's lore_version.
func New(loader Loader, cfg Config) *Cache {
	cfg = cfg.WithDefaults()
	c := &Cache{
		loader: loader, maxBytes: cfg.MaxBytes, logger: cfg.Logger,
		lru: list.New(), byServer: map[string]map[lore.Lineage]*list.Element{}, flights: map[scopeKey]*flight{},
	}
	c.m = newMetrics(c)
	if cfg.Registerer != nil {
		c.m.register(cfg.Registerer)
	}
	return c
}

// Load returns the scope (server, lineage): from memory when cached and
// current, else read through the loader (and cached). Errors are the
// loader's (lore.ErrNotFound for an unknown server, lore.ErrUnavailable for
// a database failure); nothing is cached then.
func (c *Cache) Load(ctx context.Context, server string, lineage lore.Lineage) (*Scope, error) {
	k := scopeKey{server, lineage}
	c.mu.Lock()
	var cached *Scope
	if el := c.byServer[server][lineage]; el != nil {
		cached = el.Value.(*Scope)
		c.lru.MoveToFront(el)
	}
	gen := c.gen
	c.mu.Unlock()

	if cached != nil {
		if c.listening.Load() {
			c.m.hits.Inc()
			return cached, nil
		}
		// Listener down: the cached scope is current only if the server's
		// version has not moved.
		c.m.versionChecks.Inc()
		sv, err := c.loader.GetServer(ctx, server)
		if err == nil && sv.LoreVersion == cached.Snapshot.Server.LoreVersion {
			c.m.hits.Inc()
			return cached, nil
		}
	}
	c.m.misses.Inc()
	// While listening, concurrent misses of one scope share one read,
	// provided no invalidation happened since that read started (a turn
	// never joins a read older than a write it could have seen). While
	// not listening each turn reads for itself: its version check may be
	// newer than a read in flight.
	if !c.listening.Load() {
		return c.read(ctx, k, gen)
	}
	c.mu.Lock()
	if f := c.flights[k]; f != nil && f.gen == c.gen {
		c.mu.Unlock()
		c.m.shared.Inc()
		select {
		case <-f.done:
			if f.err == nil {
				return f.scope, nil
			}
			// The reader failed (its request may have been cancelled):
			// read for this turn.
			return c.read(ctx, k, gen)
		case <-ctx.Done():
			return nil, fmt.Errorf("scope cache: waiting for a read: %w: %w", lore.ErrUnavailable, ctx.Err())
		}
	}
	f := &flight{done: make(chan struct{}), gen: c.gen}
	c.flights[k] = f
	gen = c.gen
	c.mu.Unlock()
	f.err = errReadAborted
	defer func() {
		c.mu.Lock()
		if c.flights[k] == f {
			delete(c.flights, k)
		}
		c.mu.Unlock()
		close(f.done)
	}()
	f.scope, f.err = c.read(ctx, k, gen)
	return f.scope, f.err
}

// errReadAborted is a flight's error until its read returns.
var errReadAborted = errors.New("scope read aborted")

// flight is a scope read in progress that concurrent misses wait for.
type flight struct {
	done  chan struct{}
	gen   uint64
	scope *Scope
	err   error
}

// read loads scope k through the loader and caches it (see insert).
func (c *Cache) read(ctx context.Context, k scopeKey, gen uint64) (*Scope, error) {
	snap, err := c.loader.LoadEnabledForScope(ctx, k.server, k.lineage)
	if err != nil {
		return nil, err
	}
	s := &Scope{Snapshot: snap, matchers: map[activation.MatchOptions]*activation.Matcher{}, bytes: snapshotBytes(&snap)}
	c.insert(k, s, gen)
	return s, nil
}

// insert caches s unless an invalidation happened since gen or s alone
// exceeds the budget.
func (c *Cache) insert(k scopeKey, s *Scope, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || s.bytes > c.maxBytes {
		return
	}
	lines := c.byServer[k.server]
	if lines == nil {
		lines = map[lore.Lineage]*list.Element{}
		c.byServer[k.server] = lines
	}
	if old := lines[k.lineage]; old != nil {
		c.removeLocked(old)
	}
	s.cache = c
	s.el = c.lru.PushFront(s)
	lines[k.lineage] = s.el
	c.bytes += s.bytes
	c.evictLocked()
}

// grow adds n bytes (a new matcher) to s's accounting while s is cached.
func (c *Cache) grow(s *Scope, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.bytes += n
	if s.el == nil {
		return
	}
	c.bytes += n
	c.evictLocked()
}

func (c *Cache) evictLocked() {
	for c.bytes > c.maxBytes && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
		c.m.evictions.Inc()
	}
}

func (c *Cache) removeLocked(el *list.Element) {
	s := el.Value.(*Scope)
	c.lru.Remove(el)
	s.el = nil
	c.bytes -= s.bytes
	k := s.Snapshot
	if lines := c.byServer[k.Server.ID]; lines != nil && lines[k.Lineage] == el {
		delete(lines, k.Lineage)
		if len(lines) == 0 {
			delete(c.byServer, k.Server.ID)
		}
	}
}

// Invalidate drops every cached scope of server. Call it after each lore
// write of server made in this process (postgres.Store.WithLoreWriteHook).
func (c *Cache) Invalidate(server string) {
	c.invalidate(server, -1)
	c.m.invalidations.WithLabelValues("local").Inc()
}

// invalidate drops the scopes of server older than version (all when
// version < 0).
func (c *Cache) invalidate(server string, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, el := range c.byServer[server] {
		if version < 0 || el.Value.(*Scope).Snapshot.Server.LoreVersion < version {
			c.removeLocked(el)
		}
	}
}

// Clear drops every cached scope.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
	}
}

// Stats is a snapshot of the cache's state.
type Stats struct {
	// Scopes is the number of cached scopes, Bytes their estimated size.
	Scopes int
	Bytes  int64
	// Listening reports whether invalidations are pushed (no per-turn
	// version check).
	Listening bool
}

// Stats returns the cache's current state.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Scopes: c.lru.Len(), Bytes: c.bytes, Listening: c.listening.Load()}
}

// Listen keeps a LISTEN on Channel over connections from connect until ctx
// ends, dropping the scopes of every notified server. After connecting it
// drops every cached scope and stops the per-turn version checks; when the
// connection fails it resumes them and reconnects with backoff (100 ms
// doubling to 5 s). It returns when ctx is done.
func (c *Cache) Listen(ctx context.Context, connect func(context.Context) (*pgx.Conn, error)) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := c.listenOnce(ctx, connect)
		c.listening.Store(false)
		c.m.listening.Set(0)
		if ctx.Err() != nil {
			return
		}
		c.logger.Warn("scope cache listener down; turns check the lore version until it reconnects", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (c *Cache) listenOnce(ctx context.Context, connect func(context.Context) (*pgx.Conn, error)) error {
	conn, err := connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// Notifications may have been missed while not listening.
	c.Clear()
	c.m.invalidations.WithLabelValues("reconnect").Inc()
	c.listening.Store(true)
	c.m.listening.Set(1)
	c.m.connects.Inc()
	c.logger.Info("scope cache listening for lore writes", "channel", Channel)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		server, version, err := parsePayload(n.Payload)
		if err != nil {
			c.logger.Warn("scope cache: unreadable notification; dropping every scope", "err", err)
			c.Clear()
			continue
		}
		c.invalidate(server, version)
		c.m.invalidations.WithLabelValues("notify").Inc()
	}
}

// parsePayload reads "<server>:<version>" (version -1 for "<server>:").
func parsePayload(p string) (string, int64, error) {
	server, v, ok := strings.Cut(p, ":")
	if !ok || !lore.ValidSnowflake(server) {
		return "", 0, errors.New("payload is not <server id>:<version>")
	}
	if v == "" {
		return server, -1, nil
	}
	version, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("payload version: %w", err)
	}
	return server, version, nil
}
