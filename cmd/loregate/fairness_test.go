package main

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFairTurnsRunsWaitingGoroutinesFirst: on one P, a goroutine made
// runnable before a request runs before the request's handler, which
// without the yield would run first and see it unrun. The scheduler takes
// the global queue first on one schedule in 61, which can put the yielding
// request back first: most rounds, not all, must see the goroutine run.
func TestFairTurnsRunsWaitingGoroutinesFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Bool
	sawRan := 0
	h := fairTurns(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		if ran.Load() {
			sawRan++
		}
	}), func(uint64) {})
	const rounds = 20
	for range rounds {
		ran.Store(false)
		go ran.Store(true)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/graphql", nil))
		for !ran.Load() {
			runtime.Gosched()
		}
	}
	require.GreaterOrEqual(t, sawRan, rounds*3/4, "the waiting goroutine ran before the handler")
}

// TestRunnableGoroutines: the count sees a goroutine waiting for the
// only P.
func TestRunnableGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	done := make(chan struct{})
	go close(done)
	require.NotZero(t, newRunnableCounter().count())
	<-done
}
