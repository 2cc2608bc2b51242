package conv

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small validating JSON scanner: it splits an object into
// its members without decoding the values, so that a book is read in one
// pass per nesting level instead of through encoding/json's token decoder
// (docs/benchmarks.md "Import of the largest world info").

// errJSON is a syntax error at byte offset Off.
type errJSON struct {
	Off int
	Msg string
}

func (e *errJSON) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Off) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// maxScanDepth bounds nesting, as encoding/json does (10,000).
const maxScanDepth = 10000

// scanValue validates the JSON value starting at d[i] (no leading space)
// and returns the offset just after it.
func scanValue(d []byte, i, depth int) (int, error) {
	if i >= len(d) {
		return i, &errJSON{i, "unexpected end of JSON input"}
	}
	if depth > maxScanDepth {
		return i, &errJSON{i, "exceeded max depth"}
	}
	switch c := d[i]; {
	case c == '"':
		return scanString(d, i)
	case c == '{':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(d) || d[i] != '"' {
				return i, &errJSON{i, "invalid character looking for beginning of object key string"}
			}
			var err error
			if i, err = scanString(d, i); err != nil {
				return i, err
			}
			i = skipSpace(d, i)
			if i >= len(d) || d[i] != ':' {
				return i, &errJSON{i, "invalid character after object key"}
			}
			if i, err = scanValue(d, skipSpace(d, i+1), depth+1); err != nil {
				return i, err
			}
			i = skipSpace(d, i)
			if i < len(d) && d[i] == ',' {
				i = skipSpace(d, i+1)
				continue
			}
			if i < len(d) && d[i] == '}' {
				return i + 1, nil
			}
			return i, &errJSON{i, "invalid character after object key:value pair"}
		}
	case c == '[':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = scanValue(d, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(d, i)
			if i < len(d) && d[i] == ',' {
				i = skipSpace(d, i+1)
				continue
			}
			if i < len(d) && d[i] == ']' {
				return i + 1, nil
			}
			return i, &errJSON{i, "invalid character after array element"}
		}
	case c == 't':
		return scanLiteral(d, i, "true")
	case c == 'f':
		return scanLiteral(d, i, "false")
	case c == 'n':
		return scanLiteral(d, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(d, i)
	}
	return i, &errJSON{i, fmt.Sprintf("invalid character %q looking for beginning of value", d[i])}
}

func scanLiteral(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return i, &errJSON{i, "invalid literal"}
	}
	return i + len(lit), nil
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

func scanNumber(d []byte, i int) (int, error) {
	start := i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		return i, &errJSON{start, "invalid number"}
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return i, &errJSON{start, "invalid number"}
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return i, &errJSON{start, "invalid number"}
		}
		i = j
	}
	return i, nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// scanString validates the string starting at d[i] == '"' and returns the
// offset after its closing quote.
func scanString(d []byte, i int) (int, error) {
	start := i
	for i++; i < len(d); i++ {
		// Eight plain bytes (no quote, backslash or control character)
		// at a time while there are.
		for i+8 <= len(d) && plain8(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		if i >= len(d) {
			break
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i++
			if i >= len(d) {
				break
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(d)-i < 5 || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					return i, &errJSON{i, "invalid escape in string"}
				}
				i += 4
			default:
				return i, &errJSON{i, "invalid escape in string"}
			}
		case c < 0x20:
			return i, &errJSON{i, "invalid control character in string"}
		}
	}
	return start, &errJSON{start, "unterminated string"}
}

// plain8 reports whether none of the eight bytes of x is a quote, a
// backslash or below 0x20 (the bit tricks of "Bit Twiddling Hacks",
// determine if a word has a byte less than n / equal to n: a flagged word
// may be plain, never the reverse).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - ones*0x20) &^ x
	quote, slash := x^(ones*'"'), x^(ones*'\\')
	return (less|((quote-ones)&^quote)|((slash-ones)&^slash))&highs == 0
}

// splitObject validates data as one JSON object (surrounding space
// allowed, nothing after it) and returns its members in order, values as
// sub-slices of data.
func splitObject(data []byte) ([]Field, error) {
	i := skipSpace(data, 0)
	if i >= len(data) {
		return nil, errors.New("invalid json: unexpected end of JSON input")
	}
	if data[i] != '{' {
		if _, err := scanValue(data, i, 0); err != nil {
			return nil, fmt.Errorf("invalid json: %w", err)
		}
		return nil, errors.New("not a json object")
	}
	var fields []Field
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			if i >= len(data) || data[i] != '"' {
				return nil, fmt.Errorf("invalid json: %w", &errJSON{i, "invalid character looking for beginning of object key string"})
			}
			ks := i
			var err error
			if i, err = scanString(data, i); err != nil {
				return nil, fmt.Errorf("invalid json: %w", err)
			}
			name, err := keyString(data[ks:i])
			if err != nil {
				return nil, fmt.Errorf("invalid json: %w", err)
			}
			i = skipSpace(data, i)
			if i >= len(data) || data[i] != ':' {
				return nil, fmt.Errorf("invalid json: %w", &errJSON{i, "invalid character after object key"})
			}
			vs := skipSpace(data, i+1)
			if i, err = scanValue(data, vs, 1); err != nil {
				return nil, fmt.Errorf("invalid json in member %s: %w", Snippet(name), err)
			}
			fields = append(fields, Field{name, json.RawMessage(data[vs:i:i])})
			i = skipSpace(data, i)
			if i < len(data) && data[i] == ',' {
				i = skipSpace(data, i+1)
				continue
			}
			if i < len(data) && data[i] == '}' {
				i++
				break
			}
			return nil, fmt.Errorf("invalid json: %w", &errJSON{i, "invalid character after object key:value pair"})
		}
	}
	if i = skipSpace(data, i); i != len(data) {
		return nil, errors.New("invalid json: data after the top-level object")
	}
	return fields, nil
}

// SplitArray validates data as one JSON array (surrounding space allowed,
// nothing after it) and returns its elements in order as sub-slices of
// data, without decoding them; a book's entries array is split this way.
func SplitArray(data []byte) ([]json.RawMessage, error) {
	i := skipSpace(data, 0)
	if i >= len(data) {
		return nil, errors.New("invalid json: unexpected end of JSON input")
	}
	if data[i] != '[' {
		if _, err := scanValue(data, i, 0); err != nil {
			return nil, fmt.Errorf("invalid json: %w", err)
		}
		return nil, errors.New("not a json array")
	}
	items := []json.RawMessage{}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		i++
	} else {
		for {
			vs := i
			var err error
			if i, err = scanValue(data, vs, 1); err != nil {
				return nil, fmt.Errorf("invalid json in element %d: %w", len(items), err)
			}
			items = append(items, json.RawMessage(data[vs:i:i]))
			i = skipSpace(data, i)
			if i < len(data) && data[i] == ',' {
				i = skipSpace(data, i+1)
				continue
			}
			if i < len(data) && data[i] == ']' {
				i++
				break
			}
			return nil, fmt.Errorf("invalid json: %w", &errJSON{i, "invalid character after array element"})
		}
	}
	if i = skipSpace(data, i); i != len(data) {
		return nil, errors.New("invalid json: data after the top-level array")
	}
	return items, nil
}

// keyString decodes a scanned JSON string token.
func keyString(tok []byte) (string, error) {
	for _, c := range tok[1 : len(tok)-1] {
		if c == '\\' {
			var s string
			err := json.Unmarshal(tok, &s)
			return s, err
		}
	}
	return string(tok[1 : len(tok)-1]), nil
}

// unquote decodes a JSON string token as encoding/json does (invalid UTF-8
// and lone surrogates become U+FFFD); ok is false when raw is not a valid
// string token.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if end, err := scanString(raw, 0); err != nil || end != len(raw) {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	b := make([]byte, 0, len(in))
	for len(in) > 0 {
		// Copy the run up to the next escape whole: only a run that is not
		// valid UTF-8 goes rune by rune.
		j := bytes.IndexByte(in, '\\')
		if j < 0 {
			j = len(in)
		}
		b = appendUTF8(b, in[:j])
		if in = in[j:]; len(in) == 0 {
			break
		}
		n := 2
		switch in[1] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			r, size := escapedRune(in)
			b = utf8.AppendRune(b, r)
			n = size
		default: // " \ /
			b = append(b, in[1])
		}
		in = in[n:]
	}
	return string(b), true
}

// escapedRune decodes the \uXXXX escape at the start of in (a surrogate
// pair as one rune, a lone surrogate as U+FFFD) and returns the bytes it
// took.
func escapedRune(in []byte) (rune, int) {
	r := hex4(in[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(in) >= 12 && in[6] == '\\' && in[7] == 'u' {
		if r2 := utf16.DecodeRune(r, hex4(in[8:12])); r2 != utf8.RuneError {
			return r2, 12
		}
	}
	return utf8.RuneError, 6
}

// appendUTF8 appends run to b with every invalid UTF-8 byte replaced by
// U+FFFD, as encoding/json does.
func appendUTF8(b, run []byte) []byte {
	if utf8.Valid(run) {
		return append(b, run...)
	}
	for i := 0; i < len(run); {
		if run[i] < utf8.RuneSelf {
			b = append(b, run[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(run[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, run[i:i+size]...)
		}
		i += size
	}
	return b
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// FirstValue returns the first member value of a JSON object, or the first
// element of an array, without reading the rest (detection looks at the
// first entry only); ok is false for anything else or a syntax error in it.
func FirstValue(raw []byte) (json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return nil, false
	}
	switch raw[i] {
	case '{':
		i = skipSpace(raw, i+1)
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		var err error
		if i, err = scanString(raw, i); err != nil {
			return nil, false
		}
		if i = skipSpace(raw, i); i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
	case '[':
		i = skipSpace(raw, i+1)
	default:
		return nil, false
	}
	end, err := scanValue(raw, i, 1)
	if err != nil {
		return nil, false
	}
	return raw[i:end:end], true
}

// stringArrayEqual reports whether raw is one JSON array of strings only
// (space allowed around the tokens) whose elements decode to want, in
// order. Anything else (another type, a null element, a syntax error) is
// false, so a caller falls back to a full comparison.
func stringArrayEqual(raw []byte, want []string) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = skipSpace(raw, i+1)
	n := 0
	if i < len(raw) && raw[i] == ']' {
		i++
	} else {
		for {
			if n >= len(want) || i >= len(raw) || raw[i] != '"' {
				return false
			}
			end, err := scanString(raw, i)
			if err != nil {
				return false
			}
			if s, ok := String(raw[i:end]); !ok || s != want[n] {
				return false
			}
			n++
			i = skipSpace(raw, end)
			if i < len(raw) && raw[i] == ',' {
				i = skipSpace(raw, i+1)
				continue
			}
			if i < len(raw) && raw[i] == ']' {
				i++
				break
			}
			return false
		}
	}
	return n == len(want) && skipSpace(raw, i) == len(raw)
}
