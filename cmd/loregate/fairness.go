package main

import (
	"net/http"
	"runtime"
	"runtime/metrics"
	"sync"
)

// runnableMetric counts the goroutines ready to run that wait for a P.
const runnableMetric = "/sched/goroutines/runnable:goroutines"

// runnableCounter reads the runtime's count of goroutines ready to run that
// no P runs yet (local run queues, their next slots and the global queue).
// Each read takes the runtime's metrics lock, about half a microsecond.
type runnableCounter struct {
	// samples holds reusable one-sample slices (metrics.Read of a fresh one
	// allocates it).
	samples sync.Pool
}

func newRunnableCounter() *runnableCounter {
	c := &runnableCounter{}
	c.samples.New = func() any { return &[1]metrics.Sample{{Name: runnableMetric}} }
	return c
}

// count returns the approximate number of runnable goroutines waiting for a P.
func (c *runnableCounter) count() uint64 {
	s := c.samples.Get().(*[1]metrics.Sample)
	metrics.Read(s[:])
	n := s[0].Value.Uint64()
	c.samples.Put(s)
	return n
}

// fairTurns lets the goroutines already waiting for a P run before the
// request (docs/benchmarks.md#tail-order). net/http serves a keep-alive
// connection on one goroutine: when the connection's next request is
// already in the socket as the answer to the previous one is written (on
// a busy machine the write returns after the client has read the answer
// and sent again), that goroutine reads it and serves it at once, ahead of
// the connections whose requests the netpoller readied earlier and that
// wait in the run queue, and a goroutine the netpoller put in the local
// queue of a P whose thread the kernel preempted waits for that thread
// while the other P serves fresher requests. Yielding once at the start of
// a request when a goroutine waits sends the request to the back of the
// global queue, which every P takes from in order. With nothing waiting
// (a request at a time) it does not yield, so it wakes no idle thread.
// The check reads a runtime metric under the runtime's metrics lock (about
// half a microsecond), the lock a /metrics scrape takes while it reads the
// runtime's metrics: a request that starts during that read waits for it.
// started is told, before any yield, how many goroutines were waiting (the
// procs tuner's started).
func fairTurns(next http.Handler, started func(waiting uint64)) http.Handler {
	runnable := newRunnableCounter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		waiting := runnable.count()
		started(waiting)
		if waiting > 0 {
			runtime.Gosched()
		}
		next.ServeHTTP(w, r)
	})
}
