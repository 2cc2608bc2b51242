package main

import (
	"net/http"
	"runtime"
	"runtime/metrics"
	"sync"
)

// runnableMetric counts the goroutines ready to run that wait for a P.
const runnableMetric = "/sched/goroutines/runnable:goroutines"

// runnableSamples holds reusable one-sample slices for runnableGoroutines
// (metrics.Read of a fresh one allocates it).
var runnableSamples = sync.Pool{New: func() any {
	return &[1]metrics.Sample{{Name: runnableMetric}}
}}

// runnableGoroutines returns the runtime's approximate count of goroutines
// ready to run that no P runs yet (local run queues, their next slots and
// the global queue).
func runnableGoroutines() uint64 {
	s := runnableSamples.Get().(*[1]metrics.Sample)
	metrics.Read(s[:])
	n := s[0].Value.Uint64()
	runnableSamples.Put(s)
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
func fairTurns(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if runnableGoroutines() > 0 {
			runtime.Gosched()
		}
		next.ServeHTTP(w, r)
	})
}
