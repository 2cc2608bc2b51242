package agnai

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format/internal/conv"
)

// FuzzDecode: decode, encode, decode again; never panics; entries agree on
// content, keys, enabled, constant and order.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"kind":"memory","name":"n","entries":[{"name":"t","entry":"x","keywords":["a, b"],"priority":1,"weight":2,"enabled":true}]}`, `{"kind":"memory","entries":[{"entry":"x","keywords":"a;b"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		book, _, err := Decode("f.json", data, conv.Options{})
		if err != nil {
			return
		}
		out, err := Encode(book)
		require.NoError(t, err)
		book2, _, err := Decode("f.json", out, conv.Options{})
		require.NoError(t, err)
		require.Equal(t, len(book.Entries), len(book2.Entries))
		for i := range book.Entries {
			a, b := book.Entries[i], book2.Entries[i]
			require.Equal(t, a.Content, b.Content)
			require.Equal(t, a.Keys, b.Keys)
			require.Equal(t, a.Enabled, b.Enabled)
			require.Equal(t, a.Constant, b.Constant)
			require.Equal(t, a.Order, b.Order)
		}
	})
}
