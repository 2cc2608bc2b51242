package risu

import (
	"testing"

	"loregate/lore/format/internal/fuzzcodec"
)

// FuzzDecode: decode, encode, decode again; never panics; entries agree on
// content, keys, enabled, constant and order.
func FuzzDecode(f *testing.F) {
	fuzzcodec.RoundTrip(f, fuzzcodec.Codec{Decode: Decode, Encode: Encode},
		[]string{`{"type":"risu","ver":1,"data":[{"key":"a，b、c；d","secondkey":"e","selective":true,"content":"x","comment":"t","mode":"normal","alwaysActive":false,"insertorder":5}]}`, `{"type":"risu","data":[{"key":"","content":"","mode":"folder"}]}`}, fuzzcodec.SameBasics)
}
