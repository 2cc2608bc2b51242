package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
	"loregate/lore/format/sillytavern"
	"loregate/lore/format/worldbook"
)

// Signatures of the carriers (JSON, PNG, CHARX; docs/formats.md).
const (
	sigPNG  = "\x89PNG\r\n\x1a\n"
	sigZIP  = "PK\x03\x04"
	sigJPEG = "\xFF\xD8\xFF"
)

// Import detects the format of data and converts it. name is the file name
// ("" when unknown); it names the book when the file does not, and a
// .scenario/.story/.lorebook suffix is only a hint (detection uses the
// bytes). Errors wrap ErrNoLorebook (card without book; Result.Format is
// still set), ErrTooLarge (a limit of opts, named in the message) or
// ErrUnknownFormat, or describe the malformed part (chunk, member, field)
// without file content beyond a short snippet.
func Import(name string, data []byte, opts Options) (res Result, err error) {
	// Every report has all its lists, failures included ("warnings" is
	// always a list).
	defer func() { res.Report.Normalize() }()
	opts = opts.WithDefaults()
	if err := CheckSize(data, opts); err != nil {
		return Result{Container: carrierOf(data)}, err
	}
	switch {
	case bytes.HasPrefix(data, []byte(sigPNG)):
		return importPNG(name, data, opts)
	case bytes.HasPrefix(data, []byte(sigZIP)):
		return importCHARX(name, data, opts)
	case bytes.HasPrefix(data, []byte(sigJPEG)):
		if bytes.Contains(tail(data, 1<<16+22), []byte("PK\x05\x06")) {
			return importCHARX(name, data, opts)
		}
		return Result{}, fmt.Errorf("%w: a JPEG image without an appended zip archive", ErrUnknownFormat)
	case len(data) > 5 && data[0] == 0x6F && data[1] == 0x00:
		return Result{}, fmt.Errorf("%w: a RisuAI module (.risum) holds scripts; export the lorebook from RisuAI instead", ErrUnknownFormat)
	case !looksJSON(data):
		return Result{}, ErrNotLorebookFile
	}
	return importJSON(name, data, ContainerJSON, opts)
}

// looksJSON reports whether data, after a byte order mark and white
// space, starts as a JSON object or array does.
func looksJSON(data []byte) bool {
	t := bytes.TrimLeft(conv.StripBOM(data), " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// carrierOf tells a file's carrier from its first bytes: PNG, CHARX (a zip,
// also behind a JPEG), else JSON.
func carrierOf(data []byte) Container {
	switch {
	case bytes.HasPrefix(data, []byte(sigPNG)):
		return ContainerPNG
	case bytes.HasPrefix(data, []byte(sigZIP)), bytes.HasPrefix(data, []byte(sigJPEG)):
		return ContainerCHARX
	}
	return ContainerJSON
}

// CheckSize applies the size limit of data's carrier (opts.MaxPNGBytes,
// MaxCHARXBytes or MaxJSONBytes) without parsing anything: an error
// wrapping ErrTooLarge that gives the limit, or nil. Import applies it
// first; callers that store a file to import it later (background jobs)
// use it to refuse an oversized file at once.
func CheckSize(data []byte, opts Options) error {
	opts = opts.WithDefaults()
	n := int64(len(data))
	switch carrierOf(data) {
	case ContainerPNG:
		if n > opts.MaxPNGBytes {
			return conv.TooLarge("png file", n, "", opts.MaxPNGBytes)
		}
	case ContainerCHARX:
		if n > opts.MaxCHARXBytes {
			return conv.TooLarge("charx file", n, "", opts.MaxCHARXBytes)
		}
	default:
		if n > opts.MaxJSONBytes {
			return conv.TooLarge("json file", n, lore.EnvMaxJSONBytes, opts.MaxJSONBytes)
		}
	}
	return nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// DetectJSON returns the format of a JSON document by shape, in the order
// of the JSON shapes docs/formats.md lists.
func DetectJSON(data []byte) (Kind, error) {
	data = conv.StripBOM(data)
	o, err := conv.ParseObject(data)
	if err != nil {
		return "", &malformedJSON{err: err, truncated: endsEarly(data)}
	}
	return detectObject(o)
}

// malformedJSON is a file that starts as JSON but does not parse. It is
// ErrUnknownFormat (no format can be told from it), but its text is the
// parser's, not "unknown lorebook format", and says when the file ends
// before its JSON does: a download or copy cut short.
type malformedJSON struct {
	err       error
	truncated bool
}

func (e *malformedJSON) Error() string {
	if e.truncated {
		return fmt.Sprintf("the file ends before its JSON does (cut short?): %v", e.err)
	}
	return e.err.Error()
}

func (e *malformedJSON) Unwrap() []error { return []error{ErrUnknownFormat, e.err} }

// endsEarly reports whether data is JSON that stops in the middle of its
// first value (only called once data failed to parse).
func endsEarly(data []byte) bool {
	var v json.RawMessage
	return errors.Is(json.NewDecoder(bytes.NewReader(data)).Decode(&v), io.ErrUnexpectedEOF)
}

func detectObject(o *conv.Object) (Kind, error) {
	str := func(name string) string {
		v, _ := o.Get(name)
		s, _ := conv.String(v)
		return s
	}
	spec := str("spec")
	switch spec {
	case "chara_card_v3":
		return KindV3Card, nil
	case "chara_card_v2":
		return KindV2Card, nil
	case "lorebook_v3", "chara_book_v3", "chara_book_v2":
		return KindLorebookV3, nil
	}
	if v, ok := o.Get("lorebookVersion"); ok && isNumber(v) {
		return KindNovelAI, nil
	}
	if o.Has("scenarioVersion") || o.Has("storyContainerVersion") {
		return KindNovelAI, nil
	}
	if str("kind") == "memory" {
		return KindAgnai, nil
	}
	if t := str("type"); t == "risu" {
		return KindRisu, nil
	} else if t == "risuModule" {
		return "", fmt.Errorf("%w: a RisuAI module holds scripts; export the lorebook from RisuAI instead", ErrUnknownFormat)
	}
	if o.Has("entries") {
		if worldbook.Looks(o) {
			return KindWorldbook, nil
		}
		if sillytavern.IsHybrid(o) {
			return KindChubHybrid, nil
		}
		raw, _ := o.Get("entries")
		isArray := strings.HasPrefix(strings.TrimSpace(string(raw)), "[")
		if isArray && looksCharacterBook(raw) {
			return KindCharacterBook, nil
		}
		if sillytavern.Looks(o) {
			return KindSTWorldInfo, nil
		}
		if !isArray && looksCharacterBookObject(raw) {
			return KindCharacterBook, nil
		}
		if isArray && strings.TrimSpace(string(raw)) == "[]" {
			return KindCharacterBook, nil
		}
		return "", fmt.Errorf("%w: json with an entries field whose entries are neither world info nor character book entries", ErrUnknownFormat)
	}
	if spec != "" {
		return "", fmt.Errorf("%w: card spec %s", ErrUnknownFormat, conv.Snippet(spec))
	}
	if o.Has("name") && (o.Has("first_mes") || o.Has("description")) || o.Has("char_name") || o.Has("char_persona") || o.Has("char_greeting") {
		return KindV1Card, nil
	}
	return "", fmt.Errorf("%w: json object without spec, entries or a known lorebook marker", ErrUnknownFormat)
}

func isNumber(raw json.RawMessage) bool {
	var f float64
	return json.Unmarshal(raw, &f) == nil
}

// looksCharacterBook: an entries array whose first object entry has keys,
// content or insertion_order (docs/formats.md).
func looksCharacterBook(raw json.RawMessage) bool {
	var arr []map[string]json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return false
	}
	for _, e := range arr {
		if e == nil {
			continue
		}
		_, k := e["keys"]
		_, io := e["insertion_order"]
		_, key := e["key"]
		return (k || io) && !key
	}
	return false
}

func looksCharacterBookObject(raw json.RawMessage) bool {
	var m map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	for _, e := range m {
		_, k := e["keys"]
		_, io := e["insertion_order"]
		return k || io
	}
	return false
}
