package png

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	fIHDR = Chunk{Type: "IHDR", Data: []byte{0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0}}
	fIEND = Chunk{Type: "IEND"}
)

// FuzzExtract: extract, embed back into the same file, extract again;
// never panics, the result is a valid undamaged PNG with the same card
// JSON; memory is bounded by the 1 MiB card cap.
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
		if c.Keyword == "naidata" {
			return
		}
		// The export rewrites the card into the file it came in, damaged
		// or not (testdata: a card whose last chunk is cut short), and
		// always gives a valid PNG.
		var out []byte
		if c.Keyword == "ccv3" {
			out, err = Embed(data, c.JSON, nil)
		} else {
			out, err = Embed(data, nil, c.JSON)
		}
		require.NoError(t, err)
		if _, damaged := keptChunks(data); damaged {
			require.True(t, decodes(out), "a damaged file is exported as a valid PNG")
		}
		_, damaged := keptChunks(out)
		require.False(t, damaged, "every chunk of the export is whole, IEND included")
		c2, err := Extract(out, 1<<20)
		require.NoError(t, err)
		require.Equal(t, c.JSON, c2.JSON)
		require.Empty(t, c2.Notices)
	})
}
