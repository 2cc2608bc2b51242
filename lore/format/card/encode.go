package card

import (
	"encoding/json"
	"strings"

	"loregate/lore"
	"loregate/lore/decorator"
	"loregate/lore/format/internal/conv"
)

// EncodeCharacterBook writes book as a V2 character_book object: the V2
// entry fields, and the SillyTavern entry fields in extensions in the
// spelling ST writes (snake_case except selectiveLogic and useProbability;
// docs/formats.md). Kept "card/" fields come back verbatim.
func EncodeCharacterBook(book conv.Book) ([]byte, error) {
	o := bookObject(book, false, true)
	return conv.Indented(o, "  ")
}

// EncodeCharacterBookV3 writes book as the character_book of a V3 card:
// EncodeCharacterBook's object with each entry's use_regex (docs/formats.md).
func EncodeCharacterBookV3(book conv.Book) ([]byte, error) {
	return conv.Indented(bookObject(book, true, true), "  ")
}

// EncodeLorebookV3 writes book as a standalone CCv3 lorebook,
// {spec:"lorebook_v3", data: book}, each entry with use_regex (docs/formats.md).
// use_regex is the source value when kept, else true only when every
// key has the /pattern/flags shape.
func EncodeLorebookV3(book conv.Book) ([]byte, error) {
	o := conv.NewObject()
	o.SetValue("spec", "lorebook_v3")
	d, _ := bookObject(book, true, false).MarshalJSON()
	o.Set("data", d)
	return conv.Indented(o, "  ")
}

// bookObject writes the character_book object. A card-sourced book is
// written with the fields its source had (a name only when it had one: a
// card's book without a name is the character's; standalone, a name the
// file did not hold is not added); a book from another format always gets
// its name, the file-derived one too. An extensions object is added only to books that did not
// come from a card without one.
func bookObject(book conv.Book, v3, inCard bool) *conv.Object {
	o := conv.NewObject()
	fromCard := false
	for k := range book.Extensions {
		if strings.HasPrefix(k, conv.PrefixCard) {
			fromCard = true
			break
		}
	}
	for i := 0; i < len(book.Entries) && !fromCard; i++ {
		_, fromCard = book.Entries[i].Extensions[conv.PrefixCard+"_fields"]
	}
	// A book from another format always carries its name, the file-derived
	// one too (BUG-55: apps that import the export may require a name); a
	// card's book gets back the name field only where its source had one.
	if _, had := book.Extensions[conv.PrefixCard+"name"]; had || !fromCard || !inCard && !book.NameFromFile {
		o.SetValue("name", book.Name)
	}
	if book.Description != "" {
		o.SetValue("description", book.Description)
	}
	for _, k := range conv.SortedKeys(book.Extensions) {
		if n, ok := strings.CutPrefix(k, conv.PrefixCard); ok && n != "name" && n != "description" && n != "entries" {
			o.Set(n, book.Extensions[k])
		}
	}
	if wi := worldInfoTop(book); wi != nil {
		ext, _ := o.Get("extensions")
		eo, err := conv.ParseObject(ext)
		if err != nil {
			eo = conv.NewObject()
		}
		eo.Set(conv.KeyWorldInfo, wi)
		raw, _ := eo.MarshalJSON()
		o.Set("extensions", raw)
	}
	rest := conv.EncodeSettings(o, book, conv.CardSettings)
	if ext, had := o.Get("extensions"); had || rest != nil {
		merged, _ := conv.WithSettingsMember(ext, rest)
		o.Set("extensions", merged)
	}
	if !o.Has("extensions") && !fromCard {
		o.Set("extensions", json.RawMessage(`{}`))
	}
	entries := make([]json.RawMessage, 0, len(book.Entries))
	written := map[string]bool{}
	for i := range book.Entries {
		// A RisuAI folder row comes back before its first entry.
		if row, ok := book.Entries[i].Extensions[conv.KeyFolderRow]; ok {
			if key := folderKey(row); key != "" && !written[key] {
				written[key] = true
				entries = append(entries, row)
			}
		}
		raw, _ := EncodeEntry(&book.Entries[i], i, v3).MarshalJSON()
		entries = append(entries, raw)
	}
	o.SetValue("entries", entries)
	return o
}

// stCardExtOrder is the order in which ST writes entry extensions.
var stCardExtOrder = [...]string{"position", "exclude_recursion", "display_index", "probability", "useProbability",
	"depth", "selectiveLogic", "group", "group_override", "group_weight", "prevent_recursion", "delay_until_recursion",
	"scan_depth", "match_whole_words", "use_group_scoring", "case_sensitive", "automation_id", "role", "vectorized",
	"sticky", "cooldown", "delay"}

// EncodeEntry returns the card object of e; index is its position (the id
// when no source id is kept).
func EncodeEntry(e *lore.Entry, index int, v3 bool) *conv.Object {
	ext := e.Extensions
	card := func(n string) (json.RawMessage, bool) { v, ok := ext[conv.PrefixCard+n]; return v, ok }
	// consistent returns the kept source value when decoding it gives the
	// current canonical value, else the canonical encoding.
	consistent := func(n string, canonical any, same func(json.RawMessage) bool) json.RawMessage {
		if v, ok := card(n); ok && same(v) {
			return v
		}
		return conv.MustMarshal(canonical)
	}
	o := conv.NewObject()
	var fields []string
	if raw, ok := card("_fields"); ok {
		_ = json.Unmarshal(raw, &fields)
	}
	for _, f := range fields {
		o.Set(f, nil) // placeholders keep the source order
	}
	var c conv.STCtx
	sel := len(e.SecondaryKeys) > 0
	if v, ok := card("selective"); ok {
		if b, isB := conv.Bool(v); isB && (b || !sel) {
			sel = b
		}
	} else if v, ok := ext[conv.PrefixST+"selective"]; ok {
		if b, isB := conv.Bool(v); isB && (b || !sel) {
			sel = b
		}
	} else if !sel {
		sel = true
	}
	c.Selective = &sel
	keysF, _ := conv.STFieldByName("key")
	secF, _ := conv.STFieldByName("keysecondary")
	sameVia := func(f conv.STField) func(json.RawMessage) bool {
		return func(v json.RawMessage) bool {
			s := e.Clone()
			cc := conv.STCtx{Selective: c.Selective}
			f.Dec(&s, v, &cc)
			return f.Eq(&s, e)
		}
	}
	o.Set("keys", consistent("keys", keysF.Enc(e), sameVia(keysF)))
	o.Set("content", consistent("content", e.Content, func(v json.RawMessage) bool {
		s, _ := conv.String(v)
		// An entry stored when importers folded decorators into fields
		// gets the source's header back.
		return s == e.Content || decorator.Body(s) == e.Content
	}))
	o.Set("extensions", entryExtensions(e))
	o.Set("enabled", consistent("enabled", e.Enabled, func(v json.RawMessage) bool { b, ok := conv.Bool(v); return ok && b == e.Enabled }))
	o.Set("insertion_order", consistent("insertion_order", e.Order, func(v json.RawMessage) bool { n, ok := conv.Int(v); return ok && n == e.Order }))
	if _, had := card("case_sensitive"); had || e.CaseSensitive != nil || o.Has("case_sensitive") {
		o.Set("case_sensitive", consistent("case_sensitive", e.CaseSensitive, func(v json.RawMessage) bool {
			b, ok := conv.Bool(v)
			return (!ok && e.CaseSensitive == nil) || (ok && e.CaseSensitive != nil && b == *e.CaseSensitive)
		}))
	}
	if o.Has("name") {
		if v, ok := card("name"); ok {
			o.Set("name", v)
		}
	}
	if o.Has("priority") || e.Priority != lore.DefaultPriority && !e.PriorityFollowsOrder() {
		o.Set("priority", consistent("priority", e.Priority, func(v json.RawMessage) bool { n, ok := conv.Int(v); return ok && n == e.Priority }))
	}
	if v, ok := card("id"); ok {
		o.Set("id", v)
	} else if v, ok := ext[conv.PrefixST+"uid"]; ok {
		o.Set("id", v)
	} else {
		o.SetValue("id", index)
	}
	o.Set("comment", consistent("comment", e.Title, func(v json.RawMessage) bool {
		s, _ := conv.String(v)
		if s == "" {
			n, _ := card("name")
			s, _ = conv.String(n)
		}
		t, _ := conv.Title(s)
		return t == e.Title
	}))
	o.SetValue("selective", sel)
	o.Set("secondary_keys", consistent("secondary_keys", secF.Enc(e), sameVia(secF)))
	o.SetValue("constant", e.Constant)
	o.Set("position", consistent("position", placementString(e.Placement), func(v json.RawMessage) bool {
		var cc conv.STCtx
		return DecPosition(v, ext[conv.PrefixCardExt+"position"], &cc) == e.PositionKindOrDerived()
	}))
	if v, ok := card("use_regex"); ok {
		o.Set("use_regex", v)
	} else if _, fromCard := card("_fields"); (v3 && !fromCard) || o.Has("use_regex") {
		// A card entry gets use_regex only when its source had it.
		o.SetValue("use_regex", allRegex(e.Keys))
	}
	for k, v := range ext {
		n, ok := strings.CutPrefix(k, conv.PrefixCard)
		if !ok || strings.HasPrefix(n, "extensions/") || n == "_fields" || o.Has(n) && o.Fields[indexOf(o, n)].Value != nil {
			continue
		}
		if n == "extensions" {
			continue
		}
		o.Set(n, v)
	}
	if key := folderKey(ext[conv.KeyFolderRow]); key != "" {
		o.SetValue("folder", key) // the folder the entry is in now
	}
	// Drop placeholders of fields that were not written.
	out := conv.NewObject()
	for _, f := range o.Fields {
		if f.Value != nil {
			out.Set(f.Name, f.Value)
		}
	}
	return out
}

func indexOf(o *conv.Object, name string) int {
	for i, f := range o.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func allRegex(keys []string) bool {
	if len(keys) == 0 {
		return false
	}
	for _, k := range keys {
		if isRegex, _ := lore.CheckRegexKey(k); !isRegex {
			return false
		}
	}
	return true
}

// entryExtensions builds the extensions object: kept card extension keys
// verbatim (canonical ones only while still consistent), then ST fields
// from a world info source under their card spelling, then the canonical
// fields ST always writes.
func entryExtensions(e *lore.Entry) json.RawMessage {
	x := &extEncoder{e: e, ext: e.Extensions, o: conv.NewObject()}
	if u, ok := conv.Bool(firstOf(x.ext, "useProbability")); ok {
		x.c.UseProbability = &u
	}
	x.keptCardKeys()
	x.keptSTKeys()
	// A card-sourced entry gets only the fields its source had, plus those
	// whose canonical value changed from the value of an absent field; other
	// entries get every field ST writes (docs/formats.md).
	_, fromCard := x.ext[conv.PrefixCard+"_fields"]
	fromST := x.worldInfoRest()
	x.canonical(fromCard || fromST) // only the fields the source had
	// Order like ST, then the rest.
	out := conv.NewObject()
	for _, n := range stCardExtOrder {
		if v, ok := x.o.Get(n); ok {
			out.Set(n, v)
		}
	}
	for _, f := range x.o.Fields {
		if !out.Has(f.Name) {
			out.Set(f.Name, f.Value)
		}
	}
	b, _ := out.MarshalJSON()
	return b
}

// extEncoder is the state of entryExtensions: the entry, its kept
// extensions and the object being built.
type extEncoder struct {
	e   *lore.Entry
	ext map[string]json.RawMessage
	c   conv.STCtx
	o   *conv.Object
}

// canonicalOK reports whether raw, as the value of world info field wi,
// still decodes to the entry's canonical value (true for a field that is
// not canonical).
func (x *extEncoder) canonicalOK(wi string, raw json.RawMessage) bool {
	e := x.e
	f, ok := conv.STFieldByName(wi)
	if !ok {
		return true
	}
	if wi == "position" {
		var cc conv.STCtx
		// The top-level position string is written too: the kept
		// source value, else the canonical one.
		pos, ok := x.ext[conv.PrefixCard+"position"]
		if !ok {
			pos = conv.MustMarshal(placementString(e.Placement))
		}
		return DecPosition(pos, raw, &cc) == e.PositionKindOrDerived()
	}
	s := e.Clone()
	cc := conv.STCtx{UseProbability: x.c.UseProbability}
	f.Dec(&s, raw, &cc)
	return f.Eq(&s, e)
}

// encodeWI is the canonical value of world info field wi.
func (x *extEncoder) encodeWI(wi string) json.RawMessage {
	f, _ := conv.STFieldByName(wi)
	return conv.MustMarshal(f.Enc(x.e))
}

// has reports whether the object holds the card extension field snake
// under any spelling.
func (x *extEncoder) has(snake string) bool {
	for _, f := range x.o.Fields {
		if wi, ok := conv.WIName(f.Name); ok {
			if s, _ := conv.CardExtName(wi); s == snake {
				return true
			}
		}
	}
	return false
}

// keptCardKeys sets the kept card extension keys, canonical ones
// re-encoded when no longer consistent.
func (x *extEncoder) keptCardKeys() {
	for _, k := range conv.SortedKeys(x.ext) {
		n, ok := strings.CutPrefix(k, conv.PrefixCardExt)
		if !ok {
			continue
		}
		v := x.ext[k]
		if wi, known := conv.WIName(n); known && !x.canonicalOK(wi, v) {
			v = x.encodeWI(wi)
		}
		x.o.Set(n, v)
	}
}

// keptSTKeys sets the kept world info fields a card has a field for, under
// their card spelling, unless already set.
func (x *extEncoder) keptSTKeys() {
	for _, k := range conv.SortedKeys(x.ext) {
		wi, ok := strings.CutPrefix(k, conv.PrefixST)
		if !ok {
			continue
		}
		snake, known := conv.CardExtName(wi)
		if !known || x.has(snake) {
			continue
		}
		v := x.ext[k]
		if !x.canonicalOK(wi, v) {
			v = x.encodeWI(wi)
		}
		x.o.Set(snake, v)
	}
}

// worldInfoRest sets KeyWorldInfo to the kept world info fields a card has
// no field for, and reports whether the entry came from a world info
// source.
func (x *extEncoder) worldInfoRest() bool {
	fromST := false
	var wiRest *conv.Object
	for _, k := range conv.SortedKeys(x.ext) {
		wi, ok := strings.CutPrefix(k, conv.PrefixST)
		if !ok {
			continue
		}
		fromST = true
		if _, known := conv.CardExtName(wi); known || wi == "uid" || wi == "selective" {
			continue
		}
		if _, canonical := conv.STFieldByName(wi); canonical {
			continue
		}
		if wiRest == nil {
			wiRest = conv.NewObject()
		}
		wiRest.Set(wi, x.ext[k])
	}
	if cf := characterFilterValue(x.e); cf != nil {
		// SillyTavern never writes a character filter into a card; it
		// travels with the other world info fields.
		if wiRest == nil {
			wiRest = conv.NewObject()
		}
		wiRest.Set("characterFilter", cf)
	}
	if wiRest != nil && !x.o.Has(conv.KeyWorldInfo) {
		raw, _ := wiRest.MarshalJSON()
		x.o.Set(conv.KeyWorldInfo, raw)
	}
	return fromST
}

// canonical sets the canonical fields ST writes that are not set yet; for
// an entry whose source had its own fields (fromSource) only those whose
// value differs from the value of an absent field.
func (x *extEncoder) canonical(fromSource bool) {
	for _, wi := range extCanonical {
		snake, _ := conv.CardExtName(wi)
		if x.has(snake) {
			continue
		}
		if fromSource && x.canonicalOK(wi, nil) {
			continue
		}
		x.o.Set(snake, x.encodeWI(wi))
	}
	if !x.has("useProbability") && (!fromSource || x.e.Probability != 100) {
		x.o.SetValue("useProbability", x.e.Probability != 100)
	}
}

// characterFilterValue is the world info characterFilter of e: the kept
// source value while it still reads as e's filter, else the canonical
// one; nil when e has none and its source had none.
func characterFilterValue(e *lore.Entry) json.RawMessage {
	f, _ := conv.STFieldByName("characterFilter")
	if v, ok := e.Extensions[conv.PrefixST+"characterFilter"]; ok {
		s := e.Clone()
		var cc conv.STCtx
		f.Dec(&s, v, &cc)
		if f.Eq(&s, e) {
			return v
		}
	}
	if conv.OmitST("characterFilter", e) {
		return nil
	}
	return conv.MustMarshal(f.Enc(e))
}

func firstOf(ext map[string]json.RawMessage, wi string) json.RawMessage {
	if v, ok := ext[conv.PrefixST+wi]; ok {
		return v
	}
	for k, v := range ext {
		if n, ok := strings.CutPrefix(k, conv.PrefixCardExt); ok {
			if w, _ := conv.WIName(n); w == wi {
				return v
			}
		}
	}
	return nil
}

// folderKey returns the folder key of a RisuAI folder row (its first key,
// "\uf000folder:<uuid>"), or "".
func folderKey(row json.RawMessage) string {
	var r struct {
		Keys []string `json:"keys"`
		Key  string   `json:"key"`
	}
	if json.Unmarshal(row, &r) != nil {
		return ""
	}
	if len(r.Keys) > 0 {
		return r.Keys[0]
	}
	return r.Key
}

// worldInfoTop returns the top-level world info fields of a book from world
// info that a card book has no field for (_meta, originalData, ...), as one
// object, or nil.
func worldInfoTop(book conv.Book) json.RawMessage {
	var o *conv.Object
	for _, k := range conv.SortedKeys(book.Extensions) {
		n, ok := strings.CutPrefix(k, conv.PrefixST)
		if !ok || n == "entries" || n == "name" || n == "extensions" {
			continue
		}
		switch n {
		case "scan_depth", "token_budget", "recursive_scanning", "description":
			continue // a Chub hybrid's card fields
		}
		if o == nil {
			o = conv.NewObject()
		}
		o.Set(n, book.Extensions[k])
	}
	if o == nil {
		return nil
	}
	raw, _ := o.MarshalJSON()
	return raw
}
