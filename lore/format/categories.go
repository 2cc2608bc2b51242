package format

import (
	"encoding/json"
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
