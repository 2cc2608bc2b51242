package graph_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/i18n"
)

type fieldError struct {
	Field, Reason, Message string
	Params                 map[string]any
}

type reasonedError struct {
	Code, Message, Reason string
	Field                 *string
	Params                map[string]any
	Fields                []fieldError
}

const qCreateEntryReasons = `mutation($s: String!, $l: Int64!, $c: ID, $e: EntryInput!) {
	createEntry(input: {serverDiscordId: $s, lineageId: $l, collectionId: $c, entry: $e}) {
		entry { id } error { code message field reason params fields { field reason message params } } } }`

// TestAPIReturnsEveryFieldError: a createEntry that breaks four rules
// answers INVALID_INPUT with the four field errors at once, each with its
// reason key and params, renderable in English, Portuguese and Spanish;
// nothing is written.
func TestAPIReturnsEveryFieldError(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct{ Collection struct{ ID string } }
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } } }`,
		map[string]any{"s": serverA}, "createCollection", &cp)
	var ep struct {
		Entry *struct{ ID string }
		Error *reasonedError
	}
	a.must(serviceKey, qCreateEntryReasons, map[string]any{"s": serverA, "l": 0, "c": cp.Collection.ID, "e": map[string]any{
		"title": strings.Repeat("t", lore.MaxTitleLen+1), "content": "A glade.", "keys": []string{"glade", strings.Repeat("k", lore.MaxKeyLen+1)},
		"probability": 150, "scanDepth": 101}}, "createEntry", &ep)
	require.Nil(t, ep.Entry)
	require.NotNil(t, ep.Error)
	e := ep.Error
	require.Equal(t, "INVALID_INPUT", e.Code)
	require.Equal(t, "title", *e.Field)
	require.Equal(t, "too_long", e.Reason)
	require.Equal(t, map[string]any{"length": float64(lore.MaxTitleLen + 1), "max": float64(lore.MaxTitleLen)}, e.Params)
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field+" "+f.Reason)
		for _, lang := range i18n.Langs() {
			s := i18n.Text(lang, f.Reason, f.Params)
			require.NotContains(t, s, "{", "%s in %s", f.Field, lang)
		}
	}
	require.Equal(t, []string{"title too_long", "keys[1] too_long", "scanDepth out_of_range", "probability out_of_range"}, got)
	require.Equal(t, "invalid probability: 150 is outside 0-100", e.Fields[3].Message)
	require.Equal(t, "tem 201 caracteres; o máximo é 200", i18n.Text(i18n.PT, e.Fields[0].Reason, e.Fields[0].Params))
	require.Equal(t, "150 está fuera del rango 0-100", i18n.Text(i18n.ES, e.Fields[3].Reason, e.Fields[3].Params))

	var srv struct{ Collection struct{ EntryCount int } }
	a.must(serviceKey, `query($s: String!) { server(discordId: $s) { collection(name: "World") { entryCount } } }`, map[string]any{"s": serverA}, "server", &srv)
	require.Zero(t, srv.Collection.EntryCount, "nothing was written")
}

// TestNotFoundNamesTheArgument: NOT_FOUND names the argument that did not
// resolve (field and params.argument), with the id asked for; undoImport and
// deleteServer once named "import %d" and "server %s" instead.
func TestNotFoundNamesTheArgument(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct{ Collection struct{ ID string } }
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } } }`,
		map[string]any{"s": serverA}, "createCollection", &cp)
	const errSel = `error { code message field reason params }`
	for _, tc := range []struct {
		name, query, field string
		vars               map[string]any
		reason, id, arg    string
	}{
		{"unknown entry", `mutation($s: String!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: "987654", patch: {title: "x"}}) { ` + errSel + ` } }`,
			"updateEntry", map[string]any{"s": serverA}, "not_found", "987654", "entryId"},
		{"unknown collection", `mutation($s: String!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: "424242", entry: {content: "x"}}) { ` + errSel + ` } }`,
			"createEntry", map[string]any{"s": serverA}, "not_found", "424242", "collectionId"},
		{"unknown server", `mutation { createCollection(input: {serverDiscordId: "333333333333333333", name: "W"}) { ` + errSel + ` } }`,
			"createCollection", nil, "not_found", "333333333333333333", "serverDiscordId"},
		{"unknown lineage", `mutation($s: String!) { createEntry(input: {serverDiscordId: $s, lineageId: 99, entry: {content: "x"}}) { ` + errSel + ` } }`,
			"createEntry", map[string]any{"s": serverA}, "unknown_lineage", "99", "lineageId"},
		{"unknown collection to delete", `mutation($s: String!) { deleteCollection(input: {serverDiscordId: $s, collectionId: "5555"}) { ` + errSel + ` } }`,
			"deleteCollection", map[string]any{"s": serverA}, "not_found", "5555", "collectionId"},
		{"unknown import to undo", `mutation($s: String!) { undoImport(input: {serverDiscordId: $s, importId: "777"}) { ` + errSel + ` } }`,
			"undoImport", map[string]any{"s": serverA}, "not_found", "777", "importId"},
		{"unknown server to delete", `mutation { deleteServer(input: {serverDiscordId: "333333333333333333", confirm: false}) { ` + errSel + ` } }`,
			"deleteServer", nil, "not_found", "333333333333333333", "serverDiscordId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p struct{ Error *reasonedError }
			a.must(serviceKey, tc.query, tc.vars, tc.field, &p)
			require.NotNil(t, p.Error)
			require.Equal(t, "NOT_FOUND", p.Error.Code)
			require.Equal(t, tc.reason, p.Error.Reason)
			require.Equal(t, tc.id, p.Error.Params["id"])
			require.NotNil(t, p.Error.Field)
			require.Contains(t, p.Error.Message, tc.id)
			require.Equal(t, tc.arg, *p.Error.Field)
			require.NotContains(t, p.Error.Message, "%", "no format verb leaks into the message")
			if tc.reason == "not_found" {
				require.Equal(t, tc.arg, p.Error.Params["argument"])
				require.Contains(t, p.Error.Message, tc.arg)
			}
		})
	}
}

// TestTraceReasons: every trace item carries its verdict's reason key,
// known to lore/i18n, and params with its pass.
func TestTraceReasons(t *testing.T) {
	a := newAPI(t)
	want := traceScope(t, a)
	input := map[string]any{"serverDiscordId": serverA, "lineageId": 7, "messages": []map[string]any{{"content": traceChat}}}
	var act struct {
		Trace []struct {
			Title, Verdict, Reason string
			Params                 map[string]any
			Pass                   int
		}
	}
	a.must(serviceKey, `query($input: ActivateInput!) { activate(input: $input) { trace { title verdict reason params pass } } }`,
		map[string]any{"input": input}, "activate", &act)
	require.Len(t, act.Trace, len(want))
	for _, it := range act.Trace {
		require.Equal(t, it.Verdict, it.Reason, it.Title)
		require.True(t, i18n.Known(it.Reason), it.Reason)
		require.Equal(t, float64(it.Pass), it.Params["pass"], it.Title)
		for _, lang := range i18n.Langs() {
			require.NotContains(t, i18n.Text(lang, it.Reason, it.Params), "{", "%s %s", it.Title, lang)
		}
	}
}
