package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// traceScope builds, on serverA, a Serverwide collection World with an
// admitted entry, a disabled entry and a near miss; a disabled collection
// Old with one entry; and persona lineage 7 with a disabled entry. It
// returns the verdict and detail expected of each title in a preview of
// "We rest in the glade by the everglades." for lineage 7.
func traceScope(t *testing.T, a *api) map[string]string {
	t.Helper()
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 7, "n": "Seraphina"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	collection := func(name string) string {
		var cp struct {
			Collection *struct{ ID string }
			Error      *mutationError
		}
		a.must(serviceKey, `mutation($s: String!, $n: String!) { createCollection(input: {serverDiscordId: $s, name: $n}) { collection { id } error { code } } }`,
			map[string]any{"s": serverA, "n": name}, "createCollection", &cp)
		require.Nil(t, cp.Error)
		return cp.Collection.ID
	}
	entry := func(lineage int, col any, title, key string, enabled bool) {
		var ep struct {
			Entry *struct{ ID string }
			Error *mutationError
		}
		a.must(serviceKey, `mutation($s: String!, $l: Int64!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: $l, collectionId: $c, entry: $e}) { entry { id } error { code message } } }`,
			map[string]any{"s": serverA, "l": lineage, "c": col, "e": map[string]any{"title": title, "content": title + " lore", "keys": []string{key}}}, "createEntry", &ep)
		require.Nil(t, ep.Error)
		if !enabled {
			var sp struct{ Error *mutationError }
			a.must(serviceKey, `mutation($s: String!, $l: Int64!, $e: ID!) { setEntryEnabled(input: {serverDiscordId: $s, lineageId: $l, entryId: $e, enabled: false}) { error { code } } }`,
				map[string]any{"s": serverA, "l": lineage, "e": ep.Entry.ID}, "setEntryEnabled", &sp)
			require.Nil(t, sp.Error)
		}
	}
	world, old := collection("World"), collection("Old")
	entry(0, world, "Glade", "glade", true)
	entry(0, world, "Off", "glade", false)
	entry(0, world, "Ever", "ever", true)
	entry(0, old, "Old lore", "glade", true)
	entry(7, nil, "Persona off", "glade", false)
	var cp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $c: ID!) { setCollectionEnabled(input: {serverDiscordId: $s, collectionId: $c, enabled: false}) { error { code } } }`,
		map[string]any{"s": serverA, "c": old}, "setCollectionEnabled", &cp)
	require.Nil(t, cp.Error)
	return map[string]string{
		"Glade":       "admitted",
		"Off":         "disabled: entry is disabled",
		"Ever":        `no_key_match: no key in the last 1 message; near miss: key "ever" appears inside a word, and whole words are on`,
		"Old lore":    `gated_collection: collection "Old" is disabled`,
		"Persona off": "disabled: entry is disabled",
	}
}

const traceChat = "We rest in the glade by the everglades."

func traceOf(items []traceItem) map[string]string {
	out := map[string]string{}
	for _, it := range items {
		v := it.Verdict
		if it.Detail != nil && v != "admitted" {
			v += ": " + *it.Detail
		}
		out[it.Title] = v
	}
	return out
}

// TestPreviewTraceListsEveryEntry: a selected trace (activate,
// activateTurn's result, assemblePrompt's activation) lists every entry of
// the scope with its verdict, disabled entries and those of disabled
// collections included, and names near misses; a recorded turn's reasons
// and params, rebuilt from its stored trace, equal the dry run's, on the
// turn and on its retry (the gate's collection, the entry's chance).
func TestPreviewTraceListsEveryEntry(t *testing.T) {
	a := newAPI(t) // through the scope cache, as serve runs
	want := traceScope(t, a)
	var ep struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 7, entry: $e}) { error { code message } } }`,
		map[string]any{"s": serverA, "e": map[string]any{"title": "Never", "content": "never", "keys": []string{"glade"}, "probability": 0}}, "createEntry", &ep)
	require.Nil(t, ep.Error)
	want["Never"] = "chance_failed: trigger chance is 0%"
	input := map[string]any{"serverDiscordId": serverA, "lineageId": 7, "messages": []map[string]any{{"content": traceChat}}}

	var act struct{ Trace []traceItem }
	a.must(serviceKey, `query($input: ActivateInput!) { activate(input: $input) { trace { id title verdict detail reason params pass } } }`,
		map[string]any{"input": input}, "activate", &act)
	require.Equal(t, want, traceOf(act.Trace))
	require.Len(t, act.Trace, len(want), "each entry once")
	reasons := func(items []traceItem) map[string]any {
		out := map[string]any{}
		for _, it := range items {
			out[it.Title] = []any{it.Reason, it.Params}
		}
		return out
	}
	dry := reasons(act.Trace)
	require.Equal(t, []any{"gated_collection", map[string]any{"pass": 0.0, "collection": "Old"}}, dry["Old lore"])
	require.Equal(t, []any{"chance_failed", map[string]any{"pass": 0.0, "chance": 0.0}}, dry["Never"])

	var ap struct{ Activation struct{ Trace []traceItem } }
	a.must(serviceKey, `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { activation { trace { id title verdict detail } } } }`,
		map[string]any{"input": map[string]any{"activation": input}}, "assemblePrompt", &ap)
	require.Equal(t, want, traceOf(ap.Activation.Trace))

	turn := map[string]any{"serverDiscordId": serverA, "lineageId": 7, "channelId": turnChannel, "turnId": "t1", "messageCount": 1,
		"messages": input["messages"]}
	for _, try := range []string{"recorded", "retried"} {
		var tp turnPayload
		a.must(serviceKey, qActivateTurn, map[string]any{"input": turn}, "activateTurn", &tp)
		require.Nil(t, tp.Error)
		require.Equal(t, want, traceOf(tp.Result.Trace), try)
		require.Equal(t, dry, reasons(tp.Result.Trace), "%s turn: the reasons of a dry run", try)
	}
}

// TestHotPathReadsNoHiddenEntries: without the trace (the bot's query)
// activate reads no scope listing and its engine names no near miss; with
// it, the listing is read.
func TestHotPathReadsNoHiddenEntries(t *testing.T) {
	store := &countingStore{HistoryStore: postgres.New(postgrestest.NewPool(t))}
	a := newAPIWithStore(t, store)
	traceScope(t, a)
	input := map[string]any{"serverDiscordId": serverA, "lineageId": 7, "messages": []map[string]any{{"content": traceChat}}}
	store.lists.Store(0)
	var bot struct{ Admitted []struct{ Title string } }
	a.must(serviceKey, `query($input: ActivateInput!) { activate(input: $input) { admitted { title } } }`, map[string]any{"input": input}, "activate", &bot)
	require.Equal(t, []struct{ Title string }{{"Glade"}}, bot.Admitted)
	require.Zero(t, store.lists.Load(), "the bot's query lists no scope")
	var act struct{ Trace []traceItem }
	a.must(serviceKey, qActivate, map[string]any{"input": input}, "activate", &act)
	require.Len(t, act.Trace, 5)
	require.NotZero(t, store.lists.Load(), "a preview lists the scope")
}
