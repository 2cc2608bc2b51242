package conv

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzScanner checks the scanner against encoding/json: ParseObject
// accepts exactly the valid JSON objects, keeps every member, SplitArray
// accepts exactly the arrays and keeps every element, String decodes
// strings as json.Unmarshal does, and stringArrayEqual agrees with a
// decode into []string.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[true,false,null],"c":{"d":"e\n\u00e9\ud83d\ude00"}}`,
		`{"a":1,}`, `{"a":01}`, `{"a":"\x01"}`, `{"a":-1.5e+3}`, `["x"]`, `{"a":"\ud800"}`, `{"a":1} x`, "\"\xff\"",
		`["a", "b\u00e9"]`, `[1, "x"]`, `[]`, `[null]`, `["\ud83d\ude00 \ud800x\"\\/"]`, "[\"\xffa\\n\"]", `["a",]`, `[] 1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]json.RawMessage
		wantErr := json.Unmarshal(data, &m) != nil || m == nil
		o, err := ParseObject(data)
		require.Equal(t, wantErr, err != nil, "ParseObject(%q): %v", data, err)
		if err == nil {
			require.Len(t, o.Fields, len(m))
		}
		var arr []json.RawMessage
		wantArrErr := json.Unmarshal(data, &arr) != nil || arr == nil
		items, err := SplitArray(data)
		require.Equal(t, wantArrErr, err != nil, "SplitArray(%q): %v", data, err)
		if err == nil {
			require.Len(t, items, len(arr))
			for i := range items {
				require.JSONEq(t, string(arr[i]), string(items[i]))
			}
		}
		var strs []string
		if json.Unmarshal(data, &strs) == nil && strs != nil {
			onlyStrings := true
			for _, it := range arr {
				onlyStrings = onlyStrings && it[0] == '"'
			}
			require.Equal(t, onlyStrings, stringArrayEqual(data, strs), "stringArrayEqual(%q, %q)", data, strs)
			if len(strs) > 0 {
				require.False(t, stringArrayEqual(data, strs[1:]), "one element fewer")
			}
		}
		var s string
		errS := json.Unmarshal(data, &s)
		got, ok := String(data)
		if errS == nil {
			require.True(t, ok, "String(%q)", data)
			require.Equal(t, s, got)
		} else if ok {
			// String accepts only string tokens (and null is not one).
			require.Error(t, json.Unmarshal(data, new(int)))
		}
	})
}

func TestFirstValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"0": {"key": 1}, "1": bad}`, `{"key": 1}`},
		{` [ [1], 2`, `[1]`},
		{`{}`, ``},
		{`"s"`, ``},
	}
	for _, tc := range tests {
		got, ok := FirstValue([]byte(tc.in))
		require.Equal(t, tc.want != "", ok, tc.in)
		require.Equal(t, tc.want, string(got), tc.in)
	}
}

// TestPlain8: a word is plain exactly when none of its bytes is a quote, a
// backslash or a control character, whatever the other bytes are.
func TestPlain8(t *testing.T) {
	for _, fill := range []byte{'a', 0x80, 0xff, 0x20, 0x21} {
		for b := range 256 {
			for p := range 8 {
				w := bytes.Repeat([]byte{fill}, 8)
				w[p] = byte(b)
				want := byte(b) >= 0x20 && b != '"' && b != '\\'
				require.Equal(t, want, plain8(binary.LittleEndian.Uint64(w)), "byte %#x at %d among %#x", b, p, fill)
			}
		}
	}
}
