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
// without the yield would run first and see it unrun.
func TestFairTurnsRunsWaitingGoroutinesFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Bool
	var sawRan bool
	h := fairTurns(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sawRan = ran.Load() }))
	go ran.Store(true)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/graphql", nil))
	require.True(t, sawRan, "the waiting goroutine ran before the handler")
}

// TestRunnableGoroutines: the count sees a goroutine waiting for the
// only P.
func TestRunnableGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	done := make(chan struct{})
	go close(done)
	require.NotZero(t, runnableGoroutines())
	<-done
}
