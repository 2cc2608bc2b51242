package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Undo undoes history record id of server (docs/imports.md "History and
// undo"), in one transaction under the server lock, recorded as a
// lore.HistoryUndo by actor. The store (lore.UndoStore) runs the
// statements; these are the rules:
//
//   - an undo record, a record already undone, and a record whose snapshot
//     was pruned while it removed entries are refused (ErrInvalid, field
//     "importId");
//   - a record whose created entries a later record (not undone) replaced
//     or removed is refused until that later record is undone;
//   - when an entry id of the snapshot is taken again, or restoring would
//     take a scope past the limit (ErrScopeFull), nothing changes;
//   - otherwise the entries the record created are deleted (edited or not;
//     entries deleted since count as Missing), the snapshot's collections
//     that no longer exist are recreated with their settings, its entries
//     are inserted with their ids and timestamps, book settings a Replace
//     stored are put back unless changed since (BookSettingsKept), the
//     book's kept source fields (book_sources) and card (book_cards) it
//     overwrote come back byte for byte unless a later import wrote them
//     since,
//     collections the record changed get their enabled flag, channels and
//     settings back unless changed since (CollectionsKept), persona book
//     settings a backup import replaced come back unless changed since
//     (BookSettingsKept), the server's settings and workbench settings a
//     backup import replaced come back unless changed since
//     (ServerSettingsKept), a collection
//     the record created is removed when empty, a persona it created is
//     removed with its book unless entries were written in that book since
//     (undoCreatedPersona), the card character a persona card import
//     replaced on an existing persona comes back unless changed since
//     (CardKept), the categories it created are removed once no entry is
//     in them and those it changed get their name, order and flag back
//     unless changed since (CategoriesKept), a migration's source ids are forgotten (a rerun
//     migrates them again), and the undo is recorded.
//
// Lore written since that the record did not create stays. A server deleted
// since is ErrNotFound and nothing happens.
func Undo(ctx context.Context, st lore.HistoryStore, server string, id int64, actor string) (lore.UndoResult, error) {
	if id <= 0 {
		return lore.UndoResult{}, lore.Reject("importId", i18n.NotPositiveID, nil)
	}
	var res lore.UndoResult
	// The entry revisions the undo writes name its actor and kind.
	ctx = lore.WithRevisionKind(lore.WithActor(ctx, actor), lore.RevisionUndo)
	err := st.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		u := &undo{st: st, server: server, id: id}
		var err error
		res, err = u.run(ctx, actor)
		return err
	})
	if err != nil {
		return lore.UndoResult{}, fmt.Errorf("undo import: %w", err)
	}
	return res, nil
}

// undo is one Undo inside its transaction: record id of server.
type undo struct {
	st     lore.HistoryStore
	server string
	id     int64
	rec    lore.HistoryRecord
	snap   lore.HistorySnapshot
	res    lore.UndoResult
}

// run undoes the record in named steps: check, remove what it created,
// restore what it replaced, put back changed collections, clean up, record
// the undo.
func (u *undo) run(ctx context.Context, actor string) (lore.UndoResult, error) {
	if err := u.load(ctx); err != nil {
		return lore.UndoResult{}, err
	}
	restored, err := u.checkFree(ctx)
	if err != nil {
		return lore.UndoResult{}, err
	}
	var removed []int64
	if len(u.rec.CreatedIDs) > 0 {
		if removed, err = u.st.DeleteEntryIDs(ctx, u.server, u.rec.CreatedIDs); err != nil {
			return lore.UndoResult{}, err
		}
	}
	for _, step := range []func(context.Context) error{u.restoreSnapshot, u.restoreSource, u.restoreBookCard, u.restoreChangedCollections, u.restorePersonaBooks, u.restoreServerSettings, u.restoreCategories, u.restoreCard, u.cleanUp} {
		if err := step(ctx); err != nil {
			return lore.UndoResult{}, err
		}
	}
	if err := u.record(ctx, actor, restored, removed); err != nil {
		return lore.UndoResult{}, err
	}
	return u.res, nil
}

// load reads and locks the record and refuses one that cannot be undone.
func (u *undo) load(ctx context.Context) error {
	rec, err := u.st.LockHistoryRecord(ctx, u.server, u.id)
	if err != nil {
		return err
	}
	id := u.id
	switch {
	case rec.Kind == lore.HistoryUndo:
		return lore.Reject("importId", i18n.UndoOfUndo, lore.Params{"id": id})
	case rec.UndoneBy != 0:
		return lore.Reject("importId", i18n.AlreadyUndone, lore.Params{"id": id, "by": rec.UndoneBy})
	case rec.SnapshotPruned && len(rec.RemovedIDs) > 0:
		return lore.Reject("importId", i18n.PastRetention, lore.Params{"id": id})
	}
	if len(rec.CreatedIDs) > 0 {
		later, err := u.st.LaterRemover(ctx, u.server, id, rec.CreatedIDs)
		if err != nil {
			return err
		}
		if later != 0 {
			return lore.Reject("importId", i18n.UndoLaterFirst, lore.Params{"id": id, "later": later})
		}
	}
	u.rec = rec
	if rec.Snapshot != nil {
		u.snap = *rec.Snapshot
	}
	return nil
}

// checkFree returns the ids of the snapshot's entries and refuses when one
// of them is taken again.
func (u *undo) checkFree(ctx context.Context) ([]int64, error) {
	ids := make([]int64, len(u.snap.Entries))
	var check []int64
	for i, e := range u.snap.Entries {
		ids[i] = e.ID
		// An id the record also created is freed by DeleteEntryIDs first
		// (a bulk edit in place, lore.HistoryBulk).
		if !slices.Contains(u.rec.CreatedIDs, e.ID) {
			check = append(check, e.ID)
		}
	}
	if len(check) > 0 {
		taken, err := u.st.TakenEntryID(ctx, check)
		if err != nil {
			return nil, err
		}
		if taken != 0 {
			return nil, lore.Reject("importId", i18n.EntryIDTaken, lore.Params{"entry": taken, "id": u.id})
		}
	}
	return ids, nil
}

// restoreSnapshot checks every scope's room after the removal, then
// restores the snapshot's collections (the entries reference them by
// name), entries and book settings.
func (u *undo) restoreSnapshot(ctx context.Context) error {
	st, server, snap := u.st, u.server, &u.snap
	adding := map[lore.Lineage]int{}
	for _, e := range snap.Entries {
		adding[e.Lineage]++
	}
	lineages := make([]lore.Lineage, 0, len(adding))
	for l := range adding {
		lineages = append(lineages, l)
	}
	slices.Sort(lineages)
	for _, l := range lineages {
		if err := st.CheckScopeRoom(ctx, server, l, adding[l]); err != nil {
			return err
		}
	}
	for _, c := range snap.Collections {
		if err := st.RestoreCollection(ctx, server, c); err != nil {
			return err
		}
	}
	for _, e := range snap.Entries {
		if e.Lineage.IsServerwide() {
			if err := st.RestoreCollection(ctx, server, lore.Collection{Name: e.Collection, Enabled: true}); err != nil {
				return err
			}
		}
	}
	if err := st.RestoreEntries(ctx, server, snap.Entries); err != nil {
		return err
	}
	if snap.BookSettings != nil {
		return u.restoreBookSettings(ctx)
	}
	return nil
}

// restoreBookSettings puts back the settings of the record's target book;
// with the settings the operation left known (BookSettingsAfter), a book
// changed since keeps its settings (BookSettingsKept). A collection gone
// since gets nothing.
func (u *undo) restoreBookSettings(ctx context.Context) error {
	t := u.rec.Target
	cur, ok, err := u.st.TargetBook(ctx, u.server, t)
	if err != nil || !ok {
		return err
	}
	if after := u.snap.BookSettingsAfter; after != nil && !cur.Equal(*after) {
		u.res.BookSettingsKept = true
		return nil
	}
	return u.st.SetTargetBook(ctx, u.server, t, *u.snap.BookSettings)
}

// restoreSource puts back the kept source fields of the record's target
// book (book_sources: HistorySnapshot.Source) while the book still has the
// ones the record wrote; fields a later import wrote stay (its own undo
// puts these back). A collection gone since gets nothing.
func (u *undo) restoreSource(ctx context.Context) error {
	s := u.snap.Source
	if s == nil {
		return nil
	}
	cur, ok, err := u.st.TargetSource(ctx, u.server, u.rec.Target)
	if err != nil || !ok || !lore.KeepSource(cur).Equal(s.After) {
		return err
	}
	return u.st.SetTargetSource(ctx, u.server, u.rec.Target, s.Before.Source())
}

// restoreBookCard puts back the kept card of the record's target book
// (book_cards: HistorySnapshot.BookCard), byte for byte with its time, or
// none, while the book still has the card the record wrote; a card a
// later import wrote stays (its own undo puts this one back). A
// collection gone since gets nothing.
func (u *undo) restoreBookCard(ctx context.Context) error {
	s := u.snap.BookCard
	if s == nil {
		return nil
	}
	cur, ok, err := u.st.TargetCard(ctx, u.server, u.rec.Target)
	if err != nil || !ok || lore.CardDigest(cur) != s.After {
		return err
	}
	return u.st.SetTargetCard(ctx, u.server, u.rec.Target, s.Before.BookCard())
}

// restoreChangedCollections puts back the flags and settings of the
// collections the record changed, unless a manager changed them since.
func (u *undo) restoreChangedCollections(ctx context.Context) error {
	snap := &u.snap
	for i, c := range snap.ChangedCollections {
		cur, ok, err := u.st.CollectionNamed(ctx, u.server, c.Name)
		if err != nil {
			return err
		}
		if !ok {
			continue // deleted or renamed since: nothing to put back
		}
		if i < len(snap.CollectionsAfter) && !lore.SameCollectionState(cur, snap.CollectionsAfter[i]) {
			// Changed since the operation: a manager's later choice stays.
			u.res.CollectionsKept++
			continue
		}
		// Settings only when they differ: unchanged ones need no
		// validation against a budget unit changed since.
		if err := u.st.RestoreCollectionState(ctx, u.server, c, !cur.Settings.Equal(c.Settings)); err != nil {
			return err
		}
		u.res.Collections++
	}
	return nil
}

// restorePersonaBooks puts back the persona book settings a backup import
// replaced (HistorySnapshot.PersonaBooks) while the book still has the
// ones it left; one changed since keeps its settings (BookSettingsKept).
func (u *undo) restorePersonaBooks(ctx context.Context) error {
	for _, pb := range u.snap.PersonaBooks {
		t := lore.HistoryTarget{Lineage: pb.Lineage}
		cur, _, err := u.st.TargetBook(ctx, u.server, t)
		if err != nil {
			return err
		}
		if !cur.Equal(pb.After) {
			u.res.BookSettingsKept = true
			continue
		}
		if err := u.st.SetTargetBook(ctx, u.server, t, pb.Before); err != nil {
			return err
		}
	}
	return nil
}

// restoreServerSettings puts back the server's settings and workbench
// settings a backup import replaced (HistorySnapshot.ServerSettings,
// Workbench), each while the server still has what the import left;
// settings changed since stay (UndoResult.ServerSettingsKept).
func (u *undo) restoreServerSettings(ctx context.Context) error {
	if s := u.snap.ServerSettings; s != nil {
		cur, err := u.st.GetServer(ctx, u.server)
		if err != nil {
			return err
		}
		if !cur.Settings.Equal(s.After) {
			u.res.ServerSettingsKept = true
		} else if _, err := u.st.UpdateServerSettings(ctx, u.server, s.Before); err != nil {
			return err
		} else {
			u.res.ServerSettings = true
		}
	}
	w := u.snap.Workbench
	if w == nil {
		return nil
	}
	cur, err := u.st.GetWorkbenchSettings(ctx, u.server)
	if err != nil {
		return err
	}
	if !cur.Same(w.After) {
		u.res.ServerSettingsKept = true
		return nil
	}
	enabled, channel, role := w.Before.ProposalsEnabled, w.Before.ProposalChannelID, w.Before.LoreEditorRoleID
	if _, err := u.st.UpdateWorkbenchSettings(ctx, u.server, lore.WorkbenchSettingsPatch{ProposalsEnabled: &enabled,
		ProposalChannelID: &channel, LoreEditorRoleID: &role}); err != nil {
		return err
	}
	u.res.ServerSettings = true
	return nil
}

// restoreCard puts back the card character of the persona a persona card
// import wrote onto (HistorySnapshot.Card), unless its character was
// changed since (a later card: UndoResult.CardKept). A persona deleted
// since gets nothing.
func (u *undo) restoreCard(ctx context.Context) error {
	c := u.snap.Card
	if c == nil {
		return nil
	}
	cur, ok, err := u.st.PersonaCard(ctx, u.server, c.Persona)
	if err != nil || !ok {
		return err
	}
	if !cur.Equal(c.After) {
		u.res.CardKept = true
		return nil
	}
	if err := u.st.SetPersonaCard(ctx, u.server, c.Persona, c.Before); err != nil {
		return err
	}
	u.res.Card = true
	return nil
}

// cleanUp deletes the collections the record created when empty, the
// persona it created, and a migration's source ids.
func (u *undo) cleanUp(ctx context.Context) error {
	rec := &u.rec
	for _, name := range append(u.snap.CreatedCollections, rec.CreatedCollection) {
		if name == "" {
			continue
		}
		if err := u.st.DeleteCollectionIfEmpty(ctx, u.server, name); err != nil {
			return err
		}
	}
	if rec.CreatedPersona != 0 {
		var err error
		if u.res.Persona, err = u.undoCreatedPersona(ctx, rec.CreatedPersona, rec.Target.Lineage); err != nil {
			return err
		}
	}
	if rec.Kind == lore.HistoryMigration {
		return u.st.ForgetMigratedSources(ctx, rec.ID)
	}
	return nil
}

// undoCreatedPersona removes the persona an undone import created, with
// its book's settings and kept card, after the import's entries were
// removed. Lore authored since stays: when the lineage still holds
// entries, the persona and its book are kept and counted. A persona moved
// to another lineage since is kept too. The book goes only when no other
// persona shares the lineage.
func (u *undo) undoCreatedPersona(ctx context.Context, id int64, lineage lore.Lineage) (*lore.UndoPersona, error) {
	out := &lore.UndoPersona{ID: id, Lineage: lineage}
	n, err := u.st.CountScopeTx(ctx, u.server, lineage)
	if err != nil {
		return nil, err
	}
	if out.AuthoredSince = n; n > 0 {
		return out, nil
	}
	deleted, exists, err := u.st.DeletePersonaOnLineage(ctx, u.server, id, lineage)
	if err != nil {
		return nil, err
	}
	if !deleted && exists {
		out.Moved = true
		return out, nil
	}
	out.Removed = true
	if _, err := u.st.DeleteUnsharedPersonaBook(ctx, u.server, lineage); err != nil {
		return nil, err
	}
	return out, nil
}

// record bumps the lore version and records the undo (restored entry ids,
// removed ids) with its report, marking the record undone.
func (u *undo) record(ctx context.Context, actor string, restored, removed []int64) error {
	st, res := u.st, &u.res
	if err := st.BumpLoreVersion(ctx, u.server); err != nil {
		return err
	}
	res.Restored, res.Removed, res.Missing = len(u.snap.Entries), len(removed), len(u.rec.CreatedIDs)-len(removed)
	rep := map[string]any{"restored": res.Restored, "removed": res.Removed, "missing": res.Missing}
	if res.Categories > 0 || res.CategoriesKept > 0 {
		rep["categories"], rep["categoriesKept"] = res.Categories, res.CategoriesKept
	}
	if res.Collections > 0 || res.CollectionsKept > 0 {
		rep["collections"], rep["collectionsKept"] = res.Collections, res.CollectionsKept
	}
	if res.Card || res.CardKept {
		rep["card"], rep["cardKept"] = res.Card, res.CardKept
	}
	if p := res.Persona; p != nil {
		rep["persona"] = map[string]any{"id": p.ID, "lineage": p.Lineage, "removed": p.Removed, "authoredSince": p.AuthoredSince, "moved": p.Moved}
	}
	report, _ := json.Marshal(rep)
	undo, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: u.server, Kind: lore.HistoryUndo, Actor: actor,
		SourceName: fmt.Sprintf("undo of %d", u.id), Target: u.rec.Target, Report: report,
		CreatedIDs: restored, RemovedIDs: removed, UndoOf: u.id})
	if err != nil {
		return err
	}
	if err := st.MarkUndone(ctx, u.id, undo.ID); err != nil {
		return err
	}
	res.Record = undo
	return nil
}
