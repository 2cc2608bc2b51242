package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	historyCount = `SELECT count(*) FROM import_history WHERE server_id = $1`

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

// HistoryCount counts server's records (see lore.HistoryStore).
func (s *Store) HistoryCount(ctx context.Context, server string) (int, error) {
	const op = "count history"
	if err := checkServerID(server); err != nil {
		return 0, wrapErr(op, err)
	}
	var n int
	err := s.db.QueryRow(ctx, historyCount, server).Scan(&n)
	return n, wrapErr(op, err)
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
