// Package migrations holds loregate's schema as numbered SQL files and the
// runner that applies them.
//
// Files are named NNNNNN_name.up.sql and NNNNNN_name.down.sql and embedded
// with go:embed. 000002 to 000009 are River's own schema (River versions 1-8), written by
// migrations/internal/riverdump, so one runner owns all DDL. Applied
// versions are recorded in loregate_migrations. Every run holds a session
// advisory lock, so concurrent starters (two `serve` processes, parallel test
// packages) apply each migration once; each file runs in its own transaction
// together with its bookkeeping row.
package migrations

//go:generate go run ./internal/riverdump -dir . -first 2

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

//go:embed *.sql
var files embed.FS

// advisoryLockKey is the pg_advisory_lock key every run holds ("loregate"
// in ASCII, truncated to fit a bigint).
const advisoryLockKey int64 = 0x6c6f726567617465

// Migration is one numbered pair of files.
type Migration struct {
	Version int
	Name    string
	Up      string
	Down    string
}

var fileName = regexp.MustCompile(`^(\d{6})_([a-z0-9_]+)\.(up|down)\.sql$`)

// All returns every embedded migration in version order. It fails if a
// version is duplicated, a file is misnamed, or a pair is incomplete.
func All() ([]Migration, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	byVersion := map[int]*Migration{}
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %q is not named NNNNNN_name.up.sql or .down.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(files, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name(), err)
		}
		mig := byVersion[v]
		if mig == nil {
			mig = &Migration{Version: v, Name: m[2]}
			byVersion[v] = mig
		} else if mig.Name != m[2] {
			return nil, fmt.Errorf("migration version %06d has two names: %s and %s", v, mig.Name, m[2])
		}
		if m[3] == "up" {
			mig.Up = string(body)
		} else {
			mig.Down = string(body)
		}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		if m.Up == "" || m.Down == "" {
			return nil, fmt.Errorf("migration %06d_%s needs both an up and a down file", m.Version, m.Name)
		}
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Status is one migration and whether and when it was applied.
type Status struct {
	Migration
	Applied   bool
	AppliedAt time.Time
}

const createBookkeeping = `CREATE TABLE IF NOT EXISTS loregate_migrations (
	version integer PRIMARY KEY,
	name text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

func lock(ctx context.Context, conn *pgx.Conn) (unlock func(), err error) {
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", advisoryLockKey); err != nil {
		return nil, fmt.Errorf("take migration lock: %w", err)
	}
	return func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", advisoryLockKey)
	}, nil
}

func applied(ctx context.Context, conn *pgx.Conn) (map[int]time.Time, error) {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('loregate_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return nil, fmt.Errorf("look up loregate_migrations: %w", err)
	}
	out := map[int]time.Time{}
	if !exists {
		return out, nil
	}
	rows, err := conn.Query(ctx, "SELECT version, applied_at FROM loregate_migrations")
	if err != nil {
		return nil, fmt.Errorf("read loregate_migrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var at time.Time
		if err := rows.Scan(&v, &at); err != nil {
			return nil, fmt.Errorf("read loregate_migrations: %w", err)
		}
		out[v] = at
	}
	return out, rows.Err()
}

// GetStatus lists every embedded migration with its applied state. Applied
// versions that are not embedded (a newer binary ran here) are reported as
// an error, since this binary cannot undo them.
func GetStatus(ctx context.Context, conn *pgx.Conn) ([]Status, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	done, err := applied(ctx, conn)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(all))
	for _, m := range all {
		at, ok := done[m.Version]
		out = append(out, Status{Migration: m, Applied: ok, AppliedAt: at})
		delete(done, m.Version)
	}
	for v := range done {
		return out, fmt.Errorf("%w: database has migration %06d applied: run a newer loregate", ErrUnknownMigration, v)
	}
	return out, nil
}

// Current reports whether every embedded migration is applied (the /readyz
// check).
func Current(ctx context.Context, conn *pgx.Conn) (bool, error) {
	st, err := GetStatus(ctx, conn)
	if err != nil {
		return false, err
	}
	for _, s := range st {
		if !s.Applied {
			return false, nil
		}
	}
	return true, nil
}

// Up applies every pending migration in order and returns those it applied.
func Up(ctx context.Context, conn *pgx.Conn) ([]Migration, error) {
	unlock, err := lock(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := conn.Exec(ctx, createBookkeeping); err != nil {
		return nil, fmt.Errorf("create loregate_migrations: %w", err)
	}
	st, err := GetStatus(ctx, conn)
	if err != nil {
		return nil, err
	}
	var done []Migration
	for _, s := range st {
		if s.Applied {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, s.Up); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO loregate_migrations (version, name) VALUES ($1, $2)", s.Version, s.Name)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("apply migration %06d_%s: %w", s.Version, s.Name, err)
		}
		done = append(done, s.Migration)
	}
	return done, nil
}

// DownPlan is what `migrate down N` would undo: the applied migrations with
// version >= N, newest first, and the tables their down files drop with the
// rows each holds now.
type DownPlan struct {
	Migrations []Migration
	Tables     []TableRows
}

// TableRows is a table a down file drops and its current row count.
type TableRows struct {
	Table string
	Rows  int64
}

var dropTable = regexp.MustCompile(`(?i)DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([a-z0-9_."]+(?:\s*,\s*[a-z0-9_."]+)*)`)

// PlanDown computes the DownPlan for target without changing anything.
// target must be an embedded version >= 1.
func PlanDown(ctx context.Context, conn *pgx.Conn, target int) (DownPlan, error) {
	st, err := GetStatus(ctx, conn)
	if err != nil {
		return DownPlan{}, err
	}
	known := false
	var plan DownPlan
	for i := len(st) - 1; i >= 0; i-- {
		s := st[i]
		if s.Version == target {
			known = true
		}
		if s.Applied && s.Version >= target {
			plan.Migrations = append(plan.Migrations, s.Migration)
		}
	}
	if !known {
		return DownPlan{}, fmt.Errorf("no migration numbered %d (see `loregate migrate status`)", target)
	}
	seen := map[string]bool{}
	for _, m := range plan.Migrations {
		for _, match := range dropTable.FindAllStringSubmatch(m.Down, -1) {
			for _, name := range strings.Split(match[1], ",") {
				name = strings.Trim(strings.TrimSpace(name), `"`)
				if seen[name] {
					continue
				}
				seen[name] = true
				var exists bool
				if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&exists); err != nil {
					return DownPlan{}, fmt.Errorf("look up table %s: %w", name, err)
				}
				if !exists {
					continue
				}
				var n int64
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier(strings.Split(name, ".")).Sanitize()).Scan(&n); err != nil {
					return DownPlan{}, fmt.Errorf("count rows of %s: %w", name, err)
				}
				plan.Tables = append(plan.Tables, TableRows{Table: name, Rows: n})
			}
		}
	}
	return plan, nil
}

// ErrUnknownMigration reports a database migrated by a newer binary.
var ErrUnknownMigration = errors.New("database has a migration this binary does not know")

// ErrNothingToUndo is returned by Down when no applied migration is >= the
// target.
var ErrNothingToUndo = errors.New("nothing to undo")

// Down undoes every applied migration with version >= target, newest first,
// each in its own transaction, and returns those it undid.
func Down(ctx context.Context, conn *pgx.Conn, target int) ([]Migration, error) {
	unlock, err := lock(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer unlock()
	plan, err := PlanDown(ctx, conn, target)
	if err != nil {
		return nil, err
	}
	if len(plan.Migrations) == 0 {
		return nil, ErrNothingToUndo
	}
	var done []Migration
	for _, m := range plan.Migrations {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.Down); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "DELETE FROM loregate_migrations WHERE version = $1", m.Version)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("undo migration %06d_%s: %w", m.Version, m.Name, err)
		}
		done = append(done, m)
	}
	return done, nil
}
