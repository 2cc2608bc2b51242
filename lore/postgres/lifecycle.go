package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Life cycle steps of server_lifecycle_events (migration 000080).
const (
	lifecycleLeft     = "left"
	lifecycleRejoined = "rejoined"
	lifecyclePurged   = "purged"
	lifecycleDeleted  = "deleted"
)

const (
	lifecycleInsert = `INSERT INTO server_lifecycle_events (guild_id, event, actor, counts) VALUES ($1, $2, $3, $4)`

	serverMarkLeft = `UPDATE servers SET left_at = $2 WHERE id = $1 AND left_at IS NULL`

	// serverMarkLeftExcept marks every member server missing from $1 (of
	// shard $2 of $3 when $3 > 1; Discord shards by (guild_id >> 22) % shards).
	serverMarkLeftExcept = `UPDATE servers SET left_at = $4
WHERE left_at IS NULL AND NOT (id::text = ANY ($1::text[]))
  AND ($3 <= 1 OR ((id::text::numeric::bigint >> 22) % $3) = $2)
RETURNING id::text`

	serverLeftBefore = `SELECT id::text FROM servers WHERE left_at IS NOT NULL AND left_at <= $1 ORDER BY left_at, id LIMIT $2`

	// serverKeyedTables lists every table with a server_id column: the
	// rows a purge removes besides what the foreign keys cascade. Tables
	// later migrations add are found the same way.
	serverKeyedTables = `SELECT c.table_name FROM information_schema.columns c
JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE c.table_schema = current_schema() AND c.column_name = 'server_id' AND t.table_type = 'BASE TABLE'
ORDER BY c.table_name`
)

func recordLifecycle(ctx context.Context, tx pgx.Tx, server, event, actor string, counts []lore.TableRows) error {
	m := map[string]int64{}
	for _, c := range counts {
		m[c.Table] = c.Rows
	}
	raw, _ := json.Marshal(m)
	_, err := tx.Exec(ctx, lifecycleInsert, server, event, actor, raw)
	return err
}

// MarkServerLeft implements [lore.LifecycleStore].
func (s *Store) MarkServerLeft(ctx context.Context, server string, at time.Time, actor string) (bool, error) {
	if err := checkServerID(server); err != nil {
		return false, wrapErr("mark server left", err)
	}
	changed := false
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, serverMarkLeft, server, at)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		changed = true
		return recordLifecycle(ctx, tx, server, lifecycleLeft, actor, nil)
	})
	return changed, wrapErr("mark server left", err)
}

// MarkServersLeftExcept implements [lore.LifecycleStore].
func (s *Store) MarkServersLeftExcept(ctx context.Context, present []string, shard, shards int, at time.Time, actor string) ([]string, error) {
	for _, id := range present {
		if err := checkServerID(id); err != nil {
			return nil, wrapErr("mark servers left", err)
		}
	}
	if shards > 1 && (shard < 0 || shard >= shards) {
		return nil, wrapErr("mark servers left", lore.Reject("shardId", i18n.Between, lore.Params{"min": 0, "max": shards - 1}))
	}
	if present == nil {
		present = []string{}
	}
	var marked []string
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, serverMarkLeftExcept, present, shard, shards, at)
		if err != nil {
			return err
		}
		if marked, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		for _, id := range marked {
			if err := recordLifecycle(ctx, tx, id, lifecycleLeft, actor, nil); err != nil {
				return err
			}
		}
		return nil
	})
	return marked, wrapErr("mark servers left", err)
}

// LeftServers implements [lore.LifecycleStore].
func (s *Store) LeftServers(ctx context.Context, leftBefore time.Time, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, serverLeftBefore, leftBefore, limit)
	if err != nil {
		return nil, wrapErr("left servers", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, wrapErr("left servers", err)
}

// footprint counts the rows of server in every server-keyed table, the
// server row first.
func footprint(ctx context.Context, q executor, server string) ([]lore.TableRows, error) {
	rows, err := q.Query(ctx, serverKeyedTables)
	if err != nil {
		return nil, err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := []lore.TableRows{{Table: "servers", Rows: 1}}
	for _, t := range tables {
		var n int64
		if err := q.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{t}.Sanitize()+" WHERE server_id = $1", server).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t, err)
		}
		out = append(out, lore.TableRows{Table: t, Rows: n})
	}
	return out, nil
}

// ServerFootprint implements [lore.LifecycleStore].
func (s *Store) ServerFootprint(ctx context.Context, server string) ([]lore.TableRows, error) {
	if err := checkServerID(server); err != nil {
		return nil, wrapErr("server footprint", err)
	}
	var out []lore.TableRows
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, "SELECT 1 FROM servers WHERE id = $1", server).Scan(&one); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return notFound("server", server)
			}
			return err
		}
		var err error
		out, err = footprint(ctx, tx, server)
		return err
	})
	return out, wrapErr("server footprint", err)
}

// PurgeServer implements [lore.LifecycleStore]: one transaction locks the
// server row, counts, deletes the server (its foreign keys cascade) and
// then the rows of every other table with a server_id column, and records
// the step with the counts. A purge cut short (a killed process) rolls
// back whole, so the next run starts again from the same state.
func (s *Store) PurgeServer(ctx context.Context, server string, rule lore.PurgeRule) ([]lore.TableRows, error) {
	if err := checkServerID(server); err != nil {
		return nil, wrapErr("purge server", err)
	}
	defer s.wrote(server)
	var out []lore.TableRows
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var left *time.Time
		if err := tx.QueryRow(ctx, serverLeftAtLock, server).Scan(&left); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return notFound("server", server)
			}
			return err
		}
		event := lifecycleDeleted
		if !rule.Force {
			if left == nil || left.After(rule.LeftBefore) {
				return fmt.Errorf("server %s is a member again or left too recently to purge: %w", server, lore.ErrStaleTarget)
			}
			event = lifecyclePurged
		}
		var err error
		if out, err = footprint(ctx, tx, server); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, serverDelete, server); err != nil {
			return err
		}
		for _, t := range out[1:] {
			if _, err := tx.Exec(ctx, "DELETE FROM "+pgx.Identifier{t.Table}.Sanitize()+" WHERE server_id = $1", server); err != nil {
				return fmt.Errorf("delete from %s: %w", t.Table, err)
			}
		}
		return recordLifecycle(ctx, tx, server, event, rule.Actor, out)
	})
	if err != nil {
		return nil, wrapErr("purge server", err)
	}
	return out, nil
}
