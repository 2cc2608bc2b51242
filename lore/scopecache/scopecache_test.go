package scopecache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/semantic"
)

const (
	serverA = "111111111111111111"
	serverB = "222222222222222222"
)

// rig is one database with two "replicas": local writes through a Store
// whose hook invalidates the cache, remote ones through a plain Store (as
// another process would).
type rig struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	url    string
	cache  *Cache
	local  *postgres.Store
	remote *postgres.Store
	// refuse makes the listener's connection attempts fail.
	refuse atomic.Bool
}

func newRig(t *testing.T, maxBytes int64) *rig {
	t.Helper()
	url := postgrestest.NewDatabase(t)
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	r := &rig{ctx: context.Background(), pool: pool, url: url, remote: postgres.New(pool)}
	r.cache = New(r.remote, Config{MaxBytes: maxBytes})
	r.local = postgres.New(pool).WithLoreWriteHook(r.cache.Invalidate)
	for _, s := range []string{serverA, serverB} {
		_, err := r.remote.UpsertServer(r.ctx, s, "guild "+s)
		require.NoError(t, err)
	}
	return r
}

// listen starts the cache's listener on a connection named
// loregate-scope-test and waits until it listens.
func (r *rig) listen(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(r.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.cache.Listen(ctx, func(ctx context.Context) (*pgx.Conn, error) {
			if r.refuse.Load() {
				return nil, fmt.Errorf("refused by the test")
			}
			cfg, err := pgx.ParseConfig(r.url)
			if err != nil {
				return nil, err
			}
			cfg.RuntimeParams["application_name"] = "loregate-scope-test"
			return pgx.ConnectConfig(ctx, cfg)
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	r.waitListening(t, true)
}

func (r *rig) waitListening(t *testing.T, want bool) {
	t.Helper()
	require.Eventually(t, func() bool { return r.cache.Stats().Listening == want }, 10*time.Second, 5*time.Millisecond)
}

func (r *rig) addEntry(t *testing.T, st *postgres.Store, server string, lineage lore.Lineage, title string) {
	t.Helper()
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content, e.Keys = server, lineage, title, "content of "+title, []string{title}
	if lineage.IsServerwide() {
		e.Collection = lore.DefaultCollection
	}
	_, err := st.InsertEntry(r.ctx, e)
	require.NoError(t, err)
}

func titles(s *Scope) []string {
	var out []string
	for _, e := range s.Snapshot.Entries {
		out = append(out, e.Title)
	}
	return out
}

func (r *rig) load(t *testing.T, server string, lineage lore.Lineage) *Scope {
	t.Helper()
	s, err := r.cache.Load(r.ctx, server, lineage)
	require.NoError(t, err)
	return s
}

func TestOwnWritesAtOnceOtherWritesByNotification(t *testing.T) {
	r := newRig(t, 0)
	r.addEntry(t, r.local, serverA, 7, "alpha")
	r.listen(t)

	s1 := r.load(t, serverA, 7)
	require.Equal(t, []string{"alpha"}, titles(s1))
	s2 := r.load(t, serverA, 7)
	require.Same(t, s1, s2, "second turn is served from memory")
	require.Equal(t, 1.0, testutil.ToFloat64(r.cache.m.hits))
	require.Equal(t, 1.0, testutil.ToFloat64(r.cache.m.misses))

	// A write of this process is seen by the very next turn.
	r.addEntry(t, r.local, serverA, 7, "beta")
	require.Equal(t, []string{"alpha", "beta"}, titles(r.load(t, serverA, 7)))

	// Another replica's write arrives by notification, well within 1 s.
	r.load(t, serverA, 7)
	start := time.Now()
	r.addEntry(t, r.remote, serverA, 7, "gamma")
	require.Eventually(t, func() bool { return len(titles(r.load(t, serverA, 7))) == 3 }, time.Second, time.Millisecond)
	t.Logf("remote write seen after %v", time.Since(start))
	require.Zero(t, testutil.ToFloat64(r.cache.m.versionChecks), "no version checks while listening")
	require.Positive(t, testutil.ToFloat64(r.cache.m.invalidations.WithLabelValues("notify")))

	// Settings writes invalidate too (they change how lore matches).
	before := r.load(t, serverA, 7)
	flipped := !before.Snapshot.Server.Settings.RegexKeys
	_, err := r.remote.PatchServerSettings(r.ctx, serverA, lore.SettingsPatch{RegexKeys: ptr(flipped)})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return r.load(t, serverA, 7).Snapshot.Server.Settings.RegexKeys == flipped }, time.Second, time.Millisecond)

	// A deleted server's scopes go too.
	require.NoError(t, r.remote.DeleteServer(r.ctx, serverA))
	require.Eventually(t, func() bool { return r.cache.Stats().Scopes == 0 }, time.Second, time.Millisecond)
	_, err = r.cache.Load(r.ctx, serverA, 7)
	require.ErrorIs(t, err, lore.ErrNotFound)
}

func ptr[T any](v T) *T { return &v }

func TestListenerLossFallsBackToVersionChecksAndRecovers(t *testing.T) {
	r := newRig(t, 0)
	r.addEntry(t, r.local, serverA, 3, "alpha")
	r.listen(t)
	r.load(t, serverA, 3)

	// Kill the listener's connection and keep it from reconnecting.
	r.refuse.Store(true)
	var killed int
	require.NoError(t, r.pool.QueryRow(r.ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE application_name = 'loregate-scope-test' AND datname = current_database()`).Scan(&killed))
	require.Equal(t, 1, killed)
	r.waitListening(t, false)

	// Down: a remote write is seen by the next turn through the version check.
	checks := testutil.ToFloat64(r.cache.m.versionChecks)
	r.addEntry(t, r.remote, serverA, 3, "beta")
	require.Equal(t, []string{"alpha", "beta"}, titles(r.load(t, serverA, 3)))
	cached := r.load(t, serverA, 3)
	require.Same(t, cached, r.load(t, serverA, 3), "an unchanged scope is still served from memory")
	require.Greater(t, testutil.ToFloat64(r.cache.m.versionChecks), checks)

	// Reconnected: everything cached meanwhile is dropped, checks stop and
	// notifications flow again.
	r.refuse.Store(false)
	r.waitListening(t, true)
	require.Zero(t, r.cache.Stats().Scopes)
	r.load(t, serverA, 3)
	checks = testutil.ToFloat64(r.cache.m.versionChecks)
	r.addEntry(t, r.remote, serverA, 3, "gamma")
	require.Eventually(t, func() bool { return len(titles(r.load(t, serverA, 3))) == 3 }, time.Second, time.Millisecond)
	require.Equal(t, checks, testutil.ToFloat64(r.cache.m.versionChecks))
	require.Equal(t, 2.0, testutil.ToFloat64(r.cache.m.connects))
}

// TestNeverServesAnotherServersLore uses the same lineage numbers on two
// servers (persona lineage 5 and Serverwide) and checks every scope holds
// only its own server's entries, before and after one server's write.
func TestNeverServesAnotherServersLore(t *testing.T) {
	r := newRig(t, 0)
	for _, s := range []string{serverA, serverB} {
		_, err := r.local.CreateCollection(r.ctx, lore.Collection{Server: s, Name: lore.DefaultCollection, Enabled: true})
		require.NoError(t, err)
		r.addEntry(t, r.local, s, 5, "persona of "+s)
		r.addEntry(t, r.local, s, lore.Serverwide, "world of "+s)
	}
	r.listen(t)
	check := func() {
		for _, s := range []string{serverA, serverB} {
			for _, l := range []lore.Lineage{5, lore.Serverwide} {
				sc := r.load(t, s, l)
				require.Equal(t, s, sc.Snapshot.Server.ID)
				require.NotEmpty(t, sc.Snapshot.Entries)
				for _, e := range sc.Snapshot.Entries {
					require.Equal(t, s, e.Server, "scope (%s, %d) holds entry %q", s, l, e.Title)
				}
			}
		}
	}
	check()
	check() // from memory
	r.addEntry(t, r.local, serverA, 5, "second persona entry")
	check()
	require.Len(t, r.load(t, serverA, 5).Snapshot.Entries, 3) // persona + its own 1 + Serverwide 1
	require.Len(t, r.load(t, serverB, 5).Snapshot.Entries, 2)
}

func TestEvictsLeastRecentlyUsedWithinBudget(t *testing.T) {
	r := newRig(t, 0)
	for l := lore.Lineage(1); l <= 3; l++ {
		r.addEntry(t, r.local, serverA, l, fmt.Sprintf("entry %d", l))
	}
	one := r.load(t, serverA, 1)
	m := one.Matcher(&activation.Input{Entries: one.Snapshot.Entries}, activation.MatchOptions{})
	require.NotNil(t, m)
	per := r.cache.Stats().Bytes
	require.Greater(t, per, one.bytes-int64(m.Bytes())) // the matcher counts
	// A cache with room for two such scopes.
	r.cache = New(r.remote, Config{MaxBytes: 2*per + per/2})
	r.listen(t)
	for l := lore.Lineage(1); l <= 3; l++ {
		sc := r.load(t, serverA, l)
		sc.Matcher(&activation.Input{Entries: sc.Snapshot.Entries}, activation.MatchOptions{})
	}
	st := r.cache.Stats()
	require.Equal(t, 2, st.Scopes)
	require.LessOrEqual(t, st.Bytes, 2*per+per/2)
	require.Equal(t, 1.0, testutil.ToFloat64(r.cache.m.evictions))
	misses := testutil.ToFloat64(r.cache.m.misses)
	r.load(t, serverA, 3)
	require.Equal(t, misses, testutil.ToFloat64(r.cache.m.misses), "newest kept")
	r.load(t, serverA, 1)
	require.Equal(t, misses+1, testutil.ToFloat64(r.cache.m.misses), "oldest evicted")
}

// slowLoader holds LoadEnabledForScope after the read until released.
type slowLoader struct {
	Loader
	read, release chan struct{}
	once          sync.Once
}

func (l *slowLoader) LoadEnabledForScope(ctx context.Context, server string, lineage lore.Lineage) (lore.Snapshot, error) {
	snap, err := l.Loader.LoadEnabledForScope(ctx, server, lineage)
	l.once.Do(func() { close(l.read); <-l.release })
	return snap, err
}

// TestLoadRacingAWriteIsNotCached: a read that started before a write and
// finishes after its invalidation serves its own turn but is not cached.
func TestLoadRacingAWriteIsNotCached(t *testing.T) {
	r := newRig(t, 0)
	r.addEntry(t, r.local, serverA, 2, "alpha")
	sl := &slowLoader{Loader: r.remote, read: make(chan struct{}), release: make(chan struct{})}
	r.cache = New(sl, Config{})
	r.local = postgres.New(r.pool).WithLoreWriteHook(r.cache.Invalidate)
	r.listen(t)
	got := make(chan *Scope)
	go func() {
		s, _ := r.cache.Load(r.ctx, serverA, 2)
		got <- s
	}()
	<-sl.read
	r.addEntry(t, r.local, serverA, 2, "beta")
	close(sl.release)
	require.Equal(t, []string{"alpha"}, titles(<-got))
	require.Equal(t, []string{"alpha", "beta"}, titles(r.load(t, serverA, 2)))
}

func TestParsePayload(t *testing.T) {
	for _, tc := range []struct {
		in      string
		server  string
		version int64
		ok      bool
	}{
		{"111111111111111111:42", "111111111111111111", 42, true},
		{"111111111111111111:", "111111111111111111", -1, true},
		{"111111111111111111", "", 0, false},
		{"abc:1", "", 0, false},
		{"111111111111111111:x", "", 0, false},
	} {
		s, v, err := parsePayload(tc.in)
		if !tc.ok {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.server, s)
		require.Equal(t, tc.version, v)
	}
}

// gateLoader counts reads and holds each until released.
type gateLoader struct {
	Loader
	reads   atomic.Int32
	started chan struct{}
	release chan struct{}
}

func (l *gateLoader) LoadEnabledForScope(ctx context.Context, server string, lineage lore.Lineage) (lore.Snapshot, error) {
	l.reads.Add(1)
	l.started <- struct{}{}
	<-l.release
	return l.Loader.LoadEnabledForScope(ctx, server, lineage)
}

// TestConcurrentMissesShareOneRead: turns that miss the same scope while
// a read is in flight wait for it, unless an invalidation came after that
// read started.
func TestConcurrentMissesShareOneRead(t *testing.T) {
	r := newRig(t, 0)
	r.addEntry(t, r.local, serverA, 4, "alpha")
	gl := &gateLoader{Loader: r.remote, started: make(chan struct{}, 16), release: make(chan struct{})}
	r.cache = New(gl, Config{})
	r.listen(t)

	const turns = 6
	got := make(chan *Scope, turns)
	for range turns {
		go func() {
			s, err := r.cache.Load(r.ctx, serverA, 4)
			if err != nil {
				t.Error(err)
			}
			got <- s
		}()
	}
	<-gl.started
	require.Eventually(t, func() bool { return testutil.ToFloat64(r.cache.m.shared) == turns-1 }, 5*time.Second, time.Millisecond)
	// A write now: a later miss must not join the read that began before it.
	r.cache.Invalidate(serverA)
	late := make(chan *Scope, 1)
	go func() {
		s, _ := r.cache.Load(r.ctx, serverA, 4)
		late <- s
	}()
	<-gl.started
	close(gl.release)
	first := <-got
	for range turns - 1 {
		require.Same(t, first, <-got)
	}
	require.NotSame(t, first, <-late)
	require.Equal(t, int32(2), gl.reads.Load())
}

// TestFailedSharedReadIsRetried: when the turn whose read others wait for
// fails (its request was cancelled), the waiting turns read for
// themselves instead of failing with it.
func TestFailedSharedReadIsRetried(t *testing.T) {
	r := newRig(t, 0)
	r.addEntry(t, r.local, serverA, 4, "alpha")
	gl := &gateLoader{Loader: r.remote, started: make(chan struct{}, 16), release: make(chan struct{})}
	r.cache = New(gl, Config{})
	r.listen(t)

	leaderCtx, cancel := context.WithCancel(r.ctx)
	leaderErr := make(chan error, 1)
	go func() {
		_, err := r.cache.Load(leaderCtx, serverA, 4)
		leaderErr <- err
	}()
	<-gl.started
	got := make(chan *Scope, 2)
	for range 2 {
		go func() {
			s, err := r.cache.Load(r.ctx, serverA, 4)
			if err != nil {
				t.Error(err)
			}
			got <- s
		}()
	}
	require.Eventually(t, func() bool { return testutil.ToFloat64(r.cache.m.shared) == 2 }, 5*time.Second, time.Millisecond)
	cancel()
	close(gl.release)
	require.Error(t, <-leaderErr)
	for range 2 {
		require.Equal(t, []string{"alpha"}, titles(<-got))
	}
	require.Equal(t, int32(3), gl.reads.Load())
}

// TestScopeCandidatesBuiltOnce: a scope builds its candidates once per
// semanticAllEntries value, an empty set included, and charges their
// bytes to the cache.
func TestScopeCandidatesBuiltOnce(t *testing.T) {
	c := &Cache{}
	s := &Scope{cache: c}
	builds := 0
	build := func(list []semantic.Candidate) func() []semantic.Candidate {
		return func() []semantic.Candidate { builds++; return list }
	}
	one := []semantic.Candidate{{ID: 1, Title: "Lollipop", Text: "Kotori's lollipop.", Hash: "h"}}
	for range 3 {
		require.Equal(t, one, s.Candidates(false, build(one)))
		require.Nil(t, s.Candidates(true, build(nil)))
	}
	require.Equal(t, 2, builds)
	require.Positive(t, s.bytes)
}
