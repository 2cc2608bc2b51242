package graph_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

const (
	editorRole = "700000000000000001"
	otherRole  = "700000000000000002"
)

// loreWrite is one write of the table in TestLoreEditorRole: the mutation
// field, its input (built when the step runs, so it sees the ids earlier
// steps made) and what to keep from the answer.
type loreWrite struct {
	field string
	input func() map[string]any
	// selection is the payload selection (default: error { code message }).
	selection string
	keep      func(raw json.RawMessage)
}

func (w loreWrite) query() string {
	sel := w.selection
	if sel == "" {
		sel = "error { code message }"
	}
	typ := strings.ToUpper(w.field[:1]) + w.field[1:] + "Input"
	switch w.field {
	case "deleteEntry":
		typ = "EntryRefInput"
	case "deleteCollection":
		typ = "CollectionRefInput"
	case "copyEntries":
		typ = "MoveEntriesInput"
	}
	return "mutation($in: " + typ + "!) { " + w.field + "(input: $in) { " + sel + " } }"
}

// TestLoreEditorRole: a member holding the server's lore editor role writes
// lore through every lore write path (entries, books, imports, bulk edits,
// revisions, reviews), a member with another role is refused each one,
// the editor is refused server settings, personas, backups and wipes, and
// every write re-checks the grant: a role the manager unsets or changes
// stops granting at once, with the same token.
func TestLoreEditorRole(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 4, "n": "Mira"}, "upsertPersona", &pp)
	manager := a.member("900000000000000031", map[string]auth.Membership{serverA: {Manage: true}})
	editor := a.member("900000000000000032", map[string]auth.Membership{serverA: {Roles: []string{otherRole, editorRole}}})
	bystander := a.member("900000000000000033", map[string]auth.Membership{serverA: {Roles: []string{otherRole}}})
	// The role grants nothing until a manager names it.
	requireForbidden(t, a.do(editor, qCreatePersonaEntry, map[string]any{"s": serverA, "l": 4, "c": "x", "t": "x"}), "before the role is named")
	requireForbidden(t, a.do(editor, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "loreEditorRoleId": editorRole}}), "the editor names no role")
	var ws struct{ Error *mutationError }
	a.must(manager, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "loreEditorRoleId": editorRole}}, "updateWorkbenchSettings", &ws)
	require.Nil(t, ws.Error)
	requireCanWrite(t, a, editor, true, false)
	requireCanWrite(t, a, bystander, false, false)
	requireCanWrite(t, a, manager, true, true)

	var coll, coll2, entry, entry2, entryAt, importID, revision, proposal string
	idOf := func(dst *string, path ...string) func(json.RawMessage) {
		return func(raw json.RawMessage) {
			var v any
			require.NoError(t, json.Unmarshal(raw, &v))
			for _, p := range path {
				v = v.(map[string]any)[p]
			}
			*dst = v.(string)
		}
	}
	in := func(m map[string]any) map[string]any { m["serverDiscordId"] = serverA; return m }
	sel := func(ids ...string) []any {
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = map[string]any{"entryId": id}
		}
		return out
	}
	writes := []loreWrite{
		{field: "createCollection", input: func() map[string]any { return in(map[string]any{"name": "Atlas"}) },
			selection: "collection { id } error { code message }", keep: idOf(&coll, "collection", "id")},
		{field: "createCollection", input: func() map[string]any { return in(map[string]any{"name": "Annex"}) },
			selection: "collection { id } error { code message }", keep: idOf(&coll2, "collection", "id")},
		{field: "renameCollection", input: func() map[string]any { return in(map[string]any{"collectionId": coll, "name": "Atlas II"}) }},
		{field: "setCollectionEnabled", input: func() map[string]any { return in(map[string]any{"collectionId": coll, "enabled": true}) }},
		{field: "setCollectionChannels", input: func() map[string]any { return in(map[string]any{"collectionId": coll, "channelIds": []string{}}) }},
		{field: "updateCollectionSettings", input: func() map[string]any {
			return in(map[string]any{"collectionId": coll, "settings": map[string]any{"scanDepth": 3}})
		}},
		{field: "updatePersonaBookSettings", input: func() map[string]any {
			return in(map[string]any{"lineageId": 4, "settings": map[string]any{"scanDepth": 2}})
		}},
		{field: "createEntry", input: func() map[string]any {
			return in(map[string]any{"lineageId": 4, "entry": map[string]any{"title": "Moon", "content": "The moon is cheese.", "keys": []string{"moon"}}})
		}, selection: "entry { id } error { code message }", keep: idOf(&entry, "entry", "id")},
		{field: "createEntry", input: func() map[string]any {
			return in(map[string]any{"lineageId": 0, "collectionId": coll, "entry": map[string]any{"title": "Sun", "content": "Hot.", "keys": []string{"sun"}}})
		}, selection: "entry { id } error { code message }", keep: idOf(&entry2, "entry", "id")},
		{field: "updateEntry", input: func() map[string]any {
			return in(map[string]any{"lineageId": 4, "entryId": entry, "patch": map[string]any{"content": "The moon is rock."}})
		}, selection: "entry { updatedAt } error { code message }", keep: idOf(&entryAt, "entry", "updatedAt")},
		{field: "setEntryEnabled", input: func() map[string]any { return in(map[string]any{"lineageId": 4, "entryId": entry, "enabled": true}) }},
		{field: "duplicateEntry", input: func() map[string]any { return in(map[string]any{"lineageId": 4, "entryId": entry}) }},
		{field: "setEntriesEnabled", input: func() map[string]any {
			return in(map[string]any{"lineageId": 4, "entries": sel(entry), "enabled": true})
		}},
		{field: "updateEntries", input: func() map[string]any {
			return in(map[string]any{"lineageId": 4, "entries": sel(entry), "patch": map[string]any{"priority": 7}})
		}},
		{field: "replaceInEntries", input: func() map[string]any { return in(map[string]any{"lineageId": 4, "find": "rock", "replace": "basalt"}) }},
		{field: "copyEntries", input: func() map[string]any {
			return in(map[string]any{"lineageId": 0, "entries": sel(entry2), "target": map[string]any{"lineageId": 4}})
		}, selection: "importId error { code message }", keep: idOf(&importID, "importId")},
		{field: "undoImport", input: func() map[string]any { return in(map[string]any{"importId": importID}) }},
		{field: "moveEntries", input: func() map[string]any {
			return in(map[string]any{"lineageId": 0, "entries": sel(entry2), "target": map[string]any{"lineageId": 0, "collectionId": coll2}})
		}},
		{field: "restoreEntryRevision", input: func() map[string]any {
			var r struct {
				Entry struct {
					Revisions struct {
						Edges []struct{ Node struct{ ID string } }
					}
				}
			}
			a.must(editor, qRevisions, map[string]any{"s": serverA, "l": 4, "id": entry, "first": 10}, "server", &r)
			edges := r.Entry.Revisions.Edges
			revision = edges[len(edges)-1].Node.ID
			return in(map[string]any{"revisionId": revision})
		}},
		{field: "reviewProposal", input: func() map[string]any {
			member := a.member("900000000000000034", map[string]auth.Membership{serverA: {}})
			var p proposalPayloadT
			a.must(member, qPropose, map[string]any{"in": in(map[string]any{"kind": "UPDATE", "lineageId": 4, "entryId": entry,
				"patch": map[string]any{"title": "Luna"}})}, "proposeEntryChange", &p)
			require.Nil(t, p.Error)
			proposal = p.Proposal.ID
			return in(map[string]any{"proposalId": proposal, "decision": "APPROVE"})
		}},
		{field: "resetTurnState", input: func() map[string]any { return in(map[string]any{"lineageId": 4, "channelId": "800000000000000001"}) }},
		{field: "replacePersonaBook", input: func() map[string]any {
			return in(map[string]any{"lineageId": 4, "entries": []any{map[string]any{"title": "Star", "content": "Far.", "keys": []string{"star"}}}})
		}, selection: "count error { code message }", keep: func(json.RawMessage) {
			var b struct {
				PersonaBook struct {
					Entries struct {
						Edges []struct{ Node struct{ ID string } }
					}
				}
			}
			a.must(editor, `query($s: String!) { server(discordId: $s) { personaBook(lineageId: 4) { entries { edges { node { id } } } } } }`,
				map[string]any{"s": serverA}, "server", &b)
			require.Len(t, b.PersonaBook.Entries.Edges, 1)
			entry = b.PersonaBook.Entries.Edges[0].Node.ID
		}},
		{field: "deleteEntries", input: func() map[string]any { return in(map[string]any{"lineageId": 4, "entries": sel(entry)}) }},
		{field: "deleteEntry", input: func() map[string]any { return in(map[string]any{"lineageId": 0, "entryId": entry2}) }, selection: "ok error { code message }"},
		{field: "deleteCollection", input: func() map[string]any { return in(map[string]any{"collectionId": coll}) }, selection: "ok error { code message }"},
	}
	for _, w := range writes {
		vars := map[string]any{"in": w.input()}
		requireForbidden(t, a.do(bystander, w.query(), vars), w.field+" by a member with another role")
		r := a.do(editor, w.query(), vars)
		require.Empty(t, r.Errors, w.field)
		var p struct{ Error *mutationError }
		require.NoError(t, json.Unmarshal(r.Data[w.field], &p), w.field)
		require.Nil(t, p.Error, "%s by the lore editor: %s", w.field, r.Data[w.field])
		if w.keep != nil {
			w.keep(r.Data[w.field])
		}
	}
	// A file import.
	imp := a.importFile(editor, map[string]any{"serverDiscordId": serverA, "lineageId": 4}, "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.Nil(t, imp.Error)
	require.Equal(t, 4, imp.Added)
	r := a.upload(bystander, qImport, map[string]any{"serverDiscordId": serverA, "lineageId": 4}, "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	requireForbidden(t, r, "an import by a member with another role")

	// Settings are the managers'.
	settings := []struct{ query string }{
		{`mutation { updateServerSettings(input: {serverDiscordId: "` + serverA + `", regexKeys: true}) { error { code } } }`},
		{`mutation { updateWorkbenchSettings(input: {serverDiscordId: "` + serverA + `", proposalsEnabled: false}) { error { code } } }`},
		{`mutation { upsertPersona(input: {serverDiscordId: "` + serverA + `", id: 2, lineageId: 5, name: "Vex"}) { error { code } } }`},
		{`mutation { removePersona(input: {serverDiscordId: "` + serverA + `", id: 1}) { error { code } } }`},
		{`mutation { wipeServerLore(input: {serverDiscordId: "` + serverA + `", preservePersonas: true}) { error { code } } }`},
		{`mutation { exportWorkspaceBackup(input: {serverDiscordId: "` + serverA + `"}) { error { code } } }`},
		// A backup import replaces the server's settings too.
		{`mutation { importWorkspaceBackup(input: {serverDiscordId: "` + serverA + `", previewId: "1"}) { error { code } } }`},
	}
	for _, s := range settings {
		r := a.do(editor, s.query, nil)
		requireForbidden(t, r, s.query)
		require.Contains(t, r.Errors[0].Message, "Manage Server")
	}
	r = a.upload(editor, qPreviewBackup, map[string]any{"serverDiscordId": serverA}, "backup.json", []byte(`{"personas": []}`))
	requireForbidden(t, r, "a backup preview by the lore editor")

	// Every write re-checks: the manager moves the grant to another role,
	// then unsets it; the editor's token is the same.
	write := map[string]any{"s": serverA, "l": 4, "c": "Again.", "t": "Again"}
	var c entryPayloadT
	a.must(editor, qCreatePersonaEntry, write, "createEntry", &c)
	require.Nil(t, c.Error)
	a.must(manager, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "loreEditorRoleId": "700000000000000009"}}, "updateWorkbenchSettings", &ws)
	requireForbidden(t, a.do(editor, qCreatePersonaEntry, write), "after the role changed")
	requireCanWrite(t, a, editor, false, false)
	a.must(manager, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "loreEditorRoleId": otherRole}}, "updateWorkbenchSettings", &ws)
	a.must(bystander, qCreatePersonaEntry, write, "createEntry", &c)
	require.Nil(t, c.Error, "the role now named grants its holders")
	a.must(manager, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "loreEditorRoleId": ""}}, "updateWorkbenchSettings", &ws)
	requireForbidden(t, a.do(bystander, qCreatePersonaEntry, write), "after the role was unset")

	// A role of another server grants nothing here.
	stranger := a.member("900000000000000035", map[string]auth.Membership{serverA: {}, serverB: {Roles: []string{editorRole}}})
	requireForbidden(t, a.do(stranger, qCreatePersonaEntry, write), "a role held in another server")
}

func requireForbidden(t *testing.T, r gqlResponse, what string) {
	t.Helper()
	require.NotEmpty(t, r.Errors, what)
	require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"], "%s: %v", what, r.Errors)
}

// requireCanWrite checks Server.canWriteLore and canManage for bearer.
func requireCanWrite(t *testing.T, a *api, bearer string, write, manage bool) {
	t.Helper()
	var s struct{ CanWriteLore, CanManage bool }
	a.must(bearer, `query($s: String!) { server(discordId: $s) { canWriteLore canManage } }`, map[string]any{"s": serverA}, "server", &s)
	require.Equal(t, write, s.CanWriteLore, "canWriteLore")
	require.Equal(t, manage, s.CanManage, "canManage")
}

// TestUndoBackupSettingsNeedsManage: the undo of a backup import that
// replaced the server's settings and workbench settings writes them back,
// so a lore editor is refused it (FORBIDDEN, forbidden_settings) and
// nothing changes (the undo of a lore write stays theirs:
// TestLoreEditorRole); a manager undoes the import and gets the settings
// back.
func TestUndoBackupSettingsNeedsManage(t *testing.T) {
	ctx := context.Background()
	a := newAPI(t)
	setupServer(t, a, serverA)
	manager := a.member("900000000000000041", map[string]auth.Membership{serverA: {Manage: true}})
	editor := a.member("900000000000000042", map[string]auth.Membership{serverA: {Roles: []string{editorRole}}})
	var ws struct{ Error *mutationError }
	a.must(manager, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "loreEditorRoleId": editorRole}}, "updateWorkbenchSettings", &ws)
	require.Nil(t, ws.Error)
	before, err := a.store.GetServer(ctx, serverA)
	require.NoError(t, err)

	// A backup of this server with other settings: regex keys on,
	// proposals off (the lore editor role is the same).
	sv := before
	sv.Settings.RegexKeys = !before.Settings.RegexKeys
	wb := lore.WorkbenchSettings{ProposalsEnabled: false, LoreEditorRoleID: editorRole}
	data, err := backup.Encode(backup.Build(sv, nil, nil, nil, backup.BookData{Workbench: &wb}, time.Now()))
	require.NoError(t, err)
	rep, err := transfer.ImportBackup(ctx, a.store, serverA, "backup.json", data, nil, "manager")
	require.NoError(t, err)
	require.True(t, rep.ServerSettings.Changed)
	imported, err := a.store.GetServer(ctx, serverA)
	require.NoError(t, err)
	require.True(t, sv.Settings.Equal(imported.Settings))

	undo := map[string]any{"s": serverA, "id": strconv.FormatInt(rep.ImportID, 10)}
	r := a.do(editor, qUndo, undo)
	requireForbidden(t, r, "the lore editor's undo of a backup import")
	require.Equal(t, "forbidden_settings", r.Errors[0].Extensions["reason"])
	after, err := a.store.GetServer(ctx, serverA)
	require.NoError(t, err)
	require.True(t, imported.Settings.Equal(after.Settings), "the refused undo changed the settings")
	wbNow, err := a.store.GetWorkbenchSettings(ctx, serverA)
	require.NoError(t, err)
	require.False(t, wbNow.ProposalsEnabled, "the refused undo changed the workbench settings")

	var u struct {
		Error *mutationError
	}
	a.must(manager, qUndo, undo, "undoImport", &u)
	require.Nil(t, u.Error)
	after, err = a.store.GetServer(ctx, serverA)
	require.NoError(t, err)
	require.True(t, before.Settings.Equal(after.Settings), "the manager's undo puts the settings back")
}
