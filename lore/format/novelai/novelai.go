// Package novelai reads and writes NovelAI lorebooks: the .lorebook file
// ({lorebookVersion, entries, settings, categories}) and the lorebook inside
// a .scenario (field lorebook) or .story (content.lorebook) (docs/formats.md).
// Keys keep their spaces: a leading space is meaningful.
// Mapping: text = content, displayName = title, forceActivation = constant,
// contextConfig.budgetPriority = priority and order (docs/formats.md),
// enabled missing = enabled with a warning. searchRange counts characters,
// not messages, so it is kept and reported, never converted.
package novelai

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

const prefix = conv.PrefixNovelAI

// Decode reads a .lorebook, .scenario or .story. Errors: not a JSON object,
// no lorebook found, entries not an array.
func Decode(fileName string, data []byte, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseFile("novelai", data)
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	b := conv.NewBuilder(conv.KindNovelAI, opts)
	b.Book.Extensions = map[string]json.RawMessage{}
	lb := o
	if raw, ok := o.Get("lorebook"); ok && o.Has("scenarioVersion") {
		if lb, err = conv.ParseObject(raw); err != nil {
			return conv.Book{}, conv.Report{}, errors.New("novelai: scenario field lorebook is not an object")
		}
		b.Book.Extensions[prefix+"container"] = conv.MustMarshal("scenario")
		if t, ok := o.Get("title"); ok {
			b.Book.Name, _ = conv.String(t)
		}
	} else if raw, ok := o.Get("content"); ok && o.Has("storyContainerVersion") {
		c, err := conv.ParseObject(raw)
		if err == nil {
			raw, ok = c.Get("lorebook")
		}
		if err != nil || !ok {
			return conv.Book{}, conv.Report{}, errors.New("novelai: story has no content.lorebook")
		}
		if lb, err = conv.ParseObject(raw); err != nil {
			return conv.Book{}, conv.Report{}, errors.New("novelai: story content.lorebook is not an object")
		}
		b.Book.Extensions[prefix+"container"] = conv.MustMarshal("story")
	}
	rawEntries, _ := lb.Get("entries")
	var items []json.RawMessage
	if !conv.IsNull(rawEntries) && json.Unmarshal(rawEntries, &items) != nil {
		return conv.Book{}, conv.Report{}, errors.New("novelai: field entries is not an array")
	}
	conv.KeepRest(b.Book.Extensions, lb, prefix, "entries")
	b.NameFromFile(fileName)
	book, rep := b.DecodeEach(items, DecodeEntry)
	return book, rep, nil
}

// DecodeEntry converts one NovelAI entry.
func DecodeEntry(eo *conv.Object, rep *conv.Report) (lore.Entry, conv.STCtx) {
	e := lore.NewEntry()
	var c conv.STCtx
	ext := map[string]json.RawMessage{}
	get := func(n string) json.RawMessage { v, _ := eo.Get(n); return v }
	e.Content, _ = conv.String(get("text"))
	t, _ := conv.String(get("displayName"))
	e.Title, _ = conv.Title(t)
	keys, _ := conv.Strings(get("keys"))
	e.Keys, c.Probs = conv.CleanKeys(keys)
	if e.Keys == nil {
		e.Keys = []string{}
	}
	conv.Shadow(ext, prefix+"keys", get("keys"), e.Keys)
	if en, ok := conv.Bool(get("enabled")); ok {
		e.Enabled = en
	} else {
		c.MissingEnabled = true
	}
	e.Constant, _ = conv.Bool(get("forceActivation"))
	e.Placement = lore.After
	// NovelAI's default budgetPriority is 400 (docs/formats.md).
	e.Priority, e.Order = 400, 400
	if cc, err := conv.ParseObject(get("contextConfig")); err == nil {
		if n, ok := conv.Int(func() json.RawMessage { v, _ := cc.Get("budgetPriority"); return v }()); ok {
			e.Priority, e.Order = n, n
		}
	}
	if v, _ := conv.Bool(get("keyRelative")); v {
		rep.Ignore("key relative")
	}
	if v, _ := conv.Bool(get("nonStoryActivatable")); v {
		rep.Ignore("recursion")
	}
	if len(conv.Items(get("loreBiasGroups"))) > 0 {
		rep.Ignore("bias groups")
	}
	if n, ok := conv.Int(get("searchRange")); ok && n != 1000 {
		rep.Ignore("search range")
	}
	conv.KeepRest(ext, eo, prefix, "text", "displayName", "keys", "enabled", "forceActivation")
	e.Extensions = ext
	return e, c
}

// Encode writes book as a .lorebook (version 6 when the book has none):
// kept fields verbatim plus text, displayName, keys, enabled and
// forceActivation; contextConfig.budgetPriority is set from Priority.
func Encode(book conv.Book) ([]byte, error) {
	o := conv.NewObject()
	o.SetValue("lorebookVersion", 6)
	entries := make([]json.RawMessage, len(book.Entries))
	for i := range book.Entries {
		e := &book.Entries[i]
		eo := conv.NewObject()
		eo.SetValue("text", e.Content)
		eo.SetValue("displayName", e.Title)
		keys := json.RawMessage(conv.MustMarshal(conv.NonNil(e.Keys)))
		if v, ok := e.Extensions[prefix+"keys"]; ok {
			k, _ := conv.Strings(v)
			if kept, _ := conv.CleanKeys(k); slices.Equal(kept, e.Keys) {
				keys = v
			}
		}
		eo.Set("keys", keys)
		eo.SetValue("enabled", e.Enabled)
		eo.SetValue("forceActivation", e.Constant)
		cc := conv.NewObject()
		if v, ok := e.Extensions[prefix+"contextConfig"]; ok {
			if p, err := conv.ParseObject(v); err == nil {
				cc = p
			}
		}
		cc.SetValue("budgetPriority", e.Priority)
		ccb, _ := cc.MarshalJSON()
		eo.Set("contextConfig", ccb)
		conv.Rest(e.Extensions, prefix, eo, "keys", "container")
		entries[i], _ = eo.MarshalJSON()
	}
	o.SetValue("entries", entries)
	conv.Rest(book.Extensions, prefix, o, "container")
	raw, _ := o.MarshalJSON()
	var buf bytes.Buffer
	_ = json.Indent(&buf, raw, "", "  ")
	return buf.Bytes(), nil
}
