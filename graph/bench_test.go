package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/graphtest"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/scopecache"
)

// BenchmarkActivateHTTP measures `activate` over HTTP on loopback for a full
// 250-entry persona scope (250 entries x 4 keys) plus a 20-message chat,
// against a direct pgx load of the same rows (LoadEnabledForScope), at
// several concurrencies. Two queries: http-bot selects what the bot reads per
// turn (admitted entries, blocks, budget); http-full adds the 250-item
// per-entry trace of the dashboard preview; http-turn is the bot's query on
// activateTurn (a recorded turn); http-bot1 is http-bot with only the
// newest message. The -cached variants use the in-memory
// scope cache. Each sub-benchmark reports p50 and p99 latency in
// microseconds and requests per second. Run with:
//
//	make bench PKGS=./graph/ BENCH=ActivateHTTP BENCHTIME=2000x
func BenchmarkActivateHTTP(b *testing.B) {
	pool := postgrestest.NewPool(b)
	store := postgres.New(pool)
	ctx := context.Background()
	_, err := store.UpsertServer(ctx, serverA, "bench")
	require.NoError(b, err)
	_, err = store.UpsertPersona(ctx, lore.Persona{Server: serverA, ID: 1, Lineage: 5, Name: "P"})
	require.NoError(b, err)
	entries := make([]lore.Entry, lore.MaxEntriesPerScope)
	for i := range entries {
		e := lore.NewEntry()
		e.Server, e.Lineage = serverA, 5
		e.Title = fmt.Sprintf("entry %d", i)
		e.Keys = []string{fmt.Sprintf("alpha%d", i), fmt.Sprintf("beta%d", i), fmt.Sprintf("gamma %d", i), fmt.Sprintf("delta%d", i)}
		e.Content = fmt.Sprintf("Lore number %d: a paragraph of world info about the place and the people in it.", i)
		entries[i] = e
	}
	_, err = store.ReplacePersonaBook(ctx, serverA, 5, entries)
	require.NoError(b, err)

	a := newAPIWithStore(b, store)
	cached := newCachedAPI(b, pool)
	msgs := make([]map[string]any, 20)
	for i := range msgs {
		msgs[i] = map[string]any{"role": "user", "content": fmt.Sprintf("Message %d talks about alpha%d and the weather, and then about beta%d in passing, with more words to reach a realistic length for one chat turn.", i, i*7, i*11)}
	}
	vars := map[string]any{"input": map[string]any{
		"serverDiscordId": serverA, "lineageId": 5, "channelId": "333333333333333333", "messages": msgs}}
	// full: the dashboard preview (admitted, blocks, budget and the
	// 250-item trace); bot: what the bot reads per turn.
	full, _ := json.Marshal(map[string]any{"query": qActivate, "variables": vars})
	const botQuery = `query($input: ActivateInput!) { activate(input: $input) { admitted { id title placement group } blocks { tag role text } budget { used limit } } }`
	bot, _ := json.Marshal(map[string]any{"variables": vars, "query": botQuery})

	// bot1: the same turn with only the newest message, what a client
	// sending only new messages would post (the upper bound of what a
	// delta-messages input could save per turn).
	vars1 := map[string]any{"input": map[string]any{
		"serverDiscordId": serverA, "lineageId": 5, "channelId": "333333333333333333", "messages": msgs[len(msgs)-1:]}}
	bot1, _ := json.Marshal(map[string]any{"variables": vars1, "query": botQuery})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	httpCall := func(a *api, body []byte) func() error {
		return func() error {
			req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+serviceKey)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		}
	}
	pgxCall := func() error {
		snap, err := store.LoadEnabledForScope(ctx, serverA, 5)
		if err == nil && len(snap.Entries) != lore.MaxEntriesPerScope {
			err = fmt.Errorf("loaded %d entries", len(snap.Entries))
		}
		return err
	}
	// turn: the bot's query on activateTurn, one conversation, a new turn
	// id and an advancing message count per call.
	var turns atomic.Int64
	turnCall := func(a *api) func() error {
		return func() error {
			n := turns.Add(1)
			in := map[string]any{"serverDiscordId": serverA, "lineageId": 5, "channelId": "333333333333333333", "messages": msgs,
				"turnId": fmt.Sprint("bench-", n), "messageCount": 20 + n}
			body, _ := json.Marshal(map[string]any{"variables": map[string]any{"input": in},
				"query": `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) { result { admitted { id title placement group } blocks { tag role text } budget { used limit } } error { code message } } }`})
			req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+serviceKey)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			reply, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !bytes.Contains(reply, []byte(`"error":null`)) {
				return fmt.Errorf("activateTurn: status %d, %v: %s", resp.StatusCode, err, reply)
			}
			return nil
		}
	}
	require.NoError(b, httpCall(a, full)())
	require.NoError(b, httpCall(cached, full)())
	require.NoError(b, turnCall(a)())
	require.NoError(b, turnCall(cached)())
	for _, c := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("http-bot/c=%d", c), func(b *testing.B) { measure(b, c, httpCall(a, bot)) })
		b.Run(fmt.Sprintf("http-turn/c=%d", c), func(b *testing.B) { measure(b, c, turnCall(a)) })
		b.Run(fmt.Sprintf("http-bot-cached/c=%d", c), func(b *testing.B) { measure(b, c, httpCall(cached, bot)) })
		b.Run(fmt.Sprintf("http-bot1-cached/c=%d", c), func(b *testing.B) { measure(b, c, httpCall(cached, bot1)) })
		b.Run(fmt.Sprintf("http-turn-cached/c=%d", c), func(b *testing.B) { measure(b, c, turnCall(cached)) })
		b.Run(fmt.Sprintf("http-full/c=%d", c), func(b *testing.B) { measure(b, c, httpCall(a, full)) })
		b.Run(fmt.Sprintf("http-full-cached/c=%d", c), func(b *testing.B) { measure(b, c, httpCall(cached, full)) })
		b.Run(fmt.Sprintf("pgx/c=%d", c), func(b *testing.B) { measure(b, c, pgxCall) })
	}
}

// newCachedAPI is the API as `serve` runs it: turns through a scope cache
// whose listener runs on its own connection, and the text cache.
func newCachedAPI(b testing.TB, pool *pgxpool.Pool) *api {
	scopes := scopecache.New(postgres.New(pool), scopecache.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		scopes.Listen(ctx, func(ctx context.Context) (*pgx.Conn, error) {
			return pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
		})
	}()
	b.Cleanup(func() { cancel(); <-done })
	require.Eventually(b, func() bool { return scopes.Stats().Listening }, 10*time.Second, time.Millisecond)
	store := postgres.New(pool).WithLoreWriteHook(scopes.Invalidate)
	return wrap(b, graphtest.Serve(b, &graph.Resolver{Store: store, Turns: store.TurnStore(),
		Cache: activation.NewCache(4), Scopes: scopes, Texts: activation.NewTextCache(0)}, graphtest.Options{}, store, pool))
}

// cpuTime returns the CPU time (user and system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs b.N calls of fn over c goroutines and reports latency
// percentiles, throughput, and the process CPU time per call (server and
// load client together; Postgres, another process, excluded), which
// other work on a shared machine does not inflate: 2 cores divided by it
// is the throughput two dedicated cores would reach when a call needs no
// Postgres (the cached rows).
func measure(b *testing.B, c int, fn func() error) {
	lat := make([]time.Duration, b.N)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	b.ResetTimer()
	cpu0 := cpuTime(b)
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= b.N {
					return
				}
				t0 := time.Now()
				if err := fn(); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime(b) - cpu0
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50_us")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99_us")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu_us/op")
}
