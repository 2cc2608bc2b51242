package graph_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/lore/embeddings"
	"loregate/lore/embeddings/embeddingstest"
)

const qSemanticSettings = `mutation($s: String!, $r: SemanticRanker, $max: Int, $th: Float) {
	updateServerSettings(input: {serverDiscordId: $s, semanticRanker: $r, semanticMaxEntries: $max, semanticThreshold: $th}) {
	server { settings { semanticRanker semanticAllEntries semanticMaxEntries semanticThreshold semanticQueryMessages } }
	error { code field message } } }`

type semanticSettingsPayload struct {
	Server struct {
		Settings struct {
			SemanticRanker        string
			SemanticAllEntries    bool
			SemanticMaxEntries    int
			SemanticThreshold     float64
			SemanticQueryMessages int
		}
	}
	Error *mutationError
}

// TestSemanticSettings: the server settings of retrieval by meaning have
// SillyTavern's defaults (AUTO, 5 entries, 0.25, the last 2 messages), are
// stored and read back, an explicit null resets a number, and a value out
// of range is refused naming the field, storing nothing.
func TestSemanticSettings(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var p semanticSettingsPayload
	a.must(serviceKey, qSemanticSettings, map[string]any{"s": serverA}, "updateServerSettings", &p)
	require.Nil(t, p.Error)
	s := p.Server.Settings
	require.Equal(t, []any{"AUTO", false, 5, 0.25, 2}, []any{s.SemanticRanker, s.SemanticAllEntries, s.SemanticMaxEntries, s.SemanticThreshold, s.SemanticQueryMessages})

	a.must(serviceKey, qSemanticSettings, map[string]any{"s": serverA, "r": "LEXICAL", "max": 0, "th": 0.4}, "updateServerSettings", &p)
	require.Nil(t, p.Error)
	s = p.Server.Settings
	require.Equal(t, []any{"LEXICAL", 0, 0.4}, []any{s.SemanticRanker, s.SemanticMaxEntries, s.SemanticThreshold})

	for _, bad := range []map[string]any{{"th": 1.5}, {"max": 51}, {"max": -1}} {
		vars := map[string]any{"s": serverA}
		for k, v := range bad {
			vars[k] = v
		}
		a.must(serviceKey, qSemanticSettings, vars, "updateServerSettings", &p)
		require.NotNil(t, p.Error, "%v", bad)
		require.Equal(t, "INVALID_INPUT", p.Error.Code)
		require.Contains(t, []string{"semanticThreshold", "semanticMaxEntries"}, *p.Error.Field)
	}
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, semanticThreshold: null}) {
		server { settings { semanticRanker semanticAllEntries semanticMaxEntries semanticThreshold semanticQueryMessages } } error { code field message } } }`,
		map[string]any{"s": serverA}, "updateServerSettings", &p)
	require.Nil(t, p.Error)
	require.Equal(t, []any{"LEXICAL", 0, 0.25}, []any{p.Server.Settings.SemanticRanker, p.Server.Settings.SemanticMaxEntries, p.Server.Settings.SemanticThreshold},
		"null resets the threshold; the refused writes stored nothing")

	// Without a provider: no status, and reindexing says why.
	var st struct {
		Server struct{ EmbeddingsStatus *struct{ Model string } }
	}
	a.must(serviceKey, `query($s: String!) { server(discordId: $s) { embeddingsStatus { model } } }`, map[string]any{"s": serverA}, "server", &st.Server)
	require.Nil(t, st.Server.EmbeddingsStatus)
	var re struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { reindexEmbeddings(input: {serverDiscordId: $s}) { job { id } error { code message } } }`,
		map[string]any{"s": serverA}, "reindexEmbeddings", &re)
	require.NotNil(t, re.Error)
	require.Equal(t, "UNAVAILABLE", re.Error.Code)
}

// TestEmbeddingsOverGraphQL: with a provider (the fake OpenAI-compatible
// server), an imported vectorized book's candidates are PENDING in
// Server.embeddingsStatus and Entry.embeddingState; reindexEmbeddings
// (managers only) queues the job that makes them READY; a LEXICAL server
// shows no status.
func TestEmbeddingsOverGraphQL(t *testing.T) {
	fake := embeddingstest.New(32)
	defer fake.Close()
	client, err := embeddings.New(embeddings.Config{URL: fake.URL, Model: "fake-embed", Rate: 1000})
	require.NoError(t, err)
	a := wrap(t, graphtest.New(t, graphtest.Options{Jobs: true, InlineImportBytes: 4 << 20, Embeddings: client}))
	const server = "512345678901234567"
	setupServer(t, a, server)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": server, "lineageId": 0},
		"Date a Live (Vectorized).json", corpus(t, "st-worldinfo/archkrrr__Date_a_Live_12.0.0_Vectorized.json"))
	require.Nil(t, imp.Error)

	type status struct {
		Model                  string
		Ready, Pending, Failed int
	}
	const q = `query($s: String!) { server(discordId: $s) { embeddingsStatus { model ready pending failed }
		collections { edges { node { entries(first: 3) { edges { node { title vectorized constant embeddingState } } } } } } } }`
	type node struct {
		Title                string
		Vectorized, Constant bool
		EmbeddingState       *string
	}
	var out struct {
		Server struct {
			EmbeddingsStatus *status
			Collections      struct {
				Edges []struct {
					Node struct {
						Entries struct{ Edges []struct{ Node node } }
					}
				}
			}
		}
	}
	read := func() {
		a.must(serviceKey, q, map[string]any{"s": server}, "server", &out.Server)
		require.NotNil(t, out.Server.EmbeddingsStatus)
	}
	read()
	first := *out.Server.EmbeddingsStatus
	require.Equal(t, "fake-embed", first.Model)
	require.Zero(t, first.Ready)
	require.Greater(t, first.Pending, 80, "the book's vectorized entries")
	for _, e := range out.Server.Collections.Edges[0].Node.Entries.Edges {
		if e.Node.Vectorized && !e.Node.Constant {
			require.Equal(t, "PENDING", *e.Node.EmbeddingState, e.Node.Title)
		} else {
			require.Nil(t, e.Node.EmbeddingState, e.Node.Title)
		}
	}

	var re struct {
		Job   *struct{ ID string }
		Error *mutationError
	}
	member := a.member("500000000000000001", map[string]auth.Membership{server: {}})
	r := a.do(member, `mutation($s: String!) { reindexEmbeddings(input: {serverDiscordId: $s}) { job { id } error { code message } } }`,
		map[string]any{"s": server})
	require.Len(t, r.Errors, 1, "members may not reindex")
	require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])
	a.must(serviceKey, `mutation($s: String!) { reindexEmbeddings(input: {serverDiscordId: $s}) { job { id } error { code message } } }`,
		map[string]any{"s": server}, "reindexEmbeddings", &re)
	require.Nil(t, re.Error)
	require.NotNil(t, re.Job)
	for deadline := time.Now().Add(90 * time.Second); ; {
		read()
		if out.Server.EmbeddingsStatus.Pending == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "still %+v", *out.Server.EmbeddingsStatus)
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, status{Model: "fake-embed", Ready: first.Pending}, *out.Server.EmbeddingsStatus)
	require.GreaterOrEqual(t, fake.Inputs(), first.Pending, "the reindex sent every candidate (the start-up sweep may have sent them once more)")

	var p semanticSettingsPayload
	a.must(serviceKey, qSemanticSettings, map[string]any{"s": server, "r": "LEXICAL"}, "updateServerSettings", &p)
	require.Nil(t, p.Error)
	a.must(serviceKey, q, map[string]any{"s": server}, "server", &out.Server)
	require.Nil(t, out.Server.EmbeddingsStatus, "a LEXICAL server's lore never leaves the machine")
}
