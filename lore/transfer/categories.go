package transfer

import (
	"context"
	"errors"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/i18n"
)

// categorize files the entries an import created under the categories
// their file gave them (format.EntryCategory: RisuAI folders, NovelAI
// categories; docs/workbench.md#categories), in the same transaction: a
// category the book already has by that name is reused, a missing one is
// created (enabled as the file says) while the book has room for it
// (lore/postgres allows 100 per book; entries past that stay without
// one). It returns the categories it created, which an undo of the import
// removes (HistorySnapshot.CreatedCategories).
func categorize(ctx context.Context, st lore.HistoryStore, t lore.ImportTarget, collectionID int64, book format.Book, created []lore.Entry) ([]lore.Category, error) {
	lineage := t.Lineage
	if collectionID != 0 {
		lineage = lore.Serverwide
	}
	var ids map[string]int64
	var made []lore.Category
	for _, e := range created {
		c, ok := format.EntryCategory(book, e)
		if !ok {
			continue
		}
		if ids == nil {
			have, err := st.ListCategories(ctx, t.Server, lineage, collectionID)
			if err != nil {
				return nil, err
			}
			ids = map[string]int64{}
			for _, h := range have {
				ids[h.Name] = h.ID
			}
		}
		id, known := ids[c.Name]
		if !known {
			nc, err := st.CreateCategory(ctx, lore.Category{Server: t.Server, Lineage: lineage, CollectionID: collectionID,
				Name: c.Name, SortOrder: len(ids), Enabled: c.Enabled})
			var ie *lore.InvalidError
			if errors.As(err, &ie) && ie.Key == i18n.TooManyCategories {
				ids[c.Name] = 0 // no room: its entries stay without a category
				continue
			}
			if err != nil {
				return nil, err
			}
			id, ids[c.Name] = nc.ID, nc.ID
			made = append(made, nc)
		}
		if id == 0 {
			continue
		}
		if _, err := st.UpdateEntry(ctx, t.Server, e.Lineage, e.ID, lore.EntryPatch{CategoryID: &id}); err != nil {
			return nil, err
		}
	}
	return made, nil
}
