package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
)

// The import history (migrations/000040_import_history.up.sql; docs/imports.md
// "History and undo").

var _ lore.HistoryStore = (*Store)(nil)

const historyColumns = `id, server_id::text, kind, actor, created_at, source_name, source_sha256, mode,
    target, report, created_ids, removed_ids, coalesce(created_collection, ''), snapshot, snapshot_pruned,
    coalesce(undo_of, 0), coalesce(undone_by, 0), undone_at, coalesce(created_persona, 0)`

const (
	historyInsert = `INSERT INTO import_history (server_id, kind, actor, source_name, source_sha256, mode, target,
    report, created_ids, removed_ids, created_collection, snapshot, undo_of, created_persona)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULLIF($11, ''), $12, NULLIF($13, 0), NULLIF($14, 0))
RETURNING id, created_at`

	historyList = `SELECT ` + historyColumns + ` FROM import_history
WHERE server_id = $1 AND ($2 = 0 OR id < $2) ORDER BY id DESC LIMIT $3`

	historyGet = `SELECT ` + historyColumns + ` FROM import_history WHERE server_id = $1 AND id = $2`

	historyGetForUpdate = historyGet + ` FOR UPDATE`

	// historyLaterRemover finds the oldest later record, not undone, that
	// replaced or removed one of the given entries.
	historyLaterRemover = `SELECT id FROM import_history
WHERE server_id = $1 AND id > $2 AND undone_by IS NULL AND kind <> 'undo' AND removed_ids && $3
ORDER BY id LIMIT 1`

	historyMarkUndone = `UPDATE import_history SET undone_by = $2, undone_at = now() WHERE id = $1`

	historyPrune = `UPDATE import_history SET snapshot = NULL, snapshot_pruned = true
WHERE snapshot IS NOT NULL AND created_at < $1`

	legacySourcesInsert = `INSERT INTO legacy_memory_sources (server_id, source_id, import_id)
SELECT $1, s, $2 FROM unnest($3::text[]) s ON CONFLICT DO NOTHING`

	legacySourcesKnown = `SELECT source_id FROM legacy_memory_sources WHERE server_id = $1 AND source_id = ANY($2)`

	legacySourcesDelete = `DELETE FROM legacy_memory_sources WHERE import_id = $1`

	entryIDsTaken = `SELECT id FROM lorebook_entries WHERE id = ANY($1) ORDER BY id LIMIT 1`

	entryDeleteIDs = `DELETE FROM lorebook_entries WHERE server_id = $1 AND id = ANY($2) RETURNING id`

	lorebookDeleteIfEmpty = `DELETE FROM lorebooks b WHERE b.server_id = $1 AND b.name = $2
AND NOT EXISTS (SELECT 1 FROM lorebook_entries e WHERE e.server_id = $1 AND e.lorebook_name = $2)`

	// lorebookRestoreFlags puts back a collection's enabled flag and
	// channels (an undo of an operation that changed them).
	lorebookRestoreFlags = `UPDATE lorebooks SET enabled = $3, channel_ids = $4::text[] WHERE server_id = $1 AND name = $2`

	// personaDeleteOnLineage deletes a persona an undone import created,
	// while it is still on the lineage the import gave it.
	personaDeleteOnLineage = `DELETE FROM personas WHERE server_id = $1 AND id = $2 AND lineage_id = $3`

	personaExists = `SELECT EXISTS (SELECT 1 FROM personas WHERE server_id = $1 AND id = $2)`

	bookCardDeleteLineage = `DELETE FROM book_cards WHERE server_id = $1 AND lineage_id = $2`
)

// entryRestore inserts an entry with its original id and timestamps (an
// undo restoring a snapshot): entryInsert plus three parameters after
// entryInsert's entryInsertParams: id, created_at and updated_at.
var entryRestore = strings.Replace(strings.Replace(entryInsert,
	"INSERT INTO lorebook_entries (", "INSERT INTO lorebook_entries (id, created_at, updated_at, ", 1),
	"VALUES (", fmt.Sprintf("OVERRIDING SYSTEM VALUE VALUES ($%d, $%d, $%d, ", entryInsertParams+1, entryInsertParams+2, entryInsertParams+3), 1)

// Atomic runs fn in one transaction (a savepoint when s is bound to one)
// that first locks server's row; see lore.HistoryStore.
func (s *Store) Atomic(ctx context.Context, server string, fn func(ctx context.Context, st lore.HistoryStore) error) error {
	if err := checkServerID(server); err != nil {
		return wrapErr("atomic write", err)
	}
	return s.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *Store) error {
		if err := lockServerTx(ctx, tx, server, ""); err != nil {
			return wrapErr("atomic write", err)
		}
		return fn(ctx, st)
	})
}

// ListServerEntries lists every entry of server, Serverwide first.
func (s *Store) ListServerEntries(ctx context.Context, server string) ([]lore.Entry, error) {
	if err := checkServerID(server); err != nil {
		return nil, wrapErr("list server entries", err)
	}
	rows, err := s.db.Query(ctx, entryListServer, server)
	if err != nil {
		return nil, wrapErr("list server entries", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Entry, error) { return scanEntry(r) })
	return out, wrapErr("list server entries", err)
}

// RecordHistory stores r (see lore.HistoryStore).
func (s *Store) RecordHistory(ctx context.Context, r lore.HistoryRecord) (lore.HistoryRecord, error) {
	const op = "record history"
	if err := checkServerID(r.Server); err != nil {
		return r, wrapErr(op, err)
	}
	target, err := json.Marshal(r.Target)
	if err != nil {
		return r, fmt.Errorf("lore/postgres: %s: encode target: %w", op, err)
	}
	report := r.Report
	if len(report) == 0 {
		report = json.RawMessage("{}")
	}
	var snap []byte
	if !r.Snapshot.Empty() {
		if snap, err = json.Marshal(r.Snapshot); err != nil {
			return r, fmt.Errorf("lore/postgres: %s: encode snapshot: %w", op, err)
		}
	}
	r.Actor = lore.TruncateRunes(r.Actor, 200)
	r.SourceName = lore.TruncateRunes(r.SourceName, 300)
	err = s.db.QueryRow(ctx, historyInsert, r.Server, string(r.Kind), r.Actor, r.SourceName, r.SourceSHA256, r.Mode,
		target, report, nonNilIDs(r.CreatedIDs), nonNilIDs(r.RemovedIDs), r.CreatedCollection, snap, r.UndoOf, r.CreatedPersona).Scan(&r.ID, &r.CreatedAt)
	if err != nil {
		return r, wrapErr(op, err)
	}
	if len(r.SourceIDs) > 0 {
		if _, err := s.db.Exec(ctx, legacySourcesInsert, r.Server, r.ID, r.SourceIDs); err != nil {
			return r, wrapErr(op, err)
		}
	}
	return r, nil
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func scanHistory(row pgx.Row) (lore.HistoryRecord, error) {
	var r lore.HistoryRecord
	var kind string
	var target, report, snap []byte
	err := row.Scan(&r.ID, &r.Server, &kind, &r.Actor, &r.CreatedAt, &r.SourceName, &r.SourceSHA256, &r.Mode,
		&target, &report, &r.CreatedIDs, &r.RemovedIDs, &r.CreatedCollection, &snap, &r.SnapshotPruned,
		&r.UndoOf, &r.UndoneBy, &r.UndoneAt, &r.CreatedPersona)
	if err != nil {
		return r, err
	}
	r.Kind = lore.HistoryKind(kind)
	r.Report = report
	if err := json.Unmarshal(target, &r.Target); err != nil {
		return r, fmt.Errorf("decode target of history record %d: %w", r.ID, err)
	}
	if len(snap) > 0 {
		r.Snapshot = &lore.HistorySnapshot{}
		if err := json.Unmarshal(snap, r.Snapshot); err != nil {
			return r, fmt.Errorf("decode snapshot of history record %d: %w", r.ID, err)
		}
	}
	return r, nil
}

// History lists server's records newest first (see lore.HistoryStore).
// first is clamped to 1..100.
func (s *Store) History(ctx context.Context, server string, first int, before int64) ([]lore.HistoryRecord, bool, error) {
	const op = "list history"
	if err := checkServerID(server); err != nil {
		return nil, false, wrapErr(op, err)
	}
	first = min(max(first, 1), 100)
	rows, err := s.db.Query(ctx, historyList, server, before, first+1)
	if err != nil {
		return nil, false, wrapErr(op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.HistoryRecord, error) { return scanHistory(r) })
	if err != nil {
		return nil, false, wrapErr(op, err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}

// HistoryRecord returns record id of server, or ErrNotFound.
func (s *Store) HistoryRecord(ctx context.Context, server string, id int64) (lore.HistoryRecord, error) {
	const op = "get history record"
	if err := checkServerID(server); err != nil {
		return lore.HistoryRecord{}, wrapErr(op, err)
	}
	r, err := scanHistory(s.db.QueryRow(ctx, historyGet, server, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("import", id)
	}
	return r, wrapErr(op, err)
}

// MigratedSources returns which of ids a migration of server recorded.
func (s *Store) MigratedSources(ctx context.Context, server string, ids []string) (map[string]bool, error) {
	const op = "read migrated sources"
	if err := checkServerID(server); err != nil {
		return nil, wrapErr(op, err)
	}
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, legacySourcesKnown, server, ids)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	var id string
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
		out[id] = true
		return nil
	})
	return out, wrapErr(op, err)
}

// PruneSnapshots drops snapshots of records created before olderThan.
func (s *Store) PruneSnapshots(ctx context.Context, olderThan time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, historyPrune, olderThan)
	if err != nil {
		return 0, wrapErr("prune history snapshots", err)
	}
	return tag.RowsAffected(), nil
}

// Undo undoes record id of server (seed rules in docs/imports.md "History
// and undo"), in one transaction under the server lock:
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
//     stored are put back unless changed since (BookSettingsKept), collections the record changed get their
//     enabled flag, channels and settings back unless changed since, a
//     collection the record created is removed when empty, a persona it
//     created is removed with its book unless entries were written in that
//     book since (undoCreatedPersonaTx), a migration's source ids are
//     forgotten (a rerun migrates them again), and the undo is recorded.
//
// Lore written since that the record did not create stays. A server deleted
// since is ErrNotFound and nothing happens.
func (s *Store) Undo(ctx context.Context, server string, id int64, actor string) (lore.UndoResult, error) {
	const op = "undo import"
	var res lore.UndoResult
	ctx = lore.WithRevisionKind(lore.WithActor(ctx, actor), lore.RevisionUndo)
	err := s.Atomic(ctx, server, func(ctx context.Context, hs lore.HistoryStore) error {
		st := hs.(*Store)
		tx, ok := st.db.(pgx.Tx)
		if !ok {
			return errors.New("atomic store is not bound to a transaction")
		}
		u := &undoTx{st: st, tx: tx, server: server, id: id}
		var err error
		res, err = u.run(ctx, actor)
		return err
	})
	if err != nil {
		return lore.UndoResult{}, wrapErr(op, err)
	}
	return res, nil
}

// undoTx is one Undo inside its transaction: record id of server.
type undoTx struct {
	st     *Store
	tx     pgx.Tx
	server string
	id     int64
	rec    lore.HistoryRecord
	snap   lore.HistorySnapshot
	res    lore.UndoResult
}

// run undoes the record in named steps: check, remove what it created,
// restore what it replaced, put back changed collections, clean up, record
// the undo.
func (u *undoTx) run(ctx context.Context, actor string) (lore.UndoResult, error) {
	if err := u.load(ctx); err != nil {
		return lore.UndoResult{}, err
	}
	ids, err := u.checkFree(ctx)
	if err != nil {
		return lore.UndoResult{}, err
	}
	// Remove what the record created.
	removed, err := u.removeCreated(ctx)
	if err != nil {
		return lore.UndoResult{}, err
	}
	if err := u.restoreSnapshot(ctx); err != nil {
		return lore.UndoResult{}, err
	}
	if err := u.restoreChangedCollections(ctx); err != nil {
		return lore.UndoResult{}, err
	}
	if err := u.cleanUp(ctx); err != nil {
		return lore.UndoResult{}, err
	}
	if err := u.record(ctx, actor, ids, removed); err != nil {
		return lore.UndoResult{}, err
	}
	return u.res, nil
}

// load reads and locks the record and refuses one that cannot be undone:
// an undo, one already undone, one whose snapshot was pruned, one whose
// created entries a later import replaced or removed.
func (u *undoTx) load(ctx context.Context) error {
	tx, server, id := u.tx, u.server, u.id
	rec, err := scanHistory(tx.QueryRow(ctx, historyGetForUpdate, server, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound("import", id)
	}
	if err != nil {
		return err
	}
	switch {
	case rec.Kind == lore.HistoryUndo:
		return lore.Invalid("importId", "%d is itself an undo and cannot be undone", id)
	case rec.UndoneBy != 0:
		return lore.Invalid("importId", "%d was already undone (by %d)", id, rec.UndoneBy)
	case rec.SnapshotPruned && len(rec.RemovedIDs) > 0:
		return lore.Invalid("importId", "%d is older than the snapshot retention: what it replaced is no longer kept", id)
	}
	if len(rec.CreatedIDs) > 0 {
		var later int64
		err := tx.QueryRow(ctx, historyLaterRemover, server, id, rec.CreatedIDs).Scan(&later)
		if err == nil {
			return lore.Invalid("importId", "%d replaced or removed entries that %d created: undo %d first", later, id, later)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
	}
	u.rec = rec
	if rec.Snapshot != nil {
		u.snap = *rec.Snapshot
	}
	return nil
}

// checkFree returns the ids of the snapshot's entries and refuses when one
// of them is occupied again.
func (u *undoTx) checkFree(ctx context.Context) ([]int64, error) {
	ids := make([]int64, len(u.snap.Entries))
	var check []int64
	for i, e := range u.snap.Entries {
		ids[i] = e.ID
		// An id the record also created is freed by removeCreated first
		// (a bulk edit in place, lore.HistoryBulk).
		if !slices.Contains(u.rec.CreatedIDs, e.ID) {
			check = append(check, e.ID)
		}
	}
	if len(check) > 0 {
		var taken int64
		err := u.tx.QueryRow(ctx, entryIDsTaken, check).Scan(&taken)
		if err == nil {
			return nil, lore.Invalid("importId", "entry id %d, which %d replaced or removed, is occupied again: nothing was changed", taken, u.id)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, err
		}
	}
	return ids, nil
}

// removeCreated deletes the entries the record created that still exist
// and returns their ids.
func (u *undoTx) removeCreated(ctx context.Context) ([]int64, error) {
	if len(u.rec.CreatedIDs) == 0 {
		return nil, nil
	}
	rows, err := u.tx.Query(ctx, entryDeleteIDs, u.server, u.rec.CreatedIDs)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// restoreSnapshot checks the capacity of every scope after the removal,
// then restores the snapshot's collections (the entries reference them by
// name), entries and book settings.
func (u *undoTx) restoreSnapshot(ctx context.Context) error {
	tx, server, snap := u.tx, u.server, &u.snap
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
		n, err := countScopeTx(ctx, tx, server, l)
		if err != nil {
			return err
		}
		if err := u.st.checkCapacity(server, l, n, adding[l]); err != nil {
			return err
		}
	}
	for _, c := range snap.Collections {
		if err := restoreCollectionTx(ctx, tx, server, c); err != nil {
			return err
		}
	}
	for _, e := range snap.Entries {
		if e.Lineage.IsServerwide() {
			if err := restoreCollectionTx(ctx, tx, server, lore.Collection{Name: e.Collection, Enabled: true}); err != nil {
				return err
			}
		}
	}
	if err := restoreEntriesTx(ctx, tx, server, snap.Entries); err != nil {
		return err
	}
	if b := snap.BookSettings; b != nil {
		kept, err := restoreBookSettingsTx(ctx, tx, server, u.rec.Target, *b, snap.BookSettingsAfter)
		if err != nil {
			return err
		}
		u.res.BookSettingsKept = kept
	}
	return nil
}

// restoreChangedCollections puts back the flags and settings of the
// collections the record changed, unless a manager changed them since.
func (u *undoTx) restoreChangedCollections(ctx context.Context) error {
	tx, server, snap := u.tx, u.server, &u.snap
	for i, c := range snap.ChangedCollections {
		cur, err := scanCollection(tx.QueryRow(ctx, lorebookGetByName, server, c.Name))
		if errors.Is(err, pgx.ErrNoRows) {
			continue // deleted or renamed since: nothing to put back
		}
		if err != nil {
			return err
		}
		if i < len(snap.CollectionsAfter) && !lore.SameCollectionState(cur, snap.CollectionsAfter[i]) {
			// Changed since the operation: a manager's later choice stays.
			u.res.CollectionsKept++
			continue
		}
		if _, err := tx.Exec(ctx, lorebookRestoreFlags, server, c.Name, c.Enabled, emptyIfNil(c.ChannelIDs)); err != nil {
			return err
		}
		// Settings only when they differ: unchanged ones need no
		// validation against a budget unit changed since.
		if !cur.Settings.Equal(c.Settings) {
			if err := setCollectionBookTx(ctx, tx, server, c.Name, c.Settings); err != nil {
				return err
			}
		}
		u.res.Collections++
	}
	return nil
}

// cleanUp deletes the collections the record created when empty, the
// persona it created, and a migration's legacy sources.
func (u *undoTx) cleanUp(ctx context.Context) error {
	tx, server, rec := u.tx, u.server, &u.rec
	for _, name := range append(u.snap.CreatedCollections, rec.CreatedCollection) {
		if name == "" {
			continue
		}
		if _, err := tx.Exec(ctx, lorebookDeleteIfEmpty, server, name); err != nil {
			return err
		}
	}
	if rec.CreatedPersona != 0 {
		var err error
		if u.res.Persona, err = undoCreatedPersonaTx(ctx, tx, server, rec.CreatedPersona, rec.Target.Lineage); err != nil {
			return err
		}
	}
	if rec.Kind == lore.HistoryMigration {
		if _, err := tx.Exec(ctx, legacySourcesDelete, rec.ID); err != nil {
			return err
		}
	}
	return nil
}

// record bumps the lore version and records the undo (restored entry ids,
// removed ids) with its report, marking the record undone.
func (u *undoTx) record(ctx context.Context, actor string, ids, removed []int64) error {
	tx, server, st, res := u.tx, u.server, u.st, &u.res
	if _, err := tx.Exec(ctx, serverBumpLoreVersion, server); err != nil {
		return err
	}
	st.wrote(server)
	res.Restored, res.Removed, res.Missing = len(u.snap.Entries), len(removed), len(u.rec.CreatedIDs)-len(removed)
	rep := map[string]any{"restored": res.Restored, "removed": res.Removed, "missing": res.Missing}
	if res.Collections > 0 || res.CollectionsKept > 0 {
		rep["collections"], rep["collectionsKept"] = res.Collections, res.CollectionsKept
	}
	if p := res.Persona; p != nil {
		rep["persona"] = map[string]any{"id": p.ID, "lineage": p.Lineage, "removed": p.Removed, "authoredSince": p.AuthoredSince, "moved": p.Moved}
	}
	report, _ := json.Marshal(rep)
	undo, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: server, Kind: lore.HistoryUndo, Actor: actor,
		SourceName: fmt.Sprintf("undo of %d", u.id), Target: u.rec.Target, Report: report,
		CreatedIDs: ids, RemovedIDs: removed, UndoOf: u.id})
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, historyMarkUndone, u.id, undo.ID); err != nil {
		return err
	}
	res.Record = undo
	return nil
}

// undoCreatedPersonaTx removes the persona an undone import created, with
// its book's settings and kept card, after the import's entries were
// removed. Lore authored since stays: when the lineage still holds
// entries, the persona and its book are kept and counted. A persona moved
// to another lineage since is kept too. The book goes only when no other
// persona shares the lineage.
func undoCreatedPersonaTx(ctx context.Context, tx pgx.Tx, server string, id int64, lineage lore.Lineage) (*lore.UndoPersona, error) {
	out := &lore.UndoPersona{ID: id, Lineage: lineage}
	n, err := countScopeTx(ctx, tx, server, lineage)
	if err != nil {
		return nil, err
	}
	if out.AuthoredSince = n; n > 0 {
		return out, nil
	}
	tag, err := tx.Exec(ctx, personaDeleteOnLineage, server, id, int64(lineage))
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() == 0 {
		var exists bool
		if err := tx.QueryRow(ctx, personaExists, server, id).Scan(&exists); err != nil {
			return nil, err
		}
		out.Moved = exists
		if exists {
			return out, nil
		}
	}
	out.Removed = true
	var shared bool
	if err := tx.QueryRow(ctx, personaLineageKnown, server, int64(lineage)).Scan(&shared); err != nil || shared {
		return out, err
	}
	if _, err := tx.Exec(ctx, personaBookDelete, server, int64(lineage)); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, bookCardDeleteLineage, server, int64(lineage)); err != nil {
		return nil, err
	}
	return out, nil
}

// restoreBookSettingsTx puts back the settings of a record's target book:
// its persona lineage, or its collection when one of that name exists.
// With after set (the settings the operation left), a book whose settings
// differ from after was changed since and keeps them: kept is true and
// nothing is written.
func restoreBookSettingsTx(ctx context.Context, tx pgx.Tx, server string, t lore.HistoryTarget, b lore.BookSettings, after *lore.BookSettings) (kept bool, err error) {
	if !t.Lineage.IsServerwide() {
		if after != nil {
			var r bookSettingsRow
			err := tx.QueryRow(ctx, personaBookGet, server, int64(t.Lineage)).Scan(r.dests()...)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return false, err
			}
			if !r.settings().Equal(*after) {
				return true, nil
			}
		}
		return false, setPersonaBookTx(ctx, tx, server, t.Lineage, b)
	}
	cur, err := scanCollection(tx.QueryRow(ctx, lorebookGetByName, server, t.Collection))
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if after != nil && !cur.Settings.Equal(*after) {
		return true, nil
	}
	return false, setCollectionBookTx(ctx, tx, server, t.Collection, b)
}

// restoreCollectionTx creates collection c (by name, with its flag,
// channels and settings) unless the server has one of that name.
func restoreCollectionTx(ctx context.Context, tx pgx.Tx, server string, c lore.Collection) error {
	if c.Name == "" {
		return nil
	}
	var exists bool
	if err := tx.QueryRow(ctx, lorebookExists, server, c.Name).Scan(&exists); err != nil || exists {
		return err
	}
	c.Server = server
	if _, err := createCollectionTx(ctx, tx, c); err != nil {
		return err
	}
	if c.Settings != (lore.BookSettings{}) {
		return setCollectionBookTx(ctx, tx, server, c.Name, c.Settings)
	}
	return nil
}

// restoreEntriesTx inserts snapshot entries with their ids and timestamps
// and their pending legacy channel names.
func restoreEntriesTx(ctx context.Context, tx pgx.Tx, server string, entries []lore.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	tags := &pgx.Batch{}
	for i, e := range entries {
		// A snapshot taken before migration 000060 has no positions.
		e.NormalizePosition()
		args, err := entryArgs(e)
		if err != nil {
			return lore.WithFieldPrefix(fmt.Sprintf("snapshot[%d]", i), err)
		}
		var collection *string
		if e.Lineage.IsServerwide() {
			collection = &e.Collection
		}
		args = append([]any{server, lineageParam(e.Lineage), collection}, args...)
		args = append(args, e.ID, e.CreatedAt, e.UpdatedAt)
		batch.Queue(entryRestore, args...)
		if len(e.LegacyChannelTags) > 0 {
			tags.Queue(tagInsert, e.ID, e.LegacyChannelTags)
		}
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return err
	}
	if tags.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, tags).Close()
}
