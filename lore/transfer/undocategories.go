package transfer

import (
	"context"
	"errors"

	"loregate/lore"
)

// restoreCategories undoes what the record did to categories
// (lore.HistorySnapshot.CreatedCategories, ChangedCategories): a category
// it changed gets its name, order and flag back while it is as the record
// left it (changed since: CategoriesKept); one it created is removed once
// no entry is in it (the record's entries are gone by now; an entry filed
// there since keeps it: CategoriesKept). A category or book deleted since
// is skipped.
func (u *undo) restoreCategories(ctx context.Context) error {
	snap := &u.snap
	for i, c := range snap.ChangedCategories {
		cur, ok, err := u.category(ctx, c)
		if err != nil || !ok {
			return err
		}
		if i < len(snap.CategoriesAfter) && !sameCategory(cur, snap.CategoriesAfter[i]) {
			u.res.CategoriesKept++
			continue
		}
		if _, err := u.st.UpdateCategory(ctx, u.server, c.ID, lore.CategoryPatch{Name: &c.Name, SortOrder: &c.SortOrder, Enabled: &c.Enabled}); err != nil {
			return err
		}
		u.res.Categories++
	}
	for _, c := range snap.CreatedCategories {
		used, ok, err := u.categoryUsed(ctx, c)
		switch {
		case err != nil:
			return err
		case !ok:
			continue
		case used:
			u.res.CategoriesKept++
			continue
		}
		if err := u.st.DeleteCategory(ctx, u.server, c.ID); err != nil && !errors.Is(err, lore.ErrNotFound) {
			return err
		}
		u.res.Categories++
	}
	return nil
}

// sameCategory compares what a lore writer can change of a category.
func sameCategory(a, b lore.Category) bool {
	return a.Name == b.Name && a.SortOrder == b.SortOrder && a.Enabled == b.Enabled
}

// category reads c's category as it is now (false: it or its book is gone).
func (u *undo) category(ctx context.Context, c lore.Category) (lore.Category, bool, error) {
	lineage := c.Lineage
	if c.CollectionID != 0 {
		lineage = lore.Serverwide
	}
	cats, err := u.st.ListCategories(ctx, u.server, lineage, c.CollectionID)
	if errors.Is(err, lore.ErrNotFound) {
		return lore.Category{}, false, nil
	}
	if err != nil {
		return lore.Category{}, false, err
	}
	for _, cur := range cats {
		if cur.ID == c.ID {
			return cur, true, nil
		}
	}
	return lore.Category{}, false, nil
}

// categoryUsed reports whether an entry of c's book is in c (ok false:
// the book is gone).
func (u *undo) categoryUsed(ctx context.Context, c lore.Category) (used, ok bool, err error) {
	lineage, name := c.Lineage, ""
	if c.CollectionID != 0 {
		col, err := u.st.GetCollection(ctx, u.server, c.CollectionID)
		if errors.Is(err, lore.ErrNotFound) {
			return false, false, nil
		}
		if err != nil {
			return false, false, err
		}
		lineage, name = lore.Serverwide, col.Name
	}
	es, err := u.st.ListScope(ctx, u.server, lineage, name)
	if err != nil {
		return false, false, err
	}
	for _, e := range es {
		if e.CategoryID == c.ID {
			return true, true, nil
		}
	}
	return false, true, nil
}
