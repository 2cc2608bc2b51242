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

// appliedRow is one row of loregate_migrations.
type appliedRow struct {
	name string
	at   time.Time
}

func applied(ctx context.Context, conn *pgx.Conn) (map[int]appliedRow, error) {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('loregate_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return nil, fmt.Errorf("look up loregate_migrations: %w", err)
	}
	out := map[int]appliedRow{}
	if !exists {
		return out, nil
	}
	rows, err := conn.Query(ctx, "SELECT version, name, applied_at FROM loregate_migrations")
	if err != nil {
		return nil, fmt.Errorf("read loregate_migrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var r appliedRow
		if err := rows.Scan(&v, &r.name, &r.at); err != nil {
			return nil, fmt.Errorf("read loregate_migrations: %w", err)
		}
		out[v] = r
	}
	return out, rows.Err()
}

// GetStatus lists every embedded migration with its applied state. Applied
// versions that are not embedded (a newer binary ran here) are reported as
// an error (ErrUnknownMigration), since this binary cannot undo them, and
// so is a version applied under another name than the embedded one
// (ErrMigrationMismatch: another migration of that number ran here, so
// the embedded one would be taken as applied without having run).
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
		r, ok := done[m.Version]
		if ok && r.name != m.Name {
			return out, fmt.Errorf("%w: database applied migration %06d as %q, this binary's is %q", ErrMigrationMismatch, m.Version, r.name, m.Name)
		}
		out = append(out, Status{Migration: m, Applied: ok, AppliedAt: r.at})
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
// version >= N, newest first, the tables their down files drop with the
// rows each holds now, and what data would be lost (Losses: every table
// dropped and every declared column and rewrite, with the rows affected).
type DownPlan struct {
	Migrations []Migration
	Tables     []TableRows
	Losses     []Loss
}

// Lossy reports whether undoing the plan would drop or rewrite data: a
// dropped table with rows, a dropped column with a non-default value, a
// rewritten row (docs/operations.md#rollbacks).
func (p DownPlan) Lossy() bool {
	for _, l := range p.Losses {
		if l.Rows > 0 {
			return true
		}
	}
	return false
}

// Loss is one thing a down file drops or rewrites and the rows it affects
// now. Kind is "table" (every row of Table), "column" (rows of Table
// whose Column is not Default) or "rows" (rows of Table matching Where,
// which the down file rewrites or deletes).
type Loss struct {
	Version int
	Kind    string
	Table   string
	Column  string
	Default string
	Where   string
	Rows    int64
}

// String describes l for the preview, e.g. "column lorebook_entries.sticky
// (not 0)".
func (l Loss) String() string {
	switch l.Kind {
	case "column":
		return fmt.Sprintf("column %s.%s (not %s)", l.Table, l.Column, l.Default)
	case "rows":
		return fmt.Sprintf("rows of %s where %s (rewritten or deleted)", l.Table, l.Where)
	}
	return "table " + l.Table
}

// Declarations are comment lines of a down file, one per loss
// (docs/operations.md#rollbacks):
//
//	-- loses: column TABLE.COLUMN unless SQL_VALUE
//	-- loses: rows TABLE where SQL_PREDICATE
//	-- no loss: column TABLE.COLUMN (why)
//	-- no loss: rows TABLE (why)
//
// A dropped table needs none: every DROP TABLE is counted. Undeclared
// lists what a down file drops or rewrites without a declaration.
var (
	declNoLoss     = regexp.MustCompile(`(?m)^--\s*no loss:\s*column\s+([a-z0-9_]+)\.([a-z0-9_]+)`)
	declNoLossRows = regexp.MustCompile(`(?m)^--\s*no loss:\s*rows\s+([a-z0-9_]+)`)
	declColumn     = regexp.MustCompile(`(?m)^--\s*loses:\s*column\s+([a-z0-9_]+)\.([a-z0-9_]+)\s+unless\s+(.+?)\s*$`)
	declRows       = regexp.MustCompile(`(?m)^--\s*loses:\s*rows\s+([a-z0-9_]+)\s+where\s+(.+?)\s*$`)
)

// Declared returns the column and row losses the down file of m declares
// (Rows not counted).
func Declared(m Migration) []Loss {
	var out []Loss
	for _, d := range declColumn.FindAllStringSubmatch(m.Down, -1) {
		out = append(out, Loss{Version: m.Version, Kind: "column", Table: d[1], Column: d[2], Default: d[3]})
	}
	for _, d := range declRows.FindAllStringSubmatch(m.Down, -1) {
		out = append(out, Loss{Version: m.Version, Kind: "rows", Table: d[1], Where: d[2]})
	}
	return out
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
				if !bookkeeping[name] {
					plan.Losses = append(plan.Losses, Loss{Version: m.Version, Kind: "table", Table: name, Rows: n})
				}
			}
		}
		for _, l := range Declared(m) {
			if seen[l.Table] {
				continue // the whole table goes, and is counted as such
			}
			n, ok, err := countLoss(ctx, conn, l)
			if err != nil {
				return DownPlan{}, fmt.Errorf("migration %06d: %s: %w", m.Version, l, err)
			}
			if ok {
				l.Rows = n
				plan.Losses = append(plan.Losses, l)
			}
		}
	}
	return plan, nil
}

var (
	alterTable = regexp.MustCompile(`(?is)^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?([a-z0-9_]+)\s(.*)$`)
	dropColumn = regexp.MustCompile(`(?i)DROP\s+COLUMN\s+(?:IF\s+EXISTS\s+)?([a-z0-9_]+)`)
	rewrite    = regexp.MustCompile(`(?is)^\s*(?:UPDATE|DELETE\s+FROM)\s+([a-z0-9_]+)`)
	sqlComment = regexp.MustCompile(`(?m)--.*$`)
)

// Undeclared returns the columns the down file of m drops and the tables
// whose rows it updates or deletes without a declaration of the loss
// ("table.column" or "rows of table"); nil when every one is declared.
func Undeclared(m Migration) []string {
	cols := map[string]bool{}
	rows := map[string]bool{}
	for _, l := range Declared(m) {
		cols[l.Table+"."+l.Column] = l.Kind == "column"
		rows[l.Table] = rows[l.Table] || l.Kind == "rows"
	}
	for _, d := range declNoLoss.FindAllStringSubmatch(m.Down, -1) {
		cols[d[1]+"."+d[2]] = true
	}
	for _, d := range declNoLossRows.FindAllStringSubmatch(m.Down, -1) {
		rows[d[1]] = true
	}
	var out []string
	for _, stmt := range strings.Split(sqlComment.ReplaceAllString(m.Down, ""), ";") {
		if a := alterTable.FindStringSubmatch(stmt); a != nil {
			for _, c := range dropColumn.FindAllStringSubmatch(a[2], -1) {
				if !cols[a[1]+"."+c[1]] {
					out = append(out, a[1]+"."+c[1])
				}
			}
		}
		if r := rewrite.FindStringSubmatch(stmt); r != nil && !rows[r[1]] && !bookkeeping[r[1]] {
			out = append(out, "rows of "+r[1])
		}
	}
	return out
}

// bookkeeping are tables whose rows record the schema itself (River's
// applied versions): dropping them with the schema loses no data.
var bookkeeping = map[string]bool{"river_migration": true}

// countLoss counts the rows a declared loss affects; ok is false when the
// table or column does not exist (a later migration already dropped it).
// The declarations come from the embedded down files, never from input.
func countLoss(ctx context.Context, conn *pgx.Conn, l Loss) (int64, bool, error) {
	var exists bool
	col := l.Column
	if col == "" {
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", l.Table).Scan(&exists); err != nil {
			return 0, false, err
		}
	} else if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2)`, l.Table, col).Scan(&exists); err != nil {
		return 0, false, err
	}
	if !exists {
		return 0, false, nil
	}
	table := pgx.Identifier{l.Table}.Sanitize()
	q := "SELECT count(*) FROM " + table + " WHERE " + l.Where
	if col != "" {
		q = "SELECT count(*) FROM " + table + " WHERE " + pgx.Identifier{col}.Sanitize() + " IS DISTINCT FROM (" + l.Default + ")"
	}
	var n int64
	err := conn.QueryRow(ctx, q).Scan(&n)
	return n, true, err
}

// ErrUnknownMigration reports a database migrated by a newer binary.
var ErrUnknownMigration = errors.New("database has a migration this binary does not know")

// ErrMigrationMismatch reports a database that applied a migration of the
// same number but another name than this binary's (a build from another
// branch migrated it): nothing is applied until an operator sorts it out.
var ErrMigrationMismatch = errors.New("database applied another migration under this number")

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
