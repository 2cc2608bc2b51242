package format

import (
	"encoding/json"
	"maps"
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
// folder (the folder row kept on the entry, named by its comment; always
// enabled) or a NovelAI category (the entry's category id, named and
// enabled as the book's categories list it). ok is false when the file
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
// (cats: the book's categories) back into the source fields its entries
// kept, so that a category renamed or disabled in loregate is exported
// that way (docs/workbench.md#categories). A RisuAI folder or a NovelAI
// category of the file stands for the category most of its entries are in
// now (ties: the lower id); the folder's row, on every entry that carries
// it, takes that category's name (RisuAI folders have no enabled flag), and
// the NovelAI category in the book's categories list its name and enabled
// flag. Entries and the book's extensions are copied before they change
// (they may be shared with a cache). Folders and NovelAI categories whose
// entries are in no category keep their source names.
func WriteCategories(book *Book, cats []lore.Category) {
	byID := make(map[int64]lore.Category, len(cats))
	for _, c := range cats {
		byID[c.ID] = c
	}
	folders, novel := categoryVotes{}, categoryVotes{}
	for _, e := range book.Entries {
		if _, ok := byID[e.CategoryID]; !ok {
			continue
		}
		if key, ok := folderKey(e); ok {
			folders.add(key, e.CategoryID)
		} else if id, isStr := conv.String(e.Extensions[conv.PrefixNovelAI+"category"]); isStr && id != "" {
			novel.add(id, e.CategoryID)
		}
	}
	for i := range book.Entries {
		e := &book.Entries[i]
		key, ok := folderKey(*e)
		if !ok || folders[key] == nil {
			continue
		}
		o, err := conv.ParseObject(e.Extensions[conv.KeyFolderRow])
		if err != nil {
			continue
		}
		o.SetValue("comment", byID[folders.winner(key)].Name)
		e.Extensions = maps.Clone(e.Extensions)
		e.Extensions[conv.KeyFolderRow] = conv.MustMarshal(o)
	}
	raw, has := book.Extensions[conv.PrefixNovelAI+"categories"]
	var list []json.RawMessage
	if len(novel) == 0 || !has || json.Unmarshal(raw, &list) != nil {
		return
	}
	for i, item := range list {
		o, err := conv.ParseObject(item)
		if err != nil {
			continue
		}
		v, _ := o.Get("id")
		if id, _ := conv.String(v); novel[id] != nil {
			c := byID[novel.winner(id)]
			o.SetValue("name", c.Name)
			o.SetValue("enabled", c.Enabled)
			list[i] = conv.MustMarshal(o)
		}
	}
	book.Extensions = maps.Clone(book.Extensions)
	book.Extensions[conv.PrefixNovelAI+"categories"] = conv.MustMarshal(list)
}

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
