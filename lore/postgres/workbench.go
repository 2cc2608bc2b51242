package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Bulk operations (lore.WorkbenchStore): each is one lore write (one
// transaction under the server-row lock) that validates everything before
// it writes and records itself in the import history as a HistoryBulk, so
// Undo removes what it created and restores what it changed or removed.

var _ lore.WorkbenchStore = (*Store)(nil)

const (
	// entrySelectIDs reads and locks entries of one scope by id, with the
	// other parts of their split groups (lore.KeySplit).
	entrySelectIDs = `SELECT ` + entryColumns + ` FROM lorebook_entries e
WHERE e.server_id = $1 AND e.lineage_id IS NOT DISTINCT FROM $2 AND (e.id = ANY($3) OR (e.extensions ? 'loregate/split'
    AND e.extensions -> 'loregate/split' ->> 'group' IN (SELECT s.extensions -> 'loregate/split' ->> 'group'
        FROM lorebook_entries s WHERE s.server_id = $1 AND s.lineage_id IS NOT DISTINCT FROM $2 AND s.id = ANY($3)
        AND s.extensions ? 'loregate/split' AND s.lorebook_name IS NOT DISTINCT FROM e.lorebook_name)))
ORDER BY e.id FOR UPDATE OF e`

	// entryBookEntries lists one book of a scope (collection $3, NULL =
	// every collection or the lineage), locked.
	entryBookEntries = `SELECT ` + entryColumns + ` FROM lorebook_entries e
WHERE e.server_id = $1 AND e.lineage_id IS NOT DISTINCT FROM $2 AND ($3::text IS NULL OR e.lorebook_name = $3)
ORDER BY e.id FOR UPDATE OF e`

	entryDeleteScopeIDs = `DELETE FROM lorebook_entries e WHERE e.server_id = $1 AND e.lineage_id IS NOT DISTINCT FROM $2 AND e.id = ANY($3)`

	entrySetCollection = `UPDATE lorebook_entries e SET lorebook_name = $3 WHERE e.server_id = $1 AND e.lineage_id IS NULL AND e.id = ANY($2)`
)

// lockEntriesTx reads and locks the named entries of (server, lineage)
// with their split siblings, checks every expectation, and returns them by
// id. A missing id is ErrNotFound naming it.
func lockEntriesTx(ctx context.Context, tx pgx.Tx, server string, lineage lore.Lineage, refs []lore.EntryRef) ([]lore.Entry, error) {
	if len(refs) == 0 {
		return nil, lore.Reject("entries", i18n.Empty, nil)
	}
	if len(refs) > lore.MaxBulkEntries {
		return nil, lore.Reject("entries", i18n.TooManyIDs, lore.Params{"count": len(refs), "max": lore.MaxBulkEntries})
	}
	ids := make([]int64, len(refs))
	seen := make(map[int64]bool, len(refs))
	for i, r := range refs {
		if seen[r.ID] {
			return nil, lore.Reject(fmt.Sprintf("entries[%d]", i), i18n.RepeatsEntry, lore.Params{"id": r.ID})
		}
		seen[r.ID] = true
		ids[i] = r.ID
	}
	rows, err := tx.Query(ctx, entrySelectIDs, server, lineageParam(lineage), ids)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (lore.Entry, error) { return scanEntry(row) })
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]lore.Entry, len(got))
	for _, e := range got {
		byID[e.ID] = e
	}
	for i, r := range refs {
		e, ok := byID[r.ID]
		if !ok {
			return nil, fmt.Errorf("entries[%d]: %w", i, notFound("entry", r.ID))
		}
		if err := lore.CheckUpdatedAt(fmt.Sprintf("entry %d", r.ID), r.ExpectedUpdatedAt, e.UpdatedAt); err != nil {
			return nil, err
		}
	}
	return got, nil
}

// targetBook resolves a move's target under the lock: a persona lineage,
// or a Serverwide collection by id (ErrNotFound when gone).
func targetBookTx(ctx context.Context, tx pgx.Tx, server string, to lore.BookRef) (lore.Collection, error) {
	if to.Lineage < 0 {
		return lore.Collection{}, lore.Reject("target.lineageId", i18n.BadLineage, nil)
	}
	if !to.Lineage.IsServerwide() {
		if to.CollectionID != 0 {
			return lore.Collection{}, lore.Reject("target.collectionId", i18n.PersonaBookNoCollection, nil)
		}
		return lore.Collection{}, nil
	}
	if to.CollectionID == 0 {
		return lore.Collection{}, lore.Reject("target.collectionId", i18n.Required, nil)
	}
	c, err := scanCollection(tx.QueryRow(ctx, lorebookGet, server, to.CollectionID))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, notFound("collection", to.CollectionID)
	}
	return c, err
}

// MoveEntries moves or copies entries into a book (lore.MoveRequest,
// docs/workbench.md#move-and-copy). Between Serverwide collections a move
// keeps the ids; every other move is a delete plus a create with new ids
// (the old ids' turn state goes with them). The target's limit is checked
// for every entry that joins its scope.
func (s *Store) MoveEntries(ctx context.Context, r lore.MoveRequest) (lore.MoveResult, error) {
	op := "move entries"
	kind := lore.RevisionMove
	if r.Copy {
		op = "copy entries"
	}
	var res lore.MoveResult
	if err := checkLineage(r.From); err != nil {
		return res, wrapErr(op, err)
	}
	ctx = lore.WithRevisionKind(ctx, kind)
	err := s.write(ctx, op, r.Server, func(tx pgx.Tx) error {
		src, err := lockEntriesTx(ctx, tx, r.Server, r.From, r.Entries)
		if err != nil {
			return err
		}
		book, err := targetBookTx(ctx, tx, r.Server, r.To)
		if err != nil {
			return err
		}
		res, err = s.moveTx(ctx, tx, r, src, book)
		return err
	})
	return res, err
}

// moveTx is MoveEntries once the sources and the target are read.
func (s *Store) moveTx(ctx context.Context, tx pgx.Tx, r lore.MoveRequest, src []lore.Entry, book lore.Collection) (lore.MoveResult, error) {
	var res lore.MoveResult
	sameScope := r.From == r.To.Lineage
	if !r.Copy && sameScope && (!r.From.IsServerwide() || allInCollection(src, book.Name)) {
		return res, lore.Reject("target", i18n.SameBook, nil)
	}
	srcChannels, err := sourceChannelsTx(ctx, tx, r.Server, src, r.To.Lineage)
	if err != nil {
		return res, err
	}
	next := make([]lore.Entry, len(src))
	for i, e := range src {
		n := e.Clone()
		n.Lineage, n.Collection = r.To.Lineage, book.Name
		if n.Lineage != e.Lineage || n.Collection != e.Collection {
			n.CategoryID = 0 // categories belong to their book (docs/workbench.md#categories)
		}
		switch {
		case n.Lineage.IsServerwide():
			res.ChannelsFromCollection = res.ChannelsFromCollection || len(n.ChannelIDs) > 0 || len(book.ChannelIDs) > 0
			n.ChannelIDs = nil
		case e.Lineage.IsServerwide():
			n.ChannelIDs = srcChannels[e.Collection]
			res.ChannelsFromSource = res.ChannelsFromSource || len(n.ChannelIDs) > 0
		}
		if next[i], err = s.prepareEntry(n); err != nil {
			return res, lore.WithFieldPrefix(fmt.Sprintf("entries[%d]", i), err)
		}
	}
	keep := !r.Copy && sameScope
	if !keep {
		n, err := countScopeTx(ctx, tx, r.Server, r.To.Lineage)
		if err != nil {
			return res, err
		}
		if err := s.checkCapacity(r.Server, r.To.Lineage, n, len(next)); err != nil {
			return res, err
		}
	}
	ids := entryIDs(src)
	switch {
	case keep:
		if _, err := tx.Exec(ctx, entrySetCollection, r.Server, ids, book.Name); err != nil {
			return res, err
		}
		for i := range next {
			if next[i], err = scanEntry(tx.QueryRow(ctx, entryGet, r.Server, nil, next[i].ID)); err != nil {
				return res, err
			}
		}
	default:
		if !r.Copy {
			if _, err := tx.Exec(ctx, entryDeleteScopeIDs, r.Server, lineageParam(r.From), ids); err != nil {
				return res, err
			}
		}
		if err := insertEntriesTx(ctx, tx, next); err != nil {
			return res, err
		}
	}
	res.KeptIDs, res.Entries = keep, next
	for i := range src {
		res.Moved = append(res.Moved, lore.MovedEntry{From: src[i].ID, To: next[i].ID})
	}
	rec := lore.HistoryRecord{Server: r.Server, Kind: lore.HistoryBulk, Actor: lore.WriteMetaFrom(ctx).Actor,
		SourceName: fmt.Sprintf("%s %s", operationName(r), lore.Count(len(src), "entry", "entries")),
		Target:     lore.HistoryTarget{Lineage: r.To.Lineage, CollectionID: book.ID, Collection: book.Name},
		CreatedIDs: entryIDs(next)}
	if !r.Copy {
		rec.RemovedIDs, rec.Snapshot = ids, &lore.HistorySnapshot{Entries: src}
	}
	rec.Report, _ = json.Marshal(map[string]any{"operation": operationName(r), "entries": len(src), "keptIds": keep,
		"fromLineage": int64(r.From)})
	rec, err = s.InTx(tx).RecordHistory(ctx, rec)
	res.HistoryID = rec.ID
	return res, err
}

func operationName(r lore.MoveRequest) string {
	if r.Copy {
		return "copy"
	}
	return "move"
}

// sourceChannelsTx returns the channel ids of the collections of src
// entries that go into a persona lineage (their gate travels with them).
func sourceChannelsTx(ctx context.Context, tx pgx.Tx, server string, src []lore.Entry, to lore.Lineage) (map[string][]string, error) {
	out := map[string][]string{}
	if to.IsServerwide() {
		return out, nil
	}
	for _, e := range src {
		if !e.Lineage.IsServerwide() {
			continue
		}
		if _, ok := out[e.Collection]; ok {
			continue
		}
		c, err := scanCollection(tx.QueryRow(ctx, lorebookGetByName, server, e.Collection))
		if err != nil {
			return nil, err
		}
		out[e.Collection] = c.ChannelIDs
	}
	return out, nil
}

func allInCollection(es []lore.Entry, name string) bool {
	return !slices.ContainsFunc(es, func(e lore.Entry) bool { return e.Collection != name })
}

func entryIDs(es []lore.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// EditEntries applies one bulk edit (lore.BulkEdit) in one lore write: the
// entries are read and locked, every result validated, then written in
// one batch and recorded (the old states as the snapshot, so Undo puts
// them back). A preview stops before writing.
func (s *Store) EditEntries(ctx context.Context, r lore.BulkEdit) (lore.BulkResult, error) {
	const op = "edit entries"
	var res lore.BulkResult
	if err := checkLineage(r.Lineage); err != nil {
		return res, wrapErr(op, err)
	}
	if r.Op == lore.BulkReplace {
		if err := r.Replace.Validate(); err != nil {
			return res, wrapErr(op, err)
		}
	}
	ctx = lore.WithRevisionKind(ctx, lore.RevisionBulk)
	errPreview := errors.New("preview")
	err := s.write(ctx, op, r.Server, func(tx pgx.Tx) error {
		cur, err := s.bulkTargetsTx(ctx, tx, r)
		if err != nil {
			return err
		}
		if res, err = s.bulkApply(r, cur); err != nil {
			return err
		}
		if r.Preview {
			return errPreview
		}
		if len(res.Before) == 0 {
			return nil
		}
		return s.bulkWriteTx(ctx, tx, r, &res)
	})
	if errors.Is(err, errPreview) {
		err = nil
	}
	return res, err
}

// bulkTargetsTx reads and locks the entries of a bulk edit.
func (s *Store) bulkTargetsTx(ctx context.Context, tx pgx.Tx, r lore.BulkEdit) ([]lore.Entry, error) {
	if r.Op != lore.BulkReplace || len(r.Entries) > 0 {
		return lockEntriesTx(ctx, tx, r.Server, r.Lineage, r.Entries)
	}
	var book *string
	if r.Lineage.IsServerwide() && r.Collection != "" {
		book = &r.Collection
	}
	rows, err := tx.Query(ctx, entryBookEntries, r.Server, lineageParam(r.Lineage), book)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (lore.Entry, error) { return scanEntry(row) })
}

// bulkApply computes the changed entries and validates every result.
func (s *Store) bulkApply(r lore.BulkEdit, cur []lore.Entry) (lore.BulkResult, error) {
	var res lore.BulkResult
	patch := r.Patch
	patch.ExpectedUpdatedAt = nil
	for i, e := range cur {
		var next lore.Entry
		changed := true
		switch r.Op {
		case lore.BulkDelete:
			res.Before = append(res.Before, e)
			continue
		case lore.BulkSetEnabled:
			next = e.Clone()
			next.Enabled = r.Enabled
		case lore.BulkPatch:
			next, _ = applyPatch(e, patch)
		case lore.BulkReplace:
			next, changed = r.Replace.Apply(e)
		default:
			return res, lore.Reject("op", i18n.NotBulkEdit, nil)
		}
		if !changed {
			continue
		}
		next, err := s.prepareEntry(next)
		if err != nil {
			return res, lore.WithFieldPrefix(fmt.Sprintf("entries[%d]", i), err)
		}
		res.Before, res.After = append(res.Before, e), append(res.After, next)
	}
	return res, nil
}

// bulkWriteTx writes a bulk edit's results in one batch and records it.
func (s *Store) bulkWriteTx(ctx context.Context, tx pgx.Tx, r lore.BulkEdit, res *lore.BulkResult) error {
	ids := entryIDs(res.Before)
	if r.Op == lore.BulkDelete {
		if _, err := tx.Exec(ctx, entryDeleteScopeIDs, r.Server, lineageParam(r.Lineage), ids); err != nil {
			return err
		}
	} else {
		batch := &pgx.Batch{}
		for i := range res.After {
			e := &res.After[i]
			if e.CategoryID != res.Before[i].CategoryID {
				// A category of another book is refused, not cleared by
				// the table's trigger behind the answer's back.
				if err := checkEntryCategoryTx(ctx, tx, *e); err != nil {
					return lore.WithFieldPrefix(fmt.Sprintf("entries[%d]", i), err)
				}
			}
			args, err := entryArgs(*e)
			if err != nil {
				return lore.WithFieldPrefix(fmt.Sprintf("entries[%d]", i), err)
			}
			batch.Queue(entryUpdate, append([]any{r.Server, lineageParam(r.Lineage), e.ID}, args...)...).QueryRow(func(row pgx.Row) error {
				return row.Scan(&e.UpdatedAt)
			})
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
	}
	names := map[lore.BulkOp]string{lore.BulkSetEnabled: "set enabled", lore.BulkPatch: "update",
		lore.BulkDelete: "delete", lore.BulkReplace: "replace"}
	rec := lore.HistoryRecord{Server: r.Server, Kind: lore.HistoryBulk, Actor: lore.WriteMetaFrom(ctx).Actor,
		SourceName: fmt.Sprintf("%s %s", names[r.Op], lore.Count(len(ids), "entry", "entries")),
		Target:     lore.HistoryTarget{Lineage: r.Lineage, Collection: r.Collection},
		RemovedIDs: ids, Snapshot: &lore.HistorySnapshot{Entries: res.Before}}
	if r.Op != lore.BulkDelete {
		rec.CreatedIDs = ids
	}
	rec.Report, _ = json.Marshal(map[string]any{"operation": names[r.Op], "entries": len(ids)})
	rec, err := s.InTx(tx).RecordHistory(ctx, rec)
	res.HistoryID = rec.ID
	return err
}
