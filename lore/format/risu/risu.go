// Package risu reads and writes the RisuAI lorebook export {type:"risu",
// ver:1, data: loreBook[]} (docs/formats.md). Keys are one string
// split on , ， 、 ; ； and newlines and trimmed (cases BUG-10); mode
// "folder" rows are kept on their entries (conv.KeyFolderRow); alwaysActive is constant;
// insertorder is the order; RisuAI has no enabled flag, so entries are
// enabled; a field position travels in a "loregate" member and, where
// RisuAI has decorators for it, as decorator lines (position.go). Other
// fields are kept as "risu/<name>".
package risu

import (
	"bytes"
	"encoding/json"
	"strings"

	"loregate/lore"
	"loregate/lore/decorator"
	"loregate/lore/format/internal/conv"
)

const prefix = conv.PrefixRisu

// Decode reads a RisuAI export. Errors: not a JSON object, data not an array.
func Decode(fileName string, data []byte, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseFile("risu", data)
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	items, err := conv.ArrayMember(o, "data", "risu")
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	b := conv.NewBuilder(conv.KindRisu, opts)
	b.Book.Extensions = map[string]json.RawMessage{}
	conv.KeepRest(b.Book.Extensions, o, prefix, "data", conv.SettingsKey)
	if v, ok := o.Get(conv.SettingsKey); ok {
		b.SettingsExtension(v)
	}
	b.Book.Name, b.Book.NameFromFile = conv.BaseName(fileName), true
	objs := make([]*conv.Object, len(items))
	var folders conv.Folders
	for i, it := range items {
		if objs[i], err = conv.ParseObject(it); err != nil {
			continue
		}
		if key, ok := conv.IsFolderRow(objs[i]); ok {
			c, _ := objs[i].Get("comment")
			title, _ := conv.String(c)
			folders.Add(key, title, it)
		}
	}
	for i, eo := range objs {
		if eo == nil {
			b.SkipNotObject(i)
			continue
		}
		if _, ok := conv.IsFolderRow(eo); ok {
			continue // kept on its entries
		}
		b.EntryStart()
		e, c := DecodeEntry(eo)
		folders.Attach(&e, eo)
		b.AddEntry(i, e, c)
	}
	folders.Finish(&b.Report)
	book, rep := b.Finish()
	return book, rep, nil
}

// DecodeEntry converts one loreBook row.
func DecodeEntry(eo *conv.Object) (lore.Entry, conv.STCtx) {
	e := lore.NewEntry()
	var c conv.STCtx
	ext := map[string]json.RawMessage{}
	get := func(n string) json.RawMessage { v, _ := eo.Get(n); return v }
	ks, _ := conv.String(get("key"))
	var p1, p2 []conv.KeyProblem
	e.Keys, p1 = conv.CleanKeys(conv.SplitKeyString(ks))
	sel, _ := conv.Bool(get("selective"))
	if sel {
		sk, _ := conv.String(get("secondkey"))
		e.SecondaryKeys, p2 = conv.CleanKeys(conv.SplitKeyString(sk))
	}
	c.Probs = append(p1, p2...)
	// RisuAI writes decorators inline at the top of the content (docs/formats.md);
	// they stay there and act at run time.
	e.Content, _ = conv.String(get("content"))
	c.ContentNotText = conv.NotText(get("content"))
	t, _ := conv.String(get("comment"))
	e.Title, _ = conv.Title(t)
	e.Constant, _ = conv.Bool(get("alwaysActive"))
	if n, ok := conv.Int(get("insertorder")); ok {
		e.Order = n
	} else {
		e.Order = 100
	}
	e.Placement = lore.After
	decodePosition(&e, get(markerKey), &c)
	conv.KeepRest(ext, eo, prefix, "content", "comment", "alwaysActive", "insertorder", markerKey)
	e.Extensions = ext
	return e, c
}

// Encode writes book as a RisuAI export. Keys are joined with ", " (a key
// containing a separator is lost, as in RisuAI itself; docs/formats.md).
func Encode(book conv.Book) ([]byte, error) {
	o := conv.NewObject()
	o.SetValue("type", "risu")
	o.SetValue("ver", 1)
	items := make([]json.RawMessage, 0, len(book.Entries))
	written := map[string]bool{}
	for i := range book.Entries {
		e := &book.Entries[i]
		// A folder row comes back before its first entry.
		if row, ok := e.Extensions[conv.KeyFolderRow]; ok {
			if ro, err := conv.ParseObject(row); err == nil {
				if key, _ := conv.IsFolderRow(ro); !written[key] {
					written[key] = true
					items = append(items, row)
				}
			}
		}
		eo := conv.NewObject()
		key := strings.Join(e.Keys, ", ")
		if v, ok := e.Extensions[prefix+"key"]; ok {
			s, _ := conv.String(v)
			if k, _ := conv.CleanKeys(conv.SplitKeyString(s)); strings.Join(k, "\x00") == strings.Join(e.Keys, "\x00") {
				key = s
			}
		}
		eo.SetValue("key", key)
		sk := strings.Join(e.SecondaryKeys, ", ")
		if v, ok := e.Extensions[prefix+"secondkey"]; ok && len(e.SecondaryKeys) == 0 {
			sk, _ = conv.String(v)
		}
		eo.SetValue("secondkey", sk)
		eo.SetValue("comment", e.Title)
		content := json.RawMessage(conv.MustMarshal(e.Content))
		if v, ok := e.Extensions[prefix+"content"]; ok {
			if s, _ := conv.String(v); s != e.Content {
				if decorator.Body(s) == e.Content {
					// An entry stored when importers folded decorators into
					// fields: the source's header comes back.
					content = v
				}
			}
		}
		content, mark := encodePosition(e, content)
		eo.Set("content", content)
		eo.SetValue("mode", "normal")
		eo.SetValue("alwaysActive", e.Constant)
		eo.SetValue("selective", len(e.SecondaryKeys) > 0)
		eo.SetValue("insertorder", e.Order)
		conv.Rest(e.Extensions, prefix, eo, "key", "secondkey", "selective", "content", markerKey)
		if key := conv.RowFolderKey(e.Extensions[conv.KeyFolderRow]); key != "" {
			eo.SetValue("folder", key) // the folder the entry is in now
		}
		if mark != nil {
			eo.Set(markerKey, mark)
		}
		raw, _ := eo.MarshalJSON()
		items = append(items, raw)
	}
	o.SetValue("data", items)
	// The export format has no book settings: loregate's go in SettingsKey.
	o = conv.SetSettingsMember(o, conv.EncodeSettings(o, book, conv.NativeSettings{}))
	raw, _ := o.MarshalJSON()
	var buf bytes.Buffer
	_ = json.Indent(&buf, raw, "", "  ")
	return buf.Bytes(), nil
}
