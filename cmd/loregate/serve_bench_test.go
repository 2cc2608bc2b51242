package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
)

// BenchmarkServeTurn measures the bot's turn against `loregate serve` as
// deployed: the built binary in its own process, posted over loopback HTTP
// with the full query text, on a Serverwide scope of 250 entries x 4 keys
// with 400-character contents and 20 messages of 55 words (every third
// naming a key), selecting `admitted { title placement } budget { used
// limit }`. Rows: `activate` (a cached dry run) at concurrency 1, 4 and 16
// and `activateTurn` (recorded: one conversation per worker, a new turn id
// and message count per call) at 1, 4 and 16. Each row reports serve's CPU per
// turn (serve-cpu-us/op, from /proc), Postgres' (pg-cpu-us/op: every
// process of the cluster in pg_stat_activity), serve's allocations per turn
// (serve-B/op: go_memstats_alloc_bytes_total over the run), the WAL the
// cluster wrote (wal-B/op) and the bytes the turn tables grew by
// (stored-B/op) per turn, the p50/p99 latency the load client sees and
// serve's own (handler-p50-us, handler-p99-us: the bucket bounds of its
// latency histogram, from the body read to the answer written, so the
// tail inside the handler is told from the connection's and the load
// client's; docs/benchmarks.md#gc-floor). The load client (this process)
// collects at GOGC=800 within a row, so that its own collections do not
// stall the requests it times (docs/benchmarks.md#tail-order). CPU per
// turn is what other load on a shared machine inflates least.
//
// LOREGATE_BENCH_BASELINE names an older loregate binary, or several
// separated by ':': their rows (`.../base`, `.../base2`, ...) then run
// before each of this build's (`.../new`), all in one run
// (docs/benchmarks.md "Turns over HTTP"). -count N repeats each row N
// times in a row; to alternate the binaries, run the benchmark N times
// (each run starts every binary again). Run under `loregate with-postgres --dir DIR` for a durable
// cluster (fsync on); `make bench`'s throwaway cluster runs with fsync off.
// LOREGATE_BENCH_DEFERRED set adds this build's rows with
// LOREGATE_TURN_COMMIT=deferred (`.../deferred`, docs/turns.md#durability)
// after `.../new`; set to `all`, each baseline's too (`.../base-deferred`
// after `.../base`: baselines that know the setting, 97865b4 and later).
// LOREGATE_BENCH_FLOOR=N adds, to the `activate` rows only, `.../floor`:
// the platform's floor for the tail, a minimal net/http server
// (testdata/floorserve) that answers with the bytes `.../new` answers
// after N µs of CPU per request (35 gives about serve's CPU per turn at
// c=16 on the 2-core machine), so that p99/p50 is read against what any
// Go server gets on the same machine from the same client
// (docs/benchmarks.md#tail-floor).
func BenchmarkServeTurn(b *testing.B) {
	ctx := context.Background()
	const server = "111111111111111111"
	type bin struct {
		name, path string
		env        []string
	}
	var bins []bin
	if list := os.Getenv("LOREGATE_BENCH_BASELINE"); list != "" {
		for i, base := range filepath.SplitList(list) {
			name := "base"
			if i > 0 {
				name = fmt.Sprint("base", i+1)
			}
			bins = append(bins, bin{name: name, path: base})
			if os.Getenv("LOREGATE_BENCH_DEFERRED") == "all" {
				bins = append(bins, bin{name: name + "-deferred", path: base, env: []string{"LOREGATE_TURN_COMMIT=deferred"}})
			}
		}
	}
	bins = append(bins, bin{name: "new", path: buildBinary(b, ".")})
	newBin := len(bins) - 1
	if os.Getenv("LOREGATE_BENCH_DEFERRED") != "" {
		bins = append(bins, bin{name: "deferred", path: bins[len(bins)-1].path, env: []string{"LOREGATE_TURN_COMMIT=deferred"}})
	}
	if spin := os.Getenv("LOREGATE_BENCH_FLOOR"); spin != "" {
		bins = append(bins, bin{name: "floor", path: buildBinary(b, "./testdata/floorserve"), env: []string{"LOREGATE_BENCH_FLOOR=" + spin}})
	}
	book, msgs := benchBook()
	const sel = `admitted { title placement } budget { used limit }`
	dry, _ := json.Marshal(map[string]any{"query": `query($i:ActivateInput!){activate(input:$i){` + sel + `}}`,
		"variables": map[string]any{"i": map[string]any{"serverDiscordId": server, "lineageId": 0, "messages": msgs}}})
	// Each binary on its own database, migrated by its own serve, the
	// same book imported through its own API (an older binary's schema
	// is not this build's store's).
	procs := make([]*serveProcess, len(bins))
	pools := make([]*pgxpool.Pool, len(bins))
	for i, bin := range bins {
		dbURL := emptyDatabase(b, ctx, fmt.Sprint("loregate_bench_", strings.ReplaceAll(bin.name, "-", "_"), "_", time.Now().UnixNano()))
		pool, err := pgxpool.New(ctx, dbURL)
		require.NoError(b, err)
		b.Cleanup(pool.Close)
		pools[i] = pool
		env := append([]string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + scopeCacheTestKey, "LOREGATE_JOB_WORKERS=0"}, bin.env...)
		if bin.name == "floor" {
			// serveRun reads the size of the turn tables: empty ones.
			_, err := pool.Exec(ctx, `CREATE TABLE activation_log (); CREATE TABLE turn_entry_state (); CREATE TABLE turn_conversations ()`)
			require.NoError(b, err)
			procs[i] = startServe(b, bin.path, append(env, "LOREGATE_FLOOR_ANSWER="+string(procs[newBin].post(b, dry))))
			continue
		}
		procs[i] = startServe(b, bin.path, env)
		importBenchBook(b, procs[i], server, book)
	}
	var seq atomic.Int64
	seq.Store(100)
	turn := func(worker int) []byte {
		n := seq.Add(1)
		body, _ := json.Marshal(map[string]any{
			"query": `mutation($i:ActivateTurnInput!){activateTurn(input:$i){result{` + sel + `} error{code message}}}`,
			"variables": map[string]any{"i": map[string]any{"serverDiscordId": server, "lineageId": 0, "messages": msgs,
				"channelId": fmt.Sprint(333333333333333333 + worker), "turnId": fmt.Sprint("t-", n), "messageCount": n}}})
		return body
	}
	rows := []struct {
		name string
		c    int
		body func(worker int) []byte
	}{
		{"activate/c=1", 1, func(int) []byte { return dry }},
		{"activate/c=4", 4, func(int) []byte { return dry }},
		{"activate/c=16", 16, func(int) []byte { return dry }},
		{"activateTurn/c=1", 1, turn},
		{"activateTurn/c=4", 4, turn},
		{"activateTurn/c=16", 16, turn},
	}
	for _, row := range rows {
		for i, bin := range bins {
			if bin.name == "floor" && !strings.HasPrefix(row.name, "activate/") {
				continue
			}
			p, pool := procs[i], pools[i]
			b.Run(row.name+"/"+bin.name, func(b *testing.B) { serveRun(b, ctx, pool, p, row.c, row.body) })
		}
	}
}

// post posts body to p's /graphql with the bench's key and returns the
// answer (status 200 required).
func (p *serveProcess) post(b *testing.B, body []byte) []byte {
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+scopeCacheTestKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	require.NoError(b, err)
	require.Equal(b, http.StatusOK, resp.StatusCode, "%s", reply)
	return reply
}

// benchBook returns the 250-entry Serverwide book as SillyTavern world
// info and the chat.
func benchBook() ([]byte, []map[string]any) {
	rnd := rand.New(rand.NewPCG(42, 42))
	syl := []string{"ka", "ri", "to", "mel", "var", "qui", "os", "den", "lu", "zar", "fen", "ith", "mo", "rak", "sel", "tor"}
	seen := map[string]bool{}
	var names []string
	for len(names) < 1000 {
		n := syl[rnd.IntN(len(syl))] + syl[rnd.IntN(len(syl))] + syl[rnd.IntN(len(syl))]
		n = strings.ToUpper(n[:1]) + n[1:]
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	entries := map[string]any{}
	for i := range 250 {
		keys := names[i*4 : i*4+4]
		entries[fmt.Sprint(i)] = map[string]any{"uid": i, "comment": fmt.Sprint("e", i), "key": keys, "keysecondary": []string{},
			"content": strings.Repeat(keys[0]+" is a place of note. ", 20)[:400], "order": 100, "position": 0}
	}
	book, _ := json.Marshal(map[string]any{"entries": entries})
	words := []string{"the", "a", "we", "went", "to", "see", "old", "road", "and", "then", "rain", "fell"}
	msgs := make([]map[string]any, 20)
	for m := range msgs {
		w := make([]string, 55)
		for i := range w {
			w[i] = words[rnd.IntN(len(words))]
		}
		if m%3 == 0 {
			w[10] = names[rnd.IntN(len(names))]
		}
		msgs[m] = map[string]any{"content": strings.Join(w, " ")}
	}
	return book, msgs
}

// importBenchBook creates the server and imports book into a new
// Serverwide collection "bench" through p's API (upsertServer,
// importLorebook: mutations every measured build has).
func importBenchBook(b *testing.B, p *serveProcess, server string, book []byte) {
	do := func(body io.Reader, contentType string) {
		req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", body)
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+scopeCacheTestKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(b, http.StatusOK, resp.StatusCode, "%s", reply)
		require.NotContains(b, string(reply), `"errors"`)
		require.NotContains(b, string(reply), `"error":{`)
	}
	q, _ := json.Marshal(map[string]any{"query": `mutation($i:UpsertServerInput!){upsertServer(input:$i){error{code message}}}`,
		"variables": map[string]any{"i": map[string]any{"discordId": server, "name": "bench"}}})
	do(bytes.NewReader(q), "application/json")
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	ops, _ := json.Marshal(map[string]any{"query": `mutation($i:ImportLorebookInput!){importLorebook(input:$i){error{code message}}}`,
		"variables": map[string]any{"i": map[string]any{"serverDiscordId": server, "lineageId": 0, "name": "bench", "file": nil}}})
	require.NoError(b, mw.WriteField("operations", string(ops)))
	require.NoError(b, mw.WriteField("map", `{"0":["variables.i.file"]}`))
	fw, err := mw.CreateFormFile("0", "bench.json")
	require.NoError(b, err)
	_, _ = fw.Write(book)
	require.NoError(b, mw.Close())
	do(&form, mw.FormDataContentType())
}

// serveRun posts b.N requests to p (its database: pool) from c workers
// and reports the figures BenchmarkServeTurn describes.
func serveRun(b *testing.B, ctx context.Context, pool *pgxpool.Pool, p *serveProcess, c int, body func(worker int) []byte) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	post := func(w int) error {
		req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewReader(body(w)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+scopeCacheTestKey)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || bytes.Contains(reply, []byte(`"errors"`)) || bytes.Contains(reply, []byte(`"error":{`)) {
			return fmt.Errorf("status %d: %.300s", resp.StatusCode, reply)
		}
		return nil
	}
	for w := range c { // warm: connections, the scope cache, the conversations
		require.NoError(b, post(w))
	}
	alloc0 := p.metric(b, "go_memstats_alloc_bytes_total")
	handled0 := p.latencyBuckets(b)
	serve0, pg0 := procCPU(p.cmd.Process.Pid), pgCPU(b, ctx, pool)
	wal0, stored0 := walAndStored(b, ctx, pool)
	lat := make([]time.Duration, 0, b.N)
	// The load client's own collections stall the requests they overlap (a
	// cycle every ~700 requests at GOGC=100 doubled the latency of ~4% of
	// them: docs/benchmarks.md#tail-order): it starts the row with a fresh
	// heap and collects at 800 until the row ends, about once a row.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	var mu sync.Mutex
	var wg sync.WaitGroup
	var next atomic.Int64
	var firstErr error
	b.ResetTimer()
	for w := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				err := post(w)
				d := time.Since(t0)
				mu.Lock()
				lat = append(lat, d)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// Turns answered with LOREGATE_TURN_COMMIT=deferred are written
	// within 10 ms: their flush counts in the row.
	time.Sleep(30 * time.Millisecond)
	serve1, pg1 := procCPU(p.cmd.Process.Pid), pgCPU(b, ctx, pool)
	wal1, stored1 := walAndStored(b, ctx, pool)
	alloc1 := p.metric(b, "go_memstats_alloc_bytes_total")
	handled1 := p.latencyBuckets(b)
	require.NoError(b, firstErr)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) }
	n := float64(b.N)
	b.ReportMetric(float64((serve1-serve0).Microseconds())/n, "serve-cpu-us/op")
	b.ReportMetric(float64((pg1-pg0).Microseconds())/n, "pg-cpu-us/op")
	b.ReportMetric((alloc1-alloc0)/n, "serve-B/op")
	b.ReportMetric(float64(wal1-wal0)/n, "wal-B/op")
	b.ReportMetric(float64(stored1-stored0)/n, "stored-B/op")
	b.ReportMetric(pct(0.5), "p50-us")
	b.ReportMetric(pct(0.99), "p99-us")
	b.ReportMetric(bucketQuantile(handled0, handled1, 0.5), "handler-p50-us")
	b.ReportMetric(bucketQuantile(handled0, handled1, 0.99), "handler-p99-us")
}

// latencyBucketLine is a bucket of serve's GraphQL latency histogram
// (graph/metrics.go) in the Prometheus text format.
var latencyBucketLine = regexp.MustCompile(`(?m)^loregate_graphql_request_duration_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\} (\S+)$`)

// latencyBuckets returns serve's GraphQL latency histogram, every
// operation summed: the count of requests answered within each bucket's
// upper bound (seconds). The lean turn observes it from its body read to
// its answer written, so its quantiles are the time a turn spends in the
// handler, without the connection's reads, waits and writes.
func (p *serveProcess) latencyBuckets(b *testing.B) map[float64]float64 {
	out := map[float64]float64{}
	for _, m := range latencyBucketLine.FindAllSubmatch(p.metricsText(b), -1) {
		le, _ := strconv.ParseFloat(string(m[1]), 64)
		n, _ := strconv.ParseFloat(string(m[2]), 64)
		out[le] += n
	}
	return out
}

// bucketQuantile returns the upper bound in µs of the bucket holding
// quantile q of the requests observed between the histograms before and
// after (0 when none was).
func bucketQuantile(before, after map[float64]float64, q float64) float64 {
	bounds := make([]float64, 0, len(after))
	for le := range after {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	if len(bounds) == 0 {
		return 0
	}
	total := after[bounds[len(bounds)-1]] - before[bounds[len(bounds)-1]]
	for _, le := range bounds {
		if total > 0 && after[le]-before[le] >= q*total {
			return le * 1e6
		}
	}
	return 0
}

// clockTick is the unit of /proc/PID/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU returns the user and system CPU time of process pid so far (0
// once it has exited).
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * clockTick
}

// pgCPU returns the CPU time so far of every process of the cluster that
// pg_stat_activity lists (backends and background workers).
func pgCPU(b *testing.B, ctx context.Context, pool *pgxpool.Pool) time.Duration {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity`)
	require.NoError(b, err)
	defer rows.Close()
	var sum time.Duration
	for rows.Next() {
		var pid int
		require.NoError(b, rows.Scan(&pid))
		sum += procCPU(pid)
	}
	require.NoError(b, rows.Err())
	return sum
}

// walAndStored returns the cluster's WAL position in bytes and the
// on-disk size of the tables a recorded turn writes (activation_log,
// turn_entry_state and turn_conversations with their indexes and TOAST),
// so that their changes over a row are the WAL and the bytes a turn adds.
func walAndStored(b *testing.B, ctx context.Context, pool *pgxpool.Pool) (wal, stored int64) {
	require.NoError(b, pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
		pg_total_relation_size('activation_log') + pg_total_relation_size('turn_entry_state') +
		pg_total_relation_size('turn_conversations')`).Scan(&wal, &stored))
	return wal, stored
}

// emptyDatabase creates database name on the test cluster, dropped when b
// ends (after the serve processes started later are stopped).
func emptyDatabase(b *testing.B, ctx context.Context, name string) string {
	u, err := url.Parse(postgrestest.ServerURL(b))
	require.NoError(b, err)
	admin, err := pgx.Connect(ctx, u.String())
	require.NoError(b, err)
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(b, err)
	b.Cleanup(func() {
		if c, err := pgx.Connect(ctx, u.String()); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// buildBinary builds the command in pkg (loregate: ".") into a temporary
// directory: the benchmark compares real binaries (this build's with a
// baseline's), not the test binary the tests run.
func buildBinary(b *testing.B, pkg string) string {
	b.Helper()
	name := filepath.Base(pkg)
	if pkg == "." {
		name = "loregate"
	}
	bin := filepath.Join(b.TempDir(), name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	require.NoError(b, err, "%s", out)
	return bin
}
