package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/cli"
	"loregate/graph/auth"
	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/sharedtest"
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
		env  string // NAME=value set for the case
		want string
	}{
		{args: []string{"nope"}, want: `unknown command "nope"`},
		{args: []string{"migrate"}, want: "migrate needs up, status or down N"},
		{args: []string{"migrate", "down", "x"}, want: `migration number "x" is not a positive integer`},
		{args: []string{"migrate", "sideways"}, want: `unknown migrate action "sideways"`},
		{args: []string{"serve", "--log-level", "loud"}, want: `log level (--log-level, LOREGATE_LOG_LEVEL) "loud"`},
		{args: []string{"serve"}, env: "LOREGATE_LOG_FORMAT=yaml", want: `log format (LOREGATE_LOG_FORMAT) "yaml"`},
		{args: []string{"token"}, want: "token needs --user"},
		{args: []string{"token", "--user", "abc"}, want: `--user "abc" is not a Discord user id (a snowflake: 17 to 20 digits`},
		{args: []string{"token", "--user", "1", "--guild", "123456789012345678"}, want: `--user "1" is not a Discord user id`},
		{args: []string{"token", "--user", "0123456789012345678"}, want: `--user "0123456789012345678" is not a Discord user id`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" "+tt.env, func(t *testing.T) {
			if name, value, ok := strings.Cut(tt.env, "="); ok {
				t.Setenv(name, value)
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), testEnv(nil, &out, &errb), tt.args)
			require.Equal(t, cli.ExitUsage, code)
			first, _, _ := strings.Cut(errb.String(), "\n")
			require.Contains(t, first, tt.want, "the first line names the problem")
		})
	}
}

// TestFlagErrorPrintedOnce: an unknown flag or a bad flag value is printed
// once on stderr, followed by the command's usage, and exits 2 (the flag
// set's line was once repeated as "loregate: ...").
func TestFlagErrorPrintedOnce(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"worker", "--nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"migrate", "--nosuchflag", "up"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"migrate-memories", "--nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"with-postgres", "--nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"token", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"token", "--user", "123456789012345678", "--guild", "123456789012345678:owner"}, `--guild role "owner" is not member or manage`},
		{[]string{"token", "--user", "123456789012345678", "--guild", "abc:manage"}, `--guild id "abc" is not a Discord server id (a snowflake`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), testEnv(nil, &out, &errb), tt.args)
			require.Equal(t, cli.ExitUsage, code)
			require.Equal(t, 1, strings.Count(errb.String(), tt.want), errb.String())
			require.Contains(t, errb.String(), "-", "the usage follows")
			first, _, _ := strings.Cut(errb.String(), "\n")
			require.Contains(t, first, tt.want, "the first line names the problem")
		})
	}
}

// TestHelpExitsZero: every command's --help prints its flags on stdout
// (so `loregate serve --help | less` shows them) and exits 0 (a request for
// help is not a usage error); serve, worker, migrate, migrate-memories,
// with-postgres and token once printed theirs on stderr.
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"serve", "worker", "migrate", "migrate-memories", "with-postgres", "token", "activate", "convert"} {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(cmd+" "+flag, func(t *testing.T) {
				var out, errb bytes.Buffer
				code := run(context.Background(), testEnv(strings.NewReader(""), &out, &errb), []string{cmd, flag})
				require.Equal(t, 0, code, "stderr: %s", errb.String())
				require.Contains(t, out.String(), "-", "the flags are printed on stdout")
				require.Empty(t, errb.String())
			})
		}
	}
}

// TestTopLevelUsage: `loregate --help` (and help, -h) prints the command
// list on stdout and exits 0; `loregate` alone prints it on stderr and
// exits 2. The list shows what the commands take: convert's every --to
// format, migrate's --force.
func TestTopLevelUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout bool
	}{
		{[]string{"--help"}, 0, true},
		{[]string{"-h"}, 0, true},
		{[]string{"help"}, 0, true},
		{nil, cli.ExitUsage, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), testEnv(nil, &out, &errb), tc.args)
			require.Equal(t, tc.code, code)
			text, other := errb.String(), out.String()
			if tc.stdout {
				text, other = other, text
			}
			require.Empty(t, other)
			for _, want := range []string{"loregate convert IN [-o OUT] [--to st|ccv3|card|png|charx|novelai|risu|agnai|worldbook|canonical]",
				"down N [--yes | --force]", "loregate token"} {
				require.Contains(t, text, want)
			}
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

// TestTurnCommit: LOREGATE_TURN_COMMIT is async (the default), sync or
// deferred, and LOREGATE_TURN_FLUSH_INTERVAL a duration from 1ms to 1s
// (10ms by default, read with deferred only); anything else stops
// start-up naming the variable (docs/turns.md#durability).
func TestTurnCommit(t *testing.T) {
	for _, tt := range []struct{ value, interval, want, err string }{
		{"", "", "async", ""},
		{"async", "", "async", ""},
		{"sync", "", "sync", ""},
		{"deferred", "", "deferred", ""},
		{"deferred", "2ms", "deferred", ""},
		{"durable", "", "", `LOREGATE_TURN_COMMIT="durable" is not async, sync or deferred`},
		{"deferred", "0s", "", `LOREGATE_TURN_FLUSH_INTERVAL must be a duration from 1ms to 1s, such as 10ms, got "0s"`},
		{"deferred", "2s", "", `LOREGATE_TURN_FLUSH_INTERVAL must be a duration from 1ms to 1s, such as 10ms, got "2s"`},
		{"deferred", "soon", "", `LOREGATE_TURN_FLUSH_INTERVAL must be a duration from 1ms to 1s, such as 10ms, got "soon"`},
		{"deferred", "10", "", `got "10"`}, // a number without its unit
		{"async", "2s", "async", ""},       // read with deferred only
		{"sync", "soon", "sync", ""},
	} {
		t.Run(tt.value+"/"+tt.interval, func(t *testing.T) {
			c, ok := validConfig(t, tt.err, "LOREGATE_TURN_COMMIT", tt.value, "LOREGATE_TURN_FLUSH_INTERVAL", tt.interval)
			if !ok {
				return
			}
			require.Equal(t, tt.want, c.TurnCommit)
			switch tt.interval {
			case "2ms":
				require.Equal(t, 2*time.Millisecond, c.TurnFlushInterval)
			case "":
				require.Equal(t, 10*time.Millisecond, c.TurnFlushInterval)
			}
			line := fmt.Sprintln(c.logAttrs()...) // the start-up line shows the mode
			require.Contains(t, line, " turn_commit "+tt.want+" ")
			if tt.want == "deferred" {
				require.Contains(t, line, " turn_flush_interval "+c.TurnFlushInterval.String()+" ")
			} else {
				require.NotContains(t, line, "turn_flush_interval")
			}
		})
	}
}

// validConfig loads the configuration with the environment variables of
// kv (name, value, ...) set and validates it: false when it is refused,
// with an error holding wantErr (""; no error expected).
func validConfig(t *testing.T, wantErr string, kv ...string) (*config, bool) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
	c := loadConfig(os.Getenv, flag.NewFlagSet("t", flag.ContinueOnError))
	err := c.validate()
	if wantErr != "" {
		require.ErrorContains(t, err, wantErr)
		return c, false
	}
	require.NoError(t, err)
	return c, true
}

// TestTurnQueueBytes: LOREGATE_TURN_QUEUE_BYTES is a byte size of at
// least 1 (64 MiB by default), read with LOREGATE_TURN_COMMIT=deferred
// only and shown on the start-up line then; anything else stops start-up
// naming the variable (docs/configuration.md, docs/turns.md#deferred).
// With another commit mode any value, a bad one too, is ignored (with a
// warning: TestIgnoredSettingsWarning), as LOREGATE_TURN_FLUSH_INTERVAL's.
func TestTurnQueueBytes(t *testing.T) {
	for _, tt := range []struct {
		commit, value string
		want          int64
		err           string
	}{
		{"deferred", "", 64 << 20, ""},
		{"deferred", "32MiB", 32 << 20, ""},
		{"deferred", "0", 0, "LOREGATE_TURN_QUEUE_BYTES must be a byte size of at least 1, such as 64MiB"},
		{"deferred", "lots", 0, `LOREGATE_TURN_QUEUE_BYTES must be a byte size such as 268435456 or 256MiB, got "lots"`},
		{"async", "0", 0, ""}, // read with deferred only
		{"async", "lots", 0, ""},
		{"sync", "-1", 0, ""},
	} {
		t.Run(tt.commit+"/"+tt.value, func(t *testing.T) {
			c, ok := validConfig(t, tt.err, "LOREGATE_TURN_COMMIT", tt.commit, "LOREGATE_TURN_QUEUE_BYTES", tt.value)
			if !ok {
				return
			}
			line := fmt.Sprintln(c.logAttrs()...)
			if tt.commit != "deferred" {
				require.NotContains(t, line, "turn_queue_bytes")
				return
			}
			require.Equal(t, tt.want, c.TurnQueueBytes)
			require.Contains(t, line, fmt.Sprint(" turn_queue_bytes ", tt.want, " "))
		})
	}
}

// TestProcsTunerSetting: the procs tuner is on when LOREGATE_PROCS_TUNER
// is on, and by default (auto) for a serve that runs no Discord bot, with
// job workers or without; off whenever GOMAXPROCS is set; anything but
// auto, on or off stops start-up naming the variable
// (docs/configuration.md#processors).
func TestProcsTunerSetting(t *testing.T) {
	for _, tt := range []struct {
		value, workers, token, gomaxprocs string
		want                              bool
		err                               string
	}{
		{"", "", "", "", true, ""}, // auto, with the default job workers
		{"", "0", "", "", true, ""},
		{"auto", "2", "", "", true, ""},
		{"auto", "0", "bot-token", "", false, ""},
		{"auto", "2", "bot-token", "", false, ""},
		{"auto", "", "", "2", false, ""},
		{"off", "0", "", "", false, ""},
		{"on", "", "", "", true, ""},
		{"on", "", "", "2", false, ""},
		{"yes", "", "", "", false, `LOREGATE_PROCS_TUNER="yes" is not auto, on or off`},
	} {
		t.Run(strings.Join([]string{tt.value, tt.workers, tt.token, tt.gomaxprocs}, "/"), func(t *testing.T) {
			env := map[string]string{"LOREGATE_PROCS_TUNER": tt.value, "LOREGATE_JOB_WORKERS": tt.workers,
				"LOREGATE_DISCORD_TOKEN": tt.token, "GOMAXPROCS": tt.gomaxprocs}
			getenv := func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return os.Getenv(k)
			}
			c := loadConfig(getenv, flag.NewFlagSet("t", flag.ContinueOnError))
			err := c.validate()
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, c.ProcsTuning)
			want := map[bool]string{true: ": on", false: ": off"}[tt.want]
			require.Contains(t, fmt.Sprintln(c.logAttrs()...), " procs_tuner "+cmp.Or(tt.value, "auto")+want+" ")
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

// TestMigrateDownRefusesLossyRollback: a rollback that would drop a value
// (000011's down rewrites scan depth 0 and drops timed effects; 000012's
// drops book settings) is refused with --yes, naming what would be lost per
// column, and runs with --force; a rollback that loses nothing runs with
// --yes.
func TestMigrateDownRefusesLossyRollback(t *testing.T) {
	url := postgrestest.NewDatabase(t)
	t.Setenv("DATABASE_URL", url)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO servers (id) VALUES ('100000000000000001');
INSERT INTO lorebooks (server_id, name, recursive) VALUES ('100000000000000001', 'World', true);
INSERT INTO lorebook_entries (server_id, lorebook_name, content, scan_depth, cooldown)
VALUES ('100000000000000001', 'World', 'a', 0, 3)`)
	require.NoError(t, err)

	var out, errb bytes.Buffer
	before := countTables(t, url)
	code := run(ctx, testEnv(nil, &out, &errb), []string{"migrate", "down", "11", "--yes"})
	require.Equal(t, cli.ExitUsage, code, out.String()+errb.String())
	for _, want := range []string{"REFUSED (nothing changed)", "--force", "rows of lorebook_entries where scan_depth = 0", "column lorebook_entries.cooldown (not 0)", "column lorebooks.recursive (not NULL)"} {
		require.Contains(t, out.String(), want)
	}
	require.Equal(t, before, countTables(t, url), "the refusal changed nothing")
	var depth int
	require.NoError(t, conn.QueryRow(ctx, "SELECT scan_depth FROM lorebook_entries").Scan(&depth))
	require.Equal(t, 0, depth)

	// The newest migration's rollback loses nothing here: --yes runs it.
	out.Reset()
	code = run(ctx, testEnv(nil, &out, &errb), []string{"migrate", "down", "80", "--yes"})
	require.Equal(t, 0, code, out.String()+errb.String())
	require.Contains(t, out.String(), "undid 000080_server_lifecycle")

	out.Reset()
	code = run(ctx, testEnv(nil, &out, &errb), []string{"migrate", "down", "11", "--force"})
	require.Equal(t, 0, code, out.String()+errb.String())
	require.Contains(t, out.String(), "undid 000011_entry_activation_fields")
	require.NoError(t, conn.QueryRow(ctx, "SELECT scan_depth FROM lorebook_entries").Scan(&depth))
	require.Equal(t, 1, depth, "forced: scan depth 0 became 1 as the preview said")
}

// TestActivateSendsEmbeddingsKey: `loregate activate --embeddings-url`
// calls the provider with LOREGATE_EMBEDDINGS_API_KEY as its bearer token,
// read by config.go (TestEnvironmentReadInConfigOnly), and the key stays
// out of the output.
func TestActivateSendsEmbeddingsKey(t *testing.T) {
	fake := embeddingstest.New(64)
	defer fake.Close()
	t.Setenv("LOREGATE_EMBEDDINGS_API_KEY", "sk-cli-key")
	book := sharedtest.Path(t, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0_Vectorized.json")
	var out, errb bytes.Buffer
	code := run(context.Background(), testEnv(strings.NewReader(`["Kotori, why the lollipop?"]`), &out, &errb),
		[]string{"activate", "--book", book, "--chat", "-", "--embeddings-url", fake.URL, "--embeddings-model", "fake-embed"})
	require.Equal(t, 0, code, errb.String())
	require.Equal(t, "Bearer sk-cli-key", fake.LastAuthorization())
	require.NotContains(t, out.String()+errb.String(), "sk-cli-key")
}

// TestWorkerStartLine: `loregate worker` logs the settings it uses (the
// database, the jobs, the embeddings, the limits) and none of serve's: it
// listens on no address (the line once showed addr=127.0.0.1:8080), checks
// no credential and caches no scope. serve's line keeps them.
func TestWorkerStartLine(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://loregate:secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	t.Setenv("LOREGATE_METRICS_ADDR", "127.0.0.1:9100")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the worker stops at its database
	var out, errb bytes.Buffer
	require.NotZero(t, run(ctx, testEnv(nil, &out, &errb), []string{"worker"}))
	line, _, _ := strings.Cut(errb.String(), "\n")
	require.Contains(t, line, "loregate worker starting")
	serve := " " + fmt.Sprintln(loadConfig(os.Getenv, nil).logAttrs()...)
	for _, tt := range []struct {
		attr   string
		worker bool
	}{
		{"database", true}, {"log_level", true}, {"shutdown_timeout", true}, {"job_workers", true},
		{"discord_token", true}, {"embeddings", true}, {"max_scope_entries", true},
		{"addr", false}, {"metrics_addr", false}, {"public_url", false}, {"service_keys", false},
		{"jwt_secret", false}, {"cors_origins", false}, {"introspection", false}, {"discord_sign_in", false},
		{"scope_cache_bytes", false}, {"text_cache_bytes", false}, {"gc_heap_floor", false},
		{"log_flush_interval", false}, {"turn_commit", false}, {"procs_tuner", false}, {"inline_import_bytes", false},
	} {
		t.Run(tt.attr, func(t *testing.T) {
			require.Equal(t, tt.worker, strings.Contains(line, " "+tt.attr+"="), line)
			require.Contains(t, serve, " "+tt.attr+" ", "serve logs every setting")
		})
	}
	require.NotContains(t, line, "secret@", "the URL is masked")
}

// TestTokenMintsSnowflakes: token mints a member token for a Discord user
// id and guild ids (snowflakes, as the API checks them) that the API's
// authenticator accepts with those ids.
func TestTokenMintsSnowflakes(t *testing.T) {
	secret := strings.Repeat("s", 32)
	t.Setenv("LOREGATE_JWT_SECRET", secret)
	var out, errb bytes.Buffer
	code := run(context.Background(), testEnv(nil, &out, &errb), []string{"token", "--user", "223456789012345678", "--guild", "123456789012345678:manage"})
	require.Equal(t, 0, code, errb.String())
	a, err := auth.NewAuthenticator(nil, secret)
	require.NoError(t, err)
	p, err := a.Authenticate(strings.TrimSpace(out.String()))
	require.NoError(t, err)
	require.Equal(t, "223456789012345678", p.UserID)
	require.True(t, p.Guilds["123456789012345678"].Manage)
}

// TestTokenRoles: --role GUILD:ROLE puts a role the member holds into the
// token's membership of that guild (a server's lore editor role, which
// the dashboard's operator sign-in could not carry before); a role of a
// guild no --guild names, or not two ids, is a usage error.
func TestTokenRoles(t *testing.T) {
	secret := strings.Repeat("s", 32)
	t.Setenv("LOREGATE_JWT_SECRET", secret)
	const user, guild, role = "223456789012345678", "123456789012345678", "323456789012345678"
	for _, tc := range []struct {
		args  []string
		roles []string // nil = a usage error
		want  string
	}{
		{[]string{"--guild", guild, "--role", guild + ":" + role}, []string{role}, ""},
		{[]string{"--guild", guild + ":manage", "--role", guild + ":" + role, "--role", guild + ":423456789012345678"}, []string{role, "423456789012345678"}, ""},
		{[]string{"--role", guild + ":" + role}, nil, "--role names guild 123456789012345678, which no --guild names"},
		{[]string{"--guild", guild, "--role", guild}, nil, `--role "123456789012345678" is not GUILD_ID:ROLE_ID`},
		{[]string{"--guild", guild, "--role", guild + ":editors"}, nil, `--role "123456789012345678:editors" is not GUILD_ID:ROLE_ID`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), testEnv(nil, &out, &errb), append([]string{"token", "--user", user}, tc.args...))
			if tc.roles == nil {
				require.Equal(t, cli.ExitUsage, code)
				first, _, _ := strings.Cut(errb.String(), "\n")
				require.Contains(t, first, tc.want)
				return
			}
			require.Equal(t, 0, code, errb.String())
			a, err := auth.NewAuthenticator(nil, secret)
			require.NoError(t, err)
			p, err := a.Authenticate(strings.TrimSpace(out.String()))
			require.NoError(t, err)
			require.Equal(t, tc.roles, p.Guilds[guild].Roles)
		})
	}
}
