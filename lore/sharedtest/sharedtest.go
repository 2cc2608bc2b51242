// Package sharedtest locates the shared test material that CI lays beside
// the repository: the corpus of real lorebook files (shared/corpus) and the
// behaviour cases from public bug reports (shared/cases). Tests read them
// only through this package, so a missing checkout is handled one way:
// under CI (the CI environment variable is set) the test fails, because the
// material must be there; elsewhere it is skipped with a message that says
// what is missing. LiveHeap is the heap measurement of the tests that
// weigh structures built from that material.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the shared folder: "shared" beside the directory holding
// go.mod, found by walking up from the working directory. It fails or skips
// tb (see the package doc) when that folder does not exist.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("sharedtest: working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("sharedtest: no go.mod above the working directory")
		}
		dir = parent
	}
	root := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(root); err != nil {
		missing(tb, root, err)
	}
	return root
}

// Path returns the path of elems under the shared folder (for example
// Path(tb, "corpus", "st-worldinfo")), failing or skipping tb when it does
// not exist.
func Path(tb testing.TB, elems ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Root(tb)}, elems...)...)
	if _, err := os.Stat(p); err != nil {
		missing(tb, p, err)
	}
	return p
}

// Read returns the contents of the file elems under the shared folder, with
// Path's rule for a missing file; any other read error fails tb.
func Read(tb testing.TB, elems ...string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, elems...))
	if err != nil {
		tb.Fatalf("sharedtest: %v", err)
	}
	return b
}

func missing(tb testing.TB, p string, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("sharedtest: %s is missing under CI: %v", p, err)
	}
	tb.Skipf("sharedtest: %s is absent (the shared checkout is not beside the repository): skipping", p)
}

// SkipUnderRace skips tb, a test that weighs structures with LiveHeap,
// when the race detector is on (make test/race): its sync.Pools drop a
// share of what is put back and its heap is not the build's, so the
// figures are not the ones the estimates track (TestLexicalBytesMeasured
// was 5-7% off its index estimate and 71-160% off its turn estimate, and
// TestMatcherBytesMeasured failed one run in two).
func SkipUnderRace(tb testing.TB) {
	tb.Helper()
	if raceEnabled {
		tb.Skip("sharedtest: heap measurements do not hold under the race detector")
	}
}

// HeapRounds is how many times the memory tests measure a structure with
// LiveHeap, keeping the least: now and then the runtime allocates a few
// KB of its own during a measurement (5.5 KB in about one of ten
// processes, 7 more objects: TestLexicalBytesMeasured and
// TestMatcherBytesMeasured failed 2 of 10 and 4 of 14 runs on the 29
// entries of Eorzea), which only adds.
const HeapRounds = 3

// LiveHeap is the live heap that build leaves (what it returns kept), in
// bytes, for the memory tests that measure real books: the heap after a
// collection, less the heap before. Two collections before empty the
// sync.Pools (their victims) of what ran before; one after keeps the
// objects build left in pools (a matcher's turn scratch). What build
// shares with values live before (entries it reads) is not counted only
// while the caller keeps those alive.
func LiveHeap(build func() any) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
