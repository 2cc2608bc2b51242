package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestPersonaCardContext: importPersonaCard keeps the card's character
// (name, tags, description, personality, scenario, creator notes, depth
// prompt) on the persona, the per-turn read of its lineage returns it
// (Snapshot.Character), and a later card replaces it, a card without a
// book included.
func TestPersonaCardContext(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	raw := corpus(t, "card-json/bronya-rand__Aether_v2.json")
	var card map[string]any
	require.NoError(t, json.Unmarshal(raw, &card))
	data := card["data"].(map[string]any)
	// The corpus cards leave these empty: give the card its own.
	data["personality"], data["scenario"] = "Calm and curious.", "A journey across Teyvat."
	data["extensions"].(map[string]any)["depth_prompt"] = map[string]any{"prompt": "Aether never lies.", "depth": 4, "role": "system"}
	edited, err := json.Marshal(card)
	require.NoError(t, err)

	p, r := importCard(t, a, serviceKey, map[string]any{"serverDiscordId": serverA}, "Aether.json", edited)
	require.Empty(t, r.Errors)
	require.Nil(t, p.Error)
	lineage := lore.Lineage(p.Persona.LineageID)
	snap, err := a.store.LoadEnabledForScope(context.Background(), serverA, lineage)
	require.NoError(t, err)
	require.Equal(t, &lore.CharacterContext{
		Name: "Aether", Tags: []string{"genshin", "genshin impact"}, Description: data["description"].(string),
		Personality: "Calm and curious.", Scenario: "A journey across Teyvat.",
		CreatorNotes: data["creator_notes"].(string), DepthPrompt: "Aether never lies.",
	}, snap.Character)
	serverwide, err := a.store.LoadEnabledForScope(context.Background(), serverA, lore.Serverwide)
	require.NoError(t, err)
	require.Nil(t, serverwide.Character, "Serverwide turns have no persona card")

	// A card without a book, imported onto the same persona, replaces the
	// character (the book stays).
	amy := corpus(t, "png/sillytavern-content__contest_Assistant_Amy_nobook.png")
	p2, r := importCard(t, a, serviceKey, map[string]any{"serverDiscordId": serverA, "personaId": p.Persona.ID}, "Amy.png", amy)
	require.Empty(t, r.Errors)
	require.Nil(t, p2.Error)
	snap2, err := a.store.LoadEnabledForScope(context.Background(), serverA, lineage)
	require.NoError(t, err)
	require.NotNil(t, snap2.Character)
	require.NotEqual(t, "Aether", snap2.Character.Name)
	require.NotEmpty(t, snap2.Character.Description)
	require.Len(t, snap2.Entries, len(snap.Entries), "the book stays")
}

// TestAlwaysOnBudgetWarning: a book whose Always On entries alone take
// more than half of the server's budget is imported with the
// always_on_budget_share notice (English warning, reason key, params), as
// a collection and as a persona card; a book under half gets none.
func TestAlwaysOnBudgetWarning(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	const q = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) {
		report { warnings notices { reason params message } } error { code message } } }`
	type notice struct {
		Reason  string
		Params  map[string]any
		Message string
	}
	var out struct {
		Report struct {
			Warnings []string
			Notices  []notice
		}
		Error *mutationError
	}
	veil := corpus(t, "charx/woduseh__Veil_of_Night_v2.charx")
	r := a.upload(serviceKey, q, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Veil"}, "Veil.charx", veil)
	require.Empty(t, r.Errors)
	require.NoError(t, json.Unmarshal(r.Data["importLorebook"], &out))
	require.Nil(t, out.Error)
	alwaysOn := func(ns []notice) []notice { // the card's other notices aside (token budget, folders, ...)
		var out []notice
		for _, n := range ns {
			if n.Reason == "always_on_budget_share" {
				out = append(out, n)
			}
		}
		return out
	}
	require.Len(t, alwaysOn(out.Report.Notices), 1, "%+v", out.Report)
	n := alwaysOn(out.Report.Notices)[0]
	require.Equal(t, "always_on_budget_share", n.Reason)
	require.Equal(t, "Veil", n.Params["book"])
	require.EqualValues(t, 8000, n.Params["limit"])
	used := n.Params["used"].(float64)
	require.Greater(t, used, 4000.0)
	require.Contains(t, out.Report.Warnings, n.Message)
	require.Contains(t, n.Message, `the Always On entries of "Veil" alone take`)

	// The same card as a persona: the notice too.
	var pc struct {
		Report struct{ Notices []notice }
		Error  *mutationError
	}
	r = a.upload(serviceKey, `mutation($input: ImportPersonaCardInput!) { importPersonaCard(input: $input) { report { notices { reason params message } } error { code message } } }`,
		map[string]any{"serverDiscordId": serverA}, "Veil.charx", veil)
	require.Empty(t, r.Errors)
	require.NoError(t, json.Unmarshal(r.Data["importPersonaCard"], &pc))
	require.Nil(t, pc.Error)
	require.Len(t, alwaysOn(pc.Report.Notices), 1)
	require.Equal(t, used, alwaysOn(pc.Report.Notices)[0].Params["used"])

	// At the boundary: exactly half of 8,000 gets none, one more does; a
	// disabled Always On entry does not count.
	for _, tc := range []struct {
		second   int
		disabled bool
		want     int
	}{{2000, false, 0}, {2001, false, 1}, {2001, true, 0}} {
		book := map[string]any{"entries": map[string]any{
			"0": map[string]any{"uid": 0, "key": []string{}, "content": strings.Repeat("a", 2000), "constant": true},
			"1": map[string]any{"uid": 1, "key": []string{}, "content": strings.Repeat("b", tc.second), "constant": true, "disable": tc.disabled},
			"2": map[string]any{"uid": 2, "key": []string{"k"}, "content": strings.Repeat("c", 3000)},
		}}
		file, err := json.Marshal(book)
		require.NoError(t, err)
		r = a.upload(serviceKey, q, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": fmt.Sprintf("B%d%v", tc.second, tc.disabled)}, "b.json", file)
		require.Empty(t, r.Errors)
		out.Report.Notices = nil
		require.NoError(t, json.Unmarshal(r.Data["importLorebook"], &out))
		require.Nil(t, out.Error)
		require.Len(t, alwaysOn(out.Report.Notices), tc.want, "%+v", tc)
	}
}

// TestByBookPersonaName: budget.byBook names the persona book by its
// persona's display name, on activate and activateTurn.
func TestByBookPersonaName(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 5, "n": "Mira"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	var ce struct{ Error *mutationError }
	a.must(serviceKey, qCreatePersonaEntry, map[string]any{"s": serverA, "l": 5, "c": "Mira's lore.", "t": "Mira"}, "createEntry", &ce)
	require.Nil(t, ce.Error)
	type books struct {
		Budget struct {
			ByBook []struct {
				LineageID    *int64
				CollectionID *string
				Name         string
				Entries      int
			}
		}
	}
	input := map[string]any{"serverDiscordId": serverA, "lineageId": 5, "channelId": "333333333333333333",
		"messages": []map[string]any{{"content": "the k is here"}}}
	var act books
	a.must(serviceKey, `query($i: ActivateInput!) { activate(input: $i) { budget { byBook { lineageId collectionId name entries } } } }`,
		map[string]any{"i": input}, "activate", &act)
	require.Len(t, act.Budget.ByBook, 1)
	b := act.Budget.ByBook[0]
	require.Equal(t, "Mira", b.Name)
	require.Equal(t, int64(5), *b.LineageID)
	require.Nil(t, b.CollectionID)
	require.Equal(t, 1, b.Entries)

	input["turnId"], input["messageCount"] = "t1", 1
	var turn struct{ Result books }
	a.must(serviceKey, `mutation($i: ActivateTurnInput!) { activateTurn(input: $i) { result { budget { byBook { lineageId collectionId name entries } } } } }`,
		map[string]any{"i": input}, "activateTurn", &turn)
	require.Len(t, turn.Result.Budget.ByBook, 1)
	require.Equal(t, "Mira", turn.Result.Budget.ByBook[0].Name)
}
