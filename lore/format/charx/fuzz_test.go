package charx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var fuzzLimits = Limits{MaxEntries: 64, MaxTotal: 1 << 20, MaxRatio: 200, MaxCard: 1 << 20}

// FuzzExtract: extract card.json, rebuild an archive, extract again;
// never panics; the same bytes come back.
func FuzzExtract(f *testing.F) {
	for _, extra := range []map[string][]byte{nil, {"module.risum": {0x6f, 0}}, {"assets/icon/a.png": []byte("x")}} {
		b, err := Build([]byte(`{"spec":"chara_card_v3","data":{}}`), extra)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("PK\x03\x04garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		card, _, err := Extract(data, fuzzLimits)
		if err != nil {
			return
		}
		b, err := Build(card, nil)
		require.NoError(t, err)
		card2, _, err := Extract(b, fuzzLimits)
		require.NoError(t, err)
		require.Equal(t, card, card2)
	})
}
