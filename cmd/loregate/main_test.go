package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/cli"
	"loregate/lore/postgres/postgrestest"
)

func countTables(t *testing.T, url string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n))
	return n
}

// TestMigrateDownPreviewChangesNothing runs `loregate migrate down 1`
// without --yes against a migrated database: it prints the preview and
// leaves every table in place; with --yes it undoes everything, and
// `migrate up` restores it.
func TestMigrateDownPreviewChangesNothing(t *testing.T) {
	url := postgrestest.NewDatabase(t)
	t.Setenv("DATABASE_URL", url)
	before := countTables(t, url)
	require.Greater(t, before, 5)

	var out, errb bytes.Buffer
	code := run(context.Background(), testEnv(nil, &out, &errb), []string{"migrate", "down", "1"})
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "PREVIEW (nothing changed)")
	require.Contains(t, out.String(), "lorebook_entries")
	require.Equal(t, before, countTables(t, url), "the preview changed the schema")

	out.Reset()
	code = run(context.Background(), testEnv(nil, &out, &errb), []string{"migrate", "status"})
	require.Equal(t, 0, code)
	require.NotContains(t, out.String(), "pending")

	out.Reset()
	code = run(context.Background(), testEnv(nil, &out, &errb), []string{"migrate", "down", "1", "--yes"})
	require.Equal(t, 0, code, errb.String())
	require.Equal(t, 1, countTables(t, url), "only the bookkeeping table remains")

	out.Reset()
	code = run(context.Background(), testEnv(nil, &out, &errb), []string{"migrate", "up"})
	require.Equal(t, 0, code, errb.String())
	require.Equal(t, before, countTables(t, url))
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"migrate"}, "migrate needs up, status or down N"},
		{[]string{"migrate", "down", "x"}, `migration number "x" is not a positive integer`},
		{[]string{"migrate", "sideways"}, `unknown migrate action "sideways"`},
		{[]string{"serve", "--log-level", "loud"}, `log level "loud"`},
		{[]string{"token"}, "token needs --user"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), testEnv(nil, &out, &errb), tt.args)
			require.Equal(t, cli.ExitUsage, code)
			first, _, _ := strings.Cut(errb.String(), "\n")
			require.Contains(t, first, tt.want, "the first line names the problem")
		})
	}
}

// TestHelpExitsZero: every command's --help prints its flags and exits 0
// (a request for help is not a usage error).
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"serve", "worker", "migrate", "migrate-memories", "with-postgres", "token", "activate", "convert"} {
		t.Run(cmd, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), testEnv(strings.NewReader(""), &out, &errb), []string{cmd, "--help"})
			require.Equal(t, 0, code, "stderr: %s", errb.String())
			require.Contains(t, out.String()+errb.String(), "-", "the flags are printed")
		})
	}
}

func TestCacheBudgets(t *testing.T) {
	tests := []struct {
		value string
		want  int64
		bad   bool
	}{
		{"", 256 << 20, false},
		{"0", 0, false},
		{"1048576", 1 << 20, false},
		{"64MiB", 64 << 20, false},
		{"512KiB", 512 << 10, false},
		{"2GiB", 2 << 30, false},
		{"-1", 0, true},
		{"lots", 0, true},
		{"5MB", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv("LOREGATE_SCOPE_CACHE_BYTES", tt.value)
			c := loadConfig(os.Getenv, flag.NewFlagSet("t", flag.ContinueOnError))
			err := c.validate()
			if tt.bad {
				require.ErrorContains(t, err, "LOREGATE_SCOPE_CACHE_BYTES must be a byte size")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, c.ScopeCacheBytes)
		})
	}
}

// TestTurnCommit: LOREGATE_TURN_COMMIT is async (the default) or sync;
// anything else stops start-up naming the variable (docs/turns.md#durability).
func TestTurnCommit(t *testing.T) {
	for _, tt := range []struct{ value, want, err string }{
		{"", "async", ""},
		{"async", "async", ""},
		{"sync", "sync", ""},
		{"durable", "", `LOREGATE_TURN_COMMIT="durable" is not async or sync`},
	} {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv("LOREGATE_TURN_COMMIT", tt.value)
			c := loadConfig(os.Getenv, flag.NewFlagSet("t", flag.ContinueOnError))
			err := c.validate()
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, c.TurnCommit)
		})
	}
}

// TestRescueDelayFollowsTimeouts: the rescue delay defaults to the longest
// job timeout plus a margin, and a setting at or below a timeout stops
// start-up with an error naming both variables and the bound.
func TestRescueDelayFollowsTimeouts(t *testing.T) {
	t.Setenv("LOREGATE_IMPORT_JOB_TIMEOUT", "5m")
	jc := loadJobsConfig(os.Getenv)
	require.NoError(t, jc.err)
	require.Equal(t, 5*time.Minute+30*time.Second, jc.RescueStuckJobsAfter)
	t.Setenv("LOREGATE_IMPORT_JOB_TIMEOUT", "")
	jc = loadJobsConfig(os.Getenv)
	require.Equal(t, 90*time.Second, jc.RescueStuckJobsAfter, "retried within minutes by default")

	t.Setenv("LOREGATE_RESCUE_STUCK_JOBS_AFTER", "30s")
	var out, errb bytes.Buffer
	code := run(context.Background(), testEnv(nil, &out, &errb), []string{"serve"})
	require.Equal(t, cli.ExitUsage, code)
	first, _, _ := strings.Cut(errb.String(), "\n")
	for _, want := range []string{"LOREGATE_RESCUE_STUCK_JOBS_AFTER (30s)", "longer than the longest job timeout, 1m0s", "LOREGATE_IMPORT_JOB_TIMEOUT 1m0s", "LOREGATE_JOB_TIMEOUT 1m0s"} {
		require.Contains(t, first, want)
	}
}

// testEnv is the Env of a command run in a test: the given streams and the
// process environment (tests set variables with t.Setenv).
func testEnv(stdin io.Reader, stdout, stderr io.Writer) cli.Env {
	return cli.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
}
