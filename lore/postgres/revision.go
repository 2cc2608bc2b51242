package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
)

// Revisions are written by the triggers of migration 000070 with every
// entry write (the actor and kind come from lockServerTx); this file reads,
// restores and prunes them.

var _ lore.RevisionStore = (*Store)(nil)

// entryTagsColumn is the last column of entryColumns (the pending legacy
// channel names); a revision reads them from its snapshot instead.
const entryTagsColumn = `ARRAY(SELECT t.name FROM legacy_channel_scope_tags t WHERE t.entry_id = e.id ORDER BY t.name)`

// revisionEntryColumns reads a revision's snapshot with scanEntry: e is
// jsonb_populate_record over the column defaults and the snapshot, so a
// column added after the revision reads with its default.
var revisionEntryColumns = strings.Replace(entryColumns, entryTagsColumn,
	`ARRAY(SELECT jsonb_array_elements_text(COALESCE(r.entry -> 'legacy_channel_tags', '[]'::jsonb)))`, 1)

// revisionFrom is the FROM clause of every revision read.
const revisionFrom = ` FROM entry_revisions r
CROSS JOIN LATERAL jsonb_populate_record(NULL::lorebook_entries, (SELECT lore_entry_defaults()) || r.entry) e `

var (
	revisionSelect = `SELECT r.id, r.server_id::text, r.entry_id, r.kind, r.actor, r.at, r.deleted, ` + revisionEntryColumns + revisionFrom

	// revisionsOfEntry: one entry's revisions, newest first, before $3
	// (0 = from the newest), $4 rows.
	revisionsOfEntry = revisionSelect + `WHERE ($1 = '' OR r.server_id::text = $1) AND r.entry_id = $2 AND ($3 = 0 OR r.id < $3)
ORDER BY r.id DESC LIMIT $4`

	// revisionsDeleted: the latest revision of each deleted entry of the
	// server when it is a deleting one (moves left out), newest first.
	revisionsDeleted = revisionSelect + `WHERE r.server_id = $1 AND r.deleted AND r.kind <> 'move' AND ($2 = 0 OR r.id < $2)
    AND NOT EXISTS (SELECT 1 FROM lorebook_entries x WHERE x.id = r.entry_id)
    AND NOT EXISTS (SELECT 1 FROM entry_revisions n WHERE n.entry_id = r.entry_id AND n.id > r.id)
ORDER BY r.id DESC LIMIT $3`

	revisionOne = revisionSelect + `WHERE r.server_id = $1 AND r.id = $2`

	// revisionPrevious is the revision of the same entry before $2.
	revisionPrevious = revisionSelect + `WHERE r.entry_id = $1 AND r.id < $2 ORDER BY r.id DESC LIMIT 1`
)

const (
	// entryGetAnyScopeForUpdate locks an entry of the server by id alone
	// (a restore addresses it by its revision).
	entryGetAnyScopeForUpdate = `SELECT ` + entryColumns + ` FROM lorebook_entries e WHERE e.server_id = $1 AND e.id = $2 FOR UPDATE OF e`

	revisionPruneOld   = `DELETE FROM entry_revisions WHERE at < $1`
	revisionPruneExtra = `DELETE FROM entry_revisions r USING (
    SELECT id, row_number() OVER (PARTITION BY entry_id ORDER BY id DESC) AS n FROM entry_revisions) k
WHERE r.id = k.id AND k.n > $1`
)

// scanRevision scans one row of revisionSelect.
func scanRevision(row pgx.Row) (lore.Revision, error) {
	var rev lore.Revision
	var kind string
	var er entryRow
	dests := append([]any{&rev.ID, &rev.Server, &rev.EntryID, &kind, &rev.Actor, &rev.At, &rev.Deleted}, er.dests()...)
	if err := row.Scan(dests...); err != nil {
		return rev, err
	}
	rev.Kind = lore.RevisionKind(kind)
	e, _, err := er.entry()
	rev.Entry = e
	return rev, err
}

// listRevisions reads up to first+1 revisions with query: the extra one
// tells whether more exist and is the previous state of the last one.
// prevOf, when set, reads the state before a revision with none after it
// on the page (DeletedEntries lists one revision per entry).
func (s *Store) listRevisions(ctx context.Context, op string, first int, prevOf bool, query string, args ...any) ([]lore.Revision, bool, error) {
	if first <= 0 {
		return nil, false, nil
	}
	rows, err := s.db.Query(ctx, query, append(args, first+1)...)
	if err != nil {
		return nil, false, wrapErr(op, err)
	}
	revs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (lore.Revision, error) { return scanRevision(row) })
	if err != nil {
		return nil, false, wrapErr(op, err)
	}
	more := len(revs) > first
	for i := range min(len(revs), first) {
		var prev *lore.Revision
		if !prevOf && i+1 < len(revs) {
			prev = &revs[i+1]
		} else {
			p, err := scanRevision(s.db.QueryRow(ctx, revisionPrevious, revs[i].EntryID, revs[i].ID))
			if err == nil {
				prev = &p
			} else if !errors.Is(err, pgx.ErrNoRows) {
				return nil, false, wrapErr(op, err)
			}
		}
		if prev != nil {
			revs[i].Changed = lore.ChangedFields(prev.Entry, revs[i].Entry)
		}
	}
	if more {
		revs = revs[:first]
	}
	return revs, more, nil
}

// EntryRevisions lists one entry's revisions newest first (see
// lore.RevisionStore).
func (s *Store) EntryRevisions(ctx context.Context, server string, entryID int64, first int, before int64) ([]lore.Revision, bool, error) {
	const op = "list entry revisions"
	if server == "" {
		// any server: the caller checks Revision.Server (an entry id names
		// one entry of one server).
	} else if err := checkServerID(server); err != nil {
		return nil, false, wrapErr(op, err)
	}
	revs, more, err := s.listRevisions(ctx, op, first, false, revisionsOfEntry, server, entryID, before)
	if err == nil && !more && len(revs) > 0 {
		// The oldest kept revision: its Changed compares with nothing.
		last := &revs[len(revs)-1]
		if _, perr := scanRevision(s.db.QueryRow(ctx, revisionPrevious, last.EntryID, last.ID)); errors.Is(perr, pgx.ErrNoRows) {
			last.Changed = nil
		}
	}
	return revs, more, err
}

// DeletedEntries lists the deleting revisions of deleted entries newest
// first (see lore.RevisionStore).
func (s *Store) DeletedEntries(ctx context.Context, server string, first int, before int64) ([]lore.Revision, bool, error) {
	const op = "list deleted entries"
	if err := checkServerID(server); err != nil {
		return nil, false, wrapErr(op, err)
	}
	return s.listRevisions(ctx, op, first, true, revisionsDeleted, server, before)
}

// Revision returns revision id of server (ErrNotFound).
func (s *Store) Revision(ctx context.Context, server string, id int64) (lore.Revision, error) {
	const op = "get revision"
	if err := checkServerID(server); err != nil {
		return lore.Revision{}, wrapErr(op, err)
	}
	rev, err := scanRevision(s.db.QueryRow(ctx, revisionOne, server, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("revision", id)
	}
	return rev, wrapErr(op, err)
}

// RestoreRevision writes the state of revision id as a new write of kind
// restore (lore.RevisionStore): the entry's fields in place when it
// exists (its scope and collection stay), else the entry re-created with
// its id in the revision's scope, checked against the scope's limit and
// the collection's existence. The state is validated at today's limits.
func (s *Store) RestoreRevision(ctx context.Context, server string, id int64, expected *time.Time) (lore.Entry, error) {
	const op = "restore revision"
	var out lore.Entry
	if err := checkServerID(server); err != nil {
		return out, wrapErr(op, err)
	}
	ctx = lore.WithRevisionKind(ctx, lore.RevisionRestore)
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		rev, err := scanRevision(tx.QueryRow(ctx, revisionOne, server, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("revision", id)
		}
		if err != nil {
			return err
		}
		target := fmt.Sprintf("entry %d", rev.EntryID)
		cur, err := scanEntry(tx.QueryRow(ctx, entryGetAnyScopeForUpdate, server, rev.EntryID))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if err := lore.CheckUpdatedAt(target, expected, time.Time{}); err != nil {
				return err
			}
			out, err = s.recreateTx(ctx, tx, rev.Entry)
			return err
		case err != nil:
			return err
		}
		if err := lore.CheckUpdatedAt(target, expected, cur.UpdatedAt); err != nil {
			return err
		}
		out, err = s.rewriteTx(ctx, tx, cur, rev.Entry)
		return err
	})
	return out, err
}

// rewriteTx stores state's fields on the existing entry cur (its scope,
// collection and id stay) with state's pending legacy channel names.
func (s *Store) rewriteTx(ctx context.Context, tx pgx.Tx, cur, state lore.Entry) (lore.Entry, error) {
	next := state.Clone()
	next.ID, next.Server, next.Lineage, next.Collection, next.CreatedAt = cur.ID, cur.Server, cur.Lineage, cur.Collection, cur.CreatedAt
	if cur.Lineage.IsServerwide() {
		next.ChannelIDs = nil
	}
	next, err := s.prepareEntry(next)
	if err != nil {
		return next, err
	}
	if err := keepCategoryTx(ctx, tx, &next); err != nil {
		return next, err
	}
	args, err := entryArgs(next)
	if err != nil {
		return next, err
	}
	args = append([]any{cur.Server, lineageParam(cur.Lineage), cur.ID}, args...)
	if err := tx.QueryRow(ctx, entryUpdate, args...).Scan(&next.UpdatedAt); err != nil {
		return next, err
	}
	if _, err := tx.Exec(ctx, tagClear, cur.ID); err != nil {
		return next, err
	}
	next.LegacyChannelTags = sortedTags(next.LegacyChannelTags)
	if len(next.LegacyChannelTags) > 0 {
		if _, err := tx.Exec(ctx, tagInsert, cur.ID, next.LegacyChannelTags); err != nil {
			return next, err
		}
	}
	return next, nil
}

// recreateTx inserts a deleted entry's state again with its id, in its
// scope: ErrScopeFull when the scope is full, ErrNotFound when its
// Serverwide collection no longer exists.
func (s *Store) recreateTx(ctx context.Context, tx pgx.Tx, state lore.Entry) (lore.Entry, error) {
	e, err := s.prepareEntry(state.Clone())
	if err != nil {
		return e, err
	}
	if err := keepCategoryTx(ctx, tx, &e); err != nil {
		return e, err
	}
	n, err := countScopeTx(ctx, tx, e.Server, e.Lineage)
	if err != nil {
		return e, err
	}
	if err := s.checkCapacity(e.Server, e.Lineage, n, 1); err != nil {
		return e, err
	}
	if e.Lineage.IsServerwide() {
		if err := requireCollectionTx(ctx, tx, e.Server, e.Collection); err != nil {
			return e, fmt.Errorf("the entry's collection was deleted (recreate it, or undo its delete in the import history): %w", err)
		}
	}
	e.UpdatedAt = time.Now()
	e.LegacyChannelTags = sortedTags(e.LegacyChannelTags)
	if err := restoreEntriesTx(ctx, tx, e.Server, []lore.Entry{e}); err != nil {
		return e, err
	}
	return scanEntry(tx.QueryRow(ctx, entryGet, e.Server, lineageParam(e.Lineage), e.ID))
}

// PruneRevisions deletes revisions older than olderThan and, per entry,
// all but the newest keep (keep <= 0 keeps every count).
func (s *Store) PruneRevisions(ctx context.Context, keep int, olderThan time.Time) (int64, error) {
	const op = "prune revisions"
	tag, err := s.db.Exec(ctx, revisionPruneOld, olderThan)
	if err != nil {
		return 0, wrapErr(op, err)
	}
	n := tag.RowsAffected()
	if keep > 0 {
		tag, err = s.db.Exec(ctx, revisionPruneExtra, keep)
		if err != nil {
			return n, wrapErr(op, err)
		}
		n += tag.RowsAffected()
	}
	return n, nil
}
