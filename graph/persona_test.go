package graph_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// qUpsertPersonaReason is upsertPersona selecting the payload error's
// reason key and params.
const qUpsertPersonaReason = `mutation($s: String!, $id: Int64!, $l: Int64!, $n: String!) {
	upsertPersona(input: {serverDiscordId: $s, id: $id, lineageId: $l, name: $n}) {
		persona { id lineageId name removed } error { code field reason params message } } }`

// TestUpsertPersonaLineage: upsertPersona renames a persona in its own
// lineage and registers new ids, but refuses the id of a registered (not
// removed) persona under another lineage with INVALID_INPUT on lineageId,
// reason persona_other_lineage naming the id and both lineages, and
// changes nothing; a removed persona may be registered again under
// another lineage (it is restored there). Steps run in order on one
// server.
func TestUpsertPersonaLineage(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	type persona struct {
		ID, LineageID int64
		Name          string
		Removed       bool
	}
	type payloadError struct {
		Code, Field, Reason, Message string
		Params                       map[string]any
	}
	upsert := func(t *testing.T, id, lineage int64, name string) (*persona, *payloadError) {
		t.Helper()
		var p struct {
			Persona *persona
			Error   *payloadError
		}
		a.must(serviceKey, qUpsertPersonaReason, map[string]any{"s": serverA, "id": id, "l": lineage, "n": name}, "upsertPersona", &p)
		return p.Persona, p.Error
	}
	registry := func(t *testing.T) map[int64]persona {
		t.Helper()
		var s struct{ Personas []persona }
		a.must(serviceKey, `query($id: String!) { server(discordId: $id) { personas { id lineageId name removed } } }`,
			map[string]any{"id": serverA}, "server", &s)
		out := map[int64]persona{}
		for _, p := range s.Personas {
			out[p.ID] = p
		}
		return out
	}
	_, e := upsert(t, 1, 7, "Seraphina")
	require.Nil(t, e)
	_, e = upsert(t, 2, 8, "Ann")
	require.Nil(t, e)
	// removePersona answers the persona as removed, in its lineage (the
	// payload was null on success).
	var rm struct {
		Persona *persona
		Error   *mutationError
	}
	a.must(serviceKey, `mutation { removePersona(input: {serverDiscordId: "`+serverA+`", id: 2}) { persona { id lineageId name removed } error { code message } } }`, nil, "removePersona", &rm)
	require.Nil(t, rm.Error)
	require.Equal(t, &persona{2, 8, "Ann", true}, rm.Persona)
	// An unknown persona is NOT_FOUND on the input's own field, id.
	var missing struct {
		Persona *persona
		Error   *struct {
			Code, Message string
			Field         *string
		}
	}
	a.must(serviceKey, `mutation { removePersona(input: {serverDiscordId: "`+serverA+`", id: 99}) { persona { id } error { code message field } } }`, nil, "removePersona", &missing)
	require.Nil(t, missing.Persona)
	require.NotNil(t, missing.Error)
	require.Equal(t, "NOT_FOUND", missing.Error.Code)
	require.Equal(t, "id", *missing.Error.Field)
	require.Contains(t, missing.Error.Message, "id 99 was not found")

	for _, tc := range []struct {
		name        string
		id, lineage int64
		persona     *persona
		// refused: the persona's registered lineage (the error's params).
		refused int64
	}{
		{name: "rename in its own lineage", id: 1, lineage: 7, persona: &persona{1, 7, "Sera", false}},
		{name: "another lineage is refused", id: 1, lineage: 9, refused: 7},
		{name: "a new id may share a lineage (an alter)", id: 3, lineage: 7, persona: &persona{3, 7, "Sera", false}},
		{name: "a removed persona is restored under another lineage", id: 2, lineage: 10, persona: &persona{2, 10, "Sera", false}},
		{name: "once restored it keeps that lineage", id: 2, lineage: 8, refused: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := registry(t)
			p, e := upsert(t, tc.id, tc.lineage, "Sera")
			if tc.refused == 0 {
				require.Nil(t, e)
				require.Equal(t, tc.persona, p)
				require.Equal(t, *tc.persona, registry(t)[tc.id])
				return
			}
			require.Nil(t, p)
			require.NotNil(t, e, "moving persona %d to lineage %d must be refused", tc.id, tc.lineage)
			require.Equal(t, "INVALID_INPUT", e.Code)
			require.Equal(t, "lineageId", e.Field)
			require.Equal(t, "persona_other_lineage", e.Reason)
			params, err := json.Marshal(e.Params)
			require.NoError(t, err)
			require.JSONEq(t, `{"id": `+itoa(tc.id)+`, "lineage": `+itoa(tc.refused)+`, "requested": `+itoa(tc.lineage)+`}`, string(params))
			require.Contains(t, e.Message, "the lineage persona "+itoa(tc.id)+" is registered under")
			require.Equal(t, before, registry(t), "a refused upsert changes nothing")
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestActivateUnregisteredLineage: activate, activateTurn (recorded and
// retried) and assemblePrompt with a lineageId the server does not know
// (no persona, removed or not, reads it and it holds no lore) answer with
// Serverwide lore and the notice unregistered_lineage naming the lineage;
// Serverwide requests and known lineages (a persona's empty book, a
// removed persona's, a lore-only lineage's) have none. Registering a
// persona under the lineage ends the notice on the next turn, through the
// scope cache.
func TestActivateUnregisteredLineage(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	ctx := context.Background()
	sw := lore.NewEntry()
	sw.Server, sw.Collection, sw.Title, sw.Content, sw.Constant = serverA, "General", "Realm", "The realm is old.", true
	_, _, err := a.store.CreateCollectionWithEntries(ctx, lore.Collection{Server: serverA, Name: "General", Enabled: true}, []lore.Entry{sw})
	require.NoError(t, err)
	for _, p := range []lore.Persona{{Server: serverA, ID: 1, Lineage: 7, Name: "Sera"}, {Server: serverA, ID: 2, Lineage: 9, Name: "Gone"}} {
		_, err := a.store.UpsertPersona(ctx, p)
		require.NoError(t, err)
	}
	require.NoError(t, a.store.RemovePersona(ctx, serverA, 2))
	own := lore.NewEntry()
	own.Server, own.Lineage, own.Title, own.Content, own.Constant = serverA, 8, "Kept", "Lore of a lineage without persona.", true
	_, err = a.store.ReplacePersonaBook(ctx, serverA, 8, []lore.Entry{own})
	require.NoError(t, err)

	type notice struct {
		Reason, Message string
		Params          map[string]any
	}
	type activation struct {
		Admitted []struct{ Title string }
		Notices  []notice
	}
	const (
		qActivateNotices = `query($input: ActivateInput!) { activate(input: $input) { admitted { title } notices { reason params message } } }`
		qTurnNotices     = `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) {
			result { admitted { title } notices { reason params message } } error { code message } } }`
		qPromptNotices = `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { activation { admitted { title } notices { reason params message } } } }`
	)
	msgs := []map[string]any{{"role": "user", "content": "hello"}}
	input := func(lineage any) map[string]any {
		in := map[string]any{"serverDiscordId": serverA, "channelId": turnChannel, "messages": msgs}
		if lineage != nil {
			in["lineageId"] = lineage
		}
		return in
	}
	turns := 0
	// run answers the request through op: activate, activateTurn (a new
	// turn id, then a retry of it: both must agree) or assemblePrompt.
	run := func(t *testing.T, op string, lineage any) activation {
		t.Helper()
		var out activation
		switch op {
		case "activate":
			a.must(serviceKey, qActivateNotices, map[string]any{"input": input(lineage)}, "activate", &out)
		case "activateTurn":
			turns++
			in := input(lineage)
			in["turnId"], in["messageCount"] = "t"+strconv.Itoa(turns), turns
			var first, retry struct {
				Result *activation
				Error  *mutationError
			}
			a.must(serviceKey, qTurnNotices, map[string]any{"input": in}, "activateTurn", &first)
			require.Nil(t, first.Error)
			a.must(serviceKey, qTurnNotices, map[string]any{"input": in}, "activateTurn", &retry)
			require.Nil(t, retry.Error)
			require.Equal(t, *first.Result, *retry.Result, "a retried turn reports the notices too")
			out = *first.Result
		case "assemblePrompt":
			var p struct{ Activation activation }
			a.must(serviceKey, qPromptNotices, map[string]any{"input": map[string]any{"activation": input(lineage)}}, "assemblePrompt", &p)
			out = p.Activation
		}
		return out
	}
	unregistered := func(lineage int64) []notice {
		return []notice{{Reason: "unregistered_lineage", Params: map[string]any{"lineage": float64(lineage)},
			Message: "lineage " + itoa(lineage) + " is not registered on the server (no persona reads it and it holds no lore): only Serverwide lore was activated"}}
	}
	for _, op := range []string{"activate", "activateTurn", "assemblePrompt"} {
		for _, tc := range []struct {
			name     string
			lineage  any // nil: omitted
			admitted []string
			notices  []notice // [] is an empty list, not null
		}{
			{"no lineage", nil, []string{"Realm"}, []notice{}},
			{"Serverwide", 0, []string{"Realm"}, []notice{}},
			{"a persona's empty book", 7, []string{"Realm"}, []notice{}},
			{"a removed persona's lineage", 9, []string{"Realm"}, []notice{}},
			{"a lore-only lineage", 8, []string{"Realm", "Kept"}, []notice{}},
			{"an unknown lineage", 42, []string{"Realm"}, unregistered(42)},
		} {
			t.Run(op+"/"+tc.name, func(t *testing.T) {
				got := run(t, op, tc.lineage)
				var titles []string
				for _, e := range got.Admitted {
					titles = append(titles, e.Title)
				}
				require.ElementsMatch(t, tc.admitted, titles)
				require.Equal(t, tc.notices, got.Notices)
			})
		}
	}

	t.Run("registering the lineage ends the notice", func(t *testing.T) {
		require.Equal(t, unregistered(43), run(t, "activate", 43).Notices) // cached now
		var p struct{ Error *mutationError }
		a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 3, "l": 43, "n": "New"}, "upsertPersona", &p)
		require.Nil(t, p.Error)
		require.Empty(t, run(t, "activate", 43).Notices)
		require.Empty(t, run(t, "activateTurn", 43).Notices)
	})
}
