package graph_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
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
	var rm struct{ Error *mutationError }
	a.must(serviceKey, `mutation { removePersona(input: {serverDiscordId: "`+serverA+`", id: 2}) { error { code message } } }`, nil, "removePersona", &rm)
	require.Nil(t, rm.Error)

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
