package graph

import (
	"context"
	"fmt"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// The workbench's bulk mutations (graph/workbench.graphqls,
// docs/workbench.md): thin conversions onto lore.WorkbenchStore.

// selection converts an entry selection.
func selection(in []*model.EntrySelection) ([]lore.EntryRef, error) {
	out := make([]lore.EntryRef, len(in))
	for i, s := range in {
		id, err := parseID("entry", s.EntryID)
		if err != nil {
			return nil, lore.WithFieldPrefix("entries["+strconv.Itoa(i)+"]", err)
		}
		out[i] = lore.EntryRef{ID: id, ExpectedUpdatedAt: expected(s.ExpectedUpdatedAt)}
	}
	return out, nil
}

// bookRef converts a book reference (collectionId required for
// Serverwide, refused for persona books by the store).
func bookRef(in model.BookRefInput) (lore.BookRef, error) {
	ref := lore.BookRef{Lineage: lore.Lineage(in.LineageID)}
	if cid, ok := in.CollectionID.ValueOK(); ok && cid != nil {
		id, err := parseID("collection", *cid)
		if err != nil {
			return ref, err
		}
		ref.CollectionID = id
	}
	return ref, nil
}

// authorizeBulk re-checks the write permission on the source scope and,
// when it differs, on the target's.
func (r *Resolver) authorizeBulk(ctx context.Context, server string, from lore.Lineage, to *lore.BookRef) error {
	if err := r.authorizeWrite(ctx, server, from); err != nil {
		return err
	}
	if to != nil && to.Lineage != from && to.Lineage >= 0 {
		return r.authorizeWrite(ctx, server, to.Lineage)
	}
	return nil
}

func movePayload(res lore.MoveResult, err error) (*model.MoveEntriesPayload, error) {
	if err != nil {
		return failure[model.MoveEntriesPayload](err)
	}
	out := &model.MoveEntriesPayload{Moved: []*model.MovedEntry{}, Entries: []*model.Entry{}, KeptIds: res.KeptIDs,
		ChannelsFromCollection: res.ChannelsFromCollection, ChannelsFromSource: res.ChannelsFromSource, ImportID: historyID(res.HistoryID)}
	for _, m := range res.Moved {
		out.Moved = append(out.Moved, &model.MovedEntry{FromID: strconv.FormatInt(m.From, 10), ToID: strconv.FormatInt(m.To, 10)})
	}
	for _, e := range res.Entries {
		out.Entries = append(out.Entries, entryToModel(e))
	}
	return out, nil
}

func historyID(id int64) *string {
	if id == 0 {
		return nil
	}
	s := strconv.FormatInt(id, 10)
	return &s
}

// moveEntries answers moveEntries and copyEntries.
func (r *Resolver) moveEntries(ctx context.Context, in model.MoveEntriesInput, copy bool) (*model.MoveEntriesPayload, error) {
	from := lore.Lineage(in.LineageID)
	to, err := bookRef(in.Target)
	if err != nil {
		return movePayload(lore.MoveResult{}, err)
	}
	if err := r.authorizeBulk(ctx, in.ServerDiscordID, from, &to); err != nil {
		return movePayload(lore.MoveResult{}, err)
	}
	refs, err := selection(in.Entries)
	if err != nil {
		return movePayload(lore.MoveResult{}, err)
	}
	return movePayload(r.Store.MoveEntries(ctx, lore.MoveRequest{Server: in.ServerDiscordID, From: from, Entries: refs, To: to, Copy: copy}))
}

// duplicateEntry answers duplicateEntry: a copy of one entry (without the
// other parts of a split group) into its own book or another.
func (r *Resolver) duplicateEntry(ctx context.Context, in model.DuplicateEntryInput) (*model.EntryPayload, error) {
	from := lore.Lineage(in.LineageID)
	id, err := r.writableEntry(ctx, in.ServerDiscordID, from, in.EntryID)
	if err != nil {
		return entryPayload(lore.Entry{}, err)
	}
	var to lore.BookRef
	if t, ok := in.Target.ValueOK(); ok && t != nil {
		if to, err = bookRef(*t); err != nil {
			return entryPayload(lore.Entry{}, err)
		}
	} else {
		cur, err := r.Store.GetEntry(ctx, in.ServerDiscordID, from, id)
		if err != nil {
			return entryPayload(lore.Entry{}, err)
		}
		to.Lineage = from
		if from.IsServerwide() {
			c, err := r.Store.GetCollectionByName(ctx, in.ServerDiscordID, cur.Collection)
			if err != nil {
				return entryPayload(lore.Entry{}, err)
			}
			to.CollectionID = c.ID
		}
	}
	if err := r.authorizeBulk(ctx, in.ServerDiscordID, from, &to); err != nil {
		return entryPayload(lore.Entry{}, err)
	}
	res, err := r.Store.MoveEntries(ctx, lore.MoveRequest{Server: in.ServerDiscordID, From: from,
		Entries: []lore.EntryRef{{ID: id}}, To: to, Copy: true})
	if err != nil {
		return entryPayload(lore.Entry{}, err)
	}
	for i, m := range res.Moved {
		if m.From == id {
			return entryPayload(res.Entries[i], nil)
		}
	}
	return entryPayload(lore.Entry{}, lore.ErrNotFound)
}

func bulkPayload(res lore.BulkResult, err error) (*model.BulkEntriesPayload, error) {
	if err != nil {
		return failure[model.BulkEntriesPayload](err)
	}
	out := &model.BulkEntriesPayload{Count: len(res.Before), Entries: []*model.Entry{}, ImportID: historyID(res.HistoryID)}
	for _, e := range res.After {
		out.Entries = append(out.Entries, entryToModel(e))
	}
	return out, nil
}

// editEntries runs one bulk edit on a selection after the permission check.
func (r *Resolver) editEntries(ctx context.Context, server string, lineage int64, sel []*model.EntrySelection, edit lore.BulkEdit) (lore.BulkResult, error) {
	edit.Server, edit.Lineage = server, lore.Lineage(lineage)
	if err := r.authorizeWrite(ctx, server, edit.Lineage); err != nil {
		return lore.BulkResult{}, err
	}
	refs, err := selection(sel)
	if err != nil {
		return lore.BulkResult{}, err
	}
	edit.Entries = refs
	return r.Store.EditEntries(ctx, edit)
}

func (r *Resolver) setEntriesEnabled(ctx context.Context, in model.SetEntriesEnabledInput) (*model.BulkEntriesPayload, error) {
	return bulkPayload(r.editEntries(ctx, in.ServerDiscordID, in.LineageID, in.Entries, lore.BulkEdit{Op: lore.BulkSetEnabled, Enabled: in.Enabled}))
}

func (r *Resolver) updateEntries(ctx context.Context, in model.UpdateEntriesInput) (*model.BulkEntriesPayload, error) {
	p, err := patchFromInput(&in.Patch)
	if err != nil {
		return bulkPayload(lore.BulkResult{}, err)
	}
	return bulkPayload(r.editEntries(ctx, in.ServerDiscordID, in.LineageID, in.Entries, lore.BulkEdit{Op: lore.BulkPatch, Patch: p}))
}

func (r *Resolver) deleteEntries(ctx context.Context, in model.DeleteEntriesInput) (*model.BulkEntriesPayload, error) {
	return bulkPayload(r.editEntries(ctx, in.ServerDiscordID, in.LineageID, in.Entries, lore.BulkEdit{Op: lore.BulkDelete}))
}

// replaceInEntries answers replaceInEntries (a preview writes nothing).
func (r *Resolver) replaceInEntries(ctx context.Context, in model.ReplaceInEntriesInput) (*model.ReplaceInEntriesPayload, error) {
	fail := failure[model.ReplaceInEntriesPayload]
	rep := lore.Replacement{Find: in.Find, With: in.Replace, CaseSensitive: valueOr(in.CaseSensitive, false)}
	for _, f := range in.Fields {
		switch f {
		case model.ReplaceFieldTitle:
			rep.Title = true
		case model.ReplaceFieldKeys:
			rep.Keys = true
		case model.ReplaceFieldContent:
			rep.Content = true
		}
	}
	edit := lore.BulkEdit{Op: lore.BulkReplace, Replace: rep, Preview: valueOr(in.Preview, false)}
	lineage := lore.Lineage(in.LineageID)
	if cid, ok := in.CollectionID.ValueOK(); ok && cid != nil {
		id, err := parseID("collection", *cid)
		if err != nil {
			return fail(err)
		}
		if err := r.authorizeWrite(ctx, in.ServerDiscordID, lineage); err != nil {
			return fail(err)
		}
		c, err := r.Store.GetCollection(ctx, in.ServerDiscordID, id)
		if err != nil {
			return fail(err)
		}
		edit.Collection = c.Name
	}
	sel, _ := in.Entries.ValueOK()
	var res lore.BulkResult
	var err error
	if len(sel) == 0 {
		edit.Server, edit.Lineage = in.ServerDiscordID, lineage
		if err = r.authorizeWrite(ctx, in.ServerDiscordID, lineage); err == nil {
			res, err = r.Store.EditEntries(ctx, edit)
		}
	} else {
		res, err = r.editEntries(ctx, in.ServerDiscordID, in.LineageID, sel, edit)
	}
	if err != nil {
		return fail(err)
	}
	out := &model.ReplaceInEntriesPayload{Count: len(res.Before), Changes: []*model.ReplaceChange{}, Preview: edit.Preview,
		ImportID: historyID(res.HistoryID)}
	for i := range res.Before {
		out.Changes = append(out.Changes, &model.ReplaceChange{Before: *entryToModel(res.Before[i]), After: *entryToModel(res.After[i]),
			ChangedFields: nonNil(lore.ChangedFields(res.Before[i], res.After[i]))})
	}
	return out, nil
}

// valueOr returns the value of an optional input, or def.
func valueOr[T any](o graphql.Omittable[*T], def T) T {
	if v, ok := o.ValueOK(); ok && v != nil {
		return *v
	}
	return def
}

// exportEntries answers exportEntries: exportLorebook of the book,
// restricted to the selected ids (each must be in the book: NOT_FOUND
// otherwise). The parts of a selected entry's split group go with it.
func (r *Resolver) exportEntries(ctx context.Context, in model.ExportEntriesInput) (*model.ExportPayload, error) {
	if len(in.EntryIds) > lore.MaxBulkEntries {
		return failure[model.ExportPayload](lore.Reject("entryIds", i18n.TooManyEntries, lore.Params{"count": len(in.EntryIds), "max": lore.MaxBulkEntries}))
	}
	want := make(map[int64]int, len(in.EntryIds))
	for i, s := range in.EntryIds {
		id, err := parseID("entry", s)
		if err != nil {
			return failure[model.ExportPayload](lore.WithFieldPrefix(fmt.Sprintf("entryIds[%d]", i), err))
		}
		want[id] = i
	}
	book := &model.ExportLorebookInput{ServerDiscordID: in.ServerDiscordID, LineageID: in.LineageID,
		CollectionID: in.CollectionID, Format: in.Format}
	return r.exportBook(ctx, book, func(all []lore.Entry) ([]lore.Entry, error) {
		groups := map[string]bool{}
		found := map[int64]bool{}
		for _, e := range all {
			if _, ok := want[e.ID]; ok {
				found[e.ID] = true
				if ref, ok := e.Split(); ok {
					groups[ref.Group] = true
				}
			}
		}
		for id, i := range want {
			if !found[id] {
				return nil, fmt.Errorf("entryIds[%d]: entry %d is not in this book: %w", i, id, lore.ErrNotFound)
			}
		}
		var out []lore.Entry
		for _, e := range all {
			ref, split := e.Split()
			if _, ok := want[e.ID]; ok || (split && groups[ref.Group]) {
				out = append(out, e)
			}
		}
		return out, nil
	})
}
