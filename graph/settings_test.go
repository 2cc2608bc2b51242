package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/lore/activation"
)

type bookSettings struct {
	ScanDepth, BudgetLimit, MaxRecursionSteps *int
	Recursive, CaseSensitive, WholeWords      *bool
}

func intp(v int) *int    { return &v }
func boolp(v bool) *bool { return &v }

// TestSettingsOverHTTP covers the server, collection and persona book
// settings and the new entry fields through the API on real Postgres.
func TestSettingsOverHTTP(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	manager := a.member("500000000000000002", map[string]auth.Membership{serverA: {Manage: true}})

	type serverSettings struct {
		RegexKeys   bool
		BudgetUnit  string
		BudgetLimit int
		Tokenizer   string
	}
	var sv struct{ Settings serverSettings }
	a.must(manager, `query($s: String!) { server(discordId: $s) { settings { regexKeys budgetUnit budgetLimit tokenizer } } }`, map[string]any{"s": serverA}, "server", &sv)
	require.Equal(t, serverSettings{RegexKeys: false, BudgetUnit: "CHARACTERS", BudgetLimit: 8000, Tokenizer: "o200k_base"}, sv.Settings,
		"new servers: regex keys off, 8,000 characters, o200k_base")

	update := `mutation($in: UpdateServerSettingsInput!) { updateServerSettings(input: $in) { server { settings { regexKeys budgetUnit budgetLimit tokenizer } } error { code field } } }`
	var sp struct {
		Server *struct{ Settings serverSettings }
		Error  *mutationError
	}
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"budgetUnit": "TOKENS", "budgetLimit": 50}, "budgetLimit"},
		{map[string]any{"budgetLimit": -1}, "budgetLimit"},
		{map[string]any{"tokenizer": "gpt2"}, "tokenizer"},
	} {
		bad.in["serverDiscordId"] = serverA
		a.must(manager, update, map[string]any{"in": bad.in}, "updateServerSettings", &sp)
		require.NotNil(t, sp.Error, "%v", bad.in)
		require.Equal(t, "INVALID_INPUT", sp.Error.Code)
		require.Equal(t, bad.field, *sp.Error.Field)
	}
	a.must(manager, update, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "regexKeys": true,
		"budgetUnit": "TOKENS", "budgetLimit": 3000, "tokenizer": "cl100k_base"}}, "updateServerSettings", &sp)
	require.Nil(t, sp.Error)
	require.Equal(t, serverSettings{RegexKeys: true, BudgetUnit: "TOKENS", BudgetLimit: 3000, Tokenizer: "cl100k_base"}, sp.Server.Settings)

	// Collection settings: set, patch, clear, validated in the server's unit.
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(manager, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	col := cp.Collection.ID
	updCol := `mutation($s: String!, $c: ID!, $set: BookSettingsInput!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: $set}) {
  collection { bookSettings { scanDepth budgetLimit recursive maxRecursionSteps caseSensitive wholeWords } } error { code field } } }`
	var cs struct {
		Collection *struct{ BookSettings bookSettings }
		Error      *mutationError
	}
	a.must(manager, updCol, map[string]any{"s": serverA, "c": col, "set": map[string]any{"scanDepth": 0, "budgetLimit": 4000, "recursive": true, "maxRecursionSteps": 3}}, "updateCollectionSettings", &cs)
	require.Nil(t, cs.Error)
	require.Equal(t, bookSettings{ScanDepth: intp(0), BudgetLimit: intp(4000), Recursive: boolp(true), MaxRecursionSteps: intp(3)}, cs.Collection.BookSettings)
	a.must(manager, updCol, map[string]any{"s": serverA, "c": col, "set": map[string]any{"budgetLimit": nil, "wholeWords": false}}, "updateCollectionSettings", &cs)
	require.Nil(t, cs.Error)
	require.Equal(t, bookSettings{ScanDepth: intp(0), Recursive: boolp(true), MaxRecursionSteps: intp(3), WholeWords: boolp(false)}, cs.Collection.BookSettings,
		"omitted fields keep their value, null clears")
	for field, v := range map[string]int{"budgetLimit": 99, "scanDepth": 101, "maxRecursionSteps": 11} {
		a.must(manager, updCol, map[string]any{"s": serverA, "c": col, "set": map[string]any{field: v}}, "updateCollectionSettings", &cs)
		require.NotNil(t, cs.Error, field)
		require.Equal(t, "INVALID_INPUT", cs.Error.Code)
		require.Equal(t, "settings."+field, *cs.Error.Field)
	}
	var read struct {
		Collection struct{ BookSettings bookSettings }
	}
	a.must(manager, `query($s: String!) { server(discordId: $s) { collection(name: "World") { bookSettings { scanDepth budgetLimit recursive maxRecursionSteps caseSensitive wholeWords } } } }`, map[string]any{"s": serverA}, "server", &read)
	require.Equal(t, bookSettings{ScanDepth: intp(0), Recursive: boolp(true), MaxRecursionSteps: intp(3), WholeWords: boolp(false)}, read.Collection.BookSettings,
		"refused writes changed nothing")

	// Persona book settings: a known lineage only.
	var pp struct{ Error *mutationError }
	a.must(manager, `mutation($s: String!) { upsertPersona(input: {serverDiscordId: $s, id: 1, lineageId: 7, name: "Aria"}) { error { code } } }`, map[string]any{"s": serverA}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	updBook := `mutation($s: String!, $l: Int64!, $set: BookSettingsInput!) { updatePersonaBookSettings(input: {serverDiscordId: $s, lineageId: $l, settings: $set}) {
  personaBook { lineageId personas { name } bookSettings { scanDepth budgetLimit recursive maxRecursionSteps caseSensitive wholeWords } } error { code field } } }`
	var bp struct {
		PersonaBook *struct {
			LineageID    int64
			Personas     []struct{ Name string }
			BookSettings bookSettings
		}
		Error *mutationError
	}
	a.must(manager, updBook, map[string]any{"s": serverA, "l": 7, "set": map[string]any{"budgetLimit": 500, "caseSensitive": true}}, "updatePersonaBookSettings", &bp)
	require.Nil(t, bp.Error)
	require.Equal(t, "Aria", bp.PersonaBook.Personas[0].Name)
	require.Equal(t, bookSettings{BudgetLimit: intp(500), CaseSensitive: boolp(true)}, bp.PersonaBook.BookSettings)
	var pb struct {
		PersonaBook struct{ BookSettings bookSettings }
	}
	a.must(manager, `query($s: String!) { server(discordId: $s) { personaBook(lineageId: 7) { bookSettings { budgetLimit caseSensitive } } } }`, map[string]any{"s": serverA}, "server", &pb)
	require.Equal(t, bookSettings{BudgetLimit: intp(500), CaseSensitive: boolp(true)}, pb.PersonaBook.BookSettings)
	for _, bad := range []struct {
		lineage int
		code    string
	}{{42, "NOT_FOUND"}, {0, "INVALID_INPUT"}} {
		a.must(manager, updBook, map[string]any{"s": serverA, "l": bad.lineage, "set": map[string]any{"recursive": true}}, "updatePersonaBookSettings", &bp)
		require.NotNil(t, bp.Error)
		require.Equal(t, bad.code, bp.Error.Code, "lineage %d", bad.lineage)
	}
}

// TestEntryActivationFieldsOverHTTP: the group, recursion and timed-effect
// fields are stored, read and patched through the API.
func TestEntryActivationFieldsOverHTTP(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { upsertPersona(input: {serverDiscordId: $s, id: 1, lineageId: 7, name: "Aria"}) { error { code } } }`, map[string]any{"s": serverA}, "upsertPersona", &pp)
	const fields = `group groupOverride groupWeight useGroupScoring excludeRecursion preventRecursion delayUntilRecursion sticky cooldown delay scanDepth`
	type entryFields struct {
		ID                                                string
		Group                                             string
		GroupOverride, ExcludeRecursion, PreventRecursion bool
		GroupWeight, DelayUntilRecursion                  int
		Sticky, Cooldown, Delay                           int
		UseGroupScoring                                   *bool
		ScanDepth                                         *int
	}
	var ep struct {
		Entry *entryFields
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 7, entry: $e}) { entry { id `+fields+` } error { code field } } }`,
		map[string]any{"s": serverA, "e": map[string]any{"content": "defaults"}}, "createEntry", &ep)
	require.Nil(t, ep.Error)
	require.Equal(t, entryFields{ID: ep.Entry.ID, GroupWeight: 100}, *ep.Entry, "defaults: no group, weight 100, no delays")

	in := map[string]any{"content": "weather", "group": "sky,mood", "groupOverride": true, "groupWeight": 30, "useGroupScoring": true,
		"excludeRecursion": true, "preventRecursion": true, "delayUntilRecursion": 2, "sticky": 3, "cooldown": 4, "delay": 5, "scanDepth": 0}
	a.must(serviceKey, `mutation($s: String!, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 7, entry: $e}) { entry { id `+fields+` } error { code field } } }`,
		map[string]any{"s": serverA, "e": in}, "createEntry", &ep)
	require.Nil(t, ep.Error)
	want := entryFields{ID: ep.Entry.ID, Group: "sky,mood", GroupOverride: true, GroupWeight: 30, UseGroupScoring: boolp(true),
		ExcludeRecursion: true, PreventRecursion: true, DelayUntilRecursion: 2, Sticky: 3, Cooldown: 4, Delay: 5, ScanDepth: intp(0)}
	require.Equal(t, want, *ep.Entry)

	patch := `mutation($s: String!, $id: ID!, $p: EntryPatchInput!) { updateEntry(input: {serverDiscordId: $s, lineageId: 7, entryId: $id, patch: $p}) { entry { id ` + fields + ` } error { code field } } }`
	a.must(serviceKey, patch, map[string]any{"s": serverA, "id": want.ID, "p": map[string]any{"useGroupScoring": nil, "sticky": 0, "group": "sky"}}, "updateEntry", &ep)
	require.Nil(t, ep.Error)
	want.UseGroupScoring, want.Sticky, want.Group = nil, 0, "sky"
	require.Equal(t, want, *ep.Entry, "a patch changes only what it names; null clears useGroupScoring")

	for field, v := range map[string]any{"groupWeight": -1, "delayUntilRecursion": -1, "cooldown": 100001} {
		a.must(serviceKey, patch, map[string]any{"s": serverA, "id": want.ID, "p": map[string]any{field: v}}, "updateEntry", &ep)
		require.NotNil(t, ep.Error, field)
		require.Equal(t, field, *ep.Error.Field)
	}
}

// TestActivateUsesSettingsLayers: the activation request reads the server
// layer (regex keys, budget unit, tokenizer), the book settings of the
// collection and the persona book, the request's new overrides and
// messageCount, and reports tokens, passes and who triggered whom.
func TestActivateUsesSettingsLayers(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { upsertPersona(input: {serverDiscordId: $s, id: 1, lineageId: 7, name: "Aria"}) { error { code } } }`, map[string]any{"s": serverA}, "upsertPersona", &pp)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	col := cp.Collection.ID
	ids := map[string]string{}
	create := func(lineage int, title string, e map[string]any) {
		t.Helper()
		var ep struct {
			Entry *struct{ ID string }
			Error *mutationError
		}
		e["title"] = title
		vars := map[string]any{"s": serverA, "l": lineage, "e": e}
		if lineage == 0 {
			vars["c"] = col
		}
		a.must(serviceKey, `mutation($s: String!, $l: Int64!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: $l, collectionId: $c, entry: $e}) { entry { id } error { code message } } }`, vars, "createEntry", &ep)
		require.Nil(t, ep.Error, title)
		ids[title] = ep.Entry.ID
	}
	create(0, "tower", map[string]any{"content": "The tower hides a dragon.", "keys": []string{"tower"}})
	create(0, "dragon", map[string]any{"content": "Dragons sleep by day.", "keys": []string{"dragon"}})
	create(0, "regex", map[string]any{"content": "Screams echo.", "keys": []string{"/a{3,}h/"}})
	create(0, "greeting", map[string]any{"content": "@@is_greeting\nWelcome, traveller.", "constant": true})
	create(7, "secret", map[string]any{"content": "Aria keeps a secret.", "keys": []string{"tower"}})

	type admitted struct {
		ID, Title   string
		Tokens      *int
		Pass        int
		TriggeredBy *string
	}
	type traceItem struct {
		ID, Title, Verdict string
		Pass               int
		TriggeredBy        *string
	}
	var act struct {
		Admitted []admitted
		Budget   struct {
			Unit        string
			Limit, Used int
		}
		Trace  []traceItem
		Passes int
	}
	const q = `query($in: ActivateInput!) { activate(input: $in) { admitted { id title tokens pass triggeredBy } budget { unit limit used } trace { id title verdict pass triggeredBy } passes } }`
	run := func(in map[string]any) map[string]admitted {
		t.Helper()
		in["serverDiscordId"], in["lineageId"] = serverA, 7
		if _, ok := in["messages"]; !ok {
			in["messages"] = []map[string]any{{"content": "Hello."}, {"content": "Let us climb the tower. Aaaah!"}}
		}
		a.must(serviceKey, q, map[string]any{"in": in}, "activate", &act)
		out := map[string]admitted{}
		for _, ad := range act.Admitted {
			out[ad.Title] = ad
		}
		return out
	}
	verdict := func(title string) string {
		for _, tr := range act.Trace {
			if tr.Title == title {
				return tr.Verdict
			}
		}
		return ""
	}

	// Defaults: regex keys off (the /a{3,}h/ key is literal), one pass,
	// 8,000 characters, tokens counted for every admitted entry.
	got := run(map[string]any{})
	require.Contains(t, got, "tower")
	require.Contains(t, got, "secret")
	require.NotContains(t, got, "regex", "new servers treat /pattern/ keys as literal text")
	require.NotContains(t, got, "dragon", "no recursion by default")
	require.Equal(t, "decorator_blocked", verdict("greeting"), "two messages are past the greeting")
	require.Equal(t, 1, act.Passes)
	require.Equal(t, "utf16", act.Budget.Unit)
	require.Equal(t, 8000, act.Budget.Limit)
	require.NotNil(t, got["tower"].Tokens)
	require.Positive(t, *got["tower"].Tokens)

	// messageCount 1: the conversation is at its greeting; 3 is past it.
	got = run(map[string]any{"messageCount": 1, "messages": []map[string]any{{"content": "Hi."}}})
	require.Contains(t, got, "greeting")
	run(map[string]any{"messageCount": 3, "messages": []map[string]any{{"content": "Hi."}}})
	require.Equal(t, "decorator_blocked", verdict("greeting"))

	// Request overrides: recursion, a token budget.
	got = run(map[string]any{"overrides": map[string]any{"recursive": true, "budgetTokens": 500}})
	require.Contains(t, got, "dragon", "the tower's content activates the dragon")
	require.Equal(t, 2, got["dragon"].Pass)
	require.Equal(t, ids["tower"], *got["dragon"].TriggeredBy)
	require.Equal(t, "tokens", act.Budget.Unit)
	require.Equal(t, 500, act.Budget.Limit)
	r := a.do(serviceKey, q, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "messages": []map[string]any{{"content": "x"}},
		"overrides": map[string]any{"budget": 1000, "budgetTokens": 500}}})
	require.NotEmpty(t, r.Errors, "budget and budgetTokens together are refused")
	require.Contains(t, r.Errors[0].Message, "budgetTokens")

	// Book settings: the collection recurses, the persona book scans no
	// chat message; the server counts tokens with regex keys on.
	var cs struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $c: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: {recursive: true, maxRecursionSteps: 2}}) { error { code } } }`, map[string]any{"s": serverA, "c": col}, "updateCollectionSettings", &cs)
	require.Nil(t, cs.Error)
	var bp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { updatePersonaBookSettings(input: {serverDiscordId: $s, lineageId: 7, settings: {scanDepth: 0}}) { error { code } } }`, map[string]any{"s": serverA}, "updatePersonaBookSettings", &bp)
	require.Nil(t, bp.Error)
	var sp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, regexKeys: true, budgetUnit: TOKENS, budgetLimit: 300}) { error { code } } }`, map[string]any{"s": serverA}, "updateServerSettings", &sp)
	require.Nil(t, sp.Error)
	got = run(map[string]any{})
	require.Contains(t, got, "dragon", "the collection's recursion applies without an override")
	require.Contains(t, got, "regex", "regex keys on")
	require.NotContains(t, got, "secret", "the persona book's scan depth 0 scans no chat message")
	require.Equal(t, "tokens", act.Budget.Unit)
	require.Equal(t, 300, act.Budget.Limit)
}

// TestImportStoresBookSettings: an import that creates or replaces a book
// stores the file's book settings (a budget only in the server's unit);
// an append keeps the book's own and says so.
func TestImportStoresBookSettings(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	card := []byte(`{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Keeper", "character_book": {"name": "Keep",
		"scan_depth": 4, "token_budget": 1000, "recursive_scanning": true,
		"entries": [{"keys": ["gate"], "content": "The gate is shut.", "enabled": true, "insertion_order": 1, "extensions": {}}]}}}`)
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "keep.json", card)
	require.Nil(t, imp.Error)
	require.True(t, containsWarning(imp.Report.Warnings, "budget of 1000 tokens was not applied: this server counts characters"), "%v", imp.Report.Warnings)
	settings := func() bookSettings {
		t.Helper()
		var sv struct {
			Collection struct{ BookSettings bookSettings }
		}
		a.must(serviceKey, `query($s: String!) { server(discordId: $s) { collection(name: "Keep") { bookSettings { scanDepth budgetLimit recursive maxRecursionSteps caseSensitive wholeWords } } } }`, map[string]any{"s": serverA}, "server", &sv)
		return sv.Collection.BookSettings
	}
	require.Equal(t, bookSettings{ScanDepth: intp(4), Recursive: boolp(true)}, settings(), "a new collection takes the file's settings")

	var sv struct {
		Server struct{ Settings struct{ BudgetLimit int } }
		Error  *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, budgetUnit: TOKENS}) { server { settings { budgetLimit } } error { code } } }`, map[string]any{"s": serverA}, "updateServerSettings", &sv)
	require.Nil(t, sv.Error)
	require.Equal(t, activation.DefaultTokenBudget, sv.Server.Settings.BudgetLimit, "the server's default token budget is the engine's")
	var cs struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $c: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: {scanDepth: 9, recursive: false}}) { error { code } } }`,
		map[string]any{"s": serverA, "c": imp.Collection.ID}, "updateCollectionSettings", &cs)
	require.Nil(t, cs.Error)

	imp2 := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collection": imp.Collection.ID}, "keep.json", card)
	require.Nil(t, imp2.Error)
	require.True(t, containsWarning(imp2.Report.Warnings, "appending keeps the book's own settings"), "%v", imp2.Report.Warnings)
	require.Equal(t, bookSettings{ScanDepth: intp(9), Recursive: boolp(false)}, settings(), "APPEND keeps the book's settings")

	imp3 := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collection": imp.Collection.ID, "mode": "REPLACE"}, "keep.json", card)
	require.Nil(t, imp3.Error)
	require.Equal(t, bookSettings{ScanDepth: intp(4), BudgetLimit: intp(1000), Recursive: boolp(true)}, settings(), "REPLACE stores the file's settings, the token budget too now")

	// Exports carry the stored settings: natively in a CCv3 lorebook, in
	// extensions.loregate_settings in world info.
	var ex struct {
		JSON  *string
		Error *mutationError
	}
	const qExport = `query($s: String!, $c: ID, $f: ExportFormat) { exportLorebook(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, format: $f}) { json error { code } } }`
	a.must(serviceKey, qExport, map[string]any{"s": serverA, "c": imp.Collection.ID, "f": "CCV3_LOREBOOK"}, "exportLorebook", &ex)
	require.Nil(t, ex.Error)
	var v3 struct {
		Data struct {
			ScanDepth   int  `json:"scan_depth"`
			TokenBudget int  `json:"token_budget"`
			Recursive   bool `json:"recursive_scanning"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(*ex.JSON), &v3))
	require.Equal(t, 4, v3.Data.ScanDepth)
	require.Equal(t, 1000, v3.Data.TokenBudget)
	require.True(t, v3.Data.Recursive)
	a.must(serviceKey, qExport, map[string]any{"s": serverA, "c": imp.Collection.ID}, "exportLorebook", &ex)
	require.Nil(t, ex.Error)
	var wi struct {
		Extensions struct {
			Settings map[string]any `json:"loregate_settings"`
		} `json:"extensions"`
	}
	require.NoError(t, json.Unmarshal([]byte(*ex.JSON), &wi))
	require.Equal(t, map[string]any{"scanDepth": float64(4), "budgetLimit": float64(1000), "budgetUnit": "tokens", "recursive": true}, wi.Extensions.Settings)
}

// TestPersonaCardStoresBookSettings: a character card imported as a
// persona gives its book's settings to the persona book.
func TestPersonaCardStoresBookSettings(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	card := []byte(`{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Wren", "character_book": {"scan_depth": 3, "recursive_scanning": true,
		"entries": [{"keys": ["gate"], "content": "The gate is shut.", "enabled": true, "insertion_order": 1, "extensions": {}}]}}}`)
	p, r := importCard(t, a, serviceKey, map[string]any{"serverDiscordId": serverA}, "wren.json", card)
	require.Empty(t, r.Errors)
	require.Nil(t, p.Error)
	var pb struct {
		PersonaBook struct{ BookSettings bookSettings }
	}
	a.must(serviceKey, `query($s: String!, $l: Int64!) { server(discordId: $s) { personaBook(lineageId: $l) { bookSettings { scanDepth budgetLimit recursive maxRecursionSteps caseSensitive wholeWords } } } }`,
		map[string]any{"s": serverA, "l": p.Persona.LineageID}, "server", &pb)
	require.Equal(t, bookSettings{ScanDepth: intp(3), Recursive: boolp(true)}, pb.PersonaBook.BookSettings)
}

func containsWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}
