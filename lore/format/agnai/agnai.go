// Package agnai reads and writes the Agnai memory book {kind:"memory", name,
// description, entries[{name, entry, keywords[], priority, weight,
// enabled}]} (docs/formats.md). Agnai has no Always On: an exported Always
// On entry carries {"loregate": {"constant": true}}, read back as Always
// On; an Agnai entry without keywords and without the marker is inert. keywords is an array and is never re-split;
// Agnai always matches whole words case-insensitively, so imported entries
// get WholeWords = true and CaseSensitive = false. weight is the order,
// priority the budget priority. Other fields are kept as "agnai/<name>".
package agnai

import (
	"bytes"
	"encoding/json"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
	"loregate/lore/i18n"
)

const prefix = conv.PrefixAgnai

// Decode reads a memory book. Errors: not a JSON object, entries not an array.
func Decode(fileName string, data []byte, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseFile("agnai", data)
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	items, err := conv.ArrayMember(o, "entries", "agnai")
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	b := conv.NewBuilder(conv.KindAgnai, opts)
	b.Book.Extensions = map[string]json.RawMessage{}
	conv.KeepRest(b.Book.Extensions, o, prefix, "entries", "name", "description")
	for _, f := range o.Fields {
		if f.Name == conv.SettingsKey {
			b.SettingsExtension(f.Value)
		} else {
			b.BookSettingValue(conv.AgnaiSettings, f.Name, f.Value)
		}
	}
	n, _ := o.Get("name")
	b.Book.Name, _ = conv.String(n)
	d, _ := o.Get("description")
	b.Book.Description, _ = conv.String(d)
	b.NameFromFile(fileName)
	for i, it := range items {
		eo, ok := b.EntryObject(i, it)
		if !ok {
			continue
		}
		e := lore.NewEntry()
		var c conv.STCtx
		get := func(n string) json.RawMessage { v, _ := eo.Get(n); return v }
		t, _ := conv.String(get("name"))
		e.Title, _ = conv.Title(t)
		e.Content, _ = conv.String(get("entry"))
		kw, ok := conv.Strings(get("keywords"))
		if !ok {
			if s, isStr := conv.String(get("keywords")); isStr {
				kw = conv.SplitKeyString(s)
			}
		}
		// Agnai gives surrounding spaces no meaning (it trims keywords when
		// matching), so the importer trims them; the engine never trims
		// (NovelAI's leading space is meaningful). Case BUG-08a.
		for i := range kw {
			kw[i] = strings.TrimSpace(kw[i])
		}
		e.Keys, c.Probs = conv.CleanKeys(kw)
		if p, ok := conv.Int(get("priority")); ok {
			e.Priority = p
		}
		e.Order = 100
		if w, ok := conv.Int(get("weight")); ok {
			e.Order = w
		}
		if en, ok := conv.Bool(get("enabled")); ok {
			e.Enabled = en
		} else {
			c.MissingEnabled = true
		}
		yes, no := true, false
		e.WholeWords, e.CaseSensitive = &yes, &no
		e.Placement = lore.After
		e.Constant = markedConstant(get(markerKey))
		ext := map[string]json.RawMessage{}
		conv.KeepRest(ext, eo, prefix, "name", "entry", "priority", "weight", "enabled", markerKey)
		e.Extensions = ext
		b.AddEntry(i, e, c)
	}
	book, rep := b.Finish()
	return book, rep, nil
}

// markerKey is the member of an Agnai entry in which loregate marks an
// Always On entry ({"constant": true}): Agnai has no such field, and an
// entry without keywords is inert there (docs/formats.md "Agnai").
const markerKey = "loregate"

// markedConstant reports whether raw is a marker object with constant true.
func markedConstant(raw json.RawMessage) bool {
	var m struct {
		Constant bool `json:"constant"`
	}
	return json.Unmarshal(raw, &m) == nil && m.Constant
}

// AlwaysOnNotes returns the report notice of an export to Agnai of a book
// with Always On entries (nil when it has none): Agnai keeps them only as
// loregate's marker and will not treat them as always on.
func AlwaysOnNotes(book conv.Book) []conv.Notice {
	n := 0
	for _, e := range book.Entries {
		if e.Constant {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if n == 1 {
		return []conv.Notice{{Reason: i18n.ReportAgnaiAlwaysOnOne}}
	}
	return []conv.Notice{{Reason: i18n.ReportAgnaiAlwaysOn, Params: map[string]any{"count": n}}}
}

// Encode writes book as an Agnai memory book; Always On entries carry
// loregate's marker (markerKey).
func Encode(book conv.Book) ([]byte, error) {
	o := conv.NewObject()
	o.SetValue("kind", "memory")
	o.SetValue("name", book.Name)
	o.SetValue("description", book.Description)
	items := make([]json.RawMessage, len(book.Entries))
	for i := range book.Entries {
		e := &book.Entries[i]
		eo := conv.NewObject()
		eo.SetValue("name", e.Title)
		eo.SetValue("entry", e.Content)
		keys := e.Keys
		if keys == nil {
			keys = []string{}
		}
		eo.SetValue("keywords", keys)
		eo.SetValue("priority", e.Priority)
		eo.SetValue("weight", e.Order)
		eo.SetValue("enabled", e.Enabled)
		if e.Constant {
			eo.Set(markerKey, json.RawMessage(`{"constant":true}`))
		}
		conv.Rest(e.Extensions, prefix, eo, "keywords", markerKey)
		items[i], _ = eo.MarshalJSON()
	}
	o.SetValue("entries", items)
	conv.Rest(book.Extensions, prefix, o, "kind")
	o = conv.SetSettingsMember(o, conv.EncodeSettings(o, book, conv.AgnaiSettings))
	raw, _ := o.MarshalJSON()
	var buf bytes.Buffer
	_ = json.Indent(&buf, raw, "", "  ")
	return buf.Bytes(), nil
}
