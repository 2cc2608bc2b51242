package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"loregate/lore/sharedtest"
)

// One headless Chromium (Debian's chromium package) serves every browser
// test of the package: it starts with the first test that needs it and
// stops when the package's tests end (TestMain). Each test gets a fresh
// browser context (its own cookies).
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
	skip   string
}

// chromiumPath finds the browser binary.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// startBrowser launches Chromium once.
func startBrowser() {
	path := chromiumPath()
	if path == "" {
		browser.skip = "chromium is not installed (apt-get install chromium): the browser tests need it"
		return
	}
	dir, err := os.MkdirTemp("", "loregate-chromium-")
	if err != nil {
		browser.err = err
		return
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		browser.err = fmt.Errorf("start chromium: %w", err)
		return
	}
	browser.ctx = bctx
	browser.cancel = func() { cancelBrowser(); cancelAlloc(); _ = os.RemoveAll(dir) }
}

// tab returns a browser context of its own (fresh cookies) for the test:
// the test fails under CI (CI set) when Chromium is missing, and is
// skipped elsewhere.
func tab(t *testing.T) context.Context {
	t.Helper()
	browser.once.Do(startBrowser)
	if browser.skip != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; it must be there under CI (.ci/run installs it)", browser.skip)
		}
		t.Skip(browser.skip)
	}
	require.NoError(t, browser.err)
	ctx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel() })
	return ctx
}

// shot saves a full-page PNG screenshot named name in the folder
// LOREGATE_SCREENSHOTS names, for a person to review the pages; without
// it no screenshot is taken (a full-page capture costs 0.1-0.3 s of the
// package's time and asserts nothing): LOREGATE_SCREENSHOTS=/tmp/shots
// go test ./graph/dashboard/ writes them all.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("LOREGATE_SCREENSHOTS")
	if dir == "" {
		return
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	p := filepath.Join(dir, name+".png")
	require.NoError(t, os.WriteFile(p, buf, 0o644))
	t.Logf("screenshot %s", p)
}

// text returns the text of the first element matching sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))))
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err)
	return s
}

// browserSignIn signs the tab in with a member token through the sign-in
// page's operator form.
func (e *env) browserSignIn(t *testing.T, ctx context.Context, token string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/dashboard/"),
		chromedp.WaitReady(chromedp.CSS("#token")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("details").open = true`),
		chromedp.SetValue(chromedp.CSS("#token"), token),
		chromedp.Click(chromedp.CSS("#dev-login")),
		chromedp.WaitVisible(chromedp.CSS("#servers")),
	))
}

// waitText waits until the first element matching sel holds want in its
// text: a condition, not a sleep, so a slow page under load only takes
// longer (the tab's timeout bounds it). A check that meets a page being
// replaced (a click's navigation) is tried again on the next one.
func waitText(sel, want string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%q); return !!el && el.innerText.includes(%q); })()`, sel, want)
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		for {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
			if err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %q in %s: %w (last error: %v)", want, sel, ctx.Err(), err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// acceptConfirms makes window.confirm answer yes on the current page.
var acceptConfirms = chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`)

// TestBrowserSignInWithDiscord signs in through the Discord OAuth2 flow
// (authorization code with PKCE, against a fake Discord): the servers list
// shows where the member may write (Manage Server), where they may only
// read, and a server without lore.
func TestBrowserSignInWithDiscord(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/"), chromedp.WaitVisible(chromedp.CSS("#discord-login"))))
	shot(t, ctx, "01-signin")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#discord-login")), chromedp.WaitVisible(chromedp.CSS("#servers"))))
	require.Equal(t, "identify guilds guilds.members.read", e.oauth.scope)
	list := text(t, ctx, "#servers")
	require.Contains(t, list, "Glade Keepers")
	require.Contains(t, list, "Other Realm")
	require.Contains(t, list, "No Bot Here")
	write, err := chromedp.Run(ctx, chromedp.Text(`//li[contains(., "Glade Keepers")]/span`))
	require.NoError(t, err)
	read, err := chromedp.Run(ctx, chromedp.Text(`//li[contains(., "Other Realm")]/span`))
	require.NoError(t, err)
	require.Equal(t, "Read and write (Manage Server)", write)
	require.Equal(t, "Read only", read)
	require.Contains(t, text(t, ctx, ".who"), "Ann of the Glade")
	shot(t, ctx, "02-servers")

	// The session works against the API with the minted token: the
	// server page shows the member's write access.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/")))
	require.Contains(t, text(t, ctx, "main"), "Read and write (Manage Server)")
}

// TestBrowserBrowseAndEdit browses a 120-entry collection (search, sort,
// paging; a vectorized entry's embedding state in its column), edits an
// entry into a validation error shown next to its field, saves it, and
// then meets a conflict when someone else saved meanwhile.
func TestBrowserBrowseAndEdit(t *testing.T) {
	ctx := tab(t)
	e := newEnvWith(t, 0, true, withEmbeddings(t))
	book := make([][3]string, 120)
	for i := range book {
		book[i] = [3]string{fmt.Sprintf("Place %03d", i), fmt.Sprintf("Place number %d.", i), fmt.Sprintf("place%d", i)}
	}
	book[77] = [3]string{"The glade", "A quiet glade where travellers rest.", "glade"}
	coll := e.importBook(serverA, "World", book)
	glade := e.entryID(serverA, "World", "The glade")
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("#collections"))))
	require.Contains(t, text(t, ctx, "#collections"), "World")
	require.Contains(t, text(t, ctx, "main"), "Entries: 120 of 250")
	shot(t, ctx, "03-server")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//a[text()="World"]`), chromedp.WaitVisible(chromedp.CSS("#entries"))))
	require.Equal(t, "120 of 120 entries match", text(t, ctx, "#count"))
	shot(t, ctx, "04-book")
	cols, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#entries td.embedding").length`))
	require.NoError(t, err)
	require.Zero(t, cols, "no vectorized entry: no column of retrieval by meaning")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#entries tbody tr").length`))
	require.NoError(t, err)
	require.Equal(t, 50, rows, "50 entries a page")
	// Each click waits for the page it opens (the old page's link is still
	// there while the next one loads).
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[rel="next"]`)), waitText(`.pager [aria-current="page"]`, "Page 2 of 3"),
		chromedp.Click(chromedp.CSS(`a[rel="next"]`)), waitText(`.pager [aria-current="page"]`, "Page 3 of 3")))
	require.Equal(t, "Page 3 of 3", text(t, ctx, `.pager [aria-current="page"]`))
	rows, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#entries tbody tr").length`))
	require.NoError(t, err)
	require.Equal(t, 20, rows, "the last page holds the rest")

	// Search by content, then sort by title descending.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#q"), "travellers"), chromedp.Submit(chromedp.CSS("#q")),
		waitText("#count", "1 of 120")))
	require.Equal(t, "1 of 120 entries match", text(t, ctx, "#count"))
	require.Contains(t, text(t, ctx, "#entries"), "The glade")
	e.must(`mutation($in: UpdateEntryInput!) { updateEntry(input: $in) { error { message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entryId": glade, "patch": map[string]any{"vectorized": true}}}, nil)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/b/c"+coll+"/?sort=title&dir=desc")))
	require.Contains(t, text(t, ctx, "#entries tbody tr:first-child"), "The glade")
	require.Contains(t, text(t, ctx, "#entries thead"), "Retrieval by meaning")
	require.Equal(t, "Embedding pending", text(t, ctx, "#entries tbody tr:first-child td.embedding"), "vectorized, no job ran")
	other, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#entries tbody tr:nth-child(2) td.embedding").innerText`))
	require.NoError(t, err)
	require.Empty(t, other, "not vectorized: not a candidate")

	// Edit: a chance of 150 is refused by the API next to its field.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`//a[text()="The glade"]`), chromedp.WaitVisible(chromedp.CSS("#entry-form"))))
	shot(t, ctx, "05-entry")
	vectorized := func() bool {
		on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("f-vectorized").checked`))
		require.NoError(t, err)
		return on
	}
	require.True(t, vectorized(), "the editor shows the entry's vectorized flag")
	// The live check names the range as the member types, before any save.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-probability"), "150"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("f-probability").dispatchEvent(new Event("input")); undefined`),
		chromedp.WaitVisible(chromedp.CSS("#f-probability-live"))))
	require.Contains(t, text(t, ctx, "#f-probability-live"), "from 0 to 100")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#save")),
		chromedp.WaitVisible(chromedp.CSS("#probability-err"))))
	require.Equal(t, "150 is outside 0-100", text(t, ctx, "#probability-err"))
	invalid, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-probability").getAttribute("aria-invalid")`))
	require.NoError(t, err)
	require.Equal(t, "true", invalid)
	shot(t, ctx, "06-entry-invalid")

	// Fix it and add a secondary key: saved.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-probability"), "50"),
		chromedp.SetValue(chromedp.CSS("#f-secondaryKeys"), "rest\nquiet"), chromedp.Click(chromedp.CSS("#f-vectorized")),
		chromedp.Click(chromedp.CSS("#save")), chromedp.WaitVisible(chromedp.CSS(".flash"))))
	require.Equal(t, "Saved.", text(t, ctx, ".flash"))
	require.False(t, vectorized(), "unchecked and saved")
	got := e.getEntry(serverA, "World", glade)
	require.Equal(t, 50, got.Probability)
	require.Equal(t, []string{"rest", "quiet"}, got.SecondaryKeys)

	// Conflict: someone else renames the entry while the form is open.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/b/c"+coll+"/e/"+glade), chromedp.WaitVisible(chromedp.CSS("#entry-form"))))
	e.must(`mutation($in: UpdateEntryInput!) { updateEntry(input: $in) { error { message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entryId": glade, "patch": map[string]any{"title": "The old glade"}}}, nil)
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#f-content"), "My own version."), chromedp.Click(chromedp.CSS("#save")),
		chromedp.WaitVisible(chromedp.CSS("#conflict"))))
	require.Contains(t, text(t, ctx, "#conflict"), "Someone else changed this entry")
	kept, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#f-content")))
	require.NoError(t, err)
	require.Equal(t, "My own version.", kept, "the member's text stays in the form")
	got = e.getEntry(serverA, "World", glade)
	require.Equal(t, "The old glade", got.Title)
	require.Equal(t, "A quiet glade where travellers rest.", got.Content, "the conflicting save wrote nothing")
	shot(t, ctx, "07-entry-conflict")
}

// TestBrowserImportPreviewUndo drops a world info file on the import page
// (preview: nothing written), imports a corpus file from the file input
// as a background job (progress page, then the conversion report), and
// undoes it from the result.
func TestBrowserImportPreviewUndo(t *testing.T) {
	ctx := tab(t)
	e := newEnvJobs(t, 4<<10) // the corpus file (about 8 KB) becomes a job; the dropped one does not
	eldoria := sharedtest.Path(t, "corpus", "st-worldinfo", "sillytavern__Eldoria.json")
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/import"), chromedp.WaitVisible(chromedp.CSS("#drop"))))

	// Drag and drop a small world info book: the preview appears.
	drop := `(() => {
		const book = JSON.stringify({entries: {"0": {uid: 0, key: ["moon"], content: "The moon is pale.", comment: "Moon"},
			"1": {uid: 1, key: ["sun"], content: "The sun is warm.", comment: "Sun"}}});
		const dt = new DataTransfer();
		dt.items.add(new File([book], "Sky.json", {type: "application/json"}));
		document.getElementById("drop").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](drop), chromedp.WaitVisible(chromedp.CSS("#plan-added"))))
	require.Equal(t, "2", text(t, ctx, "#plan-added"))
	require.Contains(t, text(t, ctx, "#preview"), "Sky")
	e.requireCollections(serverA, 0)

	// The corpus file from the file input: preview, then import.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/import"), chromedp.WaitVisible(chromedp.CSS("#file")),
		chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{eldoria}),
		chromedp.WaitVisible(chromedp.CSS("#plan-added"))))
	require.Equal(t, "4", text(t, ctx, "#plan-added"))
	require.Contains(t, text(t, ctx, "#preview"), "st-worldinfo")
	shot(t, ctx, "08-import-preview")
	e.requireCollections(serverA, 0)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#import-button")), chromedp.WaitVisible(chromedp.CSS("#job-progress"))))
	shot(t, ctx, "09-import-job")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#result-added"))))
	require.Equal(t, "4", text(t, ctx, "#result-added"))
	require.Equal(t, "finished", text(t, ctx, "#job-state"))
	require.Contains(t, text(t, ctx, "#result"), "Conversion report")
	shot(t, ctx, "10-import-result")
	e.requireCollections(serverA, 1)

	// Undo from the result: the collection is gone; the history says so.
	require.NoError(t, chromedp.Do(ctx, acceptConfirms, chromedp.Click(chromedp.CSS("#undo-import")), chromedp.WaitVisible(chromedp.CSS(".flash"))))
	require.Equal(t, "Undone.", text(t, ctx, ".flash"))
	require.Contains(t, text(t, ctx, "#history"), "undone")
	shot(t, ctx, "11-history")
	e.requireEntries(serverA, 0)
}

// TestBrowserPlaygroundWhyNot runs a chat in the playground: the fired
// entry is listed, and the trace says why another entry did not fire; the
// injections view says where each fired entry goes (the two blocks, a
// depth with its role, above the author's note, an outlet the texts give
// no place), and the budget bar which book used how much, with a book's
// own budget (maxBudgetShare); the request's character, scenario and
// generation type reach filters and match flags. One page load,
// assertions on the DOM.
func TestBrowserPlaygroundWhyNot(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	// One world info import: positions, filters (for Bob, on continue) and
	// a context source (the scenario) as SillyTavern writes them.
	e.importFile(serverA, "World", "World.json", []byte(`{"entries": {
		"0": {"uid": 0, "comment": "The glade", "content": "A quiet glade.", "key": ["glade"], "position": 1},
		"1": {"uid": 1, "comment": "The tower", "content": "A dark tower.", "key": ["tower"], "position": 1},
		"2": {"uid": 2, "comment": "The well", "content": "A deep well.", "key": ["rest"], "position": 4, "depth": 1, "role": 2},
		"3": {"uid": 3, "comment": "The moon", "content": "The moon is full.", "key": ["glade"], "position": 2},
		"4": {"uid": 4, "comment": "Old road", "content": "The old road.", "key": ["glade"], "position": 7, "outletName": "road"},
		"5": {"uid": 5, "comment": "For Bob", "content": "Bob's secret.", "key": ["glade"], "position": 1, "characterFilter": {"isExclude": false, "names": ["Bob"], "tags": []}},
		"6": {"uid": 6, "comment": "On continue", "content": "Go on.", "key": ["glade"], "position": 1, "triggers": ["continue"]},
		"7": {"uid": 7, "comment": "Spirit", "content": "A spirit.", "key": ["spirit"], "position": 1, "matchScenario": true}}}`))
	night := e.collection(serverA, "Night")
	var set struct {
		UpdateCollectionSettings struct{ Error *struct{ Message string } }
	}
	e.must(`mutation($s: String!, $c: ID!) { updateCollectionSettings(input: {serverDiscordId: $s, collectionId: $c, settings: {maxBudgetShare: 50}}) { error { message } } }`,
		map[string]any{"s": serverA, "c": night}, &set)
	require.Nil(t, set.UpdateCollectionSettings.Error)
	e.entry(serverA, night, map[string]any{"title": "Night sky", "content": "Stars.", "constant": true, "position": map[string]any{"kind": "BEFORE_CHAR"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: false}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/s/"+serverA+"/play"), chromedp.WaitVisible(chromedp.CSS("#chat")),
		chromedp.SetValue(chromedp.CSS("#chat"), "Ann: Let us rest in the glade.\nBo: Gladly."),
		chromedp.SetValue(chromedp.CSS("#user"), "Ann"),
		chromedp.Click(chromedp.CSS("#prompt-texts summary")),
		chromedp.SetValue(chromedp.CSS("#authorsNote"), "Keep it calm."),
		chromedp.SetValue(chromedp.CSS("#generationType"), "CONTINUE"),
		chromedp.Click(chromedp.CSS("#play-context summary")),
		chromedp.SetValue(chromedp.CSS("#ctxName"), "Bob"),
		chromedp.SetValue(chromedp.CSS("#ctxScenario"), "A forest spirit watches."),
		chromedp.Click(chromedp.CSS("#run")), chromedp.WaitVisible(chromedp.CSS("#trace"))))
	// The page's texts in one read: each selector's innerText ("" absent),
	// the places' kinds, the budget rows' books and the own-budget meters.
	type playPage struct {
		Text               map[string]string
		Kinds, Books, Own  []string
		Gen, CharacterName string
	}
	sels := []string{"#fired", `#trace tr[data-title="The tower"]`, `#trace tr[data-title="The glade"]`, "#prompt", "#inspection",
		`#injections li[data-kind="BEFORE_CHAR"]`, `#injections li[data-kind="AFTER_CHAR"]`, `#injections li[data-kind="AT_DEPTH"]`,
		`#injections li[data-kind="AN_TOP"]`, `#injections li[data-kind="OUTLET"]`, `#book-budget tr[data-book="Night"]`, `#book-budget tr[data-book="World"]`}
	js, _ := json.Marshal(sels)
	page, err := chromedp.Run(ctx, chromedp.Evaluate[playPage](`({
		Text: Object.fromEntries(`+string(js)+`.map(s => [s, document.querySelector(s)?.innerText ?? ""])),
		Kinds: [...document.querySelectorAll("#injections > li")].map(li => li.dataset.kind),
		Books: [...document.querySelectorAll("#book-budget tbody tr")].map(tr => tr.dataset.book),
		Own: [...document.querySelectorAll("#book-budget meter.own")].map(m => m.max + "/" + m.value),
		Gen: document.getElementById("generationType").value, CharacterName: document.getElementById("ctxName").value})`))
	require.NoError(t, err)
	txt := page.Text
	for _, title := range []string{"The glade", "For Bob", "On continue", "Spirit"} {
		require.Contains(t, txt["#fired"], title)
	}
	require.NotContains(t, txt["#fired"], "The tower")
	require.Contains(t, txt[`#trace tr[data-title="The tower"]`], "no key matched")
	require.Contains(t, txt[`#trace tr[data-title="The glade"]`], "fired")
	require.Contains(t, txt["#prompt"], "A quiet glade.")
	require.Regexp(t, `Lorebook \(After\): \d+ characters, \d{1,3} tokens`, txt["#inspection"])
	require.Equal(t, "CONTINUE|Bob", page.Gen+"|"+page.CharacterName, "the form keeps what was sent")

	// Where each entry goes, in the assembler's order.
	require.Equal(t, []string{"BEFORE_CHAR", "AFTER_CHAR", "AN_TOP", "AT_DEPTH", "OUTLET"}, page.Kinds)
	require.Contains(t, txt[`#injections li[data-kind="BEFORE_CHAR"]`], "Night sky")
	require.Contains(t, txt[`#injections li[data-kind="BEFORE_CHAR"]`], "Always On entries, before the chat")
	require.Contains(t, txt[`#injections li[data-kind="AFTER_CHAR"]`], "The glade")
	require.NotContains(t, txt[`#injections li[data-kind="AFTER_CHAR"]`], "The well", "an AT_DEPTH entry leaves the block")
	require.Contains(t, txt[`#injections li[data-kind="AT_DEPTH"]`], "Depth 1 from the end of the chat, as Assistant")
	require.Contains(t, txt[`#injections li[data-kind="AT_DEPTH"]`], "The well")
	require.Contains(t, txt[`#injections li[data-kind="AN_TOP"]`], "The moon")
	require.NotContains(t, txt[`#injections li[data-kind="AN_TOP"]`], "Not placed", "the author's note was given")
	require.Contains(t, txt[`#injections li[data-kind="OUTLET"]`], "Not placed: no {{outlet::road}} in the system prompt")
	prompt := txt["#prompt"]
	require.Less(t, strings.Index(prompt, "The moon is full."), strings.Index(prompt, "Keep it calm."), "AN_TOP goes above the author's note")
	require.NotContains(t, prompt, "The old road.", "an outlet with no place leaks nowhere")

	// Who used the budget: both books, the Night book with its own cap
	// (50% of 8,000 characters).
	require.ElementsMatch(t, []string{"World", "Night"}, page.Books)
	require.Contains(t, txt[`#book-budget tr[data-book="Night"]`], "6 of 4,000")
	require.Contains(t, txt[`#book-budget tr[data-book="World"]`], "none set")
	require.Equal(t, []string{"4000/6"}, page.Own)
	shot(t, ctx, "12-playground")
}

// TestBrowserPlaygroundSimilarity: an entry retrieval by meaning admitted
// (the lexical ranker, every entry a candidate) is listed among the fired
// entries as fired by similarity, in the member's language; one a key
// admitted stays "activated by a key". Both once read "activated by a key".
func TestBrowserPlaygroundSimilarity(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	var set struct {
		UpdateServerSettings struct{ Error *struct{ Message string } }
	}
	e.must(`mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, semanticRanker: LEXICAL, semanticAllEntries: true, semanticThreshold: 0.1}) { error { message } } }`,
		map[string]any{"s": serverA}, &set)
	require.Nil(t, set.UpdateServerSettings.Error)
	world := e.collection(serverA, "World")
	e.entry(serverA, world, map[string]any{"title": "Hidden key", "content": "Ann hides the key under the stone.", "keys": []string{"zzzz"}})
	e.entry(serverA, world, map[string]any{"title": "Old tale", "content": "An old tale.", "keys": []string{"ancient"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: false}))
	play := "/dashboard/s/" + serverA + "/play"
	for _, tc := range []struct{ lang, similar, key string }{
		{"en", "fired by similarity", "activated by a key"},
		{"es", "activada por similitud", "activada por una clave"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+tc.lang+"?back="+url.QueryEscape(play)),
				chromedp.WaitVisible(chromedp.CSS("#chat")),
				chromedp.SetValue(chromedp.CSS("#chat"), "Bo: the ancient tale\nAnn: where did Ann hide the key?"),
				chromedp.Click(chromedp.CSS("#run")), chromedp.WaitVisible(chromedp.CSS("#trace"))))
			rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#admitted li")].map(li => li.innerText)`))
			require.NoError(t, err)
			require.Len(t, rows, 2)
			got := map[string]string{}
			for _, r := range rows {
				title, rest, _ := strings.Cut(r, " (World) — ")
				why, _, _ := strings.Cut(rest, ", ")
				got[title] = why
			}
			require.Equal(t, map[string]string{"Hidden key": tc.similar, "Old tale": tc.key}, got)
		})
	}
}

// TestBrowserReadOnlyMember: a member without Manage Server sees the lore
// and no write control on any page (phone-sized screen), and a write sent
// anyway is refused.
func TestBrowserReadOnlyMember(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	id := e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.browserSignIn(t, ctx, e.token("43", map[string]bool{serverA: false}))
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	for i, p := range []string{base, base + "b/c" + coll + "/", base + "b/c" + coll + "/e/" + id, base + "play"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p), chromedp.WaitVisible(chromedp.CSS("main h1"))))
		writes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("form[method=post]")].filter(f => !f.action.endsWith("/logout") && !f.action.endsWith("/play")).length
				+ document.querySelectorAll("#new-entry, #save, #delete, a[href$='/import'], a[href*='/export']").length`))
		require.NoError(t, err)
		require.Zero(t, writes, "write controls on %s", p)
		shot(t, ctx, fmt.Sprintf("13-readonly-%d", i))
	}
	require.Contains(t, text(t, ctx, "header"), "Playground")

	// The server page shows a reader every server setting the form shows a
	// manager, the selection controls included (they once stopped at
	// channel restrictions).
	e.must(`mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, minActivations: 2, minActivationsDepthMax: 9, maxEntries: 7, includeNames: true}) { error { message } } }`,
		map[string]any{"s": serverA}, nil)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("dl.facts"))))
	facts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["minActivations", "minActivationsDepthMax", "maxEntries", "includeNames"]
		.map(id => (document.querySelector("#fact-" + id) || {innerText: "absent"}).innerText)`))
	require.NoError(t, err)
	require.Equal(t, []string{"2", "9", "7", "yes"}, facts)

	// A write sent anyway (with a valid CSRF token) is refused.
	c := e.httpClient()
	e.devSignIn(c, e.token("43", map[string]bool{serverA: false}))
	_, page := get(t, c, base+"b/c"+coll+"/e/"+id)
	csrf := between(page, `name="csrf" value="`, `"`)
	require.NotEmpty(t, csrf)
	resp, err := c.PostForm(base+"b/c"+coll+"/e/"+id, url.Values{"csrf": {csrf}, "title": {"Mine"}, "content": {"Mine."}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, "The glade", e.getEntry(serverA, "World", id).Title)
}

// TestBrowserForbiddenWriteNamed: a write the API refuses with FORBIDDEN
// (a read-only member's form, e.g. one opened before Manage Server was
// taken away) answers 403 with what the write needs, in the member's
// language; it is not a failure of the lore service (502).
func TestBrowserForbiddenWriteNamed(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	id := e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	e.browserSignIn(t, ctx, e.token("43", map[string]bool{serverA: false}))
	base := "/dashboard/s/" + serverA + "/"
	lore := map[string]string{
		"en":    "Nothing was changed: writing this server's lore needs the Manage Server permission or the server's lore editor role",
		"pt-BR": "Nada foi alterado: gravar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"es":    "No se cambió nada: escribir la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor",
	}
	settings := map[string]string{
		"en":    "Nothing was changed: this needs the Manage Server permission (a lore editor writes entries, books and imports, not server settings, personas, backups or wipes)",
		"pt-BR": "Nada foi alterado: isto precisa da permissão Gerenciar Servidor (quem edita lore grava entradas, livros e importações, não as configurações do servidor, personas, backups ou limpezas)",
		"es":    "No se cambió nada: esto necesita el permiso Gestionar servidor (un editor de lore escribe entradas, libros e importaciones, no los ajustes del servidor, personas, copias de seguridad ni vaciados)",
	}
	for _, lang := range []string{"en", "pt-BR", "es"} {
		for _, tc := range []struct {
			name, action string
			fields       map[string]string
			want         string
		}{
			{"new collection", base + "collections", map[string]string{"name": "Mine"}, lore[lang]},
			{"bulk disable", base + "b/c" + coll + "/bulk", map[string]string{"action": "disable", "entry": id}, lore[lang]},
			{"server settings", base + "settings", map[string]string{"budgetUnit": "TOKENS"}, settings[lang]},
		} {
			t.Run(lang+"/"+tc.name, func(t *testing.T) {
				fields, _ := json.Marshal(tc.fields)
				post := fmt.Sprintf(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = %q;
					const add = (n, v) => { const i = document.createElement("input"); i.type = "hidden"; i.name = n; i.value = v; f.appendChild(i); };
					add("csrf", document.querySelector("input[name=csrf]").value);
					for (const [n, v] of Object.entries(%s)) add(n, v);
					document.body.appendChild(f); f.submit(); })()`, tc.action, fields)
				require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/dashboard/lang/"+lang+"?back="+url.QueryEscape(base)),
					chromedp.WaitVisible(chromedp.CSS("main h1")), chromedp.Evaluate[chromedp.Void](post),
					waitText("main .error", tc.want)))
			})
		}
	}
	require.Equal(t, map[string]bool{"The glade": true}, e.enabledOf(serverA, "World"))

	// The status says refused, not a failing service.
	c := e.httpClient()
	e.devSignIn(c, e.token("43", map[string]bool{serverA: false}))
	_, page := get(t, c, e.srv.URL+base)
	resp, err := c.PostForm(e.srv.URL+base+"collections", url.Values{"csrf": {between(page, `name="csrf" value="`, `"`)}, "name": {"Mine"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}

// TestBrowserCrossServerRefused: a member of server A opening server B's
// pages, or B's collection under A's URL, is refused.
func TestBrowserCrossServerRefused(t *testing.T) {
	ctx := tab(t)
	e := newEnv(t)
	other := e.collection(serverB, "Secrets")
	e.entry(serverB, other, map[string]any{"title": "Hidden", "content": "Not for A.", "keys": []string{"x"}})
	e.browserSignIn(t, ctx, e.token("42", map[string]bool{serverA: true}))
	for _, p := range []string{"/dashboard/s/" + serverB + "/", "/dashboard/s/" + serverB + "/b/c" + other + "/", "/dashboard/s/" + serverA + "/b/c" + other + "/"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+p), chromedp.WaitVisible(chromedp.CSS(".error"))))
		msg := text(t, ctx, ".error")
		require.True(t, strings.Contains(msg, "not a member") || strings.Contains(msg, "does not exist"), "%s: %s", p, msg)
		require.NotContains(t, text(t, ctx, "main"), "Hidden")
	}
	shot(t, ctx, "14-cross-server")
	status, _ := get(t, e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true})), e.srv.URL+"/dashboard/s/"+serverB+"/")
	require.Equal(t, http.StatusNotFound, status)
}
