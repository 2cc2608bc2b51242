package main

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

const (
	// procsTick is how often the procs tuner reads the process's CPU time.
	procsTick = 50 * time.Millisecond
	// procsQuietTicks is how many ticks without overlapping requests, and
	// under procsBusy, return serve to one P.
	procsQuietTicks = 4
	// procsBusy is the share of one core (CPU time over wall time within a
	// tick) at or above which serve leaves one P or does not return to it.
	procsBusy = 0.8
)

// procsTuner runs serve on one P (GOMAXPROCS=1) while its requests come
// one at a time and it uses less than procsBusy of a core, and on the
// runtime's default as soon as two requests overlap or it is busier
// (docs/configuration.md#processors). A job holds the default while it
// runs (holdJob). It is on by default for a serve without the Discord bot
// (config.ProcsTuning): the bot's work, neither a request nor a job,
// would share the one P with the requests. On one P a request is served
// by one thread: a request of the cached bot turn no longer wakes a second
// thread for each goroutine it readies (net/http's background read, its
// deadline, the answer), which cost about a third of serve's CPU per turn
// at concurrency 1 (docs/benchmarks.md#procs).
type procsTuner struct {
	inflight atomic.Int32
	jobs     atomic.Int32 // jobs running (holdJob)
	overlap  atomic.Bool  // two requests overlapped since the last tick
	waited   atomic.Int32 // requests in a row that found goroutines waiting for a P (started)
	single   atomic.Bool  // serve runs on one P
	up       chan struct{}
	setMu    sync.Mutex // serializes set: the tuner's goroutine and a starting job

	// setProcs sets GOMAXPROCS to 1 (single) or to the runtime's default;
	// cpuTime returns the process's CPU time so far. Tests replace them.
	setProcs func(single bool)
	cpuTime  func() time.Duration
}

func newProcsTuner() *procsTuner {
	return &procsTuner{up: make(chan struct{}, 1), setProcs: setProcs, cpuTime: processCPU}
}

// setProcs sets GOMAXPROCS to 1, or back to the runtime's default (the
// CPUs and cgroup limit it sees, kept up to date by the runtime).
func setProcs(single bool) {
	if single {
		runtime.GOMAXPROCS(1)
		return
	}
	runtime.SetDefaultGOMAXPROCS()
}

// processCPU returns the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Handler counts next's requests in flight: a request that starts while
// another runs returns serve to the runtime's default at once.
func (t *procsTuner) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t.inflight.Add(1) > 1 {
			t.contended()
		}
		defer t.inflight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// started is called by fairTurns at the start of every request with the
// number of goroutines waiting for a P. Two requests in a row that find
// at least two waiting count as an overlap (contended). On one P that is
// the only sign of requests arriving together: the P serves them one
// after the other, a handler (tens of µs) never sees another running, and
// the rest wait in the run queue. Without it a burst that started on one
// P ran there until a tick found serve busy, which on a shared machine
// took up to 350 ms (docs/benchmarks.md#tail-order). One goroutine
// waiting is not a burst: with requests one at a time net/http's
// background read of the connection, a timer's or a listener's goroutine
// is often runnable as a request starts, and counting it made serve leave
// one P and come back every second at c=1 (docs/benchmarks.md#tail-floor).
func (t *procsTuner) started(waiting uint64) {
	if waiting < 2 {
		if t.waited.Load() != 0 {
			t.waited.Store(0)
		}
		return
	}
	if t.waited.Add(1) >= 2 {
		t.contended()
	}
}

// contended counts as two requests overlapping: serve leaves one P at once
// and stays on the default for procsQuietTicks more.
func (t *procsTuner) contended() {
	if !t.overlap.Load() {
		t.overlap.Store(true)
	}
	if t.single.Load() {
		select {
		case t.up <- struct{}{}:
		default:
		}
	}
}

// run tunes until ctx ends, starting on one P, reading the CPU time at
// every tick (the first one only starts the count); it leaves the
// runtime's default when it returns.
func (t *procsTuner) run(ctx context.Context, tick <-chan time.Time) {
	t.set(true)
	defer t.set(false)
	var lastCPU time.Duration
	var last time.Time // zero until the first tick
	quiet := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.up:
			t.set(false)
			quiet = 0
		case now := <-tick:
			// An overlap the middleware saw while the tuner was going to
			// one P raises it here. Read before the CPU time, so an
			// overlap that starts after that read counts at the next
			// tick, never in this one (the tests step ticks on that read).
			overlapped := t.overlap.Swap(false)
			cpu := t.cpuTime()
			busy := !last.IsZero() && now.Sub(last) > 0 && float64(cpu-lastCPU) >= procsBusy*float64(now.Sub(last))
			lastCPU, last = cpu, now
			switch {
			case overlapped || busy || t.jobs.Load() > 0:
				quiet = 0
				t.set(false)
			case !t.single.Load():
				if quiet++; quiet >= procsQuietTicks {
					t.set(true)
				}
			}
		}
	}
}

// holdJob keeps serve on the runtime's default while a job runs, and
// returns the function that ends the hold: a job that starts on one P
// leaves it before it runs (it would keep the one P from the requests,
// which wait in the socket unseen), and the tuner returns to one P only
// procsQuietTicks after the last job ended.
func (t *procsTuner) holdJob() (release func()) {
	t.jobs.Add(1)
	t.set(false)
	return func() { t.jobs.Add(-1) }
}

// set runs serve on one P or on the runtime's default; never on one P
// while a job runs.
func (t *procsTuner) set(single bool) {
	t.setMu.Lock()
	defer t.setMu.Unlock()
	if single && t.jobs.Load() > 0 {
		return
	}
	if t.single.Load() != single {
		t.single.Store(single)
		t.setProcs(single)
	}
}

// procsJobs is the River worker middleware that holds serve on the
// runtime's default while a job runs (procsTuner.holdJob).
type procsJobs struct {
	river.MiddlewareDefaults
	t *procsTuner
}

// Work runs the job under a hold.
func (m *procsJobs) Work(ctx context.Context, _ *rivertype.JobRow, doInner func(context.Context) error) error {
	defer m.t.holdJob()()
	return doInner(ctx)
}

// startProcsTuner starts tuning when enabled (config.ProcsTuning:
// LOREGATE_PROCS_TUNER=on, or auto for a serve that runs no Discord bot,
// and no GOMAXPROCS in the environment) and the runtime's default is more
// than one P. It returns its request middleware, the River middleware
// that holds the default while a job runs, the function fairTurns calls
// at the start of every request (procsTuner.started), and the function
// that stops it; otherwise middleware that does nothing, none, a function
// that does nothing, and a stop that does nothing.
func startProcsTuner(enabled bool) (wrap func(http.Handler) http.Handler, jobs []rivertype.Middleware, started func(waiting uint64), stop func()) {
	if !enabled || runtime.GOMAXPROCS(0) == 1 {
		return func(h http.Handler) http.Handler { return h }, nil, func(uint64) {}, func() {}
	}
	t := newProcsTuner()
	ctx, cancel := context.WithCancel(context.Background())
	ticker := time.NewTicker(procsTick)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.run(ctx, ticker.C)
	}()
	return t.Handler, []rivertype.Middleware{&procsJobs{t: t}}, t.started, func() {
		cancel()
		ticker.Stop()
		<-done
	}
}
