package conv

import (
	"encoding/json"
	"maps"

	"loregate/lore"
)

// KeepRest stores every member of eo not named in used under prefix+name.
func KeepRest(ext map[string]json.RawMessage, eo *Object, prefix string, used ...string) {
	for _, f := range eo.Fields {
		skip := false
		for _, u := range used {
			if f.Name == u {
				skip = true
				break
			}
		}
		if !skip {
			ext[prefix+f.Name] = f.Value
		}
	}
}

// Rest returns the kept members under prefix as an ordered object (sorted
// by name) for an encoder, skipping the names in skip.
func Rest(ext map[string]json.RawMessage, prefix string, o *Object, skip ...string) {
	for _, k := range SortedKeys(ext) {
		if len(k) <= len(prefix) || k[:len(prefix)] != prefix {
			continue
		}
		n := k[len(prefix):]
		drop := o.Has(n)
		for _, s := range skip {
			if s == n {
				drop = true
			}
		}
		if !drop {
			o.Set(n, ext[k])
		}
	}
}

// Items returns the elements of a JSON array, or nil.
func Items(raw json.RawMessage) []json.RawMessage {
	var arr []json.RawMessage
	_ = json.Unmarshal(raw, &arr)
	return arr
}

// BookSetting reads a book-level field shared by world info files and card
// books: name and description fill the book; scan_depth, token_budget and
// recursive_scanning fill the book's Settings (BookSettingValue with
// CardSettings). Other names are left alone. The caller keeps the raw value
// in the book's extensions either way.
func (b *Builder) BookSetting(name string, value json.RawMessage) {
	switch name {
	case "name":
		if s, ok := String(value); ok {
			b.Book.Name = s
		}
	case "description":
		if s, ok := String(value); ok {
			b.Book.Description = s
		}
	case "extensions":
		b.SettingsInExtensions(value)
	default:
		b.BookSettingValue(CardSettings, name, value)
	}
}

// AddEntry runs the common tail of an entry decoder: warnings, missing
// enabled, Add and collapsed placement.
func (b *Builder) AddEntry(i int, e lore.Entry, c STCtx) {
	if c.MissingEnabled {
		b.MissingEnabled()
	}
	for _, n := range c.Notices {
		params := maps.Clone(n.Params)
		if params == nil {
			params = map[string]any{}
		}
		params["index"] = i
		b.Report.Notef(n.Reason, params)
	}
	before := len(b.Book.Entries)
	b.contentNotText = c.ContentNotText
	b.Add(i, e, c.Probs...)
	b.contentNotText = ""
	added := len(b.Book.Entries) > before
	if !added {
		// The report counts ignored settings of imported entries only:
		// drop what decoding this entry counted (since EntryStart).
		if b.entryMark != nil {
			b.Report.IgnoredSettings = b.entryMark
		}
	} else {
		for _, name := range c.Ignored {
			b.Report.Ignore(name)
		}
	}
	b.entryMark = nil
	if added && c.Collapsed {
		b.Report.CollapsedPlacements++
	}
}

// EntryStart marks the start of decoding one entry: ignored settings the
// decoder counts from here are dropped again if AddEntry skips the entry.
func (b *Builder) EntryStart() {
	b.entryMark = make(map[string]int, len(b.Report.IgnoredSettings))
	for k, v := range b.Report.IgnoredSettings {
		b.entryMark[k] = v
	}
}
