package graph_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/lore"
	"loregate/lore/embeddings"
	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/postgres"
)

const qSemanticSettings = `mutation($s: String!, $r: SemanticRanker, $max: Int, $th: Float, $share: Float) {
	updateServerSettings(input: {serverDiscordId: $s, semanticRanker: $r, semanticMaxEntries: $max, semanticThreshold: $th, semanticBudgetShare: $share}) {
	server { settings { semanticRanker semanticAllEntries semanticMaxEntries semanticThreshold semanticQueryMessages semanticBudgetShare } }
	error { code field message } } }`

type semanticSettingsPayload struct {
	Server struct {
		Settings struct {
			SemanticRanker        string
			SemanticAllEntries    bool
			SemanticMaxEntries    int
			SemanticThreshold     float64
			SemanticQueryMessages int
			SemanticBudgetShare   float64
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
	require.Equal(t, []any{"AUTO", false, 5, 0.25, 2, 0.25}, []any{s.SemanticRanker, s.SemanticAllEntries, s.SemanticMaxEntries, s.SemanticThreshold, s.SemanticQueryMessages, s.SemanticBudgetShare})

	a.must(serviceKey, qSemanticSettings, map[string]any{"s": serverA, "r": "LEXICAL", "max": 0, "th": 0.4, "share": 0.5}, "updateServerSettings", &p)
	require.Nil(t, p.Error)
	s = p.Server.Settings
	require.Equal(t, []any{"LEXICAL", 0, 0.4, 0.5}, []any{s.SemanticRanker, s.SemanticMaxEntries, s.SemanticThreshold, s.SemanticBudgetShare})

	for _, bad := range []map[string]any{{"th": 1.5}, {"max": 51}, {"max": -1}, {"share": 1.01}, {"share": -0.1}} {
		vars := map[string]any{"s": serverA}
		for k, v := range bad {
			vars[k] = v
		}
		a.must(serviceKey, qSemanticSettings, vars, "updateServerSettings", &p)
		require.NotNil(t, p.Error, "%v", bad)
		require.Equal(t, "INVALID_INPUT", p.Error.Code)
		require.Contains(t, []string{"semanticThreshold", "semanticMaxEntries", "semanticBudgetShare"}, *p.Error.Field)
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
	var re struct {
		Error *struct{ Code, Reason, Message string }
	}
	a.must(serviceKey, `mutation($s: String!) { reindexEmbeddings(input: {serverDiscordId: $s}) { job { id } error { code reason message } } }`,
		map[string]any{"s": serverA}, "reindexEmbeddings", &re)
	require.NotNil(t, re.Error)
	require.Equal(t, "UNAVAILABLE", re.Error.Code)
	require.Equal(t, "embeddings_not_configured", re.Error.Reason, "not the store's unavailable")
	require.Contains(t, re.Error.Message, "LOREGATE_EMBEDDINGS_URL")
}

// TestEmbeddingsOverGraphQL: with a provider (the fake OpenAI-compatible
// server), an imported vectorized book's candidates are PENDING in
// Server.embeddingsStatus and Entry.embeddingState, and the book's whole
// entry list reads the states once (no read per entry), an entry read
// alone only its own; reindexEmbeddings
// (managers only) queues the job that makes them READY; a LEXICAL server
// shows no status.
func TestEmbeddingsOverGraphQL(t *testing.T) {
	fake := embeddingstest.New(32)
	defer fake.Close()
	client, err := embeddings.New(embeddings.Config{URL: fake.URL, Model: "fake-embed", Rate: 1000})
	require.NoError(t, err)
	o := graphtest.Options{Jobs: true, InlineImportBytes: 4 << 20, Embeddings: client}
	res, store, pool := graphtest.NewResolver(t, o)
	counted := &countingVectors{Store: store}
	res.Store = counted
	a := wrap(t, graphtest.Serve(t, res, o, store, pool))
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
		collections { edges { node { entries(first: 120) { edges { node { id title enabled vectorized constant embeddingState } } } } } } } }`
	type node struct {
		ID, Title                     string
		Enabled, Vectorized, Constant bool
		EmbeddingState                *string
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
	require.EqualValues(t, 1, counted.reads.Load(), "one read of the states for the whole book")
	require.Zero(t, counted.single.Load(), "no entry read alone")
	require.Greater(t, len(out.Server.Collections.Edges[0].Node.Entries.Edges), 80)
	// An entry read alone reads its own state, not its scope's: a later
	// part of a split entry too, with its group's state.
	parts := map[string][]node{}
	for _, e := range out.Server.Collections.Edges[0].Node.Entries.Edges {
		parts[e.Node.Title] = append(parts[e.Node.Title], e.Node)
	}
	alone := 0
	for title, ns := range parts {
		if len(ns) < 2 || ns[1].EmbeddingState == nil {
			continue
		}
		var one struct {
			Entry *struct{ EmbeddingState *string }
		}
		a.must(serviceKey, `query($s: String!, $id: ID!) { server(discordId: $s) { entry(lineageId: 0, id: $id) { embeddingState } } }`,
			map[string]any{"s": server, "id": ns[1].ID}, "server", &one)
		require.NotNil(t, one.Entry, title)
		require.Equal(t, ns[1].EmbeddingState, one.Entry.EmbeddingState, title)
		require.Equal(t, ns[0].EmbeddingState, ns[1].EmbeddingState, "%s: a part has its group's state", title)
		alone++
		break
	}
	require.Equal(t, 1, alone, "a split vectorized entry")
	require.EqualValues(t, 1, counted.reads.Load(), "no scope read for an entry alone")
	require.EqualValues(t, 1, counted.single.Load())
	first := *out.Server.EmbeddingsStatus
	require.Equal(t, "fake-embed", first.Model)
	require.Zero(t, first.Ready)
	require.Greater(t, first.Pending, 80, "the book's vectorized entries")
	for _, e := range out.Server.Collections.Edges[0].Node.Entries.Edges {
		if e.Node.Enabled && e.Node.Vectorized && !e.Node.Constant {
			require.NotNil(t, e.Node.EmbeddingState, e.Node.Title)
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

// countingVectors is the real store, counting reads of embedding states:
// reads of a scope's, single of one entry's.
type countingVectors struct {
	*postgres.Store
	reads, single atomic.Int32
}

func (s *countingVectors) EntryEmbeddingState(ctx context.Context, id int64, model string) (lore.EmbeddingState, bool, error) {
	s.single.Add(1)
	return s.Store.EntryEmbeddingState(ctx, id, model)
}

func (s *countingVectors) ScopeEmbeddingStates(ctx context.Context, id int64, model string) (map[int64]lore.EmbeddingState, error) {
	s.reads.Add(1)
	return s.Store.ScopeEmbeddingStates(ctx, id, model)
}

// TestSemanticLexicalOverGraphQL: the corpus's vectorized Date a Live book
// imported through the API admits its relevant keyless entries by
// similarity with the default settings (AUTO, no provider: the lexical
// ranker), with a budget that leaves room after its Always On entries and
// at the default budget (the share held for similarity matches);
// greetings and small talk admit nothing by similarity; OFF and a high
// threshold as overrides admit nothing (docs/contract.md#semantic).
func TestSemanticLexicalOverGraphQL(t *testing.T) {
	a := newAPI(t)
	const server = "512345678901234567"
	a.must(serviceKey, qUpsertServer, map[string]any{"id": server, "name": "dal"}, "upsertServer", &struct{}{})
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": server, "lineageId": 0},
		"Date a Live (Vectorized).json", corpus(t, "st-worldinfo/archkrrr__Date_a_Live_12.0.0_Vectorized.json"))
	require.Nil(t, imp.Error)

	const q = `query($input: ActivateInput!) { activate(input: $input) {
		admitted { title score } budget { used } trace { title verdict score reason params detail } } }`
	type result struct {
		Admitted []struct {
			Title string
			Score *float64
		}
		Budget struct{ Used int }
		Trace  []struct {
			Title, Verdict, Reason, Detail string
			Score                          *float64
			Params                         map[string]any
		}
	}
	run := func(overrides map[string]any, msgs ...string) result {
		t.Helper()
		var m []map[string]any
		for _, s := range msgs {
			m = append(m, map[string]any{"content": s})
		}
		o := map[string]any{"budget": 40000}
		for k, v := range overrides {
			o[k] = v
		}
		var out result
		a.must(serviceKey, q, map[string]any{"input": map[string]any{"serverDiscordId": server, "messages": m, "overrides": o}}, "activate", &out)
		return out
	}
	titles := func(r result) []string {
		var out []string
		for _, ad := range r.Admitted {
			out = append(out, ad.Title)
		}
		return out
	}
	semantic := func(r result) []string {
		var out []string
		for _, tr := range r.Trace {
			if tr.Verdict == "semantic_match" {
				require.NotNil(t, tr.Score)
				require.GreaterOrEqual(t, *tr.Score, 0.25)
				require.Equal(t, "semantic_match", tr.Reason)
				require.NotEmpty(t, tr.Params["score"])
				out = append(out, tr.Title)
			}
		}
		slices.Sort(out)
		return out
	}
	r := run(nil, "Hi Kotori!", "Kotori, why do you always have a lollipop in your mouth?")
	require.Equal(t, []string{"Lollipop"}, semantic(r))
	found := false
	for _, ad := range r.Admitted {
		if ad.Title == "Lollipop" {
			found = ad.Score != nil && *ad.Score >= 0.25
		}
	}
	require.True(t, found, "the admitted entry carries its score")
	require.Equal(t, []string{"Spacequake Alarm"}, semantic(run(nil, "The spacequake alarm is ringing across Tengu City.")))
	for _, chat := range []string{"Hello! How are you today?", "The weather was pleasant and we walked along the river."} {
		r := run(nil, chat)
		require.Empty(t, semantic(r), chat)
		below := 0
		for _, tr := range r.Trace {
			if tr.Verdict == "below_threshold" {
				below++
				require.NotNil(t, tr.Score)
			}
		}
		require.Greater(t, below, 80, "the keyless vectorized entries are below the threshold")
	}
	// At the default budget (8,000) the book's Always On entries (32,273
	// characters) would take it all: a turn with similarity matches holds
	// up to a quarter of it for them (docs/contract.md#semantic-budget),
	// so relevant keyless entries are admitted, and the constants the hold
	// left out say so; a match larger than what is held and left is
	// over_budget saying which share it failed. Greetings and small talk
	// hold nothing: the same Always On entries as without ranking.
	keysOnly := run(map[string]any{"budget": nil, "semanticRanker": "OFF"}, "Hello! How are you today?")
	for _, tc := range []struct {
		chat            string
		want, overShare []string
	}{
		{"Kotori, why do you always have a lollipop in your mouth?", []string{"Lollipop"}, nil},
		{"Yoshino, where is your puppet Yoshinon?", []string{"Yoshinon"}, []string{"Yoshino Himekawa"}},
		{"The spacequake alarm is ringing across Tengu City.", nil, []string{"Spacequake Alarm"}},
		{"Hello! How are you today?", nil, nil},
		{"The weather was pleasant and we walked along the river.", nil, nil},
	} {
		r := run(map[string]any{"budget": nil}, tc.chat)
		require.Equal(t, tc.want, semantic(r), tc.chat)
		require.LessOrEqual(t, r.Budget.Used, 8000)
		held := 0
		var overShare []string
		for _, tr := range r.Trace {
			switch tr.Reason {
			case "over_budget_keyword_share":
				held++
				require.Equal(t, "over_budget", tr.Verdict)
				require.Equal(t, "keyword", tr.Params["share"])
				require.EqualValues(t, 8000, tr.Params["limit"])
				require.Contains(t, tr.Detail, "held for similarity matches (semanticBudgetShare)")
			case "over_budget_semantic_share":
				require.NotNil(t, tr.Score)
				require.Contains(t, tr.Detail, "left for similarity matches")
				overShare = append(overShare, tr.Title)
			}
		}
		require.Equal(t, tc.overShare, overShare, "%s: over_budget_semantic_share", tc.chat)
		if tc.want == nil && held == 0 {
			require.Equal(t, titles(keysOnly), titles(r), "%s: nothing held, the Always On entries as without ranking", tc.chat)
		} else {
			require.Positive(t, held, "%s: the constants the hold left out say so", tc.chat)
		}
	}
	require.Empty(t, semantic(run(map[string]any{"semanticRanker": "OFF"}, "Kotori, why do you always have a lollipop?")))
	require.Empty(t, semantic(run(map[string]any{"semanticThreshold": 0.99}, "Kotori, why do you always have a lollipop?")))
}

// rankerOf reads the ranker from a scored entry's trace detail
// ("similarity 0.412 at or above threshold 0.25 (embeddings)").
var rankerOf = regexp.MustCompile(`threshold [0-9.]+ \((.*)\)$`)

// TestSemanticEmbeddingsTurns: with the fake OpenAI-compatible provider,
// once the book's vectors are ready a turn ranks by embeddings with one
// provider call for its query (none when the same query was asked
// before); a slow, failing or malformed provider leaves the turn to keys
// and the lexical ranker, answering within the provider's deadline with
// the reason in the trace and nothing stored lost; a pending vector
// (an edit no job embedded yet) ranks the turn lexically too.
func TestSemanticEmbeddingsTurns(t *testing.T) {
	fake := embeddingstest.New(256)
	defer fake.Close()
	client, err := embeddings.New(embeddings.Config{URL: fake.URL, Model: "fake-embed", Rate: 1000, Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	g := graphtest.New(t, graphtest.Options{Jobs: true, InlineImportBytes: 4 << 20, Embeddings: client})
	a := wrap(t, g)
	const server = "512345678901234567"
	setupServer(t, a, server)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": server, "lineageId": 0},
		"Date a Live (Vectorized).json", corpus(t, "st-worldinfo/archkrrr__Date_a_Live_12.0.0_Vectorized.json"))
	require.Nil(t, imp.Error)
	var re struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { reindexEmbeddings(input: {serverDiscordId: $s}) { job { id } error { code message } } }`,
		map[string]any{"s": server}, "reindexEmbeddings", &re)
	require.Nil(t, re.Error)
	var st struct{ EmbeddingsStatus struct{ Ready, Pending int } }
	for deadline := time.Now().Add(90 * time.Second); ; {
		a.must(serviceKey, `query($s: String!) { server(discordId: $s) { embeddingsStatus { ready pending } } }`, map[string]any{"s": server}, "server", &st)
		if st.EmbeddingsStatus.Pending == 0 && st.EmbeddingsStatus.Ready > 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "embeddings %+v", st)
		time.Sleep(100 * time.Millisecond)
	}

	type traceItem struct {
		ID, Title, Verdict, Detail string
		Score                      *float64
	}
	turnAt := func(budget any, chat string) (sem []string, ranker string) {
		t.Helper()
		var out struct{ Trace []traceItem }
		a.must(serviceKey, `query($in: ActivateInput!) { activate(input: $in) { trace { id title verdict detail score } } }`,
			map[string]any{"in": map[string]any{"serverDiscordId": server, "messages": []map[string]any{{"content": chat}},
				"overrides": map[string]any{"budget": budget}}}, "activate", &out)
		for _, tr := range out.Trace {
			if tr.Score == nil {
				continue
			}
			if tr.Verdict == "semantic_match" {
				sem = append(sem, tr.Title)
			}
			if m := rankerOf.FindStringSubmatch(tr.Detail); m != nil && ranker == "" {
				ranker = m[1]
			}
		}
		slices.Sort(sem)
		return sem, ranker
	}
	turn := func(chat string) ([]string, string) { return turnAt(40000, chat) }
	calls := fake.Calls()
	sem, ranker := turn("Kotori, why do you always have a lollipop in your mouth?")
	require.Equal(t, "embeddings", ranker)
	require.Contains(t, sem, "Lollipop")
	require.Equal(t, calls+1, fake.Calls(), "one provider call for the turn's query")
	again, _ := turn("Kotori, why do you always have a lollipop in your mouth?")
	require.Equal(t, sem, again)
	require.Equal(t, calls+1, fake.Calls(), "the same query comes from the cache")
	greet, ranker := turn("Hello! How are you today?")
	require.Equal(t, "embeddings", ranker)
	require.Empty(t, greet, "a greeting admits nothing by similarity")
	// At the default budget the share held for similarity matches admits
	// them past the book's Always On entries (docs/contract.md#semantic-budget).
	for _, tc := range []struct {
		chat string
		want []string
	}{
		{"Kotori, why do you always have a lollipop in your mouth?", []string{"Lollipop"}},
		{"Hello! How are you today?", nil},
	} {
		got, ranker := turnAt(nil, tc.chat)
		require.Equal(t, "embeddings", ranker)
		require.Equal(t, tc.want, got, tc.chat)
	}

	lexical, _ := turn("Kotori, tell me about your lollipop.") // what the lexical ranker admits
	for _, tc := range []struct {
		name  string
		setup func()
		why   string
	}{
		{"slow", func() { fake.SetLatency(3 * time.Second) }, "lexical: the embeddings provider failed (timed out)"},
		{"failing", func() { fake.SetMode(embeddingstest.Fail) }, "lexical: the embeddings provider failed (HTTP status 503)"},
		{"malformed", func() { fake.SetMode(embeddingstest.Malformed) }, "lexical: the embeddings provider failed (malformed answer)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			defer func() { fake.SetLatency(0); fake.SetMode(embeddingstest.OK) }()
			start := time.Now()
			got, why := turn("Kotori, tell me about your lollipop " + tc.name + ".")
			// Not a speed goal: a bound far above the 300ms deadline, so a
			// turn that waited for the 3 s provider fails.
			require.Less(t, time.Since(start), 2500*time.Millisecond)
			require.Equal(t, tc.why, why)
			require.Equal(t, lexical, got, "keys and the lexical ranker answer")
		})
	}
	// A recorded turn (the lean path) calls the provider once, even when it
	// fails: a failing provider is not cached, and a turn whose id is
	// reused with another input is refused after the ranking, answered
	// without running it again.
	fake.SetMode(embeddingstest.Fail)
	recorded := func(id, chat string) (code string) {
		t.Helper()
		var out struct{ Error *mutationError }
		a.must(serviceKey, `mutation($t: ActivateTurnInput!) { activateTurn(input: $t) { result { passes } error { code message } } }`,
			map[string]any{"t": map[string]any{"serverDiscordId": server, "channelId": "512345678901234568", "turnId": id, "messageCount": 1,
				"messages": []map[string]any{{"content": chat}}}}, "activateTurn", &out)
		if out.Error != nil {
			code = out.Error.Code
		}
		return code
	}
	calls = fake.Calls()
	require.Empty(t, recorded("conflict", "Kotori, a lollipop for the turn?"))
	require.Equal(t, calls+1, fake.Calls(), "one provider call for the recorded turn")
	require.Equal(t, "INVALID_INPUT", recorded("conflict", "Kotori, another lollipop for the turn?"))
	require.Equal(t, calls+2, fake.Calls(), "one provider call for the refused turn")
	fake.SetMode(embeddingstest.OK)
	a.must(serviceKey, `query($s: String!) { server(discordId: $s) { embeddingsStatus { ready pending } } }`, map[string]any{"s": server}, "server", &st)
	require.Zero(t, st.EmbeddingsStatus.Pending, "nothing stored was lost")

	// An edit no job embedded yet: the turn ranks lexically and says so.
	var list struct {
		Collections struct {
			Edges []struct {
				Node struct {
					Entries struct {
						Edges []struct{ Node struct{ ID, Title string } }
					}
				}
			}
		}
	}
	a.must(serviceKey, `query($s: String!) { server(discordId: $s) { collections { edges { node { entries(first: 200, search: "Lollipop") { edges { node { id title } } } } } } } }`,
		map[string]any{"s": server}, "server", &list)
	var id string
	for _, e := range list.Collections.Edges[0].Node.Entries.Edges {
		if e.Node.Title == "Lollipop" {
			id = e.Node.ID
		}
	}
	require.NotEmpty(t, id)
	var up struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $id: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $id, patch: {content: "Kotori always has a lollipop, a chupa chups, in her mouth."}}) { error { code message } } }`,
		map[string]any{"s": server, "id": id}, "updateEntry", &up)
	require.Nil(t, up.Error)
	_, ranker = turn("Kotori, why do you always have a lollipop?")
	require.Equal(t, "lexical: embeddings pending for 1 of "+strconv.Itoa(st.EmbeddingsStatus.Ready)+" candidates", ranker)
}

// TestBookSemanticAllEntries: a book's own semanticAllEntries makes its
// keyless entries that are not vectorized candidates of retrieval by
// meaning (the lexical ranker here), and only that book's; it is read
// back, exported in loregate_settings and imported again with the book.
func TestBookSemanticAllEntries(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var town, other struct{ Collection struct{ ID string } }
	for name, out := range map[string]any{"Town": &town, "Other": &other} {
		a.must(serviceKey, `mutation($s: String!, $n: String!) { createCollection(input: {serverDiscordId: $s, name: $n}) { collection { id } } }`,
			map[string]any{"s": serverA, "n": name}, "createCollection", out)
	}
	for coll, title := range map[string]string{town.Collection.ID: "Kinako Bread", other.Collection.ID: "Bakery"} {
		var p struct{ Error *mutationError }
		a.must(serviceKey, `mutation($s: String!, $c: ID!, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: $e}) {
  error { code message } } }`, map[string]any{"s": serverA, "c": coll, "e": map[string]any{"title": title,
			"content": "Tohka loves the kinako bread of the bakery near Raizen High."}}, "createEntry", &p)
		require.Nil(t, p.Error)
	}
	semantic := func() []string {
		var out struct {
			Trace []struct{ Title, Verdict string }
		}
		a.must(serviceKey, `query($in: ActivateInput!) { activate(input: $in) { trace { title verdict } } }`, map[string]any{"in": map[string]any{
			"serverDiscordId": serverA, "messages": []map[string]any{{"content": "Tohka, shall we buy kinako bread?"}}}}, "activate", &out)
		var titles []string
		for _, tr := range out.Trace {
			if tr.Verdict == "semantic_match" {
				titles = append(titles, tr.Title)
			}
		}
		return titles
	}
	require.Empty(t, semantic(), "neither entry is vectorized")
	var cp struct {
		Collection struct {
			BookSettings struct{ SemanticAllEntries *bool }
		}
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $id: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $id, settings: {semanticAllEntries: true}}) {
  collection { bookSettings { semanticAllEntries } } error { code message } } }`, map[string]any{"s": serverA, "id": town.Collection.ID},
		"updateCollectionSettings", &cp)
	require.Nil(t, cp.Error)
	require.True(t, *cp.Collection.BookSettings.SemanticAllEntries)
	require.Equal(t, []string{"Kinako Bread"}, semantic(), "the book's entries only")

	var ex struct {
		JSON  string
		Error *mutationError
	}
	a.must(serviceKey, `query($in: ExportLorebookInput!) { exportLorebook(input: $in) { json error { code message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": town.Collection.ID}}, "exportLorebook", &ex)
	require.Nil(t, ex.Error)
	var file struct {
		Extensions struct {
			Settings struct{ SemanticAllEntries *bool } `json:"loregate_settings"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(ex.JSON), &file))
	require.NotNil(t, file.Extensions.Settings.SemanticAllEntries, "world info has no field of its own: loregate_settings")
	require.True(t, *file.Extensions.Settings.SemanticAllEntries)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Town again"}, "Town.json", []byte(ex.JSON))
	require.Nil(t, imp.Error)
	require.NotNil(t, imp.Collection)
	var got struct {
		Collection struct {
			BookSettings struct{ SemanticAllEntries *bool }
		}
	}
	a.must(serviceKey, `query($s: String!, $n: String!) { server(discordId: $s) { collection(name: $n) { bookSettings { semanticAllEntries } } } }`,
		map[string]any{"s": serverA, "n": imp.Collection.Name}, "server", &got)
	require.NotNil(t, got.Collection.BookSettings.SemanticAllEntries, "imported with the book")
	require.True(t, *got.Collection.BookSettings.SemanticAllEntries)
}
