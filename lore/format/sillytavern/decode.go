// Package sillytavern reads and writes SillyTavern world info files
// (worlds/<name>.json: {"entries": {"<uid>": entry}} or an entries array)
// and reads the Chub/Venus hybrid lorebook that carries both the card and
// the world info spellings (docs/formats.md).
//
// Canonical fields are read from their world info spelling (docs/formats.md);
// every other entry field is kept verbatim in Entry.Extensions under
// "st/<field>", and the source value of a canonical field is kept there too
// when the canonical value is a lossy reading of it (for example position 4
// collapsed to "before"), so Encode gives back the source file.
package sillytavern

import (
	"encoding/json"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
	"loregate/lore/i18n"
)

// Looks reports whether o has the world info shape: an entries object whose
// members are objects with key or uid, or an entries array of such objects
// (docs/formats.md).
func Looks(o *conv.Object) bool {
	raw, ok := o.Get("entries")
	if !ok {
		return false
	}
	first, ok := firstEntry(raw)
	if !ok {
		// An empty entries object is a valid (empty) world info book.
		return strings.HasPrefix(strings.TrimSpace(string(raw)), "{")
	}
	return first.Has("key") || first.Has("uid") || first.Has("keysecondary") || first.Has("disable")
}

// IsHybrid reports whether o is the Chub/Venus hybrid: book fields of a
// card book (is_creation, scan_depth, token_budget) and entries carrying
// both keys and key (docs/formats.md).
func IsHybrid(o *conv.Object) bool {
	if !(o.Has("is_creation") || o.Has("scan_depth") || o.Has("token_budget")) {
		return false
	}
	raw, _ := o.Get("entries")
	first, ok := firstEntry(raw)
	return ok && first.Has("keys") && first.Has("key")
}

func firstEntry(raw json.RawMessage) (*conv.Object, bool) {
	// Fast path: the first member is an object (one scan of it, not of the
	// whole book).
	if v, ok := conv.FirstValue(raw); ok {
		if e, err := conv.ParseObject(v); err == nil {
			return e, true
		}
	}
	if o, err := conv.ParseObject(raw); err == nil {
		for _, f := range o.Fields {
			if e, err := conv.ParseObject(f.Value); err == nil {
				return e, true
			}
		}
		return nil, false
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil, false
	}
	for _, it := range arr {
		if e, err := conv.ParseObject(it); err == nil {
			return e, true
		}
	}
	return nil, false
}

// hybridNames maps the card spellings of a hybrid entry to the world info
// fields they replace. The card spelling wins (docs/formats.md).
var hybridNames = [...][2]string{
	{"keys", "key"},
	{"secondary_keys", "keysecondary"},
	{"insertion_order", "order"},
	{"enabled", "disable"},
	{"case_sensitive", "caseSensitive"},
	{"id", "uid"},
}

// Decode converts a world info file (or a Chub hybrid, when hybrid is true)
// into a book. fileName (may be "") names the book when the file has no
// name. Errors: the data is not a JSON object, or entries is missing or
// neither an object nor an array.
func Decode(fileName string, data []byte, hybrid bool, opts conv.Options) (conv.Book, conv.Report, error) {
	kind := conv.KindSTWorldInfo
	if hybrid {
		kind = conv.KindChubHybrid
	}
	o, err := conv.ParseFile("world info", data)
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	items, err := conv.EntryValues(o, "world info")
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}

	b := conv.NewBuilder(kind, opts)
	b.Book.Extensions = map[string]json.RawMessage{}
	for _, f := range o.Fields {
		switch f.Name {
		case "entries":
			continue
		default:
			b.BookSetting(f.Name, f.Value)
		}
		b.Book.Extensions[conv.PrefixST+f.Name] = f.Value
	}
	b.NameFromFile(fileName)
	readCardBookFields(&b.Book)
	for i, it := range items {
		eo, ok := b.EntryObject(i, it)
		if !ok {
			continue
		}
		if !hybrid && cardSpelling(eo) {
			b.Report.Notef(i18n.ReportCardSpelledKeys, map[string]any{"index": i})
		}
		if hybrid || cardSpelling(eo) {
			eo = fromHybrid(eo)
		}
		b.EntryStart()
		e, c := DecodeEntry(eo, &b.Report)
		b.AddEntry(i, e, c)
	}
	book, rep := b.Finish()
	if d := book.Settings.ScanDepth; d != nil {
		// An entry scan depth equal to the book's is the book's, written on
		// each entry by Encode: it inherits again.
		for i := range book.Entries {
			if e := &book.Entries[i]; e.ScanDepth != nil && *e.ScanDepth == *d {
				e.ScanDepth = nil
			}
		}
	}
	return book, rep, nil
}

// cardSpelling reports whether a world info entry carries its keys only in
// the card spelling (keys, secondary_keys), as some editors write them (case
// BUG-37): it is read like a hybrid entry.
func cardSpelling(eo *conv.Object) bool {
	return (eo.Has("keys") && !eo.Has("key")) || (eo.Has("secondary_keys") && !eo.Has("keysecondary"))
}

// fromHybrid rewrites a hybrid entry into world info spelling: card fields
// replace their world info twins, which are kept (under the world info
// name, as a source value) only when they disagree; card fields are kept
// as "card/<name>".
func fromHybrid(eo *conv.Object) *conv.Object {
	out := conv.NewObject()
	cardVals := map[string]json.RawMessage{}
	for _, p := range hybridNames {
		if v, ok := eo.Get(p[0]); ok {
			cardVals[p[1]] = v
		}
	}
	for _, f := range eo.Fields {
		isCard := false
		for _, p := range hybridNames {
			if f.Name == p[0] {
				isCard = true
			}
		}
		if isCard {
			out.Set("\x00card/"+f.Name, f.Value)
			continue
		}
		out.Set(f.Name, f.Value)
	}
	for st, v := range cardVals {
		if st == "disable" {
			if en, ok := conv.Bool(v); ok {
				v = conv.MustMarshal(!en)
			}
		}
		if old, ok := out.Get(st); ok && !conv.Equal(old, v) {
			out.Set("\x00st/"+st, old)
		}
		out.Set(st, v)
	}
	return out
}

// DecodeEntry converts one world info entry object. Canonical fields come
// from their ST spelling; all other members go to Extensions as
// "st/<name>"; settings without destination are counted in rep.
func DecodeEntry(eo *conv.Object, rep *conv.Report) (lore.Entry, conv.STCtx) {
	e := lore.NewEntry()
	ext := map[string]json.RawMessage{}
	var c conv.STCtx
	if v, ok := eo.Get("selective"); ok {
		if s, ok := conv.Bool(v); ok {
			c.Selective = &s
		}
	}
	if v, ok := eo.Get("useProbability"); ok {
		if s, ok := conv.Bool(v); ok {
			c.UseProbability = &s
		}
	}
	if v, ok := eo.Get(conv.KeyKeepSpaces); ok {
		c.KeepKeySpaces, _ = conv.Bool(v)
	}
	canonical := map[string]bool{}
	for _, f := range conv.STFields {
		canonical[f.Name] = true
		raw, _ := eo.Get(f.Name)
		f.Dec(&e, raw, &c)
		conv.Shadow(ext, conv.PrefixST+f.Name, raw, f.Enc(&e))
	}
	for _, f := range eo.Fields {
		if canonical[f.Name] {
			continue
		}
		if strings.HasPrefix(f.Name, "\x00") { // hybrid bookkeeping
			ext[f.Name[1:]] = f.Value
			continue
		}
		if co, err := conv.ParseObject(f.Value); err == nil && f.Name == conv.KeyCard {
			readCardEntryFields(ext, co) // card fields a card -> world info export kept
			continue
		}
		ext[conv.PrefixST+f.Name] = f.Value
		if name := conv.IgnoredSTSetting(f.Name, f.Value); name != "" && rep != nil {
			rep.Ignore(name)
		}
	}
	e.Extensions = ext
	// SillyTavern gives the budget to high order first; world info has no
	// priority of its own (docs/formats.md "Budget order").
	e.SetPriorityFromOrder()
	return e, c
}
