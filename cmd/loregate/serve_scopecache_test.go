package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// gql posts one GraphQL operation to p and decodes data into out.
func (p *serveProcess) gql(t testing.TB, key, query string, vars map[string]any, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", raw)
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(raw, &env))
	require.Empty(t, env.Errors, "%s", raw)
	require.NoError(t, json.Unmarshal(env.Data, out))
}

const scopeCacheTestKey = "scope-cache-test-key-0123456789"

// metric returns the value of an unlabelled metric from p's /metrics.
func (p *serveProcess) metric(t testing.TB, name string) float64 {
	t.Helper()
	raw := p.metricsText(t)
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(raw)
	require.NotNil(t, m, "metric %s missing", name)
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// metricsText returns p's /metrics page (Prometheus text format).
func (p *serveProcess) metricsText(t testing.TB) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+p.addr+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+scopeCacheTestKey) // /metrics needs a service key
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return raw
}

// TestTwoServeProcessesScopeCache runs two `loregate serve` processes on one
// database with their scope caches: a write through one is seen by its own
// next turn at once and by the other within 1 s (by notification); killing
// both listener connections (pg_terminate_backend) falls back to version
// checks, and the listeners reconnect and deliver notifications again.
func TestTwoServeProcessesScopeCache(t *testing.T) {
	dbURL := postgrestest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	const server = "333333333333333333"
	_, err = store.UpsertServer(ctx, server, "S")
	require.NoError(t, err)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content, e.Keys = server, 5, "alpha", "Alpha lore.", []string{"alpha"}
	_, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)

	bin := loregateBinary(t)
	const key = scopeCacheTestKey
	env := []string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + key, "LOREGATE_JOB_WORKERS=0"}
	a, b := startServe(t, bin, env), startServe(t, bin, env)
	for _, p := range []*serveProcess{a, b} {
		require.Eventually(t, func() bool { return p.metric(t, "loregate_scope_cache_listening") == 1 }, 30*time.Second, 10*time.Millisecond)
	}

	turn := func(p *serveProcess) []string {
		var res struct {
			Activate struct{ Admitted []struct{ Title string } }
		}
		p.gql(t, key, `query($in: ActivateInput!) { activate(input: $in) { admitted { title } } }`, map[string]any{"in": map[string]any{
			"serverDiscordId": server, "lineageId": 5,
			"messages": []map[string]any{{"content": "alpha, beacon, cairn and delta — 龙胆"}}}}, &res)
		var titles []string
		for _, x := range res.Activate.Admitted {
			titles = append(titles, x.Title)
		}
		slices.Sort(titles)
		return titles
	}
	create := func(p *serveProcess, title string) {
		var res struct {
			CreateEntry struct{ Error *struct{ Message string } }
		}
		p.gql(t, key, `mutation($in: CreateEntryInput!) { createEntry(input: $in) { error { message } } }`, map[string]any{"in": map[string]any{
			"serverDiscordId": server, "lineageId": 5, "entry": map[string]any{"title": title, "content": title + " lore.", "keys": []string{title}}}}, &res)
		require.Nil(t, res.CreateEntry.Error)
	}
	// seenWithin polls p's turns until want is admitted and returns how long
	// that took.
	seenWithin := func(p *serveProcess, want []string, limit time.Duration) time.Duration {
		start := time.Now()
		for !slices.Equal(turn(p), want) {
			require.Less(t, time.Since(start), limit, "%s not admitted within %v", want, limit)
			time.Sleep(2 * time.Millisecond)
		}
		return time.Since(start)
	}
	require.Equal(t, []string{"alpha"}, turn(a))
	require.Equal(t, []string{"alpha"}, turn(b))
	require.Equal(t, []string{"alpha"}, turn(b)) // cached now
	require.Positive(t, b.metric(t, "loregate_scope_cache_hits_total"))

	// A write through a: a's next turn sees it at once, b's within 1 s.
	create(a, "beacon")
	require.Equal(t, []string{"alpha", "beacon"}, turn(a))
	t.Logf("b saw a's write after %v", seenWithin(b, []string{"alpha", "beacon"}, time.Second))
	// The message is not ASCII: its matching form is cached across turns,
	// so b's new matcher (the old one's chat memo held the message) read
	// it from the text cache.
	require.Positive(t, b.metric(t, "loregate_text_cache_hits_total"))
	require.Zero(t, b.metric(t, "loregate_scope_cache_version_checks_total"))

	// Kill both listener connections: each process notices, falls back to
	// version checks, reconnects and drops what it cached meanwhile.
	var killed int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE application_name = 'loregate-scope-listener' AND datname = current_database()`).Scan(&killed))
	require.Equal(t, 2, killed)
	create(b, "cairn")
	require.Equal(t, []string{"alpha", "beacon", "cairn"}, turn(b))
	seenWithin(a, []string{"alpha", "beacon", "cairn"}, time.Second)
	for _, p := range []*serveProcess{a, b} {
		require.Eventually(t, func() bool { return p.metric(t, "loregate_scope_cache_listener_connects_total") == 2 }, 10*time.Second, 10*time.Millisecond,
			"listener did not reconnect:\n%s", p.output())
		require.Contains(t, p.output(), "scope cache listener down")
	}
	// Listening again: notifications flow, no version checks needed.
	turn(a)
	checks := a.metric(t, "loregate_scope_cache_version_checks_total")
	create(b, "delta")
	t.Logf("a saw b's write after reconnecting in %v", seenWithin(a, []string{"alpha", "beacon", "cairn", "delta"}, time.Second))
	require.Equal(t, checks, a.metric(t, "loregate_scope_cache_version_checks_total"))
}
