package conv

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestEntryValues(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{"object in Object.keys order", `{"entries": {"b": 3, "10": 2, "2": 1}}`, []string{"1", "2", "3"}, ""},
		{"array", `{"entries": [{"a": 1}, 7]}`, []string{`{"a": 1}`, "7"}, ""},
		{"missing", `{"name": "x"}`, nil, "world info: missing field entries"},
		{"neither", `{"entries": "x"}`, nil, "world info: field entries is neither an object nor an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseFile("world info", []byte("\uFEFF"+tc.in))
			require.NoError(t, err)
			got, err := EntryValues(o, "world info")
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var s []string
			for _, v := range got {
				s = append(s, string(v))
			}
			require.Equal(t, tc.want, s)
		})
	}
	_, err := ParseFile("novelai", []byte(`[1]`))
	require.ErrorContains(t, err, "novelai: ")
}

func TestArrayMember(t *testing.T) {
	o, err := ParseFile("risu", []byte(`{"data": [1, 2], "x": {}}`))
	require.NoError(t, err)
	items, err := ArrayMember(o, "data", "risu")
	require.NoError(t, err)
	require.Len(t, items, 2)
	_, err = ArrayMember(o, "x", "risu")
	require.EqualError(t, err, "risu: field x is not an array")
	_, err = ArrayMember(o, "entries", "agnai")
	require.EqualError(t, err, "agnai: field entries is not an array")
}

// TestDecodeEach: every object item is decoded and added at its source
// index; an item that is not an object is skipped with the reason; a book
// without a name is named after its file.
func TestDecodeEach(t *testing.T) {
	b := NewBuilder(KindWorldbook, Options{})
	b.NameFromFile("books/Elves.json")
	require.Equal(t, "Elves", b.Book.Name)
	require.True(t, b.Book.NameFromFile)
	items := []json.RawMessage{json.RawMessage(`{"k": "oak", "c": "The oak."}`), json.RawMessage(`"no"`), json.RawMessage(`{"k": "elm", "c": "The elm."}`)}
	var seen []string
	book, rep := b.DecodeEach(items, func(o *Object, _ *Report) (lore.Entry, STCtx) {
		e := lore.NewEntry()
		k, _ := o.Get("k")
		c, _ := o.Get("c")
		key, _ := String(k)
		e.Keys = []string{key}
		e.Content, _ = String(c)
		seen = append(seen, key)
		return e, STCtx{}
	})
	require.Equal(t, []string{"oak", "elm"}, seen)
	require.Len(t, book.Entries, 2)
	require.Equal(t, "The elm.", book.Entries[1].Content)
	require.Equal(t, []Skip{{Index: 1, Reason: "entry is not a json object"}}, rep.Skipped)

	named := NewBuilder(KindWorldbook, Options{})
	named.Book.Name = "Kept"
	named.NameFromFile("other.json")
	require.Equal(t, "Kept", named.Book.Name)
	require.False(t, named.Book.NameFromFile)
}
