package worldbook

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format/internal/fuzzcodec"
)

// FuzzDecode: decode, encode, decode again; never panics; entries agree on
// every canonical field the worldbook carries.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		`{"version":1,"entries":{"0":{"uid":3,"name":"t","enabled":true,"strategy":{"type":"selective","keys":["a"],"keys_secondary":{"logic":"not_all","keys":["b"]},"scan_depth":2},"position":{"type":"at_depth","role":"user","depth":1,"order":5},"content":"x","probability":40,"recursion":{"prevent_incoming":true,"prevent_outgoing":false,"delay_until":2},"effect":{"sticky":1,"cooldown":null,"delay":3},"extra":{"k":1}}}}`,
		`{"entries":[{"strategy":{"type":"constant"},"content":"y","position":{"type":"outlet"}}]}`,
		`{"entries":{"0":{"strategy":"bad","position":{"type":7},"content":"z","enabled":"yes"}}}`,
	}
	fuzzcodec.RoundTrip(f, fuzzcodec.Codec{Decode: Decode, Encode: Encode}, seeds, func(t *testing.T, a, b lore.Entry) {
		a.Extensions, b.Extensions = nil, nil
		require.Equal(t, a, b)
	})
}
