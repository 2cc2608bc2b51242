package png_test

import (
	"bytes"
	"compress/zlib"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format/png"
)

// TestDecompressionBomb feeds a small file of many zTXt card chunks that
// each inflate to the per-card limit: Extract must stay within a bounded
// amount of inflation instead of inflating every chunk.
func TestDecompressionBomb(t *testing.T) {
	const maxJSON = 8 << 20
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = w.Write(bytes.Repeat([]byte{'A'}, maxJSON)) // valid base64 alphabet, not JSON
	require.NoError(t, w.Close())
	chunks := []png.Chunk{{Type: "IHDR", Data: make([]byte, 13)}}
	for range 200 {
		chunks = append(chunks, png.Chunk{Type: "zTXt", Data: append([]byte("ccv3\x00\x00"), z.Bytes()...)})
	}
	chunks = append(chunks, png.Chunk{Type: "IEND"})
	file := png.Build(chunks...)
	require.Less(t, len(file), 4<<20, "the bomb is a small file")

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := png.Extract(file, maxJSON)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, png.ErrNoCard)
	allocated := after.TotalAlloc - before.TotalAlloc
	// Each inflated value is copied a few times (read buffer growth, base64
	// cleaning and decoding, more under the race detector), so the bound is
	// loose; inflating all 200 chunks would allocate several GiB.
	require.Less(t, allocated, uint64(64*maxJSON),
		"inflation must stay bounded (allocated %d MiB for 200 chunks of %d MiB each)", allocated>>20, maxJSON>>20)
}
