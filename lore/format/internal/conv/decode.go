package conv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"loregate/lore"
)

// The steps every book decoder shares: parse the file, find its entries,
// name the book, decode each entry object.

// notObject is the skip reason of an entry that is not a JSON object.
const notObject = "entry is not a json object"

// ParseFile parses a book file (a byte order mark is dropped) as a JSON
// object; what ("world info", "novelai", ...) prefixes the error.
func ParseFile(what string, data []byte) (*Object, error) {
	o, err := ParseObject(StripBOM(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return o, nil
}

// EntryValues returns the entries of a book whose member "entries" is an
// object (its members in OrderedMembers order, as SillyTavern iterates
// them) or an array. Errors, prefixed with what: the member is missing, or
// neither an object nor an array.
func EntryValues(o *Object, what string) ([]json.RawMessage, error) {
	raw, ok := o.Get("entries")
	if !ok {
		return nil, errors.New(what + ": missing field entries")
	}
	if eo, err := ParseObject(raw); err == nil {
		fields := OrderedMembers(eo)
		out := make([]json.RawMessage, len(fields))
		for i, f := range fields {
			out[i] = f.Value
		}
		return out, nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil, errors.New(what + ": field entries is neither an object nor an array")
	}
	return arr, nil
}

// ArrayMember returns the items of o's member name, which must be a JSON
// array (error "<what>: field <name> is not an array").
func ArrayMember(o *Object, name, what string) ([]json.RawMessage, error) {
	raw, _ := o.Get(name)
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, fmt.Errorf("%s: field %s is not an array", what, name)
	}
	return items, nil
}

// NameFromFile names a book that has no name of its own after fileName
// (BaseName; Book.NameFromFile set).
func (b *Builder) NameFromFile(fileName string) {
	if b.Book.Name == "" {
		b.Book.Name = BaseName(fileName)
		b.Book.NameFromFile = true
	}
}

// SkipNotObject records entry i (source order) as skipped: it is not a
// JSON object.
func (b *Builder) SkipNotObject(i int) {
	b.Report.Skipped = append(b.Report.Skipped, Skip{Index: i, Reason: notObject})
}

// EntryObject parses entry i of the source; one that is not a JSON object
// is recorded as skipped (SkipNotObject) and ok is false.
func (b *Builder) EntryObject(i int, raw json.RawMessage) (o *Object, ok bool) {
	o, err := ParseObject(raw)
	if err != nil {
		b.SkipNotObject(i)
		return nil, false
	}
	return o, true
}

// DecodeEach decodes every item with decode (a codec's DecodeEntry) and
// adds it at its index (EntryStart, AddEntry), skipping items that are not
// objects, then finishes the book.
func (b *Builder) DecodeEach(items []json.RawMessage, decode func(*Object, *Report) (lore.Entry, STCtx)) (Book, Report) {
	for i, it := range items {
		eo, ok := b.EntryObject(i, it)
		if !ok {
			continue
		}
		b.EntryStart()
		e, c := decode(eo, &b.Report)
		b.AddEntry(i, e, c)
	}
	return b.Finish()
}

// Indented writes o as indented JSON (indent per level, "  " or "    ")
// ending in a newline: the layout of the files the world info, worldbook
// and card encoders write.
func Indented(o *Object, indent string) ([]byte, error) {
	raw, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", indent); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
