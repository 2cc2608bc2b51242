package conv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Field is one member of a JSON object, in source order.
type Field struct {
	Name  string
	Value json.RawMessage
}

// Object is a JSON object with its member order kept. Lookups use the last
// member of a name, as JSON.parse does.
type Object struct {
	Fields []Field
	index  map[string]int
}

// ParseObject parses data as a JSON object keeping member order. It fails
// when data is not valid JSON or not an object. Values are sub-slices of
// data (not copied); data must not change while they are in use.
func ParseObject(data []byte) (*Object, error) {
	fields, err := splitObject(data)
	if err != nil {
		return nil, err
	}
	o := &Object{index: make(map[string]int, len(fields))}
	for _, f := range fields {
		if i, dup := o.index[f.Name]; dup {
			o.Fields[i].Value = f.Value
			continue
		}
		o.index[f.Name] = len(o.Fields)
		o.Fields = append(o.Fields, f)
	}
	return o, nil
}

// plainString reports whether raw is a JSON string token with nothing to
// unescape: quotes around valid UTF-8 with no backslash, quote or control
// character, so its value is the bytes between the quotes.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	in := raw[1 : len(raw)-1]
	for _, c := range in {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(in)
}

// NewObject returns an empty object for building output.
func NewObject() *Object { return &Object{index: map[string]int{}} }

// Get returns the raw member and whether it exists.
func (o *Object) Get(name string) (json.RawMessage, bool) {
	if o == nil {
		return nil, false
	}
	i, ok := o.index[name]
	if !ok {
		return nil, false
	}
	return o.Fields[i].Value, true
}

// Has reports whether the member exists.
func (o *Object) Has(name string) bool { _, ok := o.Get(name); return ok }

// Set adds or replaces a member (replacing keeps its position).
func (o *Object) Set(name string, v json.RawMessage) {
	if i, ok := o.index[name]; ok {
		o.Fields[i].Value = v
		return
	}
	o.index[name] = len(o.Fields)
	o.Fields = append(o.Fields, Field{name, v})
}

// SetValue marshals v and sets it.
func (o *Object) SetValue(name string, v any) {
	o.Set(name, MustMarshal(v))
}

// Len is the member count.
func (o *Object) Len() int { return len(o.Fields) }

// MarshalJSON writes the members in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o.Fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		buf.Write(k)
		buf.WriteByte(':')
		v := f.Value
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MustMarshal marshals values that cannot fail (strings, numbers, bools,
// slices and maps of them, RawMessage).
func MustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("conv: marshal %T: %v", v, err))
	}
	return b
}

// IsNull reports whether raw is absent or JSON null.
func IsNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// Equal reports whether two JSON texts hold the same value (object member
// order ignored, numbers compared by value).
func Equal(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// String decodes a JSON string; ok is false for any other type.
func String(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if plainString(raw) {
		return string(raw[1 : len(raw)-1]), true // fast path: nothing to unescape
	}
	return unquote(raw)
}

// Bool decodes a JSON boolean; ok is false for any other type.
func Bool(raw json.RawMessage) (bool, bool) {
	if IsNull(raw) {
		return false, false
	}
	var v bool
	if json.Unmarshal(raw, &v) != nil {
		return false, false
	}
	return v, true
}

// Int decodes a JSON number (or a numeric string) rounded to an int; ok is
// false for other types, NaN and values beyond ±2^53.
func Int(raw json.RawMessage) (int, bool) {
	if IsNull(raw) {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, false
		}
	}
	if math.IsNaN(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(math.Round(f)), true
}

// Strings decodes a JSON array of strings. Non-string items are kept as
// their JSON text (numbers as written); ok is false when raw is not an
// array.
func Strings(raw json.RawMessage) ([]string, bool) {
	var items []json.RawMessage
	if IsNull(raw) || json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := String(it); ok {
			out = append(out, s)
		} else if !IsNull(it) {
			out = append(out, string(bytes.TrimSpace(it)))
		}
	}
	return out, true
}

// OrderedMembers returns the members of a JSON object in JavaScript's
// Object.keys order: array-index keys ascending, then the rest in source
// order (docs/formats.md: ST iterates world info entries that way).
func OrderedMembers(o *Object) []Field {
	type idx struct {
		n uint64
		f Field
	}
	var nums []idx
	var rest []Field
	for _, f := range o.Fields {
		if n, ok := arrayIndex(f.Name); ok {
			nums = append(nums, idx{n, f})
		} else {
			rest = append(rest, f)
		}
	}
	sort.SliceStable(nums, func(i, j int) bool { return nums[i].n < nums[j].n })
	out := make([]Field, 0, len(o.Fields))
	for _, n := range nums {
		out = append(out, n.f)
	}
	return append(out, rest...)
}

func arrayIndex(s string) (uint64, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// StripBOM removes a leading UTF-8 byte order mark (docs/formats.md).
func StripBOM(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
}
