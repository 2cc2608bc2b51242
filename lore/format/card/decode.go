// Package card reads and writes the character card lorebooks: the
// character_book of Character Card V2 and V3 JSON (docs/formats.md),
// the standalone {spec:"lorebook_v3"} book, and a bare character_book
// object (docs/formats.md). V1 cards have no book.
//
// Canonical fields come from the V2 names and from the SillyTavern keys ST
// writes into entries[].extensions (docs/formats.md), in both spellings.
// Every other entry field is kept in Entry.Extensions: top-level fields as
// "card/<name>", extension keys verbatim as "card/extensions/<name>", so
// that Encode writes the book back. use_regex is kept but not trusted
// (docs/formats.md: regex-ness comes from the /pattern/flags shape).
package card

import (
	"encoding/json"
	"fmt"
	"strconv"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
	"loregate/lore/i18n"
)

// cardFieldTypes are the V1/V2/V3 card data fields whose JSON type is
// checked; a wrong type is a warning naming the field, never a failure
// (cases BUG-32).
var cardFieldTypes = [...][2]string{
	{"name", "string"}, {"description", "string"}, {"personality", "string"}, {"scenario", "string"},
	{"first_mes", "string"}, {"mes_example", "string"}, {"creator_notes", "string"},
	{"system_prompt", "string"}, {"post_history_instructions", "string"}, {"creator", "string"},
	{"alternate_greetings", "array"}, {"tags", "array"}, {"group_only_greetings", "array"},
	{"extensions", "object"}, {"character_book", "object"},
}

// DecodeCard reads the book of a V1, V2 or V3 card JSON. It returns
// conv.ErrNoLorebook (with a report holding warnings) when the card has no
// book or a null one. Wrong-typed card fields are warnings.
func DecodeCard(fileName string, data []byte, kind conv.Kind, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseObject(conv.StripBOM(data))
	if err != nil {
		return conv.Book{}, conv.Report{Format: kind}, fmt.Errorf("card: %w", err)
	}
	rep := conv.Report{Format: kind}
	if kind == conv.KindV1Card {
		rep.Normalize()
		return conv.Book{Character: stringField(o, "name"), CharacterContext: characterContext(o)}, rep, conv.ErrNoLorebook
	}
	if kind == conv.KindV3Card {
		if v, ok := o.Get("spec_version"); ok {
			s, _ := conv.String(v)
			if f, err := strconv.ParseFloat(s, 64); err == nil && f > 3.0 {
				rep.Notef(i18n.ReportSpecVersionNewer, map[string]any{"version": conv.Snippet(s)})
			}
		}
	}
	dataRaw, ok := o.Get("data")
	var d *conv.Object
	if ok {
		d, err = conv.ParseObject(dataRaw)
		if err != nil {
			rep.Notef(i18n.ReportCardDataNotObject, nil)
		}
	}
	if d == nil {
		d = o // some cards repeat the fields at the root only
	}
	for _, ft := range cardFieldTypes {
		v, ok := d.Get(ft[0])
		if !ok || conv.IsNull(v) {
			continue
		}
		if jsonType(v) != ft[1] {
			rep.Notef(i18n.ReportCardFieldType, map[string]any{"field": ft[0], "got": jsonType(v), "want": ft[1]})
		}
	}
	charName := stringField(d, "name")
	character := characterContext(d)
	bookRaw, ok := d.Get("character_book")
	if !ok || conv.IsNull(bookRaw) || jsonType(bookRaw) != "object" {
		rep.Normalize()
		return conv.Book{Character: charName, CharacterContext: character}, rep, conv.ErrNoLorebook
	}
	book, brep, err := DecodeBook(fileName, bookRaw, kind, opts)
	if err != nil {
		return conv.Book{}, rep, err
	}
	if (book.Name == "" || book.NameFromFile) && charName != "" {
		// A card's book without a name is the character's book.
		book.Name, book.NameFromFile = charName, false
	}
	book.Character, book.CharacterContext = charName, character
	brep.PrependNotices(rep.Notices)
	return book, brep, nil
}

// DecodeLorebookV3 reads {spec:"lorebook_v3", data: book}.
func DecodeLorebookV3(fileName string, data []byte, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseObject(conv.StripBOM(data))
	if err != nil {
		return conv.Book{}, conv.Report{}, fmt.Errorf("lorebook_v3: %w", err)
	}
	d, ok := o.Get("data")
	if !ok || jsonType(d) != "object" {
		return conv.Book{}, conv.Report{}, fmt.Errorf("lorebook_v3: field data is missing or not an object")
	}
	return DecodeBook(fileName, d, conv.KindLorebookV3, opts)
}

func jsonType(raw json.RawMessage) string {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return "object"
		case '[':
			return "array"
		case '"':
			return "string"
		case 't', 'f':
			return "boolean"
		case 'n':
			return "null"
		default:
			return "number"
		}
	}
	return "nothing"
}

// DecodeBook reads a character_book object (V2 or V3; entries an array, or
// an object keyed by id as ST and Chub sometimes write; docs/formats.md).
func DecodeBook(fileName string, raw json.RawMessage, kind conv.Kind, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseObject(conv.StripBOM(raw))
	if err != nil {
		return conv.Book{}, conv.Report{}, fmt.Errorf("character_book: %w", err)
	}
	b := conv.NewBuilder(kind, opts)
	b.Book.Extensions = map[string]json.RawMessage{}
	var items []conv.Field
	for _, f := range o.Fields {
		switch f.Name {
		case "entries":
			if eo, err := conv.ParseObject(f.Value); err == nil {
				items = conv.OrderedMembers(eo)
			} else {
				arr, err := conv.SplitArray(f.Value)
				if err != nil && json.Unmarshal(f.Value, &arr) != nil { // null reads as no entries
					return conv.Book{}, conv.Report{}, fmt.Errorf("character_book: field entries is neither an array nor an object")
				}
				for i, it := range arr {
					items = append(items, conv.Field{Name: strconv.Itoa(i), Value: it})
				}
			}
			continue
		default:
			b.BookSetting(f.Name, f.Value)
		}
		b.Book.Extensions[conv.PrefixCard+f.Name] = f.Value
	}
	if b.Book.Name == "" {
		b.Book.Name = conv.BaseName(fileName)
		b.Book.NameFromFile = true
	}
	objs := make([]*conv.Object, len(items))
	var folders conv.Folders
	camel := 0
	for i, it := range items {
		if objs[i], err = conv.ParseObject(it.Value); err != nil {
			continue
		}
		if key, ok := conv.IsFolderRow(objs[i]); ok {
			folders.Add(key, stringField(objs[i], "comment"), it.Value)
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
		if c := camelAliases(eo); c != nil {
			eo = c
			camel++
		}
		b.EntryStart()
		e, c := DecodeEntry(eo, &b.Report)
		folders.Attach(&e, eo)
		b.AddEntry(i, e, c)
	}
	folders.Finish(&b.Report)
	if camel > 0 {
		if camel == 1 {
			b.Report.Notef(i18n.ReportCamelCaseOne, nil)
		} else {
			b.Report.Notef(i18n.ReportCamelCase, map[string]any{"count": camel})
		}
	}
	if v, ok := o.Get("enabled"); ok {
		if en, isB := conv.Bool(v); isB && !en {
			b.Report.Ignore("book enabled")
			b.Report.Notef(i18n.ReportBookDisabled, nil)
		}
	}
	book, rep := b.Finish()
	return book, rep, nil
}

// canonicalTop are the card entry fields with a canonical destination.
var canonicalTop = [...]string{"keys", "secondary_keys", "comment", "content", "constant", "enabled", "insertion_order", "priority", "position", "case_sensitive"}

func isCanonicalTop(name string) bool {
	for _, n := range canonicalTop {
		if n == name {
			return true
		}
	}
	return false
}

// extCanonical are the ST extension fields (world info names) read into
// canonical fields.
var extCanonical = [...]string{"selectiveLogic", "probability", "scanDepth", "caseSensitive", "matchWholeWords", "role", "position", "ignoreBudget",
	"group", "groupOverride", "groupWeight", "useGroupScoring", "excludeRecursion", "preventRecursion", "delayUntilRecursion",
	"sticky", "cooldown", "delay", "depth", "outletName", "matchPersonaDescription", "matchCharacterDescription",
	"matchCharacterPersonality", "matchCharacterDepthPrompt", "matchScenario", "matchCreatorNotes", "triggers", "vectorized"}

// DecodeEntry converts one card book entry. Mapping (docs/formats.md):
// title = comment, else name; secondary keys only
// when selective; enabled missing = enabled (+ warning via STCtx);
// insertion_order missing = 100; priority missing = 100; position from
// extensions.position (0-7) else the position string (before_char =
// BEFORE_CHAR, else AFTER_CHAR); depth, role, outlet_name, the match_*
// flags and triggers from extensions; the character filter from the world
// info fields a loregate export kept (extensions.loregate_world_info).
func DecodeEntry(eo *conv.Object, rep *conv.Report) (lore.Entry, conv.STCtx) {
	e := lore.NewEntry()
	ext := map[string]json.RawMessage{}
	var c conv.STCtx
	get := func(n string) json.RawMessage { v, _ := eo.Get(n); return v }

	// extensions object: kept verbatim, key by key.
	extObj, _ := conv.ParseObject(get("extensions"))
	byWI := map[string]json.RawMessage{} // world info field -> the first extensions member spelling it
	extVal := func(wi string) json.RawMessage { return byWI[wi] }
	if extObj != nil {
		for _, f := range extObj.Fields {
			ext[conv.PrefixCardExt+f.Name] = f.Value
			if wi, ok := conv.WIName(f.Name); ok {
				if _, seen := byWI[wi]; !seen {
					byWI[wi] = f.Value
				}
				if name := conv.IgnoredSTSetting(wi, f.Value); name != "" && rep != nil {
					rep.Ignore(name)
				}
			}
		}
	} else if v := get("extensions"); v != nil {
		ext[conv.PrefixCard+"extensions"] = v
	}
	sel, _ := conv.Bool(get("selective"))
	c.Selective = &sel
	if v := extVal("useProbability"); v != nil {
		if u, ok := conv.Bool(v); ok {
			c.UseProbability = &u
		}
	}

	keysF, _ := conv.STFieldByName("key")
	keysF.Dec(&e, get("keys"), &c)
	conv.Shadow(ext, conv.PrefixCard+"keys", get("keys"), keysF.Enc(&e))
	secF, _ := conv.STFieldByName("keysecondary")
	secF.Dec(&e, get("secondary_keys"), &c)
	conv.Shadow(ext, conv.PrefixCard+"secondary_keys", get("secondary_keys"), secF.Enc(&e))

	comment, _ := conv.String(get("comment"))
	name, _ := conv.String(get("name"))
	t := comment
	if t == "" {
		t = name
	}
	e.Title, _ = conv.Title(t)
	conv.Shadow(ext, conv.PrefixCard+"comment", get("comment"), e.Title)
	// A leading decorator block (CCv3, RisuAI) stays in the content: the
	// engine acts on it at run time and never sends it to the model.
	e.Content, _ = conv.String(get("content"))
	c.ContentNotText = conv.NotText(get("content"))
	conv.Shadow(ext, conv.PrefixCard+"content", get("content"), e.Content)
	e.Constant, _ = conv.Bool(get("constant"))
	conv.Shadow(ext, conv.PrefixCard+"constant", get("constant"), e.Constant)
	if en, ok := conv.Bool(get("enabled")); ok {
		e.Enabled = en
	} else {
		c.MissingEnabled = true
	}
	conv.Shadow(ext, conv.PrefixCard+"enabled", get("enabled"), e.Enabled)
	e.Order = 100
	if n, ok := conv.Int(get("insertion_order")); ok {
		e.Order = n
	}
	conv.Shadow(ext, conv.PrefixCard+"insertion_order", get("insertion_order"), e.Order)
	priority, hasPriority := conv.Int(get("priority"))
	if hasPriority {
		e.Priority = priority
	}
	conv.Shadow(ext, conv.PrefixCard+"priority", get("priority"), e.Priority)

	e.Position = DecPosition(get("position"), extVal("position"), &c)
	e.Placement = e.Position.Placement()
	conv.Shadow(ext, conv.PrefixCard+"position", get("position"), placementString(e.Placement))
	if extObj != nil {
		// loregate_world_info is no world info field: byWI does not hold it.
		kept, _ := extObj.Get(conv.KeyWorldInfo)
		if wi, err := conv.ParseObject(kept); err == nil {
			if v, ok := wi.Get("characterFilter"); ok {
				conv.DecSTCharacterFilter(&e, v, &c)
			}
		}
	}

	for _, wi := range extCanonical {
		if wi == "position" {
			continue
		}
		f, _ := conv.STFieldByName(wi)
		f.Dec(&e, extVal(wi), &c)
	}
	if v := get("case_sensitive"); !conv.IsNull(v) {
		if b, ok := conv.Bool(v); ok {
			e.CaseSensitive = &b
		}
	}
	conv.Shadow(ext, conv.PrefixCard+"case_sensitive", get("case_sensitive"), e.CaseSensitive)

	order := make([]string, 0, len(eo.Fields))
	for _, f := range eo.Fields {
		order = append(order, f.Name)
		if f.Name == "extensions" || isCanonicalTop(f.Name) {
			continue
		}
		ext[conv.PrefixCard+f.Name] = f.Value
	}
	ext[conv.PrefixCard+"_fields"] = conv.MustMarshal(order)
	e.Extensions = ext
	if !hasPriority {
		// Without a priority a card's insertion order is SillyTavern's
		// budget order (docs/formats.md "Budget order").
		e.SetPriorityFromOrder()
	}
	return e, c
}

// DecPosition derives the position kind from the ST extension position
// (wins; 0-7) or the V2 position string (before_char = BEFORE_CHAR, else
// AFTER_CHAR, as SillyTavern reads cards).
func DecPosition(posString, extPos json.RawMessage, c *conv.STCtx) lore.PositionKind {
	if n, ok := conv.Int(extPos); ok && !conv.IsNull(extPos) {
		var e lore.Entry
		conv.DecSTPosition(&e, conv.MustMarshal(n), c)
		return e.Position
	}
	if s, _ := conv.String(posString); s == "before_char" {
		return lore.PositionBeforeChar
	}
	return lore.PositionAfterChar
}

func placementString(p lore.Placement) string {
	if p == lore.Before {
		return "before_char"
	}
	return "after_char"
}

// stringField returns o's string field name, or "".
// characterContext reads a V2/V3 card's character (data): name, tags (the
// strings of the tags array), description, personality, scenario,
// creator_notes and extensions.depth_prompt.prompt (SillyTavern's
// character depth prompt). Fields of another type read as empty (their
// warning is DecodeCard's).
func characterContext(d *conv.Object) *lore.CharacterContext {
	c := &lore.CharacterContext{Name: stringField(d, "name"), Description: stringField(d, "description"),
		Personality: stringField(d, "personality"), Scenario: stringField(d, "scenario"),
		CreatorNotes: stringField(d, "creator_notes")}
	if raw, ok := d.Get("tags"); ok && jsonType(raw) == "array" {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) == nil {
			for _, it := range items {
				if s, ok := conv.String(it); ok && s != "" {
					c.Tags = append(c.Tags, s)
				}
			}
		}
	}
	if raw, ok := d.Get("extensions"); ok && jsonType(raw) == "object" {
		ext, _ := conv.ParseObject(raw)
		if dp, ok := ext.Get("depth_prompt"); ok && jsonType(dp) == "object" {
			o, _ := conv.ParseObject(dp)
			c.DepthPrompt = stringField(o, "prompt")
		}
	}
	if c.IsZero() {
		return nil
	}
	return c
}

func stringField(o *conv.Object, name string) string {
	v, ok := o.Get(name)
	if !ok {
		return ""
	}
	s, _ := conv.String(v)
	return s
}

// camelFields are camelCase spellings of card entry fields found in bare
// entries arrays written by other tools.
var camelFields = [...][2]string{
	{"insertionOrder", "insertion_order"}, {"secondaryKeys", "secondary_keys"}, {"caseSensitive", "case_sensitive"},
}

// camelAliases returns eo with camelCase fields read as their card names
// when those are absent (the camelCase members stay, kept as extensions),
// or nil when eo has none.
func camelAliases(eo *conv.Object) *conv.Object {
	var out *conv.Object
	for _, p := range camelFields {
		v, ok := eo.Get(p[0])
		if !ok || eo.Has(p[1]) {
			continue
		}
		if out == nil {
			out = conv.NewObject()
			for _, f := range eo.Fields {
				out.Set(f.Name, f.Value)
			}
		}
		out.Set(p[1], v)
	}
	return out
}
