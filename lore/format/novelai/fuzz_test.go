package novelai

import (
	"testing"

	"loregate/lore/format/internal/fuzzcodec"
)

// FuzzDecode: decode, encode, decode again; never panics; entries agree on
// content, keys, enabled, constant and order.
func FuzzDecode(f *testing.F) {
	fuzzcodec.RoundTrip(f, fuzzcodec.Codec{Decode: Decode, Encode: Encode},
		[]string{`{"lorebookVersion":4,"entries":[{"text":"x","displayName":"d","keys":[" spaced","b"],"contextConfig":{"budgetPriority":300}}]}`, `{"scenarioVersion":1,"lorebook":{"lorebookVersion":1,"entries":[{"text":"x","keys":["a"],"enabled":false}]}}`, `{"storyContainerVersion":1,"content":{"lorebook":{"entries":[]}}}`}, fuzzcodec.SameBasics)
}
