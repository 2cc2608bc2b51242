package worldbook

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format/internal/conv"
)

// FuzzDecode: decode, encode, decode again; never panics; entries agree on
// every canonical field the worldbook carries.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"entries":{"0":{"uid":3,"name":"t","enabled":true,"strategy":{"type":"selective","keys":["a"],"keys_secondary":{"logic":"not_all","keys":["b"]},"scan_depth":2},"position":{"type":"at_depth","role":"user","depth":1,"order":5},"content":"x","probability":40,"recursion":{"prevent_incoming":true,"prevent_outgoing":false,"delay_until":2},"effect":{"sticky":1,"cooldown":null,"delay":3},"extra":{"k":1}}}}`,
		`{"entries":[{"strategy":{"type":"constant"},"content":"y","position":{"type":"outlet"}}]}`,
		`{"entries":{"0":{"strategy":"bad","position":{"type":7},"content":"z","enabled":"yes"}}}`,
	} {
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
			a.Extensions, b.Extensions = nil, nil
			require.Equal(t, a, b)
		}
	})
}
