// Package worldbook reads and writes the worldbook of Tavern Helper
// (JS-Slash-Runner): {entries: {"0": {uid, name, content, enabled,
// strategy: {type, keys, keys_secondary: {logic, keys}, scan_depth},
// position: {type, role, depth, order}, probability, recursion:
// {prevent_incoming, prevent_outgoing, delay_until}, effect: {sticky,
// cooldown, delay}, extra}}} (docs/formats.md "Worldbook").
//
// Each field is read through its SillyTavern world info twin (a worldbook
// entry is world info with nested, named fields), so the two formats share
// defaults, ranges and clamping: strategy.type constant = Always On,
// selective = keywords, vectorized = the entry's Vectorized flag (keys
// still act; docs/contract.md#semantic); keys_secondary.logic and_any, and_all, not_all,
// not_any; scan_depth "same_as_global" = inherit; position.type is the
// position kind (before/after_character_definition, before/after_author_note,
// at_depth, before/after_example_messages, outlet: world info 0-7) with
// position.depth and position.role. Flat members spelled
// as world info fields (caseSensitive, matchWholeWords, group,
// groupOverride, groupWeight, useGroupScoring, outletName, ignoreBudget,
// the match* flags, triggers, characterFilter) are read as those fields
// and written when set. Every other member (uid, extra, unknown ones) and each
// source value the canonical value does not reproduce is kept in
// Extensions as "worldbook/<path>" ("worldbook/extra"),
// so Encode gives the source back.
package worldbook

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
	"loregate/lore/i18n"
)

// Prefix is the extensions prefix of the worldbook's own fields.
const Prefix = "worldbook/"

// Looks reports whether o is a worldbook: an entries object or array whose
// first entry has an object strategy or position member (world info has
// numbers there).
func Looks(o *conv.Object) bool {
	raw, ok := o.Get("entries")
	if !ok {
		return false
	}
	var first json.RawMessage
	if v, ok := conv.FirstValue(raw); ok {
		first = v
	} else if items := conv.Items(raw); len(items) > 0 {
		first = items[0]
	}
	eo, err := conv.ParseObject(first)
	if err != nil {
		return false
	}
	for _, n := range []string{"strategy", "position"} {
		if v, ok := eo.Get(n); ok && strings.HasPrefix(strings.TrimSpace(string(v)), "{") {
			return true
		}
	}
	return false
}

// nests are the member paths that hold objects of named fields; every
// other member is a leaf.
var nests = map[string]bool{
	"strategy": true, "strategy.keys_secondary": true, "position": true, "recursion": true, "effect": true,
}

// Decode converts a worldbook into a book; fileName (may be "") names the
// book when the file has no name. Errors: the data is not a JSON object, or
// entries is missing or neither an object nor an array.
func Decode(fileName string, data []byte, opts conv.Options) (conv.Book, conv.Report, error) {
	o, err := conv.ParseFile("worldbook", data)
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	items, err := conv.EntryValues(o, "worldbook")
	if err != nil {
		return conv.Book{}, conv.Report{}, err
	}
	b := conv.NewBuilder(conv.KindWorldbook, opts)
	b.Book.Extensions = map[string]json.RawMessage{}
	conv.KeepRest(b.Book.Extensions, o, Prefix, "entries", "name", conv.SettingsKey)
	if v, ok := o.Get(conv.SettingsKey); ok {
		b.SettingsExtension(v)
	}
	n, _ := o.Get("name")
	b.Book.Name, _ = conv.String(n)
	b.NameFromFile(fileName)
	book, rep := b.DecodeEach(items, DecodeEntry)
	return book, rep, nil
}

// leaf is one member of an entry at its dotted path.
type leaf struct {
	path string
	raw  json.RawMessage
}

func flatten(o *conv.Object, prefix string, out []leaf) []leaf {
	for _, f := range o.Fields {
		p := prefix + f.Name
		if nests[p] {
			if sub, err := conv.ParseObject(f.Value); err == nil {
				out = flatten(sub, p+".", out)
				continue
			}
		}
		out = append(out, leaf{p, f.Value})
	}
	return out
}

// DecodeEntry converts one worldbook entry. rep (may be nil) counts the
// settings without a destination.
func DecodeEntry(eo *conv.Object, rep *conv.Report) (lore.Entry, conv.STCtx) {
	e := lore.NewEntry()
	var c conv.STCtx
	leaves := flatten(eo, "", nil)
	st := map[string]json.RawMessage{}
	ext := map[string]json.RawMessage{}
	vectorized := false
	for _, l := range leaves {
		if f, ok := fieldByPath(l.path); ok {
			st[f.st] = f.toST(l.raw)
			if l.path == "strategy.type" {
				if s, _ := conv.String(l.raw); s == "vectorized" {
					vectorized = true
				} else if s != "constant" && s != "selective" {
					c.Note(i18n.ReportStrategyUnknown, map[string]any{"value": conv.Snippet(string(l.raw))})
				}
			}
			if l.path == "position.type" {
				if _, known := positionNumber(l.raw); !known {
					c.Note(i18n.ReportWorldbookPositionUnknown, map[string]any{"value": conv.Snippet(string(l.raw))})
				}
			}
			continue
		}
		ext[Prefix+l.path] = l.raw
	}
	for _, f := range conv.STFields {
		f.Dec(&e, st[f.Name], &c)
	}
	e.Vectorized = vectorized && !e.Constant
	// Keep each source value the canonical value does not reproduce.
	for _, l := range leaves {
		if f, ok := fieldByPath(l.path); ok && !conv.Equal(l.raw, conv.MustMarshal(f.enc(&e))) {
			ext[Prefix+l.path] = l.raw
		}
	}
	if row, ok := ext[Prefix+keyFolderRow]; ok {
		delete(ext, Prefix+keyFolderRow)
		ext[conv.KeyFolderRow] = row
	}
	e.Extensions = ext
	// World info's budget order: high order first (docs/formats.md
	// "Budget order").
	e.SetPriorityFromOrder()
	return e, c
}

// Encode writes book as a worldbook with entries keyed "0", "1", ... in
// book order. Canonical fields are written from the entry, except where a
// kept source value still reads as the entry's value (it is written back
// as it was); kept members without a canonical field are written back.
// Book settings go in a top-level loregate_settings object.
func Encode(book conv.Book) ([]byte, error) {
	o := conv.NewObject()
	entries := conv.NewObject()
	for i := range book.Entries {
		raw, err := EncodeEntry(&book.Entries[i], i)
		if err != nil {
			return nil, fmt.Errorf("worldbook: entry %d: %w", i, err)
		}
		entries.Set(strconv.Itoa(i), raw)
	}
	// A nameless worldbook stays nameless; a book from another format
	// carries its name, the file-derived one too.
	if !book.NameFromFile || !fromWorldbook(book) {
		o.SetValue("name", book.Name)
	}
	ent, _ := entries.MarshalJSON()
	o.Set("entries", ent)
	conv.Rest(book.Extensions, Prefix, o)
	o = conv.SetSettingsMember(o, conv.EncodeSettings(o, book, conv.NativeSettings{}))
	return conv.Indented(o, "  ")
}

// keyFolderRow names the member of a worldbook entry that carries the
// RisuAI folder row (conv.KeyFolderRow) of its category, which a worldbook
// has no field for (docs/workbench.md#categories).
const keyFolderRow = "loregate_folder_row"

// EncodeEntry returns the worldbook object of e; index is the uid when no
// source uid is kept.
func EncodeEntry(e *lore.Entry, index int) (json.RawMessage, error) {
	t := newTree()
	for _, f := range fields {
		if f.omit != nil && f.omit(e) {
			if _, kept := e.Extensions[Prefix+f.path]; !kept {
				continue
			}
		}
		v := conv.MustMarshal(f.enc(e))
		if kept, ok := e.Extensions[Prefix+f.path]; ok && f.consistent(kept, e) {
			v = kept
		}
		t.set(f.path, v)
	}
	if _, ok := e.Extensions[Prefix+"uid"]; !ok {
		t.set("uid", conv.MustMarshal(sourceUID(e, index)))
	}
	if row, ok := e.Extensions[conv.KeyFolderRow]; ok {
		t.set(keyFolderRow, row)
	}
	for _, k := range conv.SortedKeys(e.Extensions) {
		p, ok := strings.CutPrefix(k, Prefix)
		if !ok {
			continue
		}
		if _, canonical := fieldByPath(p); canonical {
			continue
		}
		t.set(p, e.Extensions[k])
	}
	return t.marshal()
}

// fromWorldbook reports whether book was read from a worldbook (its
// entries or book fields carry worldbook extensions).
func fromWorldbook(book conv.Book) bool {
	for k := range book.Extensions {
		if strings.HasPrefix(k, Prefix) {
			return true
		}
	}
	for i := range book.Entries {
		for k := range book.Entries[i].Extensions {
			if strings.HasPrefix(k, Prefix) {
				return true
			}
		}
	}
	return false
}

// sourceUID is the uid of an entry without a kept worldbook uid: the
// numeric world info uid or card id of its source, else index.
func sourceUID(e *lore.Entry, index int) int {
	for _, k := range []string{conv.PrefixST + "uid", conv.PrefixCard + "id"} {
		if n, ok := conv.Int(e.Extensions[k]); ok {
			return n
		}
	}
	return index
}
