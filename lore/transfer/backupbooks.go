package transfer

import (
	"context"
	"errors"
	"fmt"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/i18n"
)

// bookKey addresses an included book of a backup import: a persona
// lineage's book, or a Serverwide collection by name.
type bookKey struct {
	lineage    lore.Lineage
	collection string
}

// organiseBooks writes the organisation and settings of the plan's books
// before their scopes are replaced (docs/contract.md#backups): each book's
// settings when the backup carries them (all of them: a setting the
// backup leaves out is cleared, so the book inherits it), its categories
// (one the book has by that name is reused and takes the backup's sort
// order and enabled flag; a missing one is created while the book has
// room, else its entries stay without one) and its description and tags
// when the backup carries them. A Serverwide collection the destination
// lacks is created first, with the backup's settings. Then every replaced
// entry's CategoryID, the backup's id of its category, becomes the
// destination's (0 when its book has no such category). Run it inside
// the import's transaction, after the state before the import is read;
// what it created and changed goes into snap for the undo.
func organiseBooks(ctx context.Context, st lore.HistoryStore, server string, plan *backup.ImportPlan, snap *lore.HistorySnapshot) error {
	ids := map[bookKey]map[int64]int64{}
	for _, b := range plan.Books {
		k := bookKey{lineage: b.Lineage, collection: b.Collection}
		collectionID, err := bookCollection(ctx, st, server, plan, b)
		if err != nil {
			return err
		}
		if ids[k], err = bookCategories(ctx, st, server, b, collectionID, snap); err != nil {
			return err
		}
		if b.Description != nil || b.Tags != nil {
			if _, err := st.UpdateBookInfo(ctx, server, b.Lineage, collectionID,
				lore.BookInfoPatch{Description: b.Description, Tags: &b.Tags}); err != nil {
				return err
			}
		}
		if err := putBookSettings(ctx, st, server, b, collectionID, snap); err != nil {
			return err
		}
	}
	for i := range plan.Replace {
		r := &plan.Replace[i]
		for j := range r.Entries {
			e := &r.Entries[j]
			if e.CategoryID == 0 {
				continue
			}
			k := bookKey{lineage: r.Lineage}
			if r.Lineage.IsServerwide() {
				k.collection = e.Collection
			}
			e.CategoryID = ids[k][e.CategoryID]
		}
	}
	return nil
}

// putBookSettings stores b's settings, when the backup carries them, as
// its book's, through the settings mutation (validated in the server's
// budget unit). An undo puts a collection's back (HistorySnapshot.
// ChangedCollections) and a persona book's (noted in snap.PersonaBooks).
func putBookSettings(ctx context.Context, st lore.HistoryStore, server string, b backup.BookPlan, collectionID int64, snap *lore.HistorySnapshot) error {
	if b.Settings == nil {
		return nil
	}
	s := b.Settings.Clone()
	p := lore.BookSettingsPatch{ScanDepth: &s.ScanDepth, BudgetLimit: &s.BudgetLimit, MaxRecursionSteps: &s.MaxRecursionSteps,
		MaxBudgetShare: &s.MaxBudgetShare, Recursive: &s.Recursive, CaseSensitive: &s.CaseSensitive, WholeWords: &s.WholeWords,
		SemanticAllEntries: &s.SemanticAllEntries}
	if b.Lineage.IsServerwide() {
		_, err := st.UpdateCollectionSettings(ctx, server, collectionID, p)
		return err
	}
	before, err := st.PersonaBookSettings(ctx, server, b.Lineage)
	if err != nil {
		return err
	}
	after, err := st.UpdatePersonaBookSettings(ctx, server, b.Lineage, p)
	if err != nil {
		return err
	}
	if !before.Equal(after) {
		snap.PersonaBooks = append(snap.PersonaBooks, lore.PersonaBookSnapshot{Lineage: b.Lineage, Before: before, After: after})
	}
	return nil
}

// bookCollection returns the id of b's collection (0 for a persona book),
// creating it with the settings the backup lists for it when missing.
func bookCollection(ctx context.Context, st lore.HistoryStore, server string, plan *backup.ImportPlan, b backup.BookPlan) (int64, error) {
	if !b.Lineage.IsServerwide() {
		return 0, nil
	}
	c, err := st.GetCollectionByName(ctx, server, b.Collection)
	if !errors.Is(err, lore.ErrNotFound) {
		return c.ID, err
	}
	want := lore.Collection{Server: server, Name: b.Collection, Enabled: true}
	for _, r := range plan.Replace {
		if !r.Lineage.IsServerwide() {
			continue
		}
		for _, rc := range r.Collections {
			if rc.Name == b.Collection {
				want.Enabled, want.ChannelIDs = rc.Enabled, rc.ChannelIDs
				break
			}
		}
	}
	c, err = st.CreateCollection(ctx, want)
	return c.ID, err
}

// bookCategories puts b's categories into its book and returns the
// destination's id of each of the backup's (0: no room), noting in snap
// the categories it creates and changes.
func bookCategories(ctx context.Context, st lore.HistoryStore, server string, b backup.BookPlan, collectionID int64, snap *lore.HistorySnapshot) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(b.Categories) == 0 {
		return out, nil
	}
	have, err := st.ListCategories(ctx, server, b.Lineage, collectionID)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]lore.Category, len(have))
	for _, h := range have {
		byName[h.Name] = h
	}
	for i, c := range b.Categories {
		if h, ok := byName[c.Name]; ok {
			if h.SortOrder != c.SortOrder || h.Enabled != c.Enabled {
				after, err := st.UpdateCategory(ctx, server, h.ID, lore.CategoryPatch{SortOrder: &c.SortOrder, Enabled: &c.Enabled})
				if err != nil {
					return nil, err
				}
				snap.ChangedCategories, snap.CategoriesAfter = append(snap.ChangedCategories, h), append(snap.CategoriesAfter, after)
			}
			out[c.ID] = h.ID
			continue
		}
		nc, err := st.CreateCategory(ctx, lore.Category{Server: server, Lineage: b.Lineage, CollectionID: collectionID,
			Name: c.Name, SortOrder: c.SortOrder, Enabled: c.Enabled})
		var ie *lore.InvalidError
		if errors.As(err, &ie) && ie.Key == i18n.TooManyCategories {
			continue // no room: its entries stay without a category
		}
		if err != nil {
			return nil, lore.WithFieldPrefix(fmt.Sprintf("categories[%d]", i), err)
		}
		out[c.ID], byName[c.Name] = nc.ID, nc
		snap.CreatedCategories = append(snap.CreatedCategories, nc)
	}
	return out, nil
}
