package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
	"loregate/lore/sharedtest"
)

const (
	faultKey     = "fault-test-service-key-0123456789"
	faultServer  = "333333333333333333"
	faultWriters = 16
)

// faultClient is one writer's view of the service: the fixed address every
// restarted process listens on.
type faultClient struct {
	addr string
	http *http.Client
}

// post sends one GraphQL request; ok is false when no answer came (the
// process died or was not listening): the caller retries with the same
// idempotency key.
func (c *faultClient) post(body []byte, contentType string) (map[string]json.RawMessage, bool) {
	req, err := http.NewRequest(http.MethodPost, "http://"+c.addr+"/graphql", bytes.NewReader(body))
	if err != nil {
		return nil, false
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+faultKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, false
	}
	var out struct {
		Data   map[string]json.RawMessage
		Errors []json.RawMessage
	}
	if json.Unmarshal(raw, &out) != nil || len(out.Errors) > 0 || out.Data == nil {
		return nil, false
	}
	return out.Data, true
}

// until retries fn until it is acknowledged, failing when the deadline
// passes or p exits.
func until(t *testing.T, p *serveProcess, deadline time.Time, fn func() bool) {
	t.Helper()
	for !fn() {
		require.True(t, time.Now().Before(deadline), "no acknowledgement before the deadline:\n%s", p.output())
		select {
		case err := <-p.done:
			t.Fatalf("serve exited: %v\n%s", err, p.output())
		default:
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *faultClient) gql(query string, vars map[string]any) (map[string]json.RawMessage, bool) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return c.post(body, "application/json")
}

func (c *faultClient) importJob(lineage int64, key string, book []byte) (int64, bool) {
	ops, _ := json.Marshal(map[string]any{
		"query": `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { job { id } error { code message } } }`,
		"variables": map[string]any{"input": map[string]any{"serverDiscordId": faultServer, "lineageId": lineage,
			"file": nil, "idempotencyKey": key}},
	})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.input.file"]}`)
	fw, _ := mw.CreateFormFile("0", "book.json")
	_, _ = fw.Write(book)
	_ = mw.Close()
	data, ok := c.post(buf.Bytes(), mw.FormDataContentType())
	if !ok {
		return 0, false
	}
	var p struct {
		Job *struct{ ID string }
	}
	if json.Unmarshal(data["importLorebook"], &p) != nil || p.Job == nil {
		return 0, false
	}
	id, err := strconv.ParseInt(p.Job.ID, 10, 64)
	return id, err == nil
}

// lockedWriter serialises writes to w with mu (serveProcess.output reads
// under the same lock).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// faultRun kills `serve` once per signal in kills while 16 writers create
// entries with idempotency keys (retrying each unacknowledged write with
// its key) and imports run as jobs, restarting it each time on the same
// database, then checks that no acknowledged write was lost, none was
// duplicated, and every import job finished exactly once within
// importDeadline of the last restart.
func faultRun(t *testing.T, kills []syscall.Signal, env []string, importDeadline time.Duration) {
	dbURL := postgrestest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	bin := loregateBinary(t)
	book := sharedtest.Read(t, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0.json")
	addr := freeAddr(t)
	env = append([]string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + faultKey, "LOREGATE_INLINE_IMPORT_BYTES=1024",
		"LOREGATE_LOG_LEVEL=warn", "LOREGATE_SHUTDOWN_TIMEOUT=5s"}, env...)
	start := func() *serveProcess {
		p := &serveProcess{cmd: exec.Command(bin, "serve", "--addr", addr), done: make(chan error, 1)}
		p.cmd.Env = loregateEnv(env)
		p.cmd.Stderr = lockedWriter{&p.mu, &p.log}
		require.NoError(t, p.cmd.Start())
		go func() { p.done <- p.cmd.Wait() }()
		t.Cleanup(func() { _ = p.cmd.Process.Kill() })
		return p
	}
	c := &faultClient{addr: addr, http: &http.Client{Timeout: 20 * time.Second}}
	deadline := time.Now().Add(10 * time.Minute)
	proc := start()
	until(t, proc, deadline, func() bool {
		_, ok := c.gql(`mutation($s: String!) { upsertServer(input: {discordId: $s, name: "Fault", idempotencyKey: "setup-server"}) { error { code } } }`, map[string]any{"s": faultServer})
		return ok
	})
	imports := 2 * len(kills)
	for l := int64(1); l <= faultWriters+int64(imports); l++ {
		until(t, proc, deadline, func() bool {
			_, ok := c.gql(`mutation($s: String!, $l: Int64!, $k: String!) { upsertPersona(input: {serverDiscordId: $s, id: $l, lineageId: $l, name: "P", idempotencyKey: $k}) { error { code } } }`,
				map[string]any{"s": faultServer, "l": l, "k": fmt.Sprint("setup-persona-", l)})
			return ok
		})
	}

	// The writers: each creates entries w-0, w-1, ... in its own lineage
	// until the kills are over (at most maxPerWriter), retrying each
	// unacknowledged write with its key.
	const maxPerWriter = 240
	var written [faultWriters]int
	var retries atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range faultWriters {
		wg.Go(func() {
			for i := 0; i < maxPerWriter && !stop.Load(); i++ {
				key := fmt.Sprintf("w%02d-%03d", w, i)
				for {
					data, ok := c.gql(`mutation($s: String!, $l: Int64!, $k: String!) { createEntry(input: {serverDiscordId: $s, lineageId: $l, idempotencyKey: $k,
						entry: {title: $k, content: "c", keys: ["k"]}}) { entry { id } error { code message } } }`,
						map[string]any{"s": faultServer, "l": w + 1, "k": key})
					var p struct{ Entry *struct{ ID string } }
					if ok && json.Unmarshal(data["createEntry"], &p) == nil && p.Entry != nil {
						written[w] = i + 1
						break
					}
					if time.Now().After(deadline) {
						return
					}
					retries.Add(1)
					time.Sleep(20 * time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}

	jobs := map[int64]int64{} // lineage -> job id
	lineage := int64(faultWriters)
	for _, sig := range kills {
		// Two imports per run, enqueued (with keys) just before the kill.
		for range 2 {
			lineage++
			key := fmt.Sprintf("import-%d", lineage)
			until(t, proc, deadline, func() bool {
				id, ok := c.importJob(lineage, key, book)
				jobs[lineage] = id
				return ok
			})
		}
		// Kill while an import runs when one is seen within 2 s.
		wait := time.Now().Add(2 * time.Second)
		var running int
		for time.Now().Before(wait) {
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'lorebook_import' AND state = 'running'`).Scan(&running))
			if running > 0 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		require.NoError(t, proc.cmd.Process.Signal(sig))
		select {
		case <-proc.done:
		case <-time.After(time.Minute):
			t.Fatalf("serve did not stop on %v:\n%s", sig, proc.output())
		}
		t.Logf("%v with %d import jobs running, %d writer retries so far", sig, running, retries.Load())
		proc = start()
	}
	restarted := time.Now()
	time.Sleep(time.Second) // writes against the last process too
	stop.Store(true)
	wg.Wait()

	// Every import job completes, once, within the deadline.
	for {
		var pending int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'lorebook_import' AND state <> 'completed'`).Scan(&pending))
		if pending == 0 {
			break
		}
		require.Less(t, time.Since(restarted), importDeadline, "imports still unfinished:\n%s", proc.output())
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("imports finished %v after the last restart", time.Since(restarted).Round(time.Second))
	var jobCount int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'lorebook_import'`).Scan(&jobCount))
	require.Equal(t, imports, jobCount, "one job per import: retried enqueues were not duplicated")
	want := -1
	for l, id := range jobs {
		var added, reports, entries int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), coalesce(max((report->>'added')::int), 0) FROM job_reports WHERE job_id = $1`, id).Scan(&reports, &added))
		require.Equal(t, 1, reports, "job %d reported once", id)
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM lorebook_entries WHERE server_id = $1 AND lineage_id = $2`, faultServer, l).Scan(&entries))
		require.Equal(t, added, entries, "lineage %d holds what its one import added", l)
		if want < 0 {
			want = entries
		}
		require.Equal(t, want, entries, "every import of the same book added the same entries")
	}
	require.Positive(t, want)

	// Writes: every acknowledged one is there exactly once, none twice,
	// and nothing else.
	rows, err := pool.Query(ctx, `SELECT title, count(*) FROM lorebook_entries WHERE server_id = $1 AND lineage_id <= $2 GROUP BY 1`, faultServer, faultWriters)
	require.NoError(t, err)
	stored := map[string]int{}
	for rows.Next() {
		var title string
		var n int
		require.NoError(t, rows.Scan(&title, &n))
		require.Equal(t, 1, n, "%s written %d times", title, n)
		stored[title] = n
	}
	require.NoError(t, rows.Err())
	total := 0
	for w := range faultWriters {
		require.Positive(t, written[w], "writer %d", w)
		for i := range written[w] {
			key := fmt.Sprintf("w%02d-%03d", w, i)
			require.Equal(t, 1, stored[key], "acknowledged write %s is stored once", key)
		}
		total += written[w]
	}
	require.Len(t, stored, total, "no write that was not acknowledged")
	t.Logf("%d acknowledged writes, %d retries, %d imports", total, retries.Load(), imports)

	require.NoError(t, proc.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-proc.done:
		require.NoError(t, err, "%s", proc.output())
	case <-time.After(time.Minute):
		t.Fatalf("serve did not stop:\n%s", proc.output())
	}
}

// TestServeKilledUnderWriters is the fault test of issue 18 in `make
// test`: one SIGTERM and one SIGKILL. Jobs use a 5 s timeout so that
// River's rescue (8 s, checked every 30 s) retries the killed ones within
// the test's time; `make soak` runs TestSoakKills at the default settings.
func TestServeKilledUnderWriters(t *testing.T) {
	faultRun(t, []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL},
		[]string{"LOREGATE_IMPORT_JOB_TIMEOUT=5s", "LOREGATE_JOB_TIMEOUT=5s", "LOREGATE_RESCUE_STUCK_JOBS_AFTER=8s"}, 2*time.Minute)
}
