package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/sharedtest"
)

// servingAddr matches serve's start-up line.
var servingAddr = regexp.MustCompile(`msg="loregate serving" addr=(\S+)`)

// serveProcess is one `loregate serve` process of the built binary.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string
	done chan error
	mu   sync.Mutex
	log  bytes.Buffer
}

func startServe(t testing.TB, bin string, env []string) *serveProcess {
	t.Helper()
	p := &serveProcess{cmd: exec.Command(bin, "serve", "--addr", "127.0.0.1:0"), done: make(chan error, 1)}
	p.cmd.Env = loregateEnv(env)
	stderr, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := servingAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	select {
	case p.addr = <-addr:
	case err := <-p.done:
		t.Fatalf("serve exited: %v\n%s", err, p.output())
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not start:\n%s", p.output())
	}
	return p
}

func (p *serveProcess) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

func (p *serveProcess) importFile(t *testing.T, key, server, name string, data []byte) {
	t.Helper()
	ops, _ := json.Marshal(map[string]any{
		"query":     `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { job { id } error { code message } } }`,
		"variables": map[string]any{"input": map[string]any{"serverDiscordId": server, "lineageId": 0, "name": name, "file": nil}},
	})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	require.NoError(t, mw.WriteField("operations", string(ops)))
	require.NoError(t, mw.WriteField("map", `{"0":["variables.input.file"]}`))
	fw, err := mw.CreateFormFile("0", name+".json")
	require.NoError(t, err)
	_, _ = fw.Write(data)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", &buf)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Contains(t, string(body), `"job":{"id":`, "a job, not an inline import: %s", body)
}

// TestTwoServeProcessesShareJobs runs two `loregate serve` processes of the
// built binary on one database: imports enqueued through both are each
// worked once, and the periodic channel-name backfill is scheduled by one
// leader, so each server's backfill runs once against the fake Discord.
func TestTwoServeProcessesShareJobs(t *testing.T) {
	dbURL := postgrestest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	servers := []string{"111111111111111111", "222222222222222222"}
	for _, s := range servers {
		_, err := store.UpsertServer(ctx, s, "S")
		require.NoError(t, err)
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Title, e.Content, e.LegacyChannelTags = s, 7, "t", "c", []string{"roleplay"}
		_, err = store.InsertEntry(ctx, e)
		require.NoError(t, err)
	}
	var (
		mu    sync.Mutex
		calls = map[string]int{}
	)
	discord := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		guild := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v9/guilds/"), "/")[0]
		if strings.HasSuffix(r.URL.Path, "/threads/active") {
			_, _ = io.WriteString(w, `{"threads": [], "members": []}`)
			return
		}
		fmt.Fprintf(w, `[{"id": "5%s", "name": "roleplay", "type": 0}]`, guild[1:])
	}))
	t.Cleanup(discord.Close)

	bin := loregateBinary(t)
	const key = "two-serve-test-key-0123456789"
	env := []string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + key, "LOREGATE_INLINE_IMPORT_BYTES=1024",
		"LOREGATE_DISCORD_TOKEN=test-token", "LOREGATE_DISCORD_API_URL=" + discord.URL, "LOREGATE_LOG_LEVEL=info"}
	procs := []*serveProcess{startServe(t, bin, env), startServe(t, bin, env)}

	book := sharedtest.Read(t, "corpus", "st-worldinfo", "bronya-rand__Eorzea.json")
	const imports = 8
	for i := range imports {
		procs[i%2].importFile(t, key, servers[0], fmt.Sprintf("Book %d", i), book)
	}

	// Wait for every job and both backfills to finish (bounded poll).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var pending int
		// Every job, the periodic schedule and cleanup included: River
		// records completions in batches, so a job whose work is visible may
		// still be "running" for a moment.
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job
			WHERE state IN ('available', 'running', 'retryable', 'pending')`).Scan(&pending))
		var backfills int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'channel_name_backfill'`).Scan(&backfills))
		if pending == 0 && backfills == len(servers) {
			break
		}
		require.True(t, time.Now().Before(deadline), "jobs still pending:\n%s\n%s", procs[0].output(), procs[1].output())
		time.Sleep(200 * time.Millisecond)
	}

	type kindCount struct {
		Kind, State string
		Jobs        int
		MaxAttempt  int
	}
	rows, err := pool.Query(ctx, `SELECT kind, state::text, count(*)::int, max(attempt) FROM river_job GROUP BY 1, 2 ORDER BY 1, 2`)
	require.NoError(t, err)
	var got []kindCount
	for rows.Next() {
		var k kindCount
		require.NoError(t, rows.Scan(&k.Kind, &k.State, &k.Jobs, &k.MaxAttempt))
		got = append(got, k)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []kindCount{
		{"activation_log_prune", "completed", 1, 1},
		{"channel_name_backfill", "completed", 2, 1},
		{"channel_name_backfill_schedule", "completed", 1, 1},
		{"job_data_cleanup", "completed", 1, 1},
		{"lorebook_import", "completed", imports, 1},
		{"revision_prune", "completed", 1, 1},
		{"server_purge", "completed", 1, 1},
	}, got, "every job ran once; the periodic jobs were inserted by one leader")
	var reports, collections, entries int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM job_reports`).Scan(&reports))
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM lorebooks`).Scan(&collections))
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM lorebook_entries WHERE lineage_id IS NULL`).Scan(&entries))
	require.Equal(t, imports, reports)
	require.Equal(t, imports, collections)
	require.Zero(t, entries%imports)
	var leaders int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_leader`).Scan(&leaders))
	require.Equal(t, 1, leaders)
	var pendingTags int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM legacy_channel_scope_tags`).Scan(&pendingTags))
	require.Zero(t, pendingTags, "both servers' names resolved")
	mu.Lock()
	for _, s := range servers {
		require.Equal(t, 1, calls["/api/v9/guilds/"+s+"/channels"], "one backfill per server")
	}
	mu.Unlock()

	// Orderly shutdown of both.
	for _, p := range procs {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	}
	for _, p := range procs {
		select {
		case err := <-p.done:
			require.NoError(t, err, "%s", p.output())
		case <-time.After(time.Minute):
			t.Fatalf("serve did not stop:\n%s", p.output())
		}
	}
}
