package format

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// Category is a category a source file files entries under
// (docs/workbench.md#categories).
type Category struct {
	Name    string
	Enabled bool
}

// EntryCategory returns the category book's file gave entry e: a RisuAI
// folder (the folder row kept on the entry, named by its comment; enabled
// unless the row says "enabled": false, as a card book's rows and
// loregate's exports of a disabled category do) or a NovelAI category (the
// entry's category id, named and enabled as the book's categories list it). ok is false when the file
// gave none, or a name that cannot be a category's (blank, over
// lore.MaxCategoryNameLen characters, trimmed first).
func EntryCategory(book Book, e lore.Entry) (c Category, ok bool) {
	if row, has := e.Extensions[conv.KeyFolderRow]; has {
		o, err := conv.ParseObject(row)
		if err != nil {
			return c, false
		}
		v, _ := o.Get("comment")
		name, _ := conv.String(v)
		en, _ := o.Get("enabled")
		if b, isBool := conv.Bool(en); isBool && !b {
			return categoryNamed(name, false)
		}
		return categoryNamed(name, true)
	}
	raw, has := e.Extensions[conv.PrefixNovelAI+"category"]
	id, isStr := conv.String(raw)
	if !has || !isStr || id == "" {
		return c, false
	}
	var cats []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Enabled *bool  `json:"enabled"`
	}
	if json.Unmarshal(book.Extensions[conv.PrefixNovelAI+"categories"], &cats) != nil {
		return c, false
	}
	for _, nc := range cats {
		if nc.ID == id {
			return categoryNamed(nc.Name, nc.Enabled == nil || *nc.Enabled)
		}
	}
	return c, false
}

func categoryNamed(name string, enabled bool) (Category, bool) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" || utf8.RuneCountInString(name) > lore.MaxCategoryNameLen || lore.ValidateCategoryName(name) != nil {
		return Category{}, false
	}
	return Category{Name: name, Enabled: enabled}, true
}

// WriteCategories writes the book's categories as loregate has them now
// (cats: the book's categories) into the source fields its entries kept,
// for an export to kind (docs/workbench.md#categories): a category renamed,
// disabled or created in loregate, and entries filed into another category
// or out of one, are exported that way. A RisuAI folder or a NovelAI
// category of the file stands for the loregate category most of its
// entries are in now (ties: the lower id) and takes its name and enabled
// flag; a category no source folder or NovelAI category stands for gets a
// new one (a RisuAI folder row shaped for kind, or a NovelAI category).
//
// For NovelAI (KindNovelAI) each entry's category id names its loregate
// category's, new NovelAI categories follow the book's in the categories
// list, in cats' order. For every other kind each entry in a category
// carries that category's folder row (conv.KeyFolderRow: RisuAI and card
// exports write it as a folder row, world info and worldbook exports as
// loregate's own member); RisuAI has no enabled flag for a folder, so a
// disabled category's row says "enabled": false, as a card book's rows
// do. An entry in no category leaves a folder that stands for a category
// (it was taken out of it); a folder or NovelAI category whose entries are
// in no category at all (a book imported before categories existed, a
// category deleted) stays as the file had it. Entries and the book's
// extensions are copied before they change (they may be shared with a
// cache).
func WriteCategories(book *Book, cats []lore.Category, kind Kind) {
	byID := make(map[int64]lore.Category, len(cats))
	for _, c := range cats {
		byID[c.ID] = c
	}
	if len(byID) == 0 {
		return
	}
	folders, novel := categoryVotes{}, categoryVotes{}
	for _, e := range book.Entries {
		if _, ok := byID[e.CategoryID]; !ok {
			continue
		}
		if key, ok := folderKey(e); ok {
			folders.add(key, e.CategoryID)
		} else if id := novelAICategory(e); id != "" {
			novel.add(id, e.CategoryID)
		}
	}
	book.Entries = slices.Clone(book.Entries)
	if kind == KindNovelAI {
		writeNovelAICategories(book, cats, byID, novel)
		return
	}
	writeFolderRows(book, byID, folders, kind)
}

// writeFolderRows gives every entry of book in a category of byID the
// folder row standing for it, renamed and flagged as the category is now,
// and takes an entry in no category out of a folder that stands for one.
func writeFolderRows(book *Book, byID map[int64]lore.Category, folders categoryVotes, kind Kind) {
	primary := map[int64]string{} // category -> the first folder standing for it
	rows := map[string]json.RawMessage{}
	for _, e := range book.Entries {
		if key, ok := folderKey(e); ok && folders[key] != nil {
			if w := folders.winner(key); primary[w] == "" {
				primary[w] = key
			}
			if rows[key] == nil {
				rows[key] = folderRowAs(e.Extensions[conv.KeyFolderRow], byID[folders.winner(key)])
			}
		}
	}
	for i := range book.Entries {
		e := &book.Entries[i]
		key, has := folderKey(*e)
		c, in := byID[e.CategoryID]
		switch {
		case !in && has && folders[key] != nil:
			e.Extensions = maps.Clone(e.Extensions)
			delete(e.Extensions, conv.KeyFolderRow)
			delete(e.Extensions, conv.PrefixRisu+"folder")
			delete(e.Extensions, conv.PrefixCard+"folder")
			continue
		case !in:
			continue
		case !has || folders[key] == nil || folders.winner(key) != c.ID:
			if key = primary[c.ID]; key == "" {
				row := newFolderRow(c, kind)
				key, _ = conv.IsFolderRow(mustObject(row))
				primary[c.ID], rows[key] = key, row
			}
		}
		e.Extensions = maps.Clone(e.Extensions)
		if e.Extensions == nil {
			e.Extensions = map[string]json.RawMessage{}
		}
		e.Extensions[conv.KeyFolderRow] = rows[key]
	}
}

// folderRowAs returns folder row raw named (comment, and name where a card
// book's row has one) and flagged (enabled, where the row has the field or
// c is disabled) as c.
func folderRowAs(raw json.RawMessage, c lore.Category) json.RawMessage {
	o, err := conv.ParseObject(raw)
	if err != nil {
		return raw
	}
	o.SetValue("comment", c.Name)
	if o.Has("name") {
		o.SetValue("name", c.Name)
	}
	if o.Has("enabled") || !c.Enabled {
		o.SetValue("enabled", c.Enabled)
	}
	return conv.MustMarshal(o)
}

// newFolderRow is a RisuAI folder row for c, as RisuAI makes one (a card
// book's row for a card kind): key "\uf000folder:" and a UUID made from
// c's name, so that each export names it alike.
func newFolderRow(c lore.Category, kind Kind) json.RawMessage {
	key := "\uf000folder:" + categoryUUID(c.Name)
	o := conv.NewObject()
	switch kind {
	case KindV2Card, KindV3Card, KindLorebookV3, KindCharacterBook:
		o.SetValue("keys", []string{key})
		o.SetValue("content", "")
		o.Set("extensions", json.RawMessage(`{}`))
		o.SetValue("enabled", c.Enabled)
		o.SetValue("insertion_order", 100)
		o.SetValue("name", c.Name)
		o.SetValue("comment", c.Name)
		o.SetValue("selective", false)
		o.SetValue("secondary_keys", []string{})
		o.SetValue("constant", false)
		o.SetValue("position", "before_char")
	default:
		o.SetValue("key", key)
		o.SetValue("comment", c.Name)
		o.SetValue("content", "")
		o.SetValue("insertorder", 100)
		o.SetValue("alwaysActive", false)
		o.SetValue("secondkey", "")
		o.SetValue("selective", false)
		if !c.Enabled {
			o.SetValue("enabled", false)
		}
	}
	o.SetValue("mode", "folder")
	return conv.MustMarshal(o)
}

// categoryUUID is a UUID (version 5 shaped) made from a category's name,
// unique in its book: each export, and offline convert, names a new
// folder or NovelAI category alike.
func categoryUUID(name string) string {
	h := sha1.Sum([]byte("loregate category\x00" + name))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func mustObject(raw json.RawMessage) *conv.Object {
	o, _ := conv.ParseObject(raw)
	return o
}

// novelAICategory is the NovelAI category id e's file gave it, or "".
func novelAICategory(e lore.Entry) string {
	id, _ := conv.String(e.Extensions[conv.PrefixNovelAI+"category"])
	return id
}

// writeNovelAICategories names and flags each NovelAI category of book as
// the loregate category it stands for, adds one for each category of cats
// with entries that none stands for, and gives each entry its category's
// id ("" for an entry taken out of the category its NovelAI one stands
// for).
func writeNovelAICategories(book *Book, cats []lore.Category, byID map[int64]lore.Category, novel categoryVotes) {
	var list []json.RawMessage
	if raw, has := book.Extensions[conv.PrefixNovelAI+"categories"]; has && json.Unmarshal(raw, &list) != nil {
		return // not a list: left as the file had it
	}
	ids := map[int64]string{} // category -> the NovelAI category standing for it
	for i, item := range list {
		o, err := conv.ParseObject(item)
		if err != nil {
			continue
		}
		v, _ := o.Get("id")
		if id, _ := conv.String(v); novel[id] != nil {
			c := byID[novel.winner(id)]
			if ids[c.ID] == "" {
				ids[c.ID] = id
			}
			o.SetValue("name", c.Name)
			o.SetValue("enabled", c.Enabled)
			list[i] = conv.MustMarshal(o)
		}
	}
	used := map[int64]bool{}
	for _, e := range book.Entries {
		used[e.CategoryID] = true
	}
	for _, c := range cats {
		if used[c.ID] && ids[c.ID] == "" {
			ids[c.ID] = categoryUUID(c.Name)
			list = append(list, newNovelAICategory(c, ids[c.ID]))
		}
	}
	for i := range book.Entries {
		e := &book.Entries[i]
		id, had := ids[e.CategoryID], novelAICategory(*e)
		if _, in := byID[e.CategoryID]; !in && (had == "" || novel[had] == nil) {
			continue // in no category, and its NovelAI one stands for none
		}
		e.Extensions = maps.Clone(e.Extensions)
		if e.Extensions == nil {
			e.Extensions = map[string]json.RawMessage{}
		}
		e.Extensions[conv.PrefixNovelAI+"category"] = conv.MustMarshal(id)
	}
	book.Extensions = maps.Clone(book.Extensions)
	if book.Extensions == nil {
		book.Extensions = map[string]json.RawMessage{}
	}
	book.Extensions[conv.PrefixNovelAI+"categories"] = conv.MustMarshal(list)
}

// newNovelAICategory is a NovelAI category for c with id, with NovelAI's
// defaults for the rest (no subcontext, no category defaults, no bias).
func newNovelAICategory(c lore.Category, id string) json.RawMessage {
	o, _ := conv.ParseObject(json.RawMessage(novelAICategoryDefaults))
	o.SetValue("name", c.Name)
	o.SetValue("id", id)
	o.SetValue("enabled", c.Enabled)
	return conv.MustMarshal(o)
}

// novelAICategoryDefaults is a category as NovelAI makes a new one.
const novelAICategoryDefaults = `{"name": "", "id": "", "enabled": true, "createSubcontext": false,
"subcontextSettings": {"text": "", "contextConfig": {"prefix": "", "suffix": "\n", "tokenBudget": 1, "reservedTokens": 0,
"budgetPriority": 400, "trimDirection": "trimBottom", "insertionType": "newline", "maximumTrimType": "sentence",
"insertionPosition": -1}, "lastUpdatedAt": 0, "displayName": "New Lorebook Entry", "keys": [], "searchRange": 1000,
"enabled": true, "forceActivation": false, "keyRelative": false, "nonStoryActivatable": false, "category": "",
"loreBiasGroups": []}, "useCategoryDefaults": false, "categoryDefaults": {"text": "", "contextConfig": {"prefix": "",
"suffix": "\n", "tokenBudget": 1, "reservedTokens": 0, "budgetPriority": 400, "trimDirection": "trimBottom",
"insertionType": "newline", "maximumTrimType": "sentence", "insertionPosition": -1}, "lastUpdatedAt": 0,
"displayName": "New Lorebook Entry", "keys": [], "searchRange": 1000, "enabled": true, "forceActivation": false,
"keyRelative": false, "nonStoryActivatable": false, "category": "", "loreBiasGroups": []}, "categoryBiasGroups": [],
"open": true}`

// folderKey returns the key of the RisuAI folder row e carries.
func folderKey(e lore.Entry) (string, bool) {
	row, has := e.Extensions[conv.KeyFolderRow]
	if !has {
		return "", false
	}
	o, err := conv.ParseObject(row)
	if err != nil {
		return "", false
	}
	return conv.IsFolderRow(o)
}

// categoryVotes counts, per source folder or category, its entries in
// each loregate category.
type categoryVotes map[string]map[int64]int

func (v categoryVotes) add(source string, category int64) {
	if v[source] == nil {
		v[source] = map[int64]int{}
	}
	v[source][category]++
}

// winner is the category most of source's entries are in (ties: lower id).
func (v categoryVotes) winner(source string) int64 {
	var best int64
	for id, n := range v[source] {
		if m := v[source][best]; best == 0 || n > m || (n == m && id < best) {
			best = id
		}
	}
	return best
}

// maxFileCategories is the most categories an import gives one book
// (lore/postgres MaxCategoriesPerBook); entries past it stay without one.
const maxFileCategories = 100

// WriteFileCategories files book's entries under the categories their file
// gave them (EntryCategory), as an import into a new book does (one
// category per name, in the order their first entries come, at most
// maxFileCategories), and writes them for an export to kind
// (WriteCategories). Offline convert uses it, so that RisuAI folders and
// NovelAI categories cross formats as they do through an import and an
// export (docs/workbench.md#categories). Entries are copied before they
// change.
func WriteFileCategories(book *Book, kind Kind) {
	ids := map[string]int64{}
	var cats []lore.Category
	entries := slices.Clone(book.Entries)
	for i := range entries {
		c, ok := EntryCategory(*book, entries[i])
		if !ok {
			continue
		}
		id, known := ids[c.Name]
		if !known && len(cats) < maxFileCategories {
			id = int64(len(cats) + 1)
			ids[c.Name] = id
			cats = append(cats, lore.Category{ID: id, Name: c.Name, SortOrder: len(cats), Enabled: c.Enabled})
		}
		entries[i].CategoryID = id
	}
	if len(cats) == 0 {
		return
	}
	book.Entries = entries
	WriteCategories(book, cats, kind)
}
