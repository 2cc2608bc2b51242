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

// TestMalformedJSONSaysWhat: a JSON file that does not parse is still
// ErrUnknownFormat, but its message is the parser's (where and what), not
// "unknown lorebook format", and a file cut short (a world info book
// truncated mid-entry) says the file ends before its JSON does.
func TestMalformedJSONSaysWhat(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		truncated  bool
		want       string
	}{
		{"cut in a string", `{"entries": {"0": {"key": ["forest"], "content": "The Whispering Fo`, true, `invalid json in member "entries"`},
		{"cut after a member", `{"entries": {"0": {"key": ["forest"]},`, true, `invalid json`},
		{"cut with a bom", "\xef\xbb\xbf{\"entries\": ", true, `invalid json`},
		{"bad value", `{"entries": {"0": nope}}`, false, `invalid json in member "entries"`},
		{"trailing garbage", `{"entries": {}} }`, false, `invalid json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.Import("book.json", []byte(tc.data), format.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, format.ErrUnknownFormat) || errors.Is(err, format.ErrNotLorebookFile) {
				t.Errorf("%v: want ErrUnknownFormat, not ErrNotLorebookFile", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "unknown lorebook format") {
				t.Errorf("%q blames the format of a file that is not valid JSON", msg)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("%q lacks %q", msg, tc.want)
			}
			if got := strings.Contains(msg, "the file ends before its JSON does"); got != tc.truncated {
				t.Errorf("%q: truncation named = %v, want %v", msg, got, tc.truncated)
			}
		})
	}
}
