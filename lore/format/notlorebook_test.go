package format_test

import (
	"errors"
	"strings"
	"testing"

	"loregate/lore/format"
)

// TestNotALorebookFile: a file that is neither JSON, PNG nor a zip answers
// "this is not a lorebook file" with the list of what loregate reads
// (never a JSON parser's error); malformed JSON keeps its JSON error.
func TestNotALorebookFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		not  bool
	}{
		{"plain text", "Elara is a ranger of the northern woods.\n", true},
		{"pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", true},
		{"gif", "GIF89a\x01\x00\x01\x00", true},
		{"empty", "", true},
		{"white space", " \n\t ", true},
		{"malformed json", `{"entries": `, false},
		{"json with a bom", "\xef\xbb\xbf{\"nope\": 1}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.Import("notes.txt", []byte(tc.data), format.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, format.ErrUnknownFormat) {
				t.Errorf("%v does not wrap ErrUnknownFormat", err)
			}
			if got := errors.Is(err, format.ErrNotLorebookFile); got != tc.not {
				t.Fatalf("ErrNotLorebookFile = %v, want %v (%v)", got, tc.not, err)
			}
			if tc.not {
				for _, want := range []string{"this is not a lorebook file; loregate reads", "SillyTavern world info", "worldbooks", "PNG", "CHARX", "NovelAI", "RisuAI", "Agnai"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q lacks %q", err, want)
					}
				}
			}
		})
	}
}
