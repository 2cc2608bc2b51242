package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// DefaultGCHeapFloor is the heap serve grows to before its collector runs
// (LOREGATE_GC_HEAP_FLOOR): 64 MiB.
const DefaultGCHeapFloor = 64 << 20

// gcTuner sets the collector's percent after every cycle so that the next
// cycle starts when the heap reaches the larger of floor and twice the live
// heap (GOGC=100's goal): a small service does not collect every few
// hundred turns, and a large one keeps GOGC=100's bound on memory.
type gcTuner struct {
	floor   uint64
	stopped atomic.Bool
	sample  [1]metrics.Sample
}

// gcSentinel is the object whose finalizer runs once after each collection.
type gcSentinel struct{ _ [16]byte }

// startGCTuner starts tuning the collector for floor bytes (docs/configuration.md#garbage-collection)
// and returns the function that stops it and sets GOGC=100 back. floor 0
// tunes nothing.
func startGCTuner(floor uint64) (stop func()) {
	if floor == 0 {
		return func() {}
	}
	t := &gcTuner{floor: floor}
	t.sample[0].Name = "/gc/heap/live:bytes"
	t.tune()
	t.arm()
	return func() {
		t.stopped.Store(true)
		debug.SetGCPercent(100)
	}
}

// arm sets a finalizer on a new unreachable sentinel: the next collection
// finds it and runs tune on the finalizer goroutine.
func (t *gcTuner) arm() {
	runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
		if !t.stopped.Load() {
			t.tune()
			t.arm()
		}
	})
}

// tune sets the percent for the live heap the last cycle marked.
func (t *gcTuner) tune() {
	metrics.Read(t.sample[:])
	debug.SetGCPercent(gcPercent(t.sample[0].Value.Uint64(), t.floor))
}

// gcPercent is the GOGC whose heap goal, live x (1 + percent/100), is
// max(floor, 2 x live): 100 once live is half the floor or more, at most
// 10,000 (a live heap under floor/100 collects at 101 x live).
func gcPercent(live, floor uint64) int {
	if live == 0 || 2*live >= floor {
		return 100
	}
	return int(min(10000, (floor-live)*100/live))
}
