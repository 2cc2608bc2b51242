package conv

import (
	"encoding/json"

	"loregate/lore"
	"loregate/lore/i18n"
)

// KeyFolderRow is the extension key under which an entry carries the
// RisuAI folder row it belongs to (the row verbatim). Folder rows (mode
// "folder") hold no lore; they are kept as this metadata on each of their
// entries, and card and RisuAI exports write each folder row back before
// its first entry (docs/formats.md "Folders").
const KeyFolderRow = "loregate/folder_row"

// Folders collects the folder rows of one book and attaches them to their
// entries.
type Folders struct {
	rows   map[string]json.RawMessage
	titles map[string]string
	order  []string
	used   map[string]bool
}

// IsFolderRow reports whether o is a RisuAI folder row (mode "folder") and
// returns its folder key: the first of its keys ("\uf000folder:<uuid>").
func IsFolderRow(o *Object) (key string, ok bool) {
	m, _ := o.Get("mode")
	if s, _ := String(m); s != "folder" {
		return "", false
	}
	if v, ok := o.Get("keys"); ok {
		if ks, _ := Strings(v); len(ks) > 0 {
			return ks[0], true
		}
	}
	v, _ := o.Get("key")
	s, _ := String(v)
	return s, true
}

// RowFolderKey returns the folder key of folder row raw (as IsFolderRow),
// or "" when raw is not a folder row.
func RowFolderKey(raw json.RawMessage) string {
	o, err := ParseObject(raw)
	if err != nil || raw == nil {
		return ""
	}
	key, _ := IsFolderRow(o)
	return key
}

// Add records a folder row.
func (f *Folders) Add(key, title string, row json.RawMessage) {
	if f.rows == nil {
		f.rows, f.titles, f.used = map[string]json.RawMessage{}, map[string]string{}, map[string]bool{}
	}
	if _, dup := f.rows[key]; !dup {
		f.order = append(f.order, key)
	}
	f.rows[key], f.titles[key] = row, title
}

// Attach gives e the folder row its source field "folder" (o) names, if
// that folder is known.
func (f *Folders) Attach(e *lore.Entry, o *Object) {
	v, ok := o.Get("folder")
	if !ok || f.rows == nil {
		return
	}
	key, _ := String(v)
	row, ok := f.rows[key]
	if !ok {
		return
	}
	if e.Extensions == nil {
		e.Extensions = map[string]json.RawMessage{}
	}
	e.Extensions[KeyFolderRow] = row
	f.used[key] = true
}

// Finish reports the folders kept and warns about folders without entries,
// which have nothing to travel on.
func (f *Folders) Finish(rep *Report) {
	kept := 0
	for _, k := range f.order {
		if f.used[k] {
			kept++
			continue
		}
		rep.Notef(i18n.ReportFolderNotKept, map[string]any{"folder": Snippet(f.titles[k])})
	}
	if kept > 0 {
		rep.Notef(i18n.ReportFoldersKept, map[string]any{"count": kept})
	}
}
