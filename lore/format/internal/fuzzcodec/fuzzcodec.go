// Package fuzzcodec is the round-trip fuzz test the codecs share (their
// fuzz_test.go files call it; no codec imports it).
package fuzzcodec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// Codec is a format's decoder and encoder.
type Codec struct {
	Decode func(fileName string, data []byte, opts conv.Options) (conv.Book, conv.Report, error)
	Encode func(book conv.Book) ([]byte, error)
}

// RoundTrip fuzzes c from seeds: decode (inputs up to 64 KiB), encode,
// decode again; never panics, the second decode succeeds with as many
// entries, and same holds for each pair of entries.
func RoundTrip(f *testing.F, c Codec, seeds []string, same func(t *testing.T, a, b lore.Entry)) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		book, _, err := c.Decode("f.json", data, conv.Options{})
		if err != nil {
			return
		}
		out, err := c.Encode(book)
		require.NoError(t, err)
		book2, _, err := c.Decode("f.json", out, conv.Options{})
		require.NoError(t, err)
		require.Equal(t, len(book.Entries), len(book2.Entries))
		for i := range book.Entries {
			same(t, book.Entries[i], book2.Entries[i])
		}
	})
}

// SameBasics requires a and b to agree on content, keys, enabled, constant
// and order: what every format carries.
func SameBasics(t *testing.T, a, b lore.Entry) {
	require.Equal(t, a.Content, b.Content)
	require.Equal(t, a.Keys, b.Keys)
	require.Equal(t, a.Enabled, b.Enabled)
	require.Equal(t, a.Constant, b.Constant)
	require.Equal(t, a.Order, b.Order)
}
