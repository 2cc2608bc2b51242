package sillytavern

import (
	"encoding/json"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// cardBookFields returns the conv.KeyCard object of book: the card book
// fields ("card/<name>") world info has no field for, verbatim (the
// book's extensions without the world info fields a card kept, which
// Encode writes at the top level), and the description when world info
// has none of its own; nil when there are none, and for a card loregate
// wrote from world info (its book or an entry keeps conv.KeyWorldInfo).
func cardBookFields(book *conv.Book) json.RawMessage {
	if cardWorldInfo(book.Extensions[conv.PrefixCard+"extensions"]) != nil {
		return nil // a card loregate made from world info: its fields are the export's own
	}
	for i := range book.Entries {
		if _, fromWI := book.Entries[i].Extensions[conv.PrefixCardExt+conv.KeyWorldInfo]; fromWI {
			return nil
		}
	}
	o := conv.NewObject()
	for _, k := range conv.SortedKeys(book.Extensions) {
		n, ok := strings.CutPrefix(k, conv.PrefixCard)
		if !ok || n == "entries" || n == "description" {
			continue
		}
		v := book.Extensions[k]
		if n == "extensions" {
			if eo, err := conv.ParseObject(v); err == nil && eo.Has(conv.KeyWorldInfo) {
				v, _ = withoutMember(eo, conv.KeyWorldInfo).MarshalJSON()
			}
		}
		o.Set(n, v)
	}
	if _, own := book.Extensions[conv.PrefixST+"description"]; !own && book.Description != "" {
		o.SetValue("description", book.Description)
	}
	if o.Len() == 0 {
		return nil
	}
	out, _ := o.MarshalJSON()
	return out
}

// cardEntryFields returns the conv.KeyCard object of entry e: its card
// fields ("card/<name>": name, foreign fields, the field order, the
// extensions object with the members it had, the folder row before it)
// but those
// world info spells itself (selective, and a hybrid's mirror fields, which
// writeMirrors writes); nil when there are none; for an entry loregate
// wrote from world info only its folder row.
func cardEntryFields(e *lore.Entry) json.RawMessage {
	o := conv.NewObject()
	if _, fromWI := e.Extensions[conv.PrefixCardExt+conv.KeyWorldInfo]; fromWI {
		// An entry loregate wrote from world info: only its folder row
		// (its category, docs/workbench.md#categories).
		if row, ok := e.Extensions[conv.KeyFolderRow]; ok {
			o.Set(folderRow, row)
			out, _ := o.MarshalJSON()
			return out
		}
		return nil
	}
	var ext *conv.Object
	for _, k := range conv.SortedKeys(e.Extensions) {
		if n, ok := strings.CutPrefix(k, conv.PrefixCardExt); ok {
			if ext == nil {
				ext = conv.NewObject()
			}
			ext.Set(n, e.Extensions[k])
			continue
		}
		n, ok := strings.CutPrefix(k, conv.PrefixCard)
		if !ok || n == "selective" || isHybridName(n) {
			continue
		}
		o.Set(n, e.Extensions[k])
	}
	if ext != nil {
		raw, _ := ext.MarshalJSON()
		o.Set("extensions", raw)
	}
	if row, ok := e.Extensions[conv.KeyFolderRow]; ok {
		o.Set(folderRow, row)
	}
	if o.Len() == 0 {
		return nil
	}
	out, _ := o.MarshalJSON()
	return out
}

func isHybridName(card string) bool {
	for _, p := range hybridNames {
		if p[0] == card {
			return true
		}
	}
	return false
}

// readCardBookFields moves the conv.KeyCard member of the kept top-level
// extensions (a card -> world info export) back to the card book fields
// it came from: "card/<name>" extensions, the description the book's.
func readCardBookFields(book *conv.Book) {
	key := conv.PrefixST + "extensions"
	eo, err := conv.ParseObject(book.Extensions[key])
	if err != nil {
		return
	}
	raw, ok := eo.Get(conv.KeyCard)
	co, err := conv.ParseObject(raw)
	if !ok || err != nil {
		return
	}
	for _, f := range co.Fields {
		if f.Name == "description" {
			if s, isStr := conv.String(f.Value); isStr && book.Description == "" {
				book.Description = s
			}
		}
		book.Extensions[conv.PrefixCard+f.Name] = f.Value
	}
	book.Extensions[key], _ = withoutMember(eo, conv.KeyCard).MarshalJSON()
}

// readCardEntryFields keeps the members of an entry's conv.KeyCard object
// (co) in ext as the card fields they came from, the extensions object's
// members one by one, as the card decoder keeps them.
func readCardEntryFields(ext map[string]json.RawMessage, co *conv.Object) {
	for _, f := range co.Fields {
		if eo, err := conv.ParseObject(f.Value); err == nil && f.Name == "extensions" {
			for _, m := range eo.Fields {
				ext[conv.PrefixCardExt+m.Name] = m.Value
			}
			continue
		}
		if f.Name == folderRow {
			ext[conv.KeyFolderRow] = f.Value
			continue
		}
		ext[conv.PrefixCard+f.Name] = f.Value
	}
}

// folderRow names, in an entry's conv.KeyCard object, the RisuAI folder
// row a card's book had before the entry (conv.KeyFolderRow).
const folderRow = "_folder_row"
