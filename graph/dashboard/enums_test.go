package dashboard_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/sharedtest"
)

// hiddenParts are the parts of a page that show code or none of their
// text: an enum spelling may appear there.
var hiddenParts = []*regexp.Regexp{
	regexp.MustCompile(`(?is)<script\b.*?</script>`),
	regexp.MustCompile(`(?is)<style\b.*?</style>`),
	regexp.MustCompile(`(?is)<code\b.*?</code>`),
	regexp.MustCompile(`(?is)<pre\b.*?</pre>`),
}

var (
	tagRe  = regexp.MustCompile(`(?s)<[^>]*>`)
	hrefRe = regexp.MustCompile(`href="(/dashboard/[^"#]*)"`)
)

// visibleText is the text of an HTML page's body outside code, scripts
// and tags, with entities resolved (a cheap stand-in for the browser's
// innerText).
func visibleText(page string) string {
	if i := strings.Index(page, "<body"); i >= 0 {
		page = page[i:]
	}
	for _, re := range hiddenParts {
		page = re.ReplaceAllString(page, " ")
	}
	return html.UnescapeString(tagRe.ReplaceAllString(page, " "))
}

// crawlSkip are the links the crawl does not follow: downloads, the
// language switch and sign-in, which answer no page of their own.
func crawlSkip(path string) bool {
	for _, s := range []string{"/artifacts/", "/export", "/lang/", "/login", "/static/", "format=json"} {
		if strings.Contains(path, s) {
			return true
		}
	}
	return false
}

// crawl reads every dashboard page reachable by links from start (at most
// limit pages) and returns the paths that answered 200 with their bodies.
func crawl(t *testing.T, c *http.Client, origin, start string, limit int) map[string]string {
	t.Helper()
	pages := map[string]string{}
	queue, seen := []string{start}, map[string]bool{start: true}
	for len(queue) > 0 && len(pages) < limit {
		p := queue[0]
		queue = queue[1:]
		status, body := get(t, c, origin+p)
		require.Less(t, status, 500, "%s: %s", p, body)
		if status != http.StatusOK {
			continue
		}
		pages[p] = body
		for _, m := range hrefRe.FindAllStringSubmatch(body, -1) {
			next := html.UnescapeString(m[1])
			if !seen[next] && !crawlSkip(next) {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return pages
}

// requireNoEnumText fails when the visible text of page shows an enum
// spelling.
func requireNoEnumText(t *testing.T, where, page string) {
	t.Helper()
	require.Empty(t, enumSpelling.FindAllString(visibleText(page), -1), "enum spellings on %s", where)
}

// TestNoEnumSpellings: no rendered dashboard page shows a schema value's
// spelling (KNOWLEDGE_LOREBOOK_AFTER, AT_DEPTH) outside code, in English,
// Portuguese or Spanish: every page reachable by links from the home page
// (server, books, entries, history, jobs, personas, backups, the log and
// the playground), the pages forms render (the playground's trace, a
// channel's log), the sign-in page and a page that is not found, read over
// HTTP through the real handlers (the browser tests check the pages they
// visit in Chromium).
func TestNoEnumSpellings(t *testing.T) {
	e := newEnvJobs(t, 1<<20)
	world := e.importFile(serverA, "Eldoria", "eldoria.json", sharedtest.Read(t, "corpus", "st-worldinfo/sillytavern__Eldoria.json"))
	e.entry(serverA, world, map[string]any{"title": "Deep note", "content": "Whispered at depth.", "keys": []string{"glade"},
		"secondaryKeys": []string{"night"}, "selectiveLogic": "NOT_ALL", "position": map[string]any{"kind": "AT_DEPTH", "depth": 2, "role": "ASSISTANT"}})
	e.must(`mutation($in: UpsertPersonaInput!) { upsertPersona(input: $in) { error { message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "id": 1, "lineageId": 7, "name": "Ann"}}, nil)
	e.must(`mutation($in: CreateEntryInput!) { createEntry(input: $in) { error { message } } }`, map[string]any{"in": map[string]any{
		"serverDiscordId": serverA, "lineageId": 7, "entry": map[string]any{"title": "Ann's glade", "content": "Ann rests here.", "keys": []string{"glade"}}}}, nil)
	e.must(`mutation($in: ActivateTurnInput!) { activateTurn(input: $in) { error { message } } }`, map[string]any{"in": map[string]any{
		"serverDiscordId": serverA, "channelId": channelTavern, "lineageId": 7, "turnId": "t1", "messageCount": 1,
		"messages": []map[string]any{{"name": "Ann", "content": "The glade is quiet tonight."}}}}, nil)
	var exp struct {
		ExportWorkspaceBackup struct{ Job struct{ ID string } }
	}
	e.must(`mutation($in: ExportWorkspaceBackupInput!) { exportWorkspaceBackup(input: $in) { job { id } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA}}, &exp)

	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	base := "/dashboard/s/" + serverA + "/"
	pages := crawl(t, c, e.srv.URL, "/dashboard/", 150)
	for _, want := range []string{base, base + "history", base + "play", base + "log", base + "personas", base + "backups", base + "import", base + "b/p7/"} {
		require.Contains(t, pages, want, "the crawl reaches %s", want)
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range pages {
			if !yield(p) {
				return
			}
		}
	})
	paths = append(paths, base+"jobs/"+exp.ExportWorkspaceBackup.Job.ID,
		base+"log?"+url.Values{"channel": {channelTavern}, "lineage": {"7"}}.Encode(), base+"b/c0/")
	signedOut := e.httpClient()
	for _, lang := range []string{"en", "pt-BR", "es"} {
		for _, cl := range []*http.Client{c, signedOut} {
			status, _ := get(t, cl, e.srv.URL+"/dashboard/lang/"+lang+"?back=/dashboard/")
			require.Equal(t, http.StatusSeeOther, status)
		}
		_, body := get(t, signedOut, e.srv.URL+"/dashboard/")
		requireNoEnumText(t, "the sign-in page in "+lang, body)
		for _, p := range paths {
			_, body := get(t, c, e.srv.URL+p)
			requireNoEnumText(t, p+" in "+lang, body)
		}
		body = postForm(t, c, e.srv.URL+base+"play", url.Values{"chat": {"Ann: The glade is quiet tonight.\nBo: A night of rest."},
			"channel": {channelTavern}, "lineage": {"7"}, "user": {"Ann"}, "char": {"Bo"}})
		require.Contains(t, body, `id="trace"`)
		requireNoEnumText(t, "the playground's trace in "+lang, body)
	}
	t.Logf("%d pages, each in 3 languages: %v", len(paths)+2, paths)

	// Without a bot token the channel pickers take ids and name the
	// variable that would give names; a refused token sign-in names the
	// command's placeholders: in code.
	nobot := newEnvWith(t, 0, false)
	nc := nobot.httpClientSignedIn(nobot.token("42", map[string]bool{serverA: true}))
	book := base + "b/c" + nobot.collection(serverA, "World") + "/"
	for _, p := range []string{book, base + "play", base + "log"} {
		_, body := get(t, nc, nobot.srv.URL+p)
		require.Contains(t, body, "<code>LOREGATE_DISCORD_TOKEN</code>", p)
		requireNoEnumText(t, p+" without a bot token", body)
	}
	_, page := get(t, signedOut, e.srv.URL+"/dashboard/")
	resp, err := signedOut.PostForm(e.srv.URL+"/dashboard/dev-login", url.Values{"csrf": {between(page, `name="csrf" value="`, `"`)}, "token": {"not-a-token"}})
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, string(b), "<code>USER_ID</code>")
	requireNoEnumText(t, "a refused token sign-in", string(b))
}

// postForm posts a dashboard form with the session's CSRF token (read from
// the page) and returns the page it renders.
func postForm(t *testing.T, c *http.Client, u string, form url.Values) string {
	t.Helper()
	_, page := get(t, c, u)
	form.Set("csrf", between(page, `name="csrf" value="`, `"`))
	resp, err := c.PostForm(u, form)
	require.NoError(t, err)
	defer resp.Body.Close()
	b := new(strings.Builder)
	_, err = io.Copy(b, resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, b.String())
	return b.String()
}

// TestVisibleText checks the check itself: an enum spelling in text is
// found, one in code, a script or an attribute is not.
func TestVisibleText(t *testing.T) {
	page := `<html><head><style>.AT_DEPTH{}</style></head><body><p title="NOT_ALL">At depth &amp; AND_ANY</p>` +
		`<code>KNOWLEDGE_LOREBOOK_AFTER</code><pre>EM_TOP</pre><script>let x = "AN_TOP"</script></body></html>`
	require.Equal(t, []string{"AND_ANY"}, enumSpelling.FindAllString(visibleText(page), -1))
}
