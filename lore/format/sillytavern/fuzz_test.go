package sillytavern

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format/internal/conv"
)

// FuzzDecode: decode, encode, decode again; never panics, and the second
// decode gives the same entries as the first.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"entries":{"0":{"uid":0,"key":["a","/b/i"],"keysecondary":["c"],"content":"x","position":4,"depth":2,"probability":0}}}`))
	f.Add([]byte(`{"entries":[{"key":["a"],"content":"x","disable":true,"selectiveLogic":9}],"name":"n"}`))
	f.Add([]byte(`{"entries":{"1":{"uid":"1","key":"a,b","content":"x","scanDepth":0,"role":null}},"originalData":{}}`))
	f.Add([]byte(`{"is_creation":false,"scan_depth":3,"entries":{"0":{"keys":["a"],"key":["b"],"content":"x","enabled":false,"id":0}}}`))
	f.Add([]byte(`{"entries":{"0":{"uid":0,"key":["a"],"content":"x","loregate_card":{"name":"n","extensions":{"depth":4},"_folder_row":{}}}},"extensions":{"loregate_card":{"description":"d","x":[1]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		o, err := conv.ParseObject(data)
		if err != nil {
			return
		}
		book, _, err := Decode("f.json", data, IsHybrid(o), conv.Options{})
		if err != nil {
			return
		}
		out, err := Encode(book)
		require.NoError(t, err)
		book2, _, err := Decode("f.json", out, false, conv.Options{})
		require.NoError(t, err)
		require.Equal(t, len(book.Entries), len(book2.Entries))
		for i := range book.Entries {
			a, b := book.Entries[i], book2.Entries[i]
			require.Equal(t, a.Keys, b.Keys)
			require.Equal(t, a.Content, b.Content)
			require.Equal(t, a.Placement, b.Placement)
			require.Equal(t, a.Probability, b.Probability)
			require.Equal(t, a.Enabled, b.Enabled)
		}
	})
}
