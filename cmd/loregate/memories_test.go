package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/cli"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/transfer"
)

// TestMigrateMemoriesCLI runs `loregate migrate-memories` on the operator
// page's example file and on a legacy database table: preview writes
// nothing, apply writes and reports the history ids, a database source is
// only read, and --undo rolls a block back.
func TestMigrateMemoriesCLI(t *testing.T) {
	ctx := context.Background()
	url := postgrestest.NewDatabase(t)
	t.Setenv("DATABASE_URL", url)
	pool, err := pgxpool.New(ctx, url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	for _, s := range []string{"123456789012345678", "323456789012345678"} {
		_, err := store.UpsertServer(ctx, s, "Guild")
		require.NoError(t, err)
	}
	entries := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM lorebook_entries").Scan(&n))
		return n
	}
	migrate := func(args ...string) (transfer.MigrationReport, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(ctx, testEnv(nil, &out, &errb), append([]string{"migrate-memories"}, args...))
		require.Equal(t, 0, code, errb.String())
		var rep transfer.MigrationReport
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
		return rep, errb.String()
	}
	example := "../../docs/legacy-migration.example.jsonl"

	rep, progress := migrate("--from", example, "--preview")
	require.False(t, rep.Apply)
	require.Equal(t, 3, rep.Added)
	require.Contains(t, progress, "server blocks: 2/2")
	require.Zero(t, entries(), "a preview writes nothing")

	rep, _ = migrate("--from", example, "--apply")
	require.Equal(t, 3, rep.Added)
	require.Equal(t, 3, entries())

	// A legacy table in another schema of the same server: read only.
	_, err = pool.Exec(ctx, `CREATE SCHEMA legacy;
CREATE TABLE legacy.memories (mem_id bigint, guild text, content text, tags text[], created_at timestamptz);
INSERT INTO legacy.memories VALUES (9001, '323456789012345678', 'The ferry runs at noon.', '{ferry,noon,#docks}', '2024-01-01T00:00:00Z'),
    (9002, '323456789012345678', 'Channel only.', '{#docks}', NULL)`)
	require.NoError(t, err)
	rep, _ = migrate("--from-db", url, "--apply",
		"--query", "SELECT mem_id AS id, guild AS server_id, content, tags, created_at FROM legacy.memories ORDER BY mem_id")
	require.Equal(t, 1, rep.Added)
	require.Equal(t, 1, rep.ChannelOnly)
	require.Equal(t, 4, entries())
	var legacyRows int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM legacy.memories").Scan(&legacyRows))
	require.Equal(t, 2, legacyRows, "the legacy source is only read")
	block := rep.Servers[0].ImportID
	require.NotZero(t, block)
	var created time.Time
	require.NoError(t, pool.QueryRow(ctx, "SELECT created_at FROM lorebook_entries WHERE content = 'The ferry runs at noon.'").Scan(&created))
	require.True(t, created.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), "the entry keeps the memory's creation time, got %v", created)

	// --undo --preview says what the undo removes and keeps, and changes nothing.
	var out, errb bytes.Buffer
	code := run(ctx, testEnv(nil, &out, &errb), []string{"migrate-memories", "--undo", fmt.Sprint(block), "--preview"})
	require.Equal(t, 0, code, errb.String())
	var pv struct {
		Preview       bool           `json:"preview"`
		Removes       int            `json:"removes"`
		RemovedTitles []string       `json:"removed_titles"`
		Keeps         map[string]any `json:"keeps"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &pv), out.String())
	require.True(t, pv.Preview)
	require.Equal(t, 1, pv.Removes)
	require.Equal(t, []string{"The ferry runs at noon."}, pv.RemovedTitles)
	require.EqualValues(t, 1, pv.Keeps["entries"], "the server keeps the entry of the earlier file")
	require.Equal(t, 4, entries(), "a previewed undo changes nothing")

	out.Reset()
	code = run(ctx, testEnv(nil, &out, &errb), []string{"migrate-memories", "--undo", fmt.Sprint(block)})
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), `"removed": 1`)
	require.Equal(t, 3, entries())
	out.Reset()
	code = run(ctx, testEnv(nil, &out, &errb), []string{"migrate-memories", "--undo", fmt.Sprint(block)})
	require.Equal(t, 1, code, "not twice")
	require.Contains(t, out.String(), "already undone")

	for _, bad := range [][]string{
		{"--from", example},
		{"--from", example, "--preview", "--apply"},
		{"--preview"},
		{"--from-db", url, "--preview"},
		{"--undo", "x"},
		{"--undo", "1", "--apply"},
	} {
		var out, errb bytes.Buffer
		code := run(ctx, testEnv(nil, &out, &errb), append([]string{"migrate-memories"}, bad...))
		require.Equal(t, cli.ExitUsage, code, strings.Join(bad, " "))
	}
}
