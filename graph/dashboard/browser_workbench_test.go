package dashboard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

// memberGQL runs a GraphQL operation with a member's bearer token and
// decodes data.
func (e *env) memberGQL(token, query string, vars map[string]any, out any) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	var r struct {
		Data   json.RawMessage
		Errors []map[string]any
	}
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&r))
	require.Empty(e.t, r.Errors, "query %s", query)
	if out != nil {
		require.NoError(e.t, json.Unmarshal(r.Data, out))
	}
}

// enabledOf reads the enabled flags of a collection's entries by title.
func (e *env) enabledOf(server, coll string) map[string]bool {
	e.t.Helper()
	var out struct {
		Server struct {
			Collection *struct {
				Entries struct {
					Edges []struct {
						Node struct {
							Title   string
							Enabled bool
						}
					}
				}
			}
		}
	}
	e.must(`query($s: String!, $n: String!) { server(discordId: $s) { collection(name: $n) { entries(first: 250) { edges { node { title enabled } } } } } }`,
		map[string]any{"s": server, "n": coll}, &out)
	got := map[string]bool{}
	if out.Server.Collection != nil {
		for _, ed := range out.Server.Collection.Entries.Edges {
			got[ed.Node.Title] = ed.Node.Enabled
		}
	}
	return got
}

// TestBrowserWorkbench: a manager selects two entries of a book and
// disables them in one bulk action, moves them to another book, restores
// an entry's older revision from its history (the content diff shown),
// and approves a member's proposal; one page load per scenario, a
// screenshot of each.
func TestBrowserWorkbench(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	world := e.collection(serverA, "World")
	archive := e.collection(serverA, "Archive")
	glade := e.entry(serverA, world, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.entry(serverA, world, map[string]any{"title": "The tower", "content": "A dark tower.", "keys": []string{"tower"}})
	e.entry(serverA, world, map[string]any{"title": "The river", "content": "A cold river.", "keys": []string{"river"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	pick := func(title string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { for (const tr of document.querySelectorAll("#entries tbody tr")) {
			if (tr.innerText.includes(` + jsonQuote(title) + `)) tr.querySelector("input.select").click(); } })()`)
	}

	t.Run("bulk select", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"b/c"+world+"/"), chromedp.WaitVisible(chromedp.CSS("#bulk")),
			pick("The tower"), pick("The river"), chromedp.SetValue(chromedp.CSS("#bulk-action"), "disable")))
		shot(t, ctx, "30-bulk-select")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#bulk-apply")), waitText(".flash", "Done.")))
		require.Equal(t, map[string]bool{"The glade": true, "The tower": false, "The river": false}, e.enabledOf(serverA, "World"))
	})

	t.Run("move", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"b/c"+world+"/"), chromedp.WaitVisible(chromedp.CSS("#bulk")),
			pick("The tower"), pick("The river"), chromedp.SetValue(chromedp.CSS("#bulk-action"), "move"),
			chromedp.SetValue(chromedp.CSS("#bulk-target"), "c"+archive),
			chromedp.Click(chromedp.CSS("#bulk-apply")), waitText(".flash", "Moved."), waitText("#entries", "The tower")))
		shot(t, ctx, "31-bulk-move")
		require.Equal(t, map[string]bool{"The tower": false, "The river": false}, e.enabledOf(serverA, "Archive"), "moved with their state")
		require.Equal(t, map[string]bool{"The glade": true}, e.enabledOf(serverA, "World"))
	})

	t.Run("history restore", func(t *testing.T) {
		e.must(`mutation($s: String!, $id: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $id, patch: {content: "A quiet glade.\nNow with a well."}}) { error { message } } }`,
			map[string]any{"s": serverA, "id": glade}, nil)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"b/c"+world+"/e/"+glade+"/history"), chromedp.WaitVisible(chromedp.CSS("#revisions")),
			waitText(".diff", "+ Now with a well.")))
		shot(t, ctx, "32-history")
		require.NoError(t, chromedp.Do(ctx, acceptConfirms, chromedp.Click(chromedp.CSS("#revisions li:nth-child(2) button.restore")), waitText(".flash", "Restored.")))
		shot(t, ctx, "33-history-restored")
		require.Equal(t, "A quiet glade.", e.getEntry(serverA, "World", glade).Content)
	})

	t.Run("proposal approved", func(t *testing.T) {
		var out struct {
			ProposeEntryChange struct{ Error *struct{ Message string } }
		}
		e.memberGQL(e.token("77", map[string]bool{serverA: false}), `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { error { message } } }`,
			map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "UPDATE", "lineageId": 0, "entryId": glade,
				"patch": map[string]any{"content": "A glade where deer graze."}, "note": "From chapter 2."}}, &out)
		require.Nil(t, out.ProposeEntryChange.Error)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"proposals"), waitText("#proposals", "From chapter 2."),
			waitText("#proposals .proposed", "A glade where deer graze.")))
		shot(t, ctx, "34-proposal")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#proposals button.approve")), waitText(".flash", "Approved."), waitText("#no-proposals", "No proposals")))
		require.Equal(t, "A glade where deer graze.", e.getEntry(serverA, "World", glade).Content)
	})

	// The entry changes after a proposal: approving shows the three states
	// (when proposed, now, proposed) and asks for a fresh decision; no
	// screenshot, DOM assertions on the one page the refusal renders.
	t.Run("proposal conflict", func(t *testing.T) {
		var out struct {
			ProposeEntryChange struct{ Error *struct{ Message string } }
		}
		e.memberGQL(e.token("77", map[string]bool{serverA: false}), `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { error { message } } }`,
			map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "UPDATE", "lineageId": 0, "entryId": glade,
				"patch": map[string]any{"content": "A glade of old oaks."}}}, &out)
		require.Nil(t, out.ProposeEntryChange.Error)
		e.must(`mutation($s: String!, $id: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $id, patch: {content: "A glade after the fire."}}) { error { message } } }`,
			map[string]any{"s": serverA, "id": glade}, nil)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"proposals"), waitText("#proposals .proposed", "A glade of old oaks."),
			chromedp.Click(chromedp.CSS("#proposals button.approve")), waitText("#proposals .error", "The entry changed after this proposal was made")))
		cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => { const r = [...document.querySelectorAll("#proposals table.fields tbody tr")]
			.find(tr => tr.querySelector("th").innerText === "Content"); return r ? [...r.querySelectorAll("td")].map(td => td.innerText) : []; })()`))
		require.NoError(t, err)
		require.Equal(t, []string{"A glade where deer graze.", "A glade after the fire.", "A glade of old oaks."}, cells, "when proposed, now, proposed")
		button, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#proposals button.approve").innerText`))
		require.NoError(t, err)
		require.Equal(t, "Approve anyway", button)
		require.Equal(t, "A glade after the fire.", e.getEntry(serverA, "World", glade).Content, "nothing written without a fresh decision")
	})
}

// TestBrowserChangedFieldsTranslated: the history's changed fields and a
// proposal's field table name the fields in the member's language (not
// their API names), a proposed flag shows as yes or no in it, and the
// writer and the proposer are named as the header names a member.
func TestBrowserChangedFieldsTranslated(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	world := e.collection(serverA, "World")
	glade := e.entry(serverA, world, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.must(`mutation($s: String!, $id: ID!) { updateEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $id, patch: {title: "The old glade", content: "A glade.", constant: true}}) { error { message } } }`,
		map[string]any{"s": serverA, "id": glade}, nil)
	var out struct {
		ProposeEntryChange struct{ Error *struct{ Message string } }
	}
	e.memberGQL(e.token("77", map[string]bool{serverA: false}), `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { error { message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "UPDATE", "lineageId": 0, "entryId": glade,
			"patch": map[string]any{"content": "A glade with deer.", "enabled": false}}}, &out)
	require.Nil(t, out.ProposeEntryChange.Error)
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	base := "/dashboard/s/" + serverA + "/"
	for _, tc := range []struct {
		lang, changed, by, proposer, base string
		rows                              []string
	}{
		{"en", "Changed: Always On, Content, Title", "Service key service#1", "Member 77", "When proposed", []string{"Content|A glade.|A glade with deer.", "Enabled|yes|no"}},
		{"pt-BR", "Alterou: Sempre Ativa, Conteúdo, Título", "Chave de serviço service#1", "Membro 77", "Quando proposta", []string{"Conteúdo|A glade.|A glade with deer.", "Ativada|sim|não"}},
		{"es", "Cambió: Siempre activa, Contenido, Título", "Clave de servicio service#1", "Miembro 77", "Al proponerse", []string{"Contenido|A glade.|A glade with deer.", "Activada|sí|no"}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			history := base + "b/c" + world + "/e/" + glade + "/history"
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+tc.lang+"?back="+url.QueryEscape(history)),
				chromedp.WaitVisible(chromedp.CSS("#revisions"))))
			require.Equal(t, tc.changed, text(t, ctx, "#revisions li:first-child .changed"))
			require.Equal(t, tc.by, text(t, ctx, "#revisions li:first-child .by"), "who wrote it, not service:service#1")
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+base+"proposals"), chromedp.WaitVisible(chromedp.CSS("#proposals table.fields"))))
			rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#proposals table.fields tbody tr")]
				.map(tr => [...tr.querySelectorAll("th, td")].map(c => c.innerText).join("|"))`))
			require.NoError(t, err)
			require.Equal(t, tc.rows, rows)
			require.Equal(t, tc.proposer, text(t, ctx, "#proposals .by"))
			// The column holds the entry as it was when proposed (the
			// proposal's base), which later writes do not update: it is
			// named for what it is, not "Now".
			require.Equal(t, tc.base, text(t, ctx, "#proposals table.fields thead th:nth-child(2)"))
		})
	}
}

// TestBrowserRestoreUnknownRevision: restoring a revision that is not the
// server's (another server's id, or none) says so once, in the member's
// language, without the API's field name put before the reason's text
// ("revision: revision 999999 ...").
func TestBrowserRestoreUnknownRevision(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	base := "/dashboard/s/" + serverA + "/"
	for _, tc := range []struct{ lang, want string }{
		{"en", "Not restored, nothing was changed: revision 999999 was not found: it does not exist, was deleted, or belongs to another server or scope"},
		{"es", "No se restauró, no se cambió nada: revision 999999 no se encontró: no existe, se eliminó o pertenece a otro servidor o ámbito"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			post := fmt.Sprintf(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = %q;
				const i = document.createElement("input"); i.type = "hidden"; i.name = "csrf"; i.value = document.querySelector("input[name=csrf]").value;
				f.appendChild(i); document.body.appendChild(f); f.submit(); })()`, base+"revisions/999999/restore")
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+tc.lang+"?back="+url.QueryEscape(base)),
				chromedp.WaitVisible(chromedp.CSS("main h1")), chromedp.Evaluate[chromedp.Void](post), chromedp.WaitVisible(chromedp.CSS("main .error"))))
			require.Equal(t, tc.want, text(t, ctx, "main .error"))
		})
	}
}

// TestBrowserLoreEditorNoBackups: a lore editor (the server's lore editor
// role, without Manage Server) who opens the backups page by its address
// is refused there, in their language, before any form: backups stay the
// managers' (docs/workbench.md#lore-editor-role). The page once showed
// the export and restore forms, and Export answered the API's English
// refusal.
func TestBrowserLoreEditorNoBackups(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	const role = "700000000000000101"
	e.must(`mutation($s: String!, $r: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, loreEditorRoleId: $r}) { error { message } } }`,
		map[string]any{"s": serverA, "r": role}, nil)
	tok, err := e.authn.Mint("44", map[string]auth.Membership{serverA: {Roles: []string{role}}}, time.Hour, time.Now())
	require.NoError(t, err)
	e.browserSignIn(t, ctx, tok)
	backups := "/dashboard/s/" + serverA + "/backups"
	for _, tc := range []struct{ lang, want string }{
		{"en", "Only members with the Manage Server permission can make or restore backups."},
		{"pt-BR", "Só membros com a permissão Gerenciar Servidor podem fazer ou restaurar backups."},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+tc.lang+"?back="+url.QueryEscape(backups)),
				chromedp.WaitVisible(chromedp.CSS("main .error"))))
			require.Equal(t, tc.want, text(t, ctx, "main .error"))
			forms, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#export-backup, #preview-backup").length`))
			require.NoError(t, err)
			require.Zero(t, forms, "no backup forms for a lore editor")
		})
	}
}

// TestBrowserDeletedPersonaEntryNamed: a deleted entry of a persona book
// is listed under the book's name (its personas' names, as the server
// page and the playground name it), not "Book of lineage 1".
func TestBrowserDeletedPersonaEntryNamed(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	var out struct {
		CreateEntry struct {
			Entry struct{ ID string }
		}
	}
	e.must(`mutation($s: String!) { upsertPersona(input: {serverDiscordId: $s, id: 1, lineageId: 1, name: "Ann"}) { error { message } } }`, map[string]any{"s": serverA}, nil)
	e.must(`mutation($s: String!) { createEntry(input: {serverDiscordId: $s, lineageId: 1, entry: {title: "Secret", content: "A secret.", keys: ["secret"]}}) { entry { id } } }`,
		map[string]any{"s": serverA}, &out)
	require.NotEmpty(t, out.CreateEntry.Entry.ID)
	e.must(`mutation($s: String!, $id: ID!) { deleteEntry(input: {serverDiscordId: $s, lineageId: 1, entryId: $id}) { error { message } } }`,
		map[string]any{"s": serverA, "id": out.CreateEntry.Entry.ID}, nil)
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/deleted"), chromedp.WaitVisible(chromedp.CSS("#deleted"))))
	books, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#deleted tbody td:nth-child(3)")].map(td => td.innerText)`))
	require.NoError(t, err)
	require.Equal(t, []string{"Ann"}, books)
}

// TestBrowserImportHistoryModeTranslated: the import history names an
// import's mode in the member's language; ImportRecord.mode is spelled
// in lower case ("append", "replace"), which the page once showed as it
// is, in English, in every language.
func TestBrowserImportHistoryModeTranslated(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	e.importFile(serverA, "World", "World.json", []byte(`{"entries": {"0": {"uid": 0, "comment": "The glade", "content": "A quiet glade.", "key": ["glade"]}}}`))
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	history := "/dashboard/s/" + serverA + "/history"
	for _, tc := range []struct{ lang, want string }{
		{"en", "(added)"},
		{"pt-BR", "(adicionadas)"},
		{"es", "(añadidas)"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+tc.lang+"?back="+url.QueryEscape(history)),
				chromedp.WaitVisible(chromedp.CSS("#history"))))
			what := text(t, ctx, "#history tbody tr:first-child td:nth-child(2)")
			require.Contains(t, what, tc.want)
			require.NotContains(t, what, "append")
		})
	}
}

// jsonQuote is s as a JavaScript string literal.
func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDeletedEntriesPage: a deleted entry is listed on the deleted entries
// page and a manager restores it with its id; a member sees it without a
// Restore button and cannot restore or bulk-edit (the API refuses).
func TestDeletedEntriesPage(t *testing.T) {
	e := newEnv(t)
	world := e.collection(serverA, "World")
	id := e.entry(serverA, world, map[string]any{"title": "The well", "content": "A deep well.", "keys": []string{"well"}})
	e.must(`mutation($s: String!, $id: ID!) { deleteEntry(input: {serverDiscordId: $s, lineageId: 0, entryId: $id}) { ok } }`, map[string]any{"s": serverA, "id": id}, nil)
	e.requireEntries(serverA, 0)

	member := e.httpClientSignedIn(e.token("77", map[string]bool{serverA: false}))
	code, body := get(t, member, e.srv.URL+"/dashboard/s/"+serverA+"/deleted")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "The well")
	require.NotContains(t, body, `class="restore"`, "members restore nothing")
	csrf := between(body, `name="csrf" value="`, `"`)

	manager := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	_, body = get(t, manager, e.srv.URL+"/dashboard/s/"+serverA+"/deleted")
	revID := between(body, `class="restore" data-id="`, `"`)
	require.NotEmpty(t, revID)
	resp, err := member.PostForm(e.srv.URL+"/dashboard/s/"+serverA+"/revisions/"+revID+"/restore", url.Values{"csrf": {csrf}})
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEqual(t, http.StatusSeeOther, resp.StatusCode, "a member's restore is refused")
	e.requireEntries(serverA, 0)

	mcsrf := between(body, `name="csrf" value="`, `"`)
	resp, err = manager.PostForm(e.srv.URL+"/dashboard/s/"+serverA+"/revisions/"+revID+"/restore", url.Values{"csrf": {mcsrf}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/dashboard/s/"+serverA+"/b/c"+world+"/e/"+id+"?done=restored", resp.Header.Get("Location"), "back with its id in its book")
	require.Equal(t, "A deep well.", e.getEntry(serverA, "World", id).Content)
	_, body = get(t, manager, e.srv.URL+"/dashboard/s/"+serverA+"/deleted")
	require.Contains(t, body, "No entry was deleted.")
}

// TestBrowserDecisionsShown: a member whose proposals a manager approved
// and rejected, each with a note, is told on the server list that decisions
// wait, and sees both with the notes on the server page, once (the page marks them seen
// through the API, as the Discord panel does); the proposals page still
// lists them with the decision; the manager is shown none
// (docs/workbench.md#decisions).
func TestBrowserDecisionsShown(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	world := e.collection(serverA, "World")
	glade := e.entry(serverA, world, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	tower := e.entry(serverA, world, map[string]any{"title": "The tower", "content": "A dark tower.", "keys": []string{"tower"}})
	member, manager := e.token("77", map[string]bool{serverA: false}), e.token("42", map[string]bool{serverA: true})
	propose := func(entry, content string) string {
		var out struct {
			ProposeEntryChange struct {
				Proposal *struct{ ID string }
				Error    *struct{ Message string }
			}
		}
		e.memberGQL(member, `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { proposal { id } error { message } } }`,
			map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "UPDATE", "lineageId": 0, "entryId": entry,
				"patch": map[string]any{"content": content}}}, &out)
		require.Nil(t, out.ProposeEntryChange.Error)
		return out.ProposeEntryChange.Proposal.ID
	}
	review := func(id, decision, note string) {
		var out struct {
			ReviewProposal struct{ Error *struct{ Message string } }
		}
		e.memberGQL(manager, `mutation($in: ReviewProposalInput!) { reviewProposal(input: $in) { error { message } } }`,
			map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalId": id, "decision": decision, "note": note}}, &out)
		require.Nil(t, out.ReviewProposal.Error)
	}
	approved, rejected := propose(glade, "A glade where deer graze."), propose(tower, "A tower of glass.")
	review(approved, "APPROVE", "Thanks, chapter 2 agrees.")
	review(rejected, "REJECT", "The tower is stone in every chapter.")

	e.browserSignIn(t, ctx, member)
	waiting := func() bool {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("#servers .decisions-waiting a")`))
		require.NoError(t, err)
		return got
	}
	require.True(t, waiting(), "the server list says decisions are waiting")
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#servers .decisions-waiting a")), chromedp.WaitVisible(chromedp.CSS("#decisions")),
		waitText("#decision-"+approved, "Approved"), waitText("#decision-"+approved, "The glade"),
		waitText("#decision-"+approved, "Thanks, chapter 2 agrees."),
		waitText("#decision-"+rejected, "Rejected"), waitText("#decision-"+rejected, "The tower is stone in every chapter.")))
	shot(t, ctx, "35-decisions")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("#collections"))))
	again, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("#decisions")`))
	require.NoError(t, err)
	require.False(t, again, "each decision shows once")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"proposals"),
		waitText("#proposal-"+rejected, "The tower is stone in every chapter."), waitText("#proposal-"+approved, "Approved")))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("#servers"))))
	require.False(t, waiting(), "nothing waits once shown")

	code, body := get(t, e.httpClientSignedIn(manager), base)
	require.Equal(t, http.StatusOK, code)
	require.NotContains(t, body, `id="decisions"`, "the manager proposed nothing")
}
