package agnai

import (
	"testing"

	"loregate/lore/format/internal/fuzzcodec"
)

// FuzzDecode: decode, encode, decode again; never panics; entries agree on
// content, keys, enabled, constant and order.
func FuzzDecode(f *testing.F) {
	fuzzcodec.RoundTrip(f, fuzzcodec.Codec{Decode: Decode, Encode: Encode},
		[]string{`{"kind":"memory","name":"n","entries":[{"name":"t","entry":"x","keywords":["a, b"],"priority":1,"weight":2,"enabled":true}]}`, `{"kind":"memory","entries":[{"entry":"x","keywords":"a;b"}]}`}, fuzzcodec.SameBasics)
}
