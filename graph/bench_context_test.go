package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// BenchmarkContextSourcesHTTP is activation.BenchmarkContextSources over
// HTTP on loopback, the bot's cached turn (`activate` with the scope
// cache, no trace): A is a 250-entry persona book (4 keys each) and a
// 20-message chat without the issue-27 inputs; B the same book where every
// 5th entry has a character filter, every 7th generation types and every
// 10th match flags, on a request carrying a character and a persona with
// 8 KB of context texts. It reports the process CPU time per request
// (server and load client; Postgres is not read per turn) of both and B/A
// (goal <= 1.2), from the fastest of 5 interleaved rounds of 200
// requests. Run with:
//
//	./bin/loregate with-postgres -- go test -run '^$' -bench ContextSourcesHTTP -benchtime 200x ./graph/
func BenchmarkContextSourcesHTTP(b *testing.B) {
	pool := postgrestest.NewPool(b)
	store := postgres.New(pool)
	ctx := context.Background()
	_, err := store.UpsertServer(ctx, serverA, "bench")
	require.NoError(b, err)
	for _, l := range []lore.Lineage{5, 6} {
		_, err = store.UpsertPersona(ctx, lore.Persona{Server: serverA, ID: int64(l), Lineage: l, Name: "P"})
		require.NoError(b, err)
		entries := make([]lore.Entry, lore.MaxEntriesPerScope)
		for i := range entries {
			e := lore.NewEntry()
			e.Server, e.Lineage = serverA, l
			e.Title = fmt.Sprintf("entry %d", i)
			e.Keys = []string{fmt.Sprintf("alpha%d", i), fmt.Sprintf("beta%d", i), fmt.Sprintf("gamma %d", i), fmt.Sprintf("delta%d", i)}
			e.Content = fmt.Sprintf("Lore number %d: a paragraph of world info about the place and the people in it.", i)
			if l == 6 {
				switch {
				case i%5 == 0:
					e.CharacterFilter = lore.CharacterFilter{Names: []string{"Vex", "Ilse"}}
				case i%7 == 0:
					e.GenerationTypes = []lore.GenerationType{lore.GenNormal, lore.GenContinue}
				}
				if i%10 == 3 {
					e.Match = lore.MatchSources{CharacterDescription: true, PersonaDescription: true}
				}
			}
			entries[i] = e
		}
		_, err = store.ReplacePersonaBook(ctx, serverA, l, entries)
		require.NoError(b, err)
	}
	a := newCachedAPI(b, pool)
	msgs := make([]map[string]any, 20)
	for i := range msgs {
		msgs[i] = map[string]any{"role": "user", "content": fmt.Sprintf("Message %d talks about alpha%d and the weather, and then about beta%d in passing, with more words to reach a realistic length for one chat turn.", i, i*7, i*11)}
	}
	text := strings.Repeat("A tall rider of the northern marches who keeps old oaths. ", 35) // ~2 KB, four of them
	const q = `query($input: ActivateInput!) { activate(input: $input) { admitted { id title placement group } blocks { tag role text } budget { used limit } } }`
	body := func(input map[string]any) []byte {
		raw, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"input": input}})
		return raw
	}
	plain := body(map[string]any{"serverDiscordId": serverA, "lineageId": 5, "channelId": "333333333333333333", "messages": msgs})
	withContext := body(map[string]any{"serverDiscordId": serverA, "lineageId": 6, "channelId": "333333333333333333", "messages": msgs,
		"context": map[string]any{
			"character": map[string]any{"name": "Vex", "tags": []string{"rider"}, "description": text, "personality": text, "scenario": text},
			"persona":   map[string]any{"name": "Ana", "description": text}}})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	post := func(raw []byte) int {
		req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+serviceKey)
		resp, err := client.Do(req)
		require.NoError(b, err)
		reply, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, resp.StatusCode, "%s", reply)
		return bytes.Count(reply, []byte(`"placement"`))
	}
	nA, nB := post(plain), post(withContext)
	require.Positive(b, nA, "the chat admits entries")
	require.Positive(b, nB)
	for b.Loop() {
		post(withContext)
	}
	b.StopTimer()
	perCall := func(raw []byte) time.Duration {
		c0 := cpuTime(b)
		for range 200 {
			post(raw)
		}
		return (cpuTime(b) - c0) / 200
	}
	ca, cb := time.Duration(1<<62), time.Duration(1<<62)
	for range 5 {
		ca = min(ca, perCall(plain))
		cb = min(cb, perCall(withContext))
	}
	b.ReportMetric(float64(ca.Microseconds()), "A-cpu-us/req")
	b.ReportMetric(float64(cb.Microseconds()), "B-cpu-us/req")
	b.ReportMetric(float64(cb)/float64(ca), "B/A")
	b.ReportMetric(float64(len(withContext)-len(plain)), "B-extra-bytes")
}
