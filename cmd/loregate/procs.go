package main

import (
	"context"
	"net/http"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
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
// (docs/configuration.md#processors). It is on by default only for a
// serve whose work is its HTTP requests (no job workers, no Discord bot:
// config.ProcsTuning), as work not over HTTP would share the one P with
// the requests. On one P a request is served by one
// thread: a request of the cached bot turn no longer wakes a second thread
// for each goroutine it readies (net/http's background read, its deadline,
// the answer), which cost about a third of serve's CPU per turn at
// concurrency 1 (docs/benchmarks.md#procs).
type procsTuner struct {
	inflight atomic.Int32
	overlap  atomic.Bool // two requests overlapped since the last tick
	single   atomic.Bool // serve runs on one P
	up       chan struct{}

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
		defer t.inflight.Add(-1)
		next.ServeHTTP(w, r)
	})
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
			cpu := t.cpuTime()
			busy := !last.IsZero() && now.Sub(last) > 0 && float64(cpu-lastCPU) >= procsBusy*float64(now.Sub(last))
			lastCPU, last = cpu, now
			// An overlap the middleware saw while the tuner was going to
			// one P raises it here.
			switch {
			case t.overlap.Swap(false) || busy:
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

// set runs serve on one P or on the runtime's default.
func (t *procsTuner) set(single bool) {
	if t.single.Load() != single {
		t.single.Store(single)
		t.setProcs(single)
	}
}

// startProcsTuner starts tuning when enabled (config.ProcsTuning:
// LOREGATE_PROCS_TUNER=on, or auto for a serve with no job workers and no
// Discord bot, and no GOMAXPROCS in the environment) and the runtime's
// default is more than one P, and returns its request middleware and the
// function that stops it; otherwise both do nothing.
func startProcsTuner(enabled bool) (wrap func(http.Handler) http.Handler, stop func()) {
	if !enabled || runtime.GOMAXPROCS(0) == 1 {
		return func(h http.Handler) http.Handler { return h }, func() {}
	}
	t := newProcsTuner()
	ctx, cancel := context.WithCancel(context.Background())
	ticker := time.NewTicker(procsTick)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.run(ctx, ticker.C)
	}()
	return t.Handler, func() {
		cancel()
		ticker.Stop()
		<-done
	}
}
