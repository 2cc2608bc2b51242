// Package postgrestest gives tests a real, isolated, fully migrated
// Postgres database.
//
// The server comes from TEST_DATABASE_URL (a role allowed to create
// databases). `make test` starts one throwaway cluster for the whole run and
// sets it. Each process migrates a template database once (named after a
// hash of the embedded migrations, so changed migrations get a new
// template); a NewDatabase call then clones it with CREATE DATABASE ...
// TEMPLATE, or reuses a clone an earlier passed test of the process
// emptied (reuse.go; LOREGATE_TEST_NO_DB_REUSE turns that off).
//
// Without TEST_DATABASE_URL a test is skipped with a message saying how to
// run it, except when CI is set, where it fails: CI must never pass by
// skipping the database tests.
package postgrestest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"loregate/migrations"
)

// EnvURL is the variable naming the test server.
const EnvURL = "TEST_DATABASE_URL"

// EnvNoReuse, when set (to anything), makes every NewDatabase a fresh
// clone of the template, dropped when its test ends, as before reuse.
const EnvNoReuse = "LOREGATE_TEST_NO_DB_REUSE"

var template struct {
	once sync.Once
	name string
	err  error
}

// ServerURL returns TEST_DATABASE_URL, skipping the test (or failing it when
// CI is set) if it is unset.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: database tests must run in CI (use `make test`)", EnvURL)
		}
		t.Skipf("%s is not set: skipping a database test (run `make test`, which starts a throwaway Postgres)", EnvURL)
	}
	return u
}

// NewDatabase returns the URL of a database with every migration applied
// and no rows but the template's: a fresh clone of the template, or one a
// passed test of this process has emptied (see reuse.go). The database is
// dropped or emptied for reuse when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	template.once.Do(func() {
		template.name, template.err = ensureTemplate(ctx, base)
		if template.err == nil && os.Getenv(EnvNoReuse) == "" {
			prepareReuse(ctx, base, template.name)
		} else {
			reuse.off = "off"
		}
	})
	if template.err != nil {
		t.Fatalf("prepare template database: %v", template.err)
	}
	name := takeSpare()
	if name == "" {
		name = newName()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Fatalf("connect to %s: %v", EnvURL, err)
		}
		defer admin.Close(context.Background())
		if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template.name)); err != nil {
			t.Fatalf("create test database: %v", err)
		}
	}
	t.Cleanup(func() {
		if err := release(base, name, t.Failed()); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return withDatabase(t, base, name)
}

// NewPool returns a pool on a fresh migrated database (see NewDatabase),
// closed when the test ends.
func NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	u := NewDatabase(t)
	pool, err := pgxpool.New(context.Background(), u)
	if err != nil {
		t.Fatalf("open pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func withDatabase(t testing.TB, base, db string) string {
	if _, err := url.Parse(base); err != nil {
		t.Fatalf("%s is not a URL: %v", EnvURL, err)
	}
	return replaceDatabase(base, db)
}

// replaceDatabase returns the URL base with its database set to db (base
// is a valid URL: ServerURL's callers check it).
func replaceDatabase(base, db string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + db
	return u.String()
}

func randomSuffix() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ensureTemplate creates (once per migration set, across processes) a
// migrated template database and returns its name.
func ensureTemplate(ctx context.Context, base string) (string, error) {
	all, err := migrations.All()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range all {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00", m.Version, m.Up, m.Down)
	}
	name := "loregate_tpl_" + hex.EncodeToString(h.Sum(nil))[:16]

	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", EnvURL, err)
	}
	defer admin.Close(context.Background())
	// Serialise template creation between test processes.
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(7242017)"); err != nil {
		return "", err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock(7242017)")
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + building
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return "", err
	}
	_, err = migrations.Up(ctx, conn)
	conn.Close(context.Background())
	if err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, nil
}

// FailEntryInserts makes every insert of a lore entry whose content is
// content fail inside the database (a trigger raising a check violation,
// which the store reports as lore.ErrInvalid), so a test can force a lore
// write to fail after the writes before it in the same transaction
// succeeded. It applies to pool's database only.
func FailEntryInserts(t testing.TB, pool *pgxpool.Pool, content string) {
	t.Helper()
	ctx := context.Background()
	_, err := pool.Exec(ctx, `CREATE FUNCTION loregate_test_fail_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.content = TG_ARGV[0] THEN
        RAISE EXCEPTION 'forced lore failure' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$`)
	if err != nil {
		t.Fatalf("postgrestest: create failing trigger function: %v", err)
	}
	_, err = pool.Exec(ctx, `CREATE TRIGGER loregate_test_fail_entry BEFORE INSERT ON lorebook_entries
FOR EACH ROW EXECUTE FUNCTION loregate_test_fail_entry(`+quoteLiteral(content)+`)`)
	if err != nil {
		t.Fatalf("postgrestest: create failing trigger: %v", err)
	}
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
