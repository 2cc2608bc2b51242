package sillytavern

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// stDefaults are the values ST's newWorldInfoEntryDefinition gives fields
// that have no canonical home (docs/formats.md); Encode writes them for
// entries whose source did not carry the field.
var stDefaults = [...]conv.Field{
	{Name: "selective", Value: json.RawMessage(`true`)},
	{Name: "useProbability", Value: json.RawMessage(`true`)},
	{Name: "automationId", Value: json.RawMessage(`""`)},
}

// Defaults returns the world info fields ST fills in when a file lacks them
// with their default values (docs/formats.md), the canonical ones
// included. Tests compare exports with sources ignoring these.
func Defaults() map[string]json.RawMessage {
	m := map[string]json.RawMessage{
		"key": json.RawMessage(`[]`), "keysecondary": json.RawMessage(`[]`), "comment": json.RawMessage(`""`),
		"content": json.RawMessage(`""`), "constant": json.RawMessage(`false`), "selectiveLogic": json.RawMessage(`0`),
		"order": json.RawMessage(`100`), "position": json.RawMessage(`0`), "disable": json.RawMessage(`false`),
		"probability": json.RawMessage(`100`), "scanDepth": json.RawMessage(`null`), "caseSensitive": json.RawMessage(`null`),
		"matchWholeWords": json.RawMessage(`null`), "role": json.RawMessage(`0`), "addMemo": json.RawMessage(`false`),
		"ignoreBudget": json.RawMessage(`false`), "excludeRecursion": json.RawMessage(`false`),
		"preventRecursion": json.RawMessage(`false`), "delayUntilRecursion": json.RawMessage(`false`),
		"group": json.RawMessage(`""`), "groupOverride": json.RawMessage(`false`), "groupWeight": json.RawMessage(`100`),
		"useGroupScoring": json.RawMessage(`null`), "sticky": json.RawMessage(`null`), "cooldown": json.RawMessage(`null`),
		"delay": json.RawMessage(`null`), "vectorized": json.RawMessage(`false`), "depth": json.RawMessage(`4`), "outletName": json.RawMessage(`""`),
		"triggers": json.RawMessage(`[]`), "characterFilter": json.RawMessage(`{"isExclude":false,"names":[],"tags":[]}`),
		"matchPersonaDescription": json.RawMessage(`false`), "matchCharacterDescription": json.RawMessage(`false`),
		"matchCharacterPersonality": json.RawMessage(`false`), "matchCharacterDepthPrompt": json.RawMessage(`false`),
		"matchScenario": json.RawMessage(`false`), "matchCreatorNotes": json.RawMessage(`false`),
	}
	for _, f := range stDefaults {
		m[f.Name] = f.Value
	}
	return m
}

// Encode writes book as a SillyTavern world info file: {"entries": {"<uid>":
// entry}} with every canonical field in its ST spelling (docs/formats.md),
// every kept "st/" extension verbatim, card-sourced ST extension keys
// renamed to their world info spelling, and the kept "st/" book fields.
// Source uids are reused when unique non-negative integers; other entries
// get the smallest free uid (docs/formats.md). Channel scope and
// collection state have no field in the format (docs/contract.md#exports).
func Encode(book conv.Book) ([]byte, error) {
	top := conv.NewObject()
	entries := conv.NewObject()
	top.Set("entries", nil)
	for _, k := range conv.SortedKeys(book.Extensions) {
		if name, ok := strings.CutPrefix(k, conv.PrefixST); ok && name != "entries" {
			v := book.Extensions[k]
			if name == "name" && book.Name != "" {
				v = conv.MustMarshal(book.Name)
			}
			top.Set(name, v)
		}
	}
	// Top-level world info fields kept by a card book (world info -> CCv3
	// -> world info gives the same file).
	if wi := cardWorldInfo(book.Extensions[conv.PrefixCard+"extensions"]); wi != nil {
		for _, f := range wi.Fields {
			if !top.Has(f.Name) {
				top.Set(f.Name, f.Value)
			}
		}
	}
	// A book name from another format survives (world info has no name
	// field of its own; SillyTavern ignores it, loregate reads it back).
	if !top.Has("name") && book.Name != "" && !book.NameFromFile {
		top.SetValue("name", book.Name)
	}
	// World info has no book settings; a Chub hybrid has the card's.
	var native conv.NativeSettings
	for _, n := range []string{"scan_depth", "token_budget", "recursive_scanning"} {
		if _, ok := book.Extensions[conv.PrefixST+n]; ok {
			native = conv.CardSettings
		}
	}
	rest := conv.EncodeSettings(top, book, native)
	if ext, had := top.Get("extensions"); had || rest != nil {
		if merged, keep := conv.WithSettingsMember(ext, rest); keep || had {
			top.Set("extensions", merged)
		}
	}
	if card := cardBookFields(&book); card != nil {
		ext, _ := top.Get("extensions")
		eo, err := conv.ParseObject(ext)
		if err != nil {
			eo = conv.NewObject()
		}
		eo.Set(conv.KeyCard, card)
		raw, _ := eo.MarshalJSON()
		top.Set("extensions", raw)
	}
	used := map[int]bool{}
	uids := make([]int, len(book.Entries))
	for i, e := range book.Entries {
		uids[i] = -1
		raw, ok := e.Extensions[conv.PrefixST+"uid"]
		if !ok {
			raw, ok = e.Extensions[conv.PrefixCard+"id"]
		}
		if n, isInt := conv.Int(raw); ok && isInt && n >= 0 && !used[n] && string(bytes.TrimSpace(raw)) == strconv.Itoa(n) {
			uids[i] = n
			used[n] = true
		}
	}
	next := 0
	for i := range uids {
		if uids[i] >= 0 {
			continue
		}
		for used[next] {
			next++
		}
		uids[i] = next
		used[next] = true
	}
	order := make([]int, len(book.Entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return uids[order[a]] < uids[order[b]] })
	hybrid := hybridBook(&book)
	for _, i := range order {
		e := &book.Entries[i]
		if d := book.Settings.ScanDepth; d != nil && e.ScanDepth == nil {
			// The book's scan depth goes on every entry without its own,
			// where SillyTavern reads it (the book's settings are also in
			// extensions.loregate_settings, which SillyTavern ignores).
			c := e.Clone()
			c.ScanDepth = d
			e = &c
		}
		eo := EncodeEntry(e, uids[i], i)
		if hybrid {
			writeMirrors(eo, e)
		}
		b, _ := eo.MarshalJSON()
		entries.Set(strconv.Itoa(uids[i]), b)
	}
	eb, _ := entries.MarshalJSON()
	top.Set("entries", eb)
	return conv.Indented(top, "    ")
}

// EncodeEntry returns the world info object of e with the given uid;
// index is its position in the book (the displayIndex default).
func EncodeEntry(e *lore.Entry, uid, index int) *conv.Object {
	ext := stView(e.Extensions)
	var c conv.STCtx
	if s, ok := conv.Bool(ext["selective"]); ok {
		c.Selective = &s
	}
	if u, ok := conv.Bool(ext["useProbability"]); ok {
		c.UseProbability = &u
	}
	o := conv.NewObject()
	o.SetValue("uid", uid)
	for _, f := range conv.STFields {
		if _, kept := ext[f.Name]; !kept && conv.OmitST(f.Name, e) {
			continue
		}
		val := conv.MustMarshal(f.Enc(e))
		if shadow, ok := ext[f.Name]; ok {
			scratch := e.Clone()
			var sc = conv.STCtx{Selective: c.Selective, UseProbability: c.UseProbability}
			f.Dec(&scratch, shadow, &sc)
			if f.Eq(&scratch, e) {
				val = shadow
			}
		}
		o.Set(f.Name, val)
	}
	names := conv.SortedKeys(ext)
	for _, n := range names {
		if _, canonical := conv.STFieldByName(n); canonical || n == "uid" {
			continue
		}
		o.Set(n, ext[n])
	}
	if card := cardEntryFields(e); card != nil {
		o.Set(conv.KeyCard, card)
	}
	if !o.Has("addMemo") {
		o.SetValue("addMemo", e.Title != "")
	}
	if spacedKey(e.Keys) || spacedKey(e.SecondaryKeys) {
		o.SetValue(conv.KeyKeepSpaces, true)
	}
	if !o.Has("displayIndex") {
		o.SetValue("displayIndex", index)
	}
	for _, d := range stDefaults {
		if !o.Has(d.Name) {
			o.Set(d.Name, d.Value)
		}
	}
	if e.Probability != 100 {
		if u, ok := conv.Bool(ext["useProbability"]); ok && !u {
			if raw, has := ext["probability"]; !has || !conv.Equal(raw, conv.MustMarshal(e.Probability)) {
				o.Set("useProbability", json.RawMessage(`true`))
			}
		}
	}
	return o
}

// stView returns the world info fields kept in ext: "st/<name>" as is, and
// card-sourced extension keys ("card/extensions/<snake>") under their world
// info name when the "st/" one is absent. Unknown card extension keys go
// into an "extensions" object, as newer ST keeps them (docs/formats.md).
func stView(ext map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	var unknown *conv.Object
	for _, k := range conv.SortedKeys(ext) {
		if name, ok := strings.CutPrefix(k, conv.PrefixST); ok {
			out[name] = ext[k]
		}
	}
	for _, k := range conv.SortedKeys(ext) {
		name, ok := strings.CutPrefix(k, conv.PrefixCardExt)
		if !ok {
			continue
		}
		if wi, known := conv.WIName(name); known {
			if _, has := out[wi]; !has {
				out[wi] = ext[k]
			}
			continue
		}
		if unknown == nil {
			unknown = conv.NewObject()
		}
		unknown.Set(name, ext[k])
	}
	// A card's selective flag and the world info fields a card kept.
	if v, ok := ext[conv.PrefixCard+"selective"]; ok {
		if _, has := out["selective"]; !has {
			out["selective"] = v
		}
	}
	if wi, err := conv.ParseObject(ext[conv.PrefixCardExt+conv.KeyWorldInfo]); err == nil {
		for _, f := range wi.Fields {
			if _, has := out[f.Name]; !has {
				out[f.Name] = f.Value
			}
		}
		if unknown != nil {
			if rest := withoutMember(unknown, conv.KeyWorldInfo); rest.Len() > 0 {
				unknown = rest
			} else {
				unknown = nil
			}
		}
	}
	if unknown != nil {
		if _, has := out["extensions"]; !has {
			b, _ := unknown.MarshalJSON()
			out["extensions"] = b
		}
	}
	return out
}

// cardWorldInfo returns the KeyWorldInfo object of a card extensions value
// (or the object itself when raw is one), or nil.
func cardWorldInfo(raw json.RawMessage) *conv.Object {
	if raw == nil {
		return nil
	}
	o, err := conv.ParseObject(raw)
	if err != nil {
		return nil
	}
	if v, ok := o.Get(conv.KeyWorldInfo); ok {
		if wi, err := conv.ParseObject(v); err == nil {
			return wi
		}
		return nil
	}
	return nil
}

func withoutMember(o *conv.Object, name string) *conv.Object {
	out := conv.NewObject()
	for _, f := range o.Fields {
		if f.Name != name {
			out.Set(f.Name, f.Value)
		}
	}
	return out
}

// spacedKey reports whether a key has surrounding spaces (EncodeEntry then
// writes conv.KeyKeepSpaces so that reading the file back keeps them).
func spacedKey(keys []string) bool {
	for _, k := range keys {
		if strings.TrimSpace(k) != k {
			return true
		}
	}
	return false
}
