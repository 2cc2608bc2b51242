package dashboard_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"loregate/lore/sharedtest"
)

// TestBrowserFieldErrorsInLanguage saves an entry with two fields the API
// refuses, in Portuguese and in Spanish: a banner at the top lists both at
// once in the member's language (the reason keys' texts), each field is
// marked and shows its text, and the form keeps what the member typed;
// nothing was written. A refused server setting keeps its value too.
func TestBrowserFieldErrorsInLanguage(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	id := e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	long := strings.Repeat("a", 300)
	for _, c := range []struct {
		lang, title, chance, budget string
	}{
		{"pt-BR", "tem 300 caracteres; o máximo é 200", "150 está fora do intervalo 0-100", "50 está fora do intervalo de 100-32000 tokens"},
		{"es", "tiene 300 caracteres; el máximo es 200", "150 está fuera del rango 0-100", "50 está fuera del rango de 100-32000 tokens"},
	} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+c.lang+"?back=/dashboard/s/"+serverA+"/b/c"+coll+"/e/"+id),
			chromedp.WaitVisible(chromedp.CSS("#entry-form")),
			chromedp.SetValue(chromedp.CSS("#f-title"), long), chromedp.SetValue(chromedp.CSS("#f-probability"), "150"),
			chromedp.Click(chromedp.CSS("#save")), chromedp.WaitVisible(chromedp.CSS("#error-banner"))))
		banner := text(t, ctx, "#error-banner")
		require.Contains(t, banner, c.title, c.lang)
		require.Contains(t, banner, c.chance, c.lang)
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#error-banner li").length`))
		require.NoError(t, err)
		require.Equal(t, 2, n, "every field error at once")
		atTop, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("error-banner").getBoundingClientRect().top < window.innerHeight / 2`))
		require.NoError(t, err)
		require.True(t, atTop, "the banner is at the top of the page")
		require.Equal(t, c.title, text(t, ctx, "#title-err"))
		require.Equal(t, c.chance, text(t, ctx, "#probability-err"))
		marked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["f-title", "f-probability"].map(id => document.getElementById(id).getAttribute("aria-invalid")).join()`))
		require.NoError(t, err)
		require.Equal(t, "true,true", marked)
		kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-title").value + "|" + document.getElementById("f-probability").value`))
		require.NoError(t, err)
		require.Equal(t, long+"|150", kept, "the form keeps what the member typed")
		shot(t, ctx, "23-entry-errors-"+c.lang)
		require.Equal(t, "The glade", e.getEntry(serverA, "World", id).Title, "nothing was written")
		requireNoEnums(t, ctx)

		// A budget of 50 tokens is refused; the field keeps 50.
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/"), chromedp.WaitVisible(chromedp.CSS("#server-settings")),
			chromedp.SetValue(chromedp.CSS("#budgetUnit"), "TOKENS"), chromedp.SetValue(chromedp.CSS("#budgetLimit"), "50"),
			chromedp.Submit(chromedp.CSS("#budgetLimit")), chromedp.WaitVisible(chromedp.CSS("#error-banner"))))
		require.Contains(t, text(t, ctx, "#error-banner"), c.budget)
		require.Equal(t, c.budget, text(t, ctx, "#budgetLimit-err"))
		kept, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("budgetLimit").value + "|" + document.getElementById("budgetUnit").value + "|" + document.getElementById("budgetLimit").getAttribute("aria-invalid")`))
		require.NoError(t, err)
		require.Equal(t, "50|TOKENS|true", kept)
		shot(t, ctx, "24-settings-error-"+c.lang)
	}
}

// TestBrowserEditorFitsPhone opens the editor of an entry imported from a
// real SillyTavern book (its source-format fields kept for export) on a
// 390 px wide screen: nothing scrolls sideways, the kept fields folded or
// open.
func TestBrowserEditorFitsPhone(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	data, err := os.ReadFile(sharedtest.Path(t, "corpus", "st-worldinfo", "bronya-rand__Eorzea.json"))
	require.NoError(t, err)
	coll := e.importFile(serverA, "Eorzea", "Eorzea.json", data)
	var out struct {
		Server struct {
			Collection struct {
				Entries struct {
					Edges []struct {
						Node struct {
							ID         string
							Extensions json.RawMessage
						}
					}
				}
			}
		}
	}
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "Eorzea") { entries(first: 250) { edges { node { id extensions } } } } } }`,
		map[string]any{"s": serverA}, &out)
	// The entry with the most source-format fields.
	id, most := "", 0
	for _, ed := range out.Server.Collection.Entries.Edges {
		if len(ed.Node.Extensions) > most {
			id, most = ed.Node.ID, len(ed.Node.Extensions)
		}
	}
	// 100 characters of JSON without spaces are wider than 390 px unless
	// they wrap.
	require.Greater(t, most, 100, "an entry with source-format fields kept for export")
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/b/c"+coll+"/e/"+id), chromedp.WaitVisible(chromedp.CSS("#entry-form"))))
	fits := `document.documentElement.scrollWidth <= document.documentElement.clientWidth`
	widths := `document.documentElement.scrollWidth + " > " + document.documentElement.clientWidth`
	for _, open := range []bool{false, true} {
		if open {
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#extensions summary")), chromedp.WaitVisible(chromedp.CSS("#extensions pre"))))
		}
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fits))
		require.NoError(t, err)
		w, _ := chromedp.Run(ctx, chromedp.Evaluate[string](widths))
		require.True(t, ok, "the editor scrolls sideways (source fields open: %v): %s", open, w)
	}
	shot(t, ctx, "25-editor-390px")
	requireNoEnums(t, ctx)
}

// TestBrowserPersonasAndBackups registers, renames and removes personas on
// the personas page (an alter shares its lineage's book), then makes a
// workspace backup, loses an entry, previews and imports the backup (the
// entry is back) and undoes the import from its job page.
func TestBrowserPersonasAndBackups(t *testing.T) {
	ctx := tab(t)
	e := newEnvJobs(t, 1<<20)
	coll := e.collection(serverA, "World")
	glade := e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"personas"), chromedp.WaitVisible(chromedp.CSS("#register-persona")),
		chromedp.SetValue(chromedp.CSS("#p-name"), "Ann"), chromedp.Click(chromedp.CSS("#register")), waitText(".flash", "Saved.")))
	require.Contains(t, text(t, ctx, "#personas"), "Ann")
	require.NoError(t, chromedp.Do(ctx, selectByLabel("#p-lineage", "Alter: shares the book of Ann"),
		chromedp.SetValue(chromedp.CSS("#p-name"), "Bo"), chromedp.Click(chromedp.CSS("#register")), waitText(`tr[data-persona="2"]`, "Bo")))
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#rename-1"), "Ann of the Glade"),
		chromedp.Click(chromedp.CSS(`tr[data-persona="1"] .rename button`)), waitText("#personas", "Ann of the Glade")))
	require.NoError(t, chromedp.Do(ctx, acceptConfirms, chromedp.Click(chromedp.CSS(`tr[data-persona="2"] .remove`)),
		waitText(`tr[data-persona="2"]`, "Removed")))
	var reg struct {
		Server struct {
			Personas []struct {
				ID, LineageID int64
				Name          string
				Removed       bool
			}
		}
	}
	e.must(`query($s: String!) { server(discordId: $s) { personas { id lineageId name removed } } }`, map[string]any{"s": serverA}, &reg)
	require.Len(t, reg.Server.Personas, 2)
	require.Equal(t, "Ann of the Glade", reg.Server.Personas[0].Name)
	require.Equal(t, reg.Server.Personas[0].LineageID, reg.Server.Personas[1].LineageID, "the alter shares Ann's book")
	require.True(t, reg.Server.Personas[1].Removed)
	// A registration the API refuses keeps the typed name and says why.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#p-name"), strings.Repeat("n", 201)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("p-name").removeAttribute("maxlength")`),
		chromedp.Click(chromedp.CSS("#register")), chromedp.WaitVisible(chromedp.CSS("#error-banner"))))
	require.Contains(t, text(t, ctx, "#error-banner"), "is 201 characters long, at most 200 allowed")
	// Registering with the id of a registered persona is refused (it
	// would move Ann to a new book, away from her lore); Ann stays.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#p-name"), "Cy"), chromedp.SetValue(chromedp.CSS("#p-id"), "1"),
		chromedp.Click(chromedp.CSS("#register")), waitText("#error-banner", "Persona 1 is registered already (Ann of the Glade)")))
	e.must(`query($s: String!) { server(discordId: $s) { personas { id lineageId name removed } } }`, map[string]any{"s": serverA}, &reg)
	require.Len(t, reg.Server.Personas, 2)
	require.Equal(t, "Ann of the Glade", reg.Server.Personas[0].Name)
	require.Equal(t, reg.Server.Personas[1].LineageID, reg.Server.Personas[0].LineageID, "Ann keeps her book")
	shot(t, ctx, "26-personas")
	requireNoEnums(t, ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//table[@id="personas"]//a[contains(., "lineage")]`), chromedp.WaitVisible(chromedp.CSS("#entries"))))
	require.Contains(t, text(t, ctx, "main h1"), "Ann of the Glade")

	// Export: a job whose page offers the file.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"backups"), chromedp.WaitVisible(chromedp.CSS("#export")),
		chromedp.Click(chromedp.CSS("#export")), waitText("#job-state", "finished"), chromedp.WaitVisible(chromedp.CSS(`a[href*="/artifacts/"]`))))
	requireNoEnums(t, ctx)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	jobID := loc[strings.LastIndex(loc, "/")+1:]
	var art struct {
		Job struct{ Artifact struct{ Content string } }
	}
	e.must(`query($id: ID!) { job(id: $id) { artifact { content } } }`, map[string]any{"id": jobID}, &art)
	require.Contains(t, art.Job.Artifact.Content, "The glade")
	file := t.TempDir() + "/backup.json"
	require.NoError(t, os.WriteFile(file, []byte(art.Job.Artifact.Content), 0o600))

	// The entry is lost; the backup's preview and import bring it back.
	e.must(`mutation($in: EntryRefInput!) { deleteEntry(input: $in) { error { message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entryId": glade}}, nil)
	e.requireEntries(serverA, 0)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"backups"), chromedp.WaitVisible(chromedp.CSS("#backup-file")),
		chromedp.SetUploadFiles(chromedp.CSS("#backup-file"), []string{file}), chromedp.Click(chromedp.CSS("#preview")),
		chromedp.WaitVisible(chromedp.CSS("#scopes"))))
	row, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#scopes tbody tr").innerText`))
	require.NoError(t, err)
	require.Contains(t, row, "Serverwide")
	require.Contains(t, row, "replaced by the backup's book")
	require.Contains(t, text(t, ctx, "#backup-settings"), "The server's settings are replaced by the backup's (budget", "a backup of this server")
	e.requireEntries(serverA, 0)
	shot(t, ctx, "27-backup-preview")
	requireNoEnums(t, ctx)
	require.NoError(t, chromedp.Do(ctx, acceptConfirms, chromedp.Click(chromedp.CSS("#import-backup-button")),
		waitText("#job-state", "finished"), chromedp.WaitVisible(chromedp.CSS("#backup-done"))))
	e.requireEntries(serverA, 1)
	shot(t, ctx, "28-backup-imported")
	requireNoEnums(t, ctx)
	// The job page undoes the import itself.
	require.NoError(t, chromedp.Do(ctx, acceptConfirms, chromedp.Click(chromedp.CSS("#undo-backup")), waitText(".flash", "Undone.")))
	require.Contains(t, text(t, ctx, "#history"), "undone")
	e.requireEntries(serverA, 0)
}
