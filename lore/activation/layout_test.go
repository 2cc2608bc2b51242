package activation

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestCompiledEntryLines checks the cache-line layout a turn relies on
// (docs/benchmarks.md#recursion-per-admission): a compiled entry fills
// whole 64-byte lines (its pad) with what admitting reads in its first
// line, and an entry's turn state is one line.
func TestCompiledEntryLines(t *testing.T) {
	var ce compiledEntry
	require.Zero(t, unsafe.Sizeof(ce)%64, "compiledEntry is %d bytes: set its pad", unsafe.Sizeof(ce))
	require.LessOrEqual(t, unsafe.Offsetof(ce.revDepth)+unsafe.Sizeof(ce.revDepth), uintptr(64), "body, units and revDepth leave the first line")
	require.Equal(t, uintptr(64), unsafe.Sizeof(entryState{}))
}
