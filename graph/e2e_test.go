package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

const (
	qUpsertServer  = `mutation($id: String!, $name: String!) { upsertServer(input: {discordId: $id, name: $name}) { server { discordId } error { code message } } }`
	qUpsertPersona = `mutation($s: String!, $id: Int64!, $l: Int64!, $n: String!) { upsertPersona(input: {serverDiscordId: $s, id: $id, lineageId: $l, name: $n}) { persona { id lineageId name } error { code message } } }`
	qImport        = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) {
		added duplicates replaced collection { id name entryCount }
		report { format entries skipped { index reason } unsupportedKeys ignoredSettings { name count } collapsedPlacements inert dropped split { index parts } warnings }
		error { code message field limit } } }`
	qServer = `query($id: String!, $l: Int64!) { server(discordId: $id) {
		name canManage entryCounts { lineageId count }
		personas { id lineageId name removed }
		collections(first: 10) { totalCount edges { node { id name enabled entryCount } } }
		personaBook(lineageId: $l) { lineageId entryCount personas { name } entries(first: 5) { totalCount edges { node { id title } } } } } }`
	qActivate = `query($input: ActivateInput!) { activate(input: $input) {
		admitted { id title placement group content } blocks { tag role text } budget { unit limit used } trace { id title verdict detail } } }`
	qExport = `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { fileName json entries error { code message } } }`
)

type mutationError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   *string
	Limit   *int
}

type importPayload struct {
	Added, Duplicates, Replaced int
	Collection                  *struct {
		ID         string
		Name       string
		EntryCount int
	}
	Report *struct {
		Format  string
		Entries int
		Skipped []struct {
			Index  int
			Reason string
		}
		UnsupportedKeys     []string
		CollapsedPlacements int
		Inert               int
		Split               []struct{ Index, Parts int }
		Warnings            []string
	}
	Error *mutationError
}

func (a *api) importFile(bearer string, input map[string]any, name string, data []byte) importPayload {
	a.t.Helper()
	r := a.upload(bearer, qImport, input, name, data)
	require.Empty(a.t, r.Errors)
	var p importPayload
	require.NoError(a.t, json.Unmarshal(r.Data["importLorebook"], &p))
	return p
}

type activationResult struct {
	Admitted []struct{ ID, Title, Placement, Group, Content string }
	Blocks   []struct{ Tag, Role, Text string }
	Budget   struct {
		Unit        string
		Limit, Used int
	}
	Trace []struct {
		ID, Title, Verdict string
		Detail             *string
	}
}

func setupServer(t *testing.T, a *api, id string) {
	t.Helper()
	var p struct{ Error *mutationError }
	a.must(serviceKey, qUpsertServer, map[string]any{"id": id, "name": "Server " + id}, "upsertServer", &p)
	require.Nil(t, p.Error)
}

// TestEndToEnd drives the API as the bot and a dashboard would: register a
// server and a persona, import real corpus files (world info, PNG card,
// CHARX) into collections and a persona book, list, edit, export, re-import
// the export, and activate a chat turn.
func TestEndToEnd(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct {
		Persona *struct{ ID, LineageID int64 }
		Error   *mutationError
	}
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 7, "n": "Seraphina"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)

	// World info into a new Serverwide collection named after the file.
	eldoria := corpus(t, "st-worldinfo/sillytavern__Eldoria.json")
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "Eldoria.json", eldoria)
	require.Nil(t, imp.Error)
	require.Equal(t, 4, imp.Added)
	require.Equal(t, "st-worldinfo", imp.Report.Format)
	require.Equal(t, "Eldoria", imp.Collection.Name)
	require.Equal(t, 4, imp.Collection.EntryCount)
	eldoriaID := imp.Collection.ID

	// The same file again into the same collection: every entry is a duplicate.
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collection": eldoriaID}, "Eldoria.json", eldoria)
	require.Nil(t, imp.Error)
	require.Equal(t, 0, imp.Added)
	require.Equal(t, 4, imp.Duplicates)

	// A new collection with the same name is refused.
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "Eldoria.json", eldoria)
	require.Equal(t, "DUPLICATE_NAME", imp.Error.Code)
	require.Contains(t, imp.Error.Message, `"Eldoria"`, "the message names the taken name")

	// A PNG card's book into the persona book.
	png := corpus(t, "png/sillytavern__default_Seraphina.png")
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 7}, "Seraphina.png", png)
	require.Nil(t, imp.Error)
	require.Equal(t, 4, imp.Added)
	require.Equal(t, "png/v2-card", imp.Report.Format)

	// A CHARX card into a named collection.
	charx := corpus(t, "charx/woduseh__Veil_of_Night_v2.charx")
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Veil"}, "veil.charx", charx)
	require.Nil(t, imp.Error, "%+v", imp.Error)
	require.Equal(t, "Veil", imp.Collection.Name)
	extraParts := 0
	for _, s := range imp.Report.Split {
		extraParts += s.Parts - 1
	}
	require.NotEmpty(t, imp.Report.Split, "long entries are split, not skipped")
	// 83 rows: 6 RisuAI folder rows (kept on their entries), 1 empty row.
	require.Equal(t, 83-6, imp.Added-extraParts+len(imp.Report.Skipped))
	veilID := imp.Collection.ID

	// List.
	var srv struct {
		Name        string
		CanManage   bool
		EntryCounts []struct {
			LineageID *int64
			Count     int
		}
		Collections struct {
			TotalCount int
			Edges      []struct {
				Node struct {
					ID, Name   string
					EntryCount int
				}
			}
		}
		PersonaBook struct {
			EntryCount int
			Personas   []struct{ Name string }
			Entries    struct {
				TotalCount int
				Edges      []struct{ Node struct{ ID, Title string } }
			}
		}
	}
	a.must(serviceKey, qServer, map[string]any{"id": serverA, "l": 7}, "server", &srv)
	require.True(t, srv.CanManage)
	require.Equal(t, 2, srv.Collections.TotalCount)
	require.Equal(t, 4, srv.PersonaBook.EntryCount)
	require.Equal(t, "Seraphina", srv.PersonaBook.Personas[0].Name)
	require.Len(t, srv.EntryCounts, 2)
	require.Nil(t, srv.EntryCounts[0].LineageID, "Serverwide first, with a null lineage")

	// Edit a persona entry: only the title changes; keys and channels stay.
	entryID := srv.PersonaBook.Entries.Edges[0].Node.ID
	var ep struct {
		Entry *struct {
			Title string
			Keys  []string
		}
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $id: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 7, entryId: $id, patch: {title: "Renamed"}}) { entry { title keys } error { code message } } }`,
		map[string]any{"s": serverA, "id": entryID}, "updateEntry", &ep)
	require.Nil(t, ep.Error)
	require.Equal(t, "Renamed", ep.Entry.Title)
	require.NotEmpty(t, ep.Entry.Keys)

	// Export the Eldoria collection and re-import it as a new collection.
	var ex struct {
		FileName *string
		JSON     *string
		Entries  int
		Error    *mutationError
	}
	a.must(serviceKey, qExport, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": eldoriaID}}, "exportLorebook", &ex)
	require.Nil(t, ex.Error)
	require.Equal(t, "Eldoria.json", *ex.FileName)
	require.Equal(t, 4, ex.Entries)
	require.True(t, json.Valid([]byte(*ex.JSON)))
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Eldoria copy"}, *ex.FileName, []byte(*ex.JSON))
	require.Nil(t, imp.Error)
	require.Equal(t, 4, imp.Added)

	// The Veil card's 46 Always On entries would fill the 8,000-character
	// budget before keyword entries are considered (Always On first): turn
	// that collection off, which hides its entries from activation.
	var cp struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!, $c: ID!) { setCollectionEnabled(input: {serverDiscordId: $s, collectionId: $c, enabled: false}) { error { code } } }`,
		map[string]any{"s": serverA, "c": veilID}, "setCollectionEnabled", &cp)
	require.Nil(t, cp.Error)

	// Activate: a chat about the glade admits the glade entry of both
	// Eldoria collections and of the persona book, and nothing unrelated.
	var act, bot activationResult
	turn := map[string]any{"input": map[string]any{
		"serverDiscordId": serverA, "lineageId": 7, "channelId": "333333333333333333",
		"messages": []map[string]any{{"name": "Ann", "role": "user", "content": "Hello there."}, {"name": "Ann", "role": "user", "content": "Can we rest in the glade tonight?"}},
		"names":    map[string]any{"user": "Ann", "char": "Seraphina"},
	}}
	a.must(serviceKey, qActivate, turn, "activate", &act)
	// The bot's selection (no trace: the engine skips building it) gets
	// the same entries, blocks and budget.
	a.must(serviceKey, strings.Replace(qActivate, "trace { id title verdict detail }", "", 1), turn, "activate", &bot)
	require.Empty(t, bot.Trace)
	require.Equal(t, act.Admitted, bot.Admitted)
	require.Equal(t, act.Blocks, bot.Blocks)
	require.Equal(t, act.Budget, bot.Budget)
	glade := 0
	for _, ad := range act.Admitted {
		if ad.Group == "ACTIVATED" {
			require.Contains(t, strings.ToLower(ad.Content), "glade", "only glade lore for a glade chat: %s", ad.Title)
			require.NotContains(t, ad.Content, "{{user}}", "identity macros resolved")
			glade++
		}
	}
	require.Equal(t, 3, glade, "the glade entry of Eldoria, Eldoria copy and the persona book: %+v", act.Trace)
	userBlock := false
	for _, b := range act.Blocks {
		if b.Role == "user" && strings.Contains(b.Text, "glade") {
			userBlock = true
		}
	}
	require.True(t, userBlock, "activated lore becomes a user-role block: %+v", act.Blocks)
	require.Equal(t, "utf16", act.Budget.Unit)
	require.Equal(t, 8000, act.Budget.Limit)
	require.Positive(t, act.Budget.Used)
	require.NotEmpty(t, act.Trace)
}

// TestMutationErrors checks every typed error kind through HTTP.
func TestMutationErrors(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code message } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	require.Nil(t, cp.Error)
	col := cp.Collection.ID

	createEntry := `mutation($s: String!, $l: Int64!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: $l, collectionId: $c, entry: $e}) { entry { id } error { code message field limit } } }`
	var ep struct {
		Entry *struct{ ID string }
		Error *mutationError
	}
	// INVALID_INPUT with the field.
	a.must(serviceKey, createEntry, map[string]any{"s": serverA, "l": 0, "c": col, "e": map[string]any{"content": "x", "scanDepth": -1}}, "createEntry", &ep)
	require.Equal(t, "INVALID_INPUT", ep.Error.Code)
	require.Equal(t, "scanDepth", *ep.Error.Field)
	// NOT_FOUND: an unknown entry, an unknown lineage.
	var dp struct {
		Ok    bool
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { deleteEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: "999999"}) { ok error { code message } } }`, map[string]any{"s": serverA}, "deleteEntry", &dp)
	require.Equal(t, "NOT_FOUND", dp.Error.Code)
	a.must(serviceKey, createEntry, map[string]any{"s": serverA, "l": 42, "e": map[string]any{"content": "x"}}, "createEntry", &ep)
	require.Equal(t, "NOT_FOUND", ep.Error.Code)
	require.Contains(t, ep.Error.Message, "lineage")
	// DUPLICATE_NAME.
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code message } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	require.Equal(t, "DUPLICATE_NAME", cp.Error.Code)
	// SCOPE_FULL: a 256-entry book cannot enter a 250-entry scope, and
	// nothing of it is written (no empty collection either).
	gi := corpus(t, "st-worldinfo/bronya-rand__GI-Core.json")
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "GI-Core.json", gi)
	require.Equal(t, "SCOPE_FULL", imp.Error.Code, "%+v", imp.Error)
	require.Equal(t, 250, *imp.Error.Limit)
	var srv struct{ Collections struct{ TotalCount int } }
	a.must(serviceKey, `query($id: String!) { server(discordId: $id) { collections { totalCount } } }`, map[string]any{"id": serverA}, "server", &srv)
	require.Equal(t, 1, srv.Collections.TotalCount, "a refused import leaves no empty book")
	// INVALID_INPUT for a card without a book, and for garbage.
	amy := corpus(t, "png/sillytavern-content__contest_Assistant_Amy_nobook.png")
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collection": col}, "amy.png", amy)
	require.Equal(t, "INVALID_INPUT", imp.Error.Code)
	require.Contains(t, imp.Error.Message, "no lorebook")
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "x.json", []byte(`{"hello": 1}`))
	require.Equal(t, "INVALID_INPUT", imp.Error.Code)
}

// TestAuthorization is the permission matrix: anonymous, member, manager,
// service, and a manager of another server, against reads, every kind of
// write and cross-server id guessing.
func TestAuthorization(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "Secret"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	colA := cp.Collection.ID
	var ep struct {
		Entry *struct{ ID string }
		Error *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $c: ID) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: {content: "the secret of A", keys: ["secret"]}}) { entry { id } error { code } } }`, map[string]any{"s": serverA, "c": colA}, "createEntry", &ep)
	entryA := ep.Entry.ID

	member := a.member("500000000000000001", map[string]auth.Membership{serverA: {}})
	manager := a.member("500000000000000002", map[string]auth.Membership{serverA: {Manage: true}})
	otherManager := a.member("500000000000000003", map[string]auth.Membership{serverB: {Manage: true}})

	// Anonymous and bad credentials: 401 before GraphQL.
	for _, bearer := range []string{"", "not-a-token", manager[:len(manager)-2] + "xx"} {
		r := a.do(bearer, `{ server(discordId: "`+serverA+`") { name } }`, nil)
		require.Equal(t, 401, r.status)
	}

	read := `query($id: String!) { server(discordId: $id) { name collections { edges { node { name entries { edges { node { content } } } } } } } }`
	tests := []struct {
		name      string
		bearer    string
		canRead   bool
		canManage bool
	}{
		{"member", member, true, false},
		{"manager", manager, true, true},
		{"service", serviceKey, true, true},
		{"manager of another server", otherManager, false, false},
	}
	writes := []struct {
		name, query string
		vars        map[string]any
	}{
		{"updateServerSettings", `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, regexKeys: false}) { error { code } } }`, nil},
		{"upsertPersona", `mutation($s: String!) { upsertPersona(input: {serverDiscordId: $s, id: 9, lineageId: 9, name: "P"}) { error { code } } }`, nil},
		{"removePersona", `mutation($s: String!) { removePersona(input: {serverDiscordId: $s, id: 9}) { error { code } } }`, nil},
		{"createCollection", `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "New"}) { error { code } } }`, nil},
		{"renameCollection", `mutation($s: String!, $c: ID!) { renameCollection(input: {serverDiscordId: $s, collectionId: $c, name: "Renamed"}) { error { code } } }`, map[string]any{"c": colA}},
		{"setCollectionEnabled", `mutation($s: String!, $c: ID!) { setCollectionEnabled(input: {serverDiscordId: $s, collectionId: $c, enabled: true}) { error { code } } }`, map[string]any{"c": colA}},
		{"setCollectionChannels", `mutation($s: String!, $c: ID!) { setCollectionChannels(input: {serverDiscordId: $s, collectionId: $c, channelIds: []}) { error { code } } }`, map[string]any{"c": colA}},
		{"updateCollectionSettings", `mutation($s: String!, $c: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: {recursive: true}}) { error { code } } }`, map[string]any{"c": colA}},
		{"updatePersonaBookSettings", `mutation($s: String!, $l: Int64!) { updatePersonaBookSettings(input: {serverDiscordId: $s, lineageId: $l, settings: {scanDepth: 3}}) { error { code } } }`, map[string]any{"l": 9}},
		{"createEntry", `mutation($s: String!, $c: ID) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: {content: "x"}}) { error { code } } }`, map[string]any{"c": colA}},
		{"updateEntry", `mutation($s: String!, $e: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $e, patch: {title: "t"}}) { error { code } } }`, map[string]any{"e": entryA}},
		{"setEntryEnabled", `mutation($s: String!, $e: ID!) { setEntryEnabled(input: {serverDiscordId: $s, lineageId: 0, entryId: $e, enabled: true}) { error { code } } }`, map[string]any{"e": entryA}},
		{"replacePersonaBook", `mutation($s: String!) { replacePersonaBook(input: {serverDiscordId: $s, lineageId: 9, entries: []}) { error { code } } }`, nil},
		{"exportLorebook", `query($s: String!, $c: ID) { exportLorebook(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c}) { error { code } } }`, map[string]any{"c": colA}},
		{"deleteEntry", `mutation($s: String!, $e: ID!) { deleteEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $e}) { error { code } } }`, map[string]any{"e": "999999"}},
		{"wipeServerLore", `mutation($s: String!) { wipeServerLore(input: {serverDiscordId: $s, preservePersonas: true}) { error { code } } }`, nil},
		{"deleteCollection", `mutation($s: String!, $c: ID!) { deleteCollection(input: {serverDiscordId: $s, collectionId: $c}) { error { code } } }`, map[string]any{"c": "999999"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do(tt.bearer, read, map[string]any{"id": serverA})
			require.Empty(t, r.Errors)
			if tt.canRead {
				require.Contains(t, string(r.Data["server"]), "the secret of A")
			} else {
				require.JSONEq(t, "null", string(r.Data["server"]), "another server's lore is invisible")
			}
			if tt.canManage {
				return // writes by managers and services are exercised by the other tests
			}
			for _, w := range writes {
				vars := map[string]any{"s": serverA}
				for k, v := range w.vars {
					vars[k] = v
				}
				r := a.do(tt.bearer, w.query, vars)
				require.NotEmpty(t, r.Errors, "%s must be refused", w.name)
				require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"], w.name)
			}
		})
	}
	// Upload mutation: forbidden for a member.
	r := a.upload(member, qImport, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "e.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])

	// Cross-server id guessing: a manager of B addresses A's collection and
	// entry ids through server B: not found, and nothing of A changes.
	for _, w := range writes {
		if w.vars == nil || w.name == "deleteEntry" || w.name == "deleteCollection" {
			continue
		}
		vars := map[string]any{"s": serverB}
		for k, v := range w.vars {
			vars[k] = v
		}
		r := a.do(otherManager, w.query, vars)
		require.Empty(t, r.Errors, w.name)
		require.Contains(t, string(r.Data[w.name]), `"NOT_FOUND"`, w.name)
	}
	var dp struct{ Error *mutationError }
	a.must(otherManager, `mutation($s: String!, $e: ID!) { deleteEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $e}) { error { code } } }`, map[string]any{"s": serverB, "e": entryA}, "deleteEntry", &dp)
	require.Equal(t, "NOT_FOUND", dp.Error.Code)
	r = a.do(serviceKey, read, map[string]any{"id": serverA})
	require.Contains(t, string(r.Data["server"]), "the secret of A", "server A's entry survived every guess")
	require.Contains(t, string(r.Data["server"]), "Secret")
}

// TestAssemblePrompt checks placement through the API: Always On lore as
// system blocks before the dialogue (or at preset markers), activated lore as
// a user block above the four most recent turns and before documents.
func TestAssemblePrompt(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	create := `mutation($s: String!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: $e}) { entry { id } error { code message } } }`
	var ep struct{ Error *mutationError }
	a.must(serviceKey, create, map[string]any{"s": serverA, "c": cp.Collection.ID, "e": map[string]any{"content": "The sky is green here, {{user}}.", "constant": true, "placement": "BEFORE"}}, "createEntry", &ep)
	require.Nil(t, ep.Error)
	a.must(serviceKey, create, map[string]any{"s": serverA, "c": cp.Collection.ID, "e": map[string]any{"content": "The tower hums at night.", "keys": []string{"tower"}}}, "createEntry", &ep)
	require.Nil(t, ep.Error)

	history := []map[string]any{}
	for i, c := range []string{"old one", "the tower?", "m3", "m4", "m5", "newest"} {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		history = append(history, map[string]any{"role": role, "content": c})
	}
	q := `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { messages { role content tag } inspection { label characters } activation { admitted { group } } } }`
	var out struct {
		Messages []struct {
			Role, Content string
			Tag           *string
		}
		Inspection []struct {
			Label      string
			Characters int
		}
	}
	input := map[string]any{
		"activation":   map[string]any{"serverDiscordId": serverA, "messages": history, "names": map[string]any{"user": "Ann"}, "overrides": map[string]any{"scanDepth": 5}},
		"systemPrompt": "You are a narrator.",
		"documents":    []string{"A retrieved document."},
	}
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	var order []string
	for _, m := range out.Messages {
		label := m.Role + ":" + m.Content
		if m.Tag != nil {
			label = m.Role + ":" + *m.Tag
		}
		order = append(order, label)
	}
	require.Equal(t, []string{
		"system:You are a narrator.",
		"system:KNOWLEDGE_LOREBOOK_BEFORE", // Always On, flushed before the dialogue
		"user:old one", "assistant:the tower?",
		"user:KNOWLEDGE_LOREBOOK_AFTER", // activated, above the four most recent turns
		"system:DOCUMENT",               // documents after activated lore
		"user:m3", "assistant:m4", "user:m5", "assistant:newest",
	}, order)
	require.Contains(t, out.Messages[1].Content, "The sky is green here, Ann.")
	require.Len(t, out.Inspection, 2)
	require.Equal(t, "Lorebook (Before)", out.Inspection[0].Label)
	require.Positive(t, out.Inspection[0].Characters)

	// With a preset marker, Always On lore goes to the marker instead.
	input["presetMarkers"] = []string{"chatHistory", "worldInfoBefore"}
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	last := out.Messages[len(out.Messages)-1]
	require.NotNil(t, last.Tag, "%+v", out.Messages)
	require.Equal(t, "KNOWLEDGE_LOREBOOK_BEFORE", *last.Tag)
	// SillyTavern's identifiers: main places the system prompt, whose
	// identity macros resolve; the caller's own prompts place nothing.
	input["presetMarkers"] = []string{"worldInfoBefore", "main", "charDescription", "chatHistory", "jailbreak"}
	input["systemPrompt"] = "You narrate for {{user}}."
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	require.Equal(t, "KNOWLEDGE_LOREBOOK_BEFORE", *out.Messages[0].Tag)
	require.Equal(t, "You narrate for Ann.", out.Messages[1].Content)
	require.Len(t, out.Messages, 10, "two preset messages, the history and its lore and document")
	// Unknown markers are bad input.
	input["presetMarkers"] = []string{"nope"}
	r := a.do(serviceKey, q, map[string]any{"input": input})
	require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"])
}

// TestImportRefusals: an empty book never creates or empties a book, and an
// oversized JSON file is refused at once, not by a background job.
func TestImportRefusals(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	empty := corpus(t, "novelai/grahamwaters__lorebook_generated.lorebook")
	imp := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "empty.lorebook", empty)
	require.NotNil(t, imp.Error)
	require.Equal(t, "INVALID_INPUT", imp.Error.Code)
	require.Contains(t, imp.Error.Message, "no importable entries")
	var srv struct{ Collections struct{ TotalCount int } }
	a.must(serviceKey, `query($id: String!) { server(discordId: $id) { collections { totalCount } } }`, map[string]any{"id": serverA}, "server", &srv)
	require.Zero(t, srv.Collections.TotalCount, "no empty collection was created")

	big := []byte(`{"entries": {"0": {"uid": 0, "key": ["k"], "content": "` + strings.Repeat("x", 2_100_000) + `"}}}`)
	imp = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "big.json", big)
	require.NotNil(t, imp.Error)
	require.Equal(t, "INVALID_INPUT", imp.Error.Code)
	require.Contains(t, imp.Error.Message, "over the limit of 2000000 bytes")
}
