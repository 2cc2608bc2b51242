package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const qActivatePositions = `query($input: ActivateInput!) { activate(input: $input) {
  admitted { id title placement position { kind depth role outlet } }
  injections { kind depth role outlet text entryIds }
  outlets { name text }
  budget { used byBook { collectionId lineageId name used entries } }
  trace { id title verdict reason params detail } passes } }`

type positionsResult struct {
	Admitted []struct {
		ID, Title, Placement string
		Position             struct {
			Kind   string
			Depth  *int
			Role   *string
			Outlet *string
		}
	}
	Injections []struct {
		Kind     string
		Depth    *int
		Role     *string
		Outlet   *string
		Text     string
		EntryIds []string
	}
	Outlets []struct{ Name, Text string }
	Budget  struct {
		Used   int
		ByBook []struct {
			CollectionID *string
			LineageID    *int64
			Name         string
			Used         int
			Entries      int
		}
	}
	Trace []struct {
		ID, Title, Verdict, Reason string
		Params                     map[string]any
		Detail                     *string
	}
	Passes int
}

func (a *api) activatePositions(input map[string]any) positionsResult {
	a.t.Helper()
	var res positionsResult
	a.must(serviceKey, qActivatePositions, map[string]any{"input": input}, "activate", &res)
	return res
}

// TestActivatePositionsCorpus imports a real SillyTavern world info with
// depth entries over GraphQL and reads where each admitted entry goes:
// AT_DEPTH entries keep the file's depth and role, and injections group
// them per (depth, role); BEFORE_CHAR and AFTER_CHAR entries are not
// injections; budget.byBook names the collection.
func TestActivatePositionsCorpus(t *testing.T) {
	a := newAPI(t)
	a.must(serviceKey, qUpsertServer, map[string]any{"id": serverA, "name": "A"}, "upsertServer", &struct{}{})
	raw := corpus(t, "st-worldinfo/archkrrr__Date_a_Live_12.0.0.json")
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "dal.json", raw)
	require.Nil(t, imp.Error)
	require.Zero(t, imp.Report.CollapsedPlacements, "kept positions are not collapsed")
	var book struct {
		Entries map[string]struct {
			Comment         string
			Position, Depth int
			Role            *int
			Disable         bool
		}
	}
	require.NoError(t, json.Unmarshal(raw, &book))
	file := map[string]struct{ pos, depth, role int }{}
	for _, e := range book.Entries {
		role := 0
		if e.Role != nil {
			role = *e.Role
		}
		file[e.Comment] = struct{ pos, depth, role int }{e.Position, e.Depth, role}
	}

	res := a.activatePositions(map[string]any{"serverDiscordId": serverA, "lineageId": 0,
		"messages":  []map[string]any{{"content": "Kurumi loads Zafkiel's Bullets."}, {"content": "Then Shido plans a Ratatoskr Date."}},
		"overrides": map[string]any{"budget": 2000000}})
	kinds := []string{"BEFORE_CHAR", "AFTER_CHAR", "AN_TOP", "AN_BOTTOM", "AT_DEPTH", "EM_TOP", "EM_BOTTOM", "OUTLET"}
	depthGroups := map[[2]int][]string{}
	seen := map[string]bool{}
	for _, ad := range res.Admitted {
		f, ok := file[ad.Title]
		require.True(t, ok, "admitted %q is an entry of the file", ad.Title)
		require.Equal(t, kinds[f.pos], ad.Position.Kind, ad.Title)
		seen[ad.Position.Kind] = true
		if ad.Position.Kind != "AT_DEPTH" {
			require.Nil(t, ad.Position.Depth, ad.Title)
			require.Nil(t, ad.Position.Role, ad.Title)
			require.Nil(t, ad.Position.Outlet, ad.Title)
			continue
		}
		require.Equal(t, f.depth, *ad.Position.Depth, ad.Title)
		require.Equal(t, []string{"SYSTEM", "USER", "ASSISTANT"}[f.role], *ad.Position.Role, ad.Title)
		require.Equal(t, "BEFORE", ad.Placement)
		k := [2]int{f.depth, f.role}
		depthGroups[k] = append(depthGroups[k], ad.ID)
	}
	require.True(t, seen["AT_DEPTH"] && seen["BEFORE_CHAR"] && seen["AFTER_CHAR"], "the turn admits each kind of the file: %v", seen)
	require.True(t, slicesContainTitle(res, "Zafkiel's Bullets"), "the keyword AT_DEPTH entry fired")
	require.Len(t, res.Injections, len(depthGroups), "one injection per (depth, role)")
	prev := -1
	for _, in := range res.Injections {
		require.Equal(t, "AT_DEPTH", in.Kind)
		require.Equal(t, "SYSTEM", *in.Role)
		require.Nil(t, in.Outlet)
		require.Greater(t, *in.Depth, prev, "AT_DEPTH groups by depth")
		prev = *in.Depth
		// Every entry of the file has order 100: ties keep insertion order.
		require.Equal(t, depthGroups[[2]int{*in.Depth, 0}], in.EntryIds)
		require.NotEmpty(t, in.Text)
	}
	require.Empty(t, res.Outlets)
	require.Len(t, res.Budget.ByBook, 1)
	bb := res.Budget.ByBook[0]
	require.Equal(t, imp.Collection.ID, *bb.CollectionID)
	require.Equal(t, imp.Collection.Name, bb.Name)
	require.Nil(t, bb.LineageID)
	require.Equal(t, len(res.Admitted), bb.Entries)
	require.Equal(t, res.Budget.Used, bb.Used)
}

func slicesContainTitle(res positionsResult, title string) bool {
	for _, ad := range res.Admitted {
		if ad.Title == title {
			return true
		}
	}
	return false
}

// TestActivateContextAndSelection: context sources, the generation type,
// speaker names and the selection controls reach the engine from
// activate's input, the server settings and a book's maxBudgetShare;
// activateTurn takes the same context.
func TestActivateContextAndSelection(t *testing.T) {
	a := newAPI(t)
	a.must(serviceKey, qUpsertServer, map[string]any{"id": serverA, "name": "A"}, "upsertServer", &struct{}{})
	var coll struct{ Collection struct{ ID string } }
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "Town"}) { collection { id } } }`,
		map[string]any{"s": serverA}, "createCollection", &coll)
	type created struct {
		Entry struct{ ID string }
		Error *mutationError
	}
	create := func(e map[string]any) string {
		var p created
		a.must(serviceKey, `mutation($s: String!, $c: ID!, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: $e}) {
  entry { id } error { code message field } } }`, map[string]any{"s": serverA, "c": coll.Collection.ID, "e": e}, "createEntry", &p)
		require.Nil(t, p.Error)
		return p.Entry.ID
	}
	alice := create(map[string]any{"title": "alice only", "content": "a", "keys": []string{"gate"}, "characterFilter": map[string]any{"names": []string{"Alice"}}})
	cont := create(map[string]any{"title": "on continue", "content": "c", "keys": []string{"gate"}, "generationTypes": []string{"CONTINUE"}})
	desc := create(map[string]any{"title": "from the description", "content": "d", "keys": []string{"dragon"}, "matchCharacterDescription": true})
	ann := create(map[string]any{"title": "speaker", "content": "n", "keys": []string{"Ann"}})
	deep := create(map[string]any{"title": "deep", "content": "deep", "keys": []string{"comet"}})
	verdicts := func(res positionsResult) map[string]string {
		out := map[string]string{}
		for _, tr := range res.Trace {
			out[tr.ID] = tr.Verdict
		}
		return out
	}
	msgs := []map[string]any{{"content": "the comet"}, {"content": "x"}, {"content": "y"}, {"name": "Ann", "content": "at the gate"}}
	in := map[string]any{"serverDiscordId": serverA, "messages": msgs}
	v := verdicts(a.activatePositions(in))
	require.Equal(t, map[string]string{alice: "filtered_character", cont: "filtered_generation_type", desc: "no_key_match",
		ann: "no_key_match", deep: "no_key_match"}, v)
	in["context"] = map[string]any{"character": map[string]any{"name": "Alice", "description": "a dragon rider"}}
	in["generationType"] = "CONTINUE"
	in["overrides"] = map[string]any{"includeNames": true, "minActivations": 5}
	res := a.activatePositions(in)
	require.Equal(t, map[string]string{alice: "admitted", cont: "admitted", desc: "admitted", ann: "admitted", deep: "admitted"}, verdicts(res))
	require.Equal(t, 3, res.Passes, "the sweep read two more messages to reach the comet")
	for _, tr := range res.Trace {
		if tr.Verdict == "filtered_character" {
			require.Equal(t, "filtered_character", tr.Reason)
		}
	}

	// maxEntries as an override, then as a server setting.
	in["overrides"] = map[string]any{"includeNames": true, "maxEntries": 2}
	res = a.activatePositions(in)
	capped := 0
	for _, tr := range res.Trace {
		if tr.Verdict == "over_entry_cap" {
			capped++
			require.Equal(t, "over_entry_cap", tr.Reason)
			require.EqualValues(t, 100, tr.Params["priority"])
		}
	}
	require.Equal(t, 2, capped, "four keyword entries fired, two kept")
	var sp struct {
		Server struct {
			Settings struct {
				MinActivations, MinActivationsDepthMax, MaxEntries int
				IncludeNames                                       bool
			}
		}
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, minActivations: 5, minActivationsDepthMax: 3, maxEntries: 1, includeNames: true}) {
  server { settings { minActivations minActivationsDepthMax maxEntries includeNames } } error { code message field } } }`, map[string]any{"s": serverA}, "updateServerSettings", &sp)
	require.Nil(t, sp.Error)
	require.Equal(t, 1, sp.Server.Settings.MaxEntries)
	require.True(t, sp.Server.Settings.IncludeNames)
	delete(in, "overrides")
	res = a.activatePositions(in)
	require.Len(t, res.Admitted, 1, "the server's cap of 1")
	require.Equal(t, 2, res.Passes, "the server's depth max of 3 stops the sweep before the comet")
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, maxEntries: 1001}) {
  error { code field } } }`, map[string]any{"s": serverA}, "updateServerSettings", &sp)
	require.Equal(t, "INVALID_INPUT", sp.Error.Code)
	require.Equal(t, "maxEntries", *sp.Error.Field)
	r := a.do(serviceKey, qActivatePositions, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "messages": msgs,
		"overrides": map[string]any{"minActivations": -1}}})
	require.NotEmpty(t, r.Errors)
	require.Contains(t, r.Errors[0].Message, "overrides.minActivations")

	// A book's maxBudgetShare: 2 of the book's 4 one-character hits in a
	// budget of 4 at 50%.
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, minActivations: 0, maxEntries: 0, budgetLimit: 4}) {
  error { code message } } }`, map[string]any{"s": serverA}, "updateServerSettings", &sp)
	require.Nil(t, sp.Error)
	var cp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $id: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $id, settings: {maxBudgetShare: 50}}) {
  collection { bookSettings { maxBudgetShare } } error { code message } } }`, map[string]any{"s": serverA, "id": coll.Collection.ID},
		"updateCollectionSettings", &cp)
	require.Nil(t, cp.Error)
	res = a.activatePositions(in)
	require.Len(t, res.Admitted, 2)
	require.Equal(t, 2, res.Budget.ByBook[0].Used)
	over := 0
	for _, tr := range res.Trace {
		if tr.Verdict == "over_budget" && tr.Detail != nil && strings.Contains(*tr.Detail, "max budget share") {
			over++
		}
	}
	require.Equal(t, 2, over, "the others are over the book's share")

	// activateTurn takes the same context and generation type.
	var tp struct {
		Result *positionsResult
		Error  *mutationError
	}
	a.must(serviceKey, `mutation($in: ActivateTurnInput!) { activateTurn(input: $in) { result { admitted { id position { kind depth role outlet } } trace { id verdict } } error { code message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "channelId": "222222222222222222", "messages": msgs, "messageCount": 4,
			"turnId": "t1", "generationType": "QUIET", "context": map[string]any{"character": map[string]any{"name": "Bob"}}}}, "activateTurn", &tp)
	require.Nil(t, tp.Error)
	got := verdicts(*tp.Result)
	require.Equal(t, "filtered_character", got[alice])
	require.Equal(t, "filtered_generation_type", got[cont])
	for _, ad := range tp.Result.Admitted {
		require.Equal(t, "AFTER_CHAR", ad.Position.Kind, "entry %s", ad.ID)
	}
}
