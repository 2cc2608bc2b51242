package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestGCPercent(t *testing.T) {
	const floor = 64 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},         // nothing marked yet
		{16 << 20, 300},  // goal: the floor
		{32 << 20, 100},  // half the floor: GOGC=100's goal is the floor
		{200 << 20, 100}, // over it: GOGC=100
		{1 << 10, 10000}, // capped
	} {
		require.Equal(t, c.want, gcPercent(c.live, floor), "live %d", c.live)
	}
}

// TestGCTuner keeps an 8 MiB live heap: at GOGC=100 the collector's goal
// is about twice that; with the tuner at a 64 MiB floor, once a collection
// has run its finalizer, the goal is the floor; stopping the tuner sets
// GOGC=100 back.
func TestGCTuner(t *testing.T) {
	live := make([][]byte, 8)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	heapGoal := func() uint64 {
		metrics.Read(goal)
		return goal[0].Value.Uint64()
	}
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	runtime.GC()
	require.Less(t, heapGoal(), uint64(40<<20), "GOGC=100")
	stop := startGCTuner(64 << 20)
	defer stop()
	deadline := time.Now().Add(10 * time.Second) // the finalizer runs after the collection
	for heapGoal() < 60<<20 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	require.GreaterOrEqual(t, heapGoal(), uint64(60<<20), "tuned")
	require.LessOrEqual(t, heapGoal(), uint64(70<<20), "tuned")
	stop()
	require.Equal(t, 100, debug.SetGCPercent(100))
	runtime.KeepAlive(live)
}
