package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/sharedtest"
)

// TestEmbeddingsConfig: the provider is off unless both the URL and the
// model are set; half a configuration, a bad URL, dimensions or timeout
// stops start-up naming the variable; the API key never enters the
// start-up log line.
func TestEmbeddingsConfig(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		err  string
	}{
		{"off by default", nil, ""},
		{"configured", map[string]string{"LOREGATE_EMBEDDINGS_URL": "http://127.0.0.1:11434/v1/", "LOREGATE_EMBEDDINGS_MODEL": "nomic-embed-text",
			"LOREGATE_EMBEDDINGS_API_KEY": "sk-secret-key", "LOREGATE_EMBEDDINGS_DIMENSIONS": "768", "LOREGATE_EMBEDDINGS_TIMEOUT": "1s"}, ""},
		{"url without model", map[string]string{"LOREGATE_EMBEDDINGS_URL": "http://127.0.0.1:11434/v1"}, "LOREGATE_EMBEDDINGS_MODEL"},
		{"model without url", map[string]string{"LOREGATE_EMBEDDINGS_MODEL": "m"}, "LOREGATE_EMBEDDINGS_URL"},
		{"key alone", map[string]string{"LOREGATE_EMBEDDINGS_API_KEY": "sk-secret-key"}, "need LOREGATE_EMBEDDINGS_URL"},
		{"relative url", map[string]string{"LOREGATE_EMBEDDINGS_URL": "localhost:11434", "LOREGATE_EMBEDDINGS_MODEL": "m"}, "absolute http or https URL"},
		{"bad dimensions", map[string]string{"LOREGATE_EMBEDDINGS_URL": "http://h/v1", "LOREGATE_EMBEDDINGS_MODEL": "m", "LOREGATE_EMBEDDINGS_DIMENSIONS": "0"}, "LOREGATE_EMBEDDINGS_DIMENSIONS"},
		{"bad timeout", map[string]string{"LOREGATE_EMBEDDINGS_URL": "http://h/v1", "LOREGATE_EMBEDDINGS_MODEL": "m", "LOREGATE_EMBEDDINGS_TIMEOUT": "1h"}, "LOREGATE_EMBEDDINGS_TIMEOUT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"URL", "MODEL", "API_KEY", "DIMENSIONS", "TIMEOUT"} {
				t.Setenv("LOREGATE_EMBEDDINGS_"+k, tt.env["LOREGATE_EMBEDDINGS_"+k])
			}
			c := loadConfig(os.Getenv, flag.NewFlagSet("t", flag.ContinueOnError))
			err := c.validate()
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				require.NotContains(t, err.Error(), "sk-secret-key")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.env != nil, c.Embeddings.Configured())
			line := fmt.Sprintln(c.logAttrs()...)
			require.NotContains(t, line, "sk-secret-key")
			if tt.env == nil {
				require.Contains(t, line, "embeddings off")
				return
			}
			require.Equal(t, "http://127.0.0.1:11434/v1", c.Embeddings.URL, "the trailing slash is dropped: requests go to <base>/embeddings")
			require.Contains(t, line, "embeddings_api_key set (masked)")
		})
	}
}

// TestServeEmbedsImportedBook runs `loregate serve` with a fake
// OpenAI-compatible provider started by the test: importing the corpus's
// vectorized Date a Live book enqueues the embed job (through the write
// hook, not the sweep), which embeds every keyless candidate in batches of
// at most 64; Server.embeddingsStatus shows it; after a restart the
// vectors are still there and nothing is sent again. The API key never
// appears in the log.
func TestServeEmbedsImportedBook(t *testing.T) {
	dbURL := postgrestest.NewDatabase(t)
	fake := embeddingstest.New(64)
	defer fake.Close()
	bin := loregateBinary(t)
	const key = "embeddings-test-key-0123456789"
	const server = "512345678901234567"
	env := []string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + key, "LOREGATE_LOG_LEVEL=info", "LOREGATE_INLINE_IMPORT_BYTES=1024",
		"LOREGATE_EMBEDDINGS_URL=" + fake.URL, "LOREGATE_EMBEDDINGS_MODEL=fake-embed", "LOREGATE_EMBEDDINGS_API_KEY=sk-never-logged"}
	p := startServe(t, bin, env)
	var up struct {
		UpsertServer struct{ Server struct{ DiscordID string } }
	}
	p.gql(t, key, `mutation($s: String!) { upsertServer(input: {discordId: $s, name: "dal"}) { server { discordId } } }`,
		map[string]any{"s": server}, &up)
	p.importFile(t, key, server, "Date a Live", sharedtest.Read(t, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0_Vectorized.json"))

	type status struct {
		Model                  string
		Ready, Pending, Failed int
	}
	read := func(p *serveProcess) status {
		var out struct {
			Server struct{ EmbeddingsStatus *status }
		}
		p.gql(t, key, `query($s: String!) { server(discordId: $s) { embeddingsStatus { model ready pending failed } } }`,
			map[string]any{"s": server}, &out)
		require.NotNil(t, out.Server.EmbeddingsStatus)
		return *out.Server.EmbeddingsStatus
	}
	deadline := time.Now().Add(2 * time.Minute)
	var st status
	for {
		st = read(p)
		if st.Ready > 0 && st.Pending == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "embeddings %+v:\n%s", st, p.output())
		time.Sleep(200 * time.Millisecond)
	}
	require.Equal(t, status{Model: "fake-embed", Ready: st.Ready}, st)
	require.GreaterOrEqual(t, st.Ready, 90, "the book's keyless vectorized entries")
	require.Equal(t, st.Ready, fake.Inputs(), "each candidate sent once")
	require.LessOrEqual(t, fake.Calls()*64, fake.Inputs()+63, "batches of at most 64 inputs, as few as possible")
	require.Equal(t, "Bearer sk-never-logged", fake.LastAuthorization())
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM)) // a clean stop hands River's leadership over at once
	<-p.done
	require.NotContains(t, p.output(), "sk-never-logged")

	calls := fake.Calls()
	restarted := time.Now()
	p2 := startServe(t, bin, env)
	require.Equal(t, st, read(p2), "vectors survive a restart")
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	defer pool.Close()
	for deadline := time.Now().Add(2 * time.Minute); ; { // the new leader's start-up sweep finds nothing to send
		var sweeps int
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'entry_embed_sweep' AND state = 'completed' AND created_at >= $1`, restarted).Scan(&sweeps))
		if sweeps >= 1 {
			break
		}
		if !time.Now().Before(deadline) {
			rows, _ := pool.Query(context.Background(), `SELECT concat_ws(' ', kind, state::text, attempt, errors::text) FROM river_job ORDER BY id`)
			jobs, _ := pgx.CollectRows(rows, pgx.RowTo[string])
			t.Fatalf("no second sweep: %q\n%s", jobs, p2.output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, st, read(p2))
	require.Equal(t, calls, fake.Calls(), "nothing sent again after the restart")

	// Two serve processes on one database give the same admitted set and
	// scores for the same turn, each with one provider call.
	p3 := startServe(t, bin, env)
	type item struct {
		ID, Verdict string
		Score       *float64
	}
	activate := func(p *serveProcess) []item {
		var out struct{ Activate struct{ Trace []item } }
		p.gql(t, key, `query($in: ActivateInput!) { activate(input: $in) { trace { id verdict score } } }`,
			map[string]any{"in": map[string]any{"serverDiscordId": server, "overrides": map[string]any{"budget": 40000},
				"messages": []map[string]any{{"content": "Kotori, why do you always have a lollipop in your mouth?"}}}}, &out)
		return out.Activate.Trace
	}
	before := fake.Calls()
	a2 := activate(p2)
	require.Equal(t, before+1, fake.Calls(), "one provider call for the turn")
	a3 := activate(p3)
	require.Equal(t, before+2, fake.Calls())
	require.Equal(t, a2, a3)
	matched := 0
	for _, it := range a2 {
		if it.Verdict == "semantic_match" {
			matched++
		}
	}
	require.Positive(t, matched)
}
