package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
)

// fakeProcs is a procsTuner whose GOMAXPROCS changes and CPU time are
// recorded and set by the test.
type fakeProcs struct {
	*procsTuner
	mu      sync.Mutex
	changes []bool // single, in order
	cpu     atomic.Int64
	tick    chan time.Time
	read    chan struct{} // the tuner read the CPU time of a tick
	now     time.Time
}

func newFakeProcs(t *testing.T) *fakeProcs {
	f := &fakeProcs{procsTuner: newProcsTuner(), tick: make(chan time.Time), read: make(chan struct{}), now: time.Now()}
	f.setProcs = func(single bool) {
		f.mu.Lock()
		f.changes = append(f.changes, single)
		f.mu.Unlock()
	}
	f.cpuTime = func() time.Duration {
		v := time.Duration(f.cpu.Load())
		f.read <- struct{}{}
		return v
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.run(ctx, f.tick) }()
	t.Cleanup(func() { cancel(); <-done })
	require.Eventually(t, func() bool { return f.single.Load() }, 10*time.Second, time.Millisecond, "starts on one P")
	f.advance(5) // the first tick only starts the count
	return f
}

// advance sends a tick procsTick later, the process having used busy of
// it.
func (f *fakeProcs) advance(busy float64) {
	f.cpu.Add(int64(busy * float64(procsTick)))
	f.now = f.now.Add(procsTick)
	f.tick <- f.now
	<-f.read
}

func (f *fakeProcs) history() []bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]bool(nil), f.changes...)
}

func TestProcsTunerOverlap(t *testing.T) {
	f := newFakeProcs(t)
	// Requests one at a time, half a core: one P throughout.
	h := f.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for range 10 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql", nil))
		f.advance(0.5)
	}
	require.Equal(t, []bool{true}, f.history())

	// A request starting while another runs: the default at once, before
	// any tick.
	release := make(chan struct{})
	started := make(chan struct{})
	slow := f.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { close(started); <-release }))
	go slow.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql", nil))
	<-started
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql", nil))
	require.Eventually(t, func() bool { return !f.single.Load() }, 10*time.Second, time.Millisecond)
	close(release)
	require.Equal(t, []bool{true, false}, f.history())

	// Back to one P after procsQuietTicks ticks without an overlap, not
	// before.
	f.advance(0.5) // the tick that sees the overlap
	for range procsQuietTicks - 1 {
		f.advance(0.5)
	}
	require.Equal(t, []bool{true, false}, f.history())
	f.advance(0.5)
	require.Eventually(t, func() bool { return f.single.Load() }, 10*time.Second, time.Millisecond)
	require.Equal(t, []bool{true, false, true}, f.history())
}

// TestProcsTunerContended: on one P, requests that arrive together are
// served one after the other, so no handler sees another running; the
// second request in a row that finds at least two goroutines waiting for
// the P (fairTurns) returns serve to the default at once, before any tick.
// The first alone does not, nor any number finding one goroutine waiting.
func TestProcsTunerContended(t *testing.T) {
	f := newFakeProcs(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	h := fairTurns(f.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})), f.started)
	serveWaiting := func() {
		var waiting sync.WaitGroup
		for range 2 { // runnable on the one P while the request starts
			waiting.Go(func() {})
		}
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql", nil))
		waiting.Wait()
	}
	serveOneWaiting := func() {
		waiting := make(chan struct{})
		go close(waiting)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql", nil))
		<-waiting
	}
	// One goroutine waiting (net/http's background read, a timer's) is
	// not a burst, however often it is seen.
	for range 4 {
		serveOneWaiting()
	}
	require.Equal(t, []bool{true}, f.history())
	serveWaiting()
	require.Equal(t, []bool{true}, f.history())
	serveWaiting()
	require.Eventually(t, func() bool { return !f.single.Load() }, 10*time.Second, time.Millisecond)
	require.Equal(t, []bool{true, false}, f.history())
}

func TestProcsTunerBusy(t *testing.T) {
	f := newFakeProcs(t)
	// Work without requests (a job, a collection) that fills most of a
	// core leaves one P at the next tick.
	f.advance(0.9)
	require.Eventually(t, func() bool { return !f.single.Load() }, 10*time.Second, time.Millisecond)
	// It stays while busy, requests or not.
	for range 2 * procsQuietTicks {
		f.advance(1.5)
	}
	require.Equal(t, []bool{true, false}, f.history())
	for range procsQuietTicks {
		f.advance(0.3)
	}
	require.Eventually(t, func() bool { return f.single.Load() }, 10*time.Second, time.Millisecond)
	require.Equal(t, []bool{true, false, true}, f.history())
}

// TestProcsTunerJob: a job that starts on one P returns serve to the
// runtime's default before it runs, whatever the CPU time; serve stays
// there while it runs, and returns to one P procsQuietTicks after it
// ended.
func TestProcsTunerJob(t *testing.T) {
	f := newFakeProcs(t)
	jobs := &procsJobs{t: f.procsTuner}
	ran := false
	require.NoError(t, jobs.Work(context.Background(), nil, func(context.Context) error {
		ran = true
		require.False(t, f.single.Load(), "the default before the job runs")
		for range 2 * procsQuietTicks {
			f.advance(0.1)
		}
		require.False(t, f.single.Load(), "held while the job runs")
		return nil
	}))
	require.True(t, ran)
	require.Equal(t, []bool{true, false}, f.history())
	for range procsQuietTicks - 1 {
		f.advance(0.1)
	}
	require.False(t, f.single.Load())
	f.advance(0.1)
	require.Eventually(t, func() bool { return f.single.Load() }, 10*time.Second, time.Millisecond)
	require.Equal(t, []bool{true, false, true}, f.history())
	// The job's error is the middleware's.
	err := jobs.Work(context.Background(), nil, func(context.Context) error { return context.Canceled })
	require.ErrorIs(t, err, context.Canceled)
}

// TestProcsTunerAutoServe: by default (auto) serve runs on one P while
// idle, with job workers or without, and keeps the runtime's default with
// the tuner off (docs/configuration.md#processors); GOMAXPROCS as serve's
// runtime reports it (/metrics).
func TestProcsTunerAutoServe(t *testing.T) {
	if runtime.NumCPU() < 2 || os.Getenv("GOMAXPROCS") != "" {
		t.Skip("one P either way: needs 2 CPUs and no GOMAXPROCS in the environment")
	}
	for _, tt := range []struct {
		name string
		env  []string
		one  bool
	}{
		{"auto without jobs", []string{"LOREGATE_JOB_WORKERS=0"}, true},
		{"auto with jobs", []string{"LOREGATE_JOB_WORKERS=2"}, true},
		{"off", []string{"LOREGATE_JOB_WORKERS=0", "LOREGATE_PROCS_TUNER=off"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startServe(t, loregateBinary(t), append([]string{"DATABASE_URL=" + postgrestest.NewDatabase(t),
				"LOREGATE_SERVICE_KEYS=" + scopeCacheTestKey}, tt.env...))
			procs := p.metric(t, "go_sched_gomaxprocs_threads")
			if tt.one {
				require.Equal(t, 1.0, procs)
			} else {
				require.Greater(t, procs, 1.0)
			}
		})
	}
}

// recordJobs is River worker middleware that counts the jobs it wraps.
type recordJobs struct {
	river.MiddlewareDefaults
	n atomic.Int32
}

func (r *recordJobs) Work(ctx context.Context, _ *rivertype.JobRow, doInner func(context.Context) error) error {
	r.n.Add(1)
	return doInner(ctx)
}

// TestStartJobsMiddleware: the River middleware serve hands startJobs
// (the procs tuner's hold) wraps the jobs its workers work: the periodic
// jobs that run on start pass through it.
func TestStartJobsMiddleware(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, postgrestest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	rec := &recordJobs{}
	jc := loadJobsConfig(os.Getenv)
	jc.middleware = []rivertype.Middleware{rec}
	_, stop, err := startJobs(ctx, pool, jc, true, slog.New(slog.DiscardHandler), 10*time.Second)
	require.NoError(t, err)
	t.Cleanup(stop)
	require.Eventually(t, func() bool { return rec.n.Load() > 0 }, time.Minute, 20*time.Millisecond, "a job worked through the middleware")
}
