package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/scopecache"
	"loregate/lore/turnstate"
)

// BenchmarkServeHandlerTurn is the server side of the bot's cached turn
// alone: graph.Mount's handler (access log to a JSON logger, body limit,
// timeout, auth, gqlgen with every extension serve installs) called in
// process without a network or load client, so ns/op, B/op and allocs/op
// are the server's. The workload is BenchmarkServeTurn's (cmd/loregate):
// a Serverwide scope of 250 entries x 4 keys with 400-character contents,
// 20 messages of 55 words, the selection `admitted { title placement }
// budget { used limit }` posted as full query text. Rows: `gqlgen` and
// `lean` (a cached activate), `lean-turn` (activateTurn with the default
// TurnStore) and `lean-turn-deferred` (LOREGATE_TURN_COMMIT=deferred's
// store, its flusher's writes in this process as in serve); the turn
// rows' figures also hold the benchmark's own JSON encoding of each
// request (about 20 µs). Each turn row records its turns in one
// conversation of its own: past DefaultKnownTurnIDs (16,384) turns a
// deferred conversation's turns commit themselves, so keep -benchtime
// under that.
func BenchmarkServeHandlerTurn(b *testing.B) {
	pool := postgrestest.NewPool(b)
	ctx := context.Background()
	store := postgres.New(pool)
	const server = "111111111111111111"
	_, err := store.UpsertServer(ctx, server, "bench")
	require.NoError(b, err)
	msgs := handlerBenchBook(b, ctx, store, server)
	scopes := scopecache.New(postgres.New(pool), scopecache.Config{})
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		scopes.Listen(lctx, func(ctx context.Context) (*pgx.Conn, error) {
			return pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
		})
	}()
	b.Cleanup(func() { cancel(); <-done })
	require.Eventually(b, func() bool { return scopes.Stats().Listening }, 10*time.Second, time.Millisecond)
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	resolver := func(turns turnstate.Store) *graph.Resolver {
		return &graph.Resolver{Store: store.WithLoreWriteHook(scopes.Invalidate), Turns: turns, Logger: logger,
			Cache: activation.NewCache(4), Scopes: scopes, Texts: activation.NewTextCache(0)}
	}
	r := resolver(store.TurnStore())
	// lean-turn-deferred: LOREGATE_TURN_COMMIT=deferred's store, its
	// flusher's writes in this process (as in serve).
	deferredTurns, flusher, err := store.DeferredTurnStore(postgres.DeferredTurns{})
	require.NoError(b, err)
	b.Cleanup(flusher.Start(ctx))
	authn, err := auth.NewAuthenticator([]string{"bench-service-key-0123456789"}, "bench-jwt-secret-0123456789abcdef0123")
	require.NoError(b, err)
	const sel = `admitted { title placement } budget { used limit }`
	body, _ := json.Marshal(map[string]any{"query": `query($i:ActivateInput!){activate(input:$i){` + sel + `}}`,
		"variables": map[string]any{"i": map[string]any{"serverDiscordId": server, "lineageId": 0, "messages": msgs}}})
	seq := 0
	turnBody := func(channel string) func() []byte {
		return func() []byte {
			seq++
			t, _ := json.Marshal(map[string]any{
				"query": `mutation($i:ActivateTurnInput!){activateTurn(input:$i){result{` + sel + `} error{code message}}}`,
				"variables": map[string]any{"i": map[string]any{"serverDiscordId": server, "lineageId": 0, "messages": msgs,
					"channelId": channel, "turnId": fmt.Sprint("t-", seq), "messageCount": 100 + seq}}})
			return t
		}
	}
	for _, row := range []struct {
		name string
		lean bool
		body func() []byte
		r    *graph.Resolver
	}{{"gqlgen", false, func() []byte { return body }, r}, {"lean", true, func() []byte { return body }, r},
		{"lean-turn", true, turnBody("333333333333333333"), r},
		{"lean-turn-deferred", true, turnBody("333333333333333334"), resolver(deferredTurns)}} {
		lean := row.lean
		mux := http.NewServeMux()
		graph.Mount(mux, graph.Config{Resolver: row.r, Auth: authn, Logger: logger, Metrics: graph.NewMetrics(prometheus.NewRegistry()),
			NoLeanTurns: !lean})
		post := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(row.body()))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer bench-service-key-0123456789")
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, req)
			return w
		}
		w := post()
		require.Equal(b, 200, w.Code)
		require.NotContains(b, w.Body.String(), `"errors"`)
		require.Contains(b, w.Body.String(), `"admitted":[{`)
		require.NotContains(b, w.Body.String(), `"error":{`)
		b.Run(row.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for range b.N {
				post()
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}

func handlerBenchBook(b *testing.B, ctx context.Context, store *postgres.Store, server string) []map[string]any {
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
	entries := make([]lore.Entry, 250)
	for i := range entries {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Title = server, lore.Serverwide, fmt.Sprint("e", i)
		e.Keys = names[i*4 : i*4+4]
		e.Content = strings.Repeat(e.Keys[0]+" is a place of note. ", 20)[:400]
		entries[i] = e
	}
	_, _, err := store.CreateCollectionWithEntries(ctx, lore.Collection{Server: server, Name: "bench", Enabled: true}, entries)
	require.NoError(b, err)
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
	return msgs
}
