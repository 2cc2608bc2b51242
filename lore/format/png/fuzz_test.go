package png

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	fIHDR = Chunk{Type: "IHDR", Data: []byte{0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0}}
	fIEND = Chunk{Type: "IEND"}
)

// FuzzExtract: extract, embed into a fresh PNG, extract again; never
// panics, same card JSON; memory is bounded by the 1 MiB card cap.
func FuzzExtract(f *testing.F) {
	f.Add(Build(fIHDR, TextChunk("chara", []byte(`{"spec":"chara_card_v2"}`)), fIEND))
	f.Add(Build(fIHDR, TextChunk("CCV3", []byte(`{"a":1}`)), TextChunk("chara", []byte(`{"b":2}`)), fIEND))
	f.Add(Build(fIHDR, Chunk{"tEXt", []byte("ccv3\x00@@@")}, TextChunk("chara", []byte(`[]`)), fIEND))
	f.Add([]byte(Signature + "\x00\x00\x00\x05tEXt"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Extract(data, 1<<20)
		if err != nil {
			return
		}
		var out []byte
		if c.Keyword == "ccv3" {
			out, err = Embed(data, c.JSON, nil)
		} else {
			out, err = Embed(Build(fIHDR, fIEND), nil, c.JSON)
		}
		if c.Keyword == "naidata" {
			return
		}
		require.NoError(t, err)
		c2, err := Extract(out, 1<<20)
		require.NoError(t, err)
		require.Equal(t, c.JSON, c2.JSON)
	})
}
