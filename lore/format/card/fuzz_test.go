package card

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format/internal/conv"
)

// FuzzDecodeBook: decode a character_book, encode it (V2 and lorebook_v3),
// decode again; never panics; the entries agree.
func FuzzDecodeBook(f *testing.F) {
	f.Add([]byte(`{"name":"b","entries":[{"keys":["a"],"content":"x","enabled":true,"insertion_order":5,"extensions":{"position":4,"depth":1,"selectiveLogic":2,"useProbability":false,"probability":10}}]}`))
	f.Add([]byte(`{"entries":{"0":{"keys":["a"],"secondary_keys":["b"],"selective":true,"content":"x","position":"before_char","case_sensitive":true}}}`))
	f.Add([]byte(`{"entries":[{"keys":"a,b","content":"x","priority":7,"name":"n","use_regex":true,"extensions":{"match_whole_words":true,"scan_depth":500}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		book, _, err := DecodeBook("f.json", data, conv.KindCharacterBook, conv.Options{})
		if err != nil {
			return
		}
		for _, enc := range []func(conv.Book) ([]byte, error){EncodeCharacterBook, EncodeLorebookV3} {
			out, err := enc(book)
			require.NoError(t, err)
			var book2 conv.Book
			if o, _ := conv.ParseObject(out); o != nil && o.Has("spec") {
				book2, _, err = DecodeLorebookV3("f.json", out, conv.Options{})
			} else {
				book2, _, err = DecodeBook("f.json", out, conv.KindCharacterBook, conv.Options{})
			}
			require.NoError(t, err)
			require.Equal(t, len(book.Entries), len(book2.Entries))
			for i := range book.Entries {
				a, b := book.Entries[i].Clone(), book2.Entries[i].Clone()
				a.Extensions, b.Extensions = nil, nil
				require.Equal(t, a, b)
			}
		}
	})
}
