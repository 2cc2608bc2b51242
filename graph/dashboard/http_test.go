package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// get fetches a dashboard path and returns the status and body.
func get(t testing.TB, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestPagesAnswer signs in with a development token and reads every page
// kind: each answers 200 with its content, in English and in Portuguese.
func TestPagesAnswer(t *testing.T) {
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	id := e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	c := e.httpClient()
	e.devSignIn(c, e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	for _, tc := range []struct{ path, want string }{
		{e.srv.URL + "/dashboard/", "Glade Keepers"},
		{base, "World"},
		{base + "b/c" + coll + "/", "The glade"},
		{base + "b/c" + coll + "/e/" + id, "A quiet glade."},
		{base + "b/c" + coll + "/e/new", "New entry"},
		{base + "import", "Import a lorebook"},
		{base + "history", "Import history"},
		{base + "play", "Activation playground"},
		{base + "log", "Activation log"},
	} {
		status, body := get(t, c, tc.path)
		require.Equal(t, http.StatusOK, status, "%s: %s", tc.path, body)
		require.Contains(t, body, tc.want, tc.path)
	}
	// A token sign-in without a name says "Member" and the id in the
	// header; one with a name shows the name (a member token has none).
	_, body := get(t, c, base)
	require.Contains(t, body, "<span>Member 42</span>")
	named := e.httpClient()
	e.devSignInNamed(named, e.token("42", map[string]bool{serverA: true}), "  Ana\x00 Souza ")
	_, body = get(t, named, base)
	require.Contains(t, body, "<span>Ana Souza</span>")
	// The entry under another collection's URL is not found.
	other := e.collection(serverA, "Other")
	status, _ := get(t, c, base+"b/c"+other+"/e/"+id)
	require.Equal(t, http.StatusNotFound, status)
	req, _ := http.NewRequest(http.MethodGet, base, nil)
	req.Header.Set("Accept-Language", "pt-BR,pt;q=0.9")
	resp, err := c.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(b), "Todo o Servidor")
	// GET /dashboard/lang/es switches to Spanish (a cookie, kept across
	// pages); es-419 and es-ES browsers get Spanish too.
	status, _ = get(t, c, e.srv.URL+"/dashboard/lang/es?back="+url.QueryEscape("/dashboard/s/"+serverA+"/"))
	require.Equal(t, http.StatusSeeOther, status)
	_, body = get(t, c, base)
	require.Contains(t, body, "Todo el servidor")
	require.Contains(t, body, `<html lang="es">`)
	_, body = get(t, c, base+"play")
	require.Contains(t, body, "Zona de pruebas de activación")
	_, _ = get(t, c, e.srv.URL+"/dashboard/lang/en?back=/dashboard/")
	for _, al := range []string{"es-419,es;q=0.9", "es-ES"} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/dashboard/", nil)
		req.Header.Set("Accept-Language", al)
		jar := c.Jar
		c.Jar = nil // no language cookie: Accept-Language decides
		resp, err := c.Do(req)
		c.Jar = jar
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Contains(t, string(b), `<html lang="es">`, al)
	}
}

// TestWritesNeedCSRF: a write without the session's CSRF token is refused
// and changes nothing.
func TestWritesNeedCSRF(t *testing.T) {
	e := newEnv(t)
	c := e.httpClient()
	e.devSignIn(c, e.token("42", map[string]bool{serverA: true}))
	resp, err := c.PostForm(e.srv.URL+"/dashboard/s/"+serverA+"/settings", url.Values{"budgetUnit": {"TOKENS"}, "csrf": {"forged"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	var out struct {
		Server struct{ Settings struct{ BudgetUnit string } }
	}
	e.must(`query($s: String!) { server(discordId: $s) { settings { budgetUnit } } }`, map[string]any{"s": serverA}, &out)
	require.Equal(t, "CHARACTERS", out.Server.Settings.BudgetUnit)
}

// TestSessionCookie: the session cookie is HttpOnly and SameSite, scoped
// to the dashboard, and holds no token.
func TestSessionCookie(t *testing.T) {
	e := newEnv(t)
	c := e.httpClient()
	tok := e.token("42", map[string]bool{serverA: true})
	resp, err := c.Get(e.srv.URL + "/dashboard/")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pre := between(string(b), `name="csrf" value="`, `"`)
	resp, err = c.PostForm(e.srv.URL+"/dashboard/dev-login", url.Values{"csrf": {pre}, "token": {tok}})
	require.NoError(t, err)
	resp.Body.Close()
	var found bool
	for _, sc := range resp.Cookies() {
		if sc.Name == "loregate_session" {
			found = true
			require.True(t, sc.HttpOnly)
			require.Equal(t, http.SameSiteLaxMode, sc.SameSite)
			require.Equal(t, "/dashboard/", sc.Path)
			require.False(t, strings.Contains(sc.Value, tok[:20]), "the cookie is an id, not the token")
		}
	}
	require.True(t, found, "a session cookie is set")
}

// TestExportEveryFormat downloads a collection in every export format: the
// JSON formats as attachments, the card files through the artifact route.
func TestExportEveryFormat(t *testing.T) {
	e := newEnvJobs(t, 1<<20)
	coll := e.collection(serverA, "World")
	e.entry(serverA, coll, map[string]any{"title": "The glade", "content": "A quiet glade.", "keys": []string{"glade"}})
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	c.CheckRedirect = nil // follow the card files' redirect to the artifact
	for _, tc := range []struct{ format, want string }{
		{"ST_WORLD_INFO", `"A quiet glade."`},
		{"CCV3_LOREBOOK", `"A quiet glade."`},
		{"CARD_JSON", `"A quiet glade."`},
		{"CARD_PNG", "\x89PNG"},
		{"CARD_CHARX", "PK"},
		{"WORLDBOOK", `"strategy"`},
	} {
		resp, err := c.Get(e.srv.URL + "/dashboard/s/" + serverA + "/b/c" + coll + "/export?format=" + tc.format)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", tc.format, body)
		require.Contains(t, resp.Header.Get("Content-Disposition"), "attachment", tc.format)
		require.Contains(t, string(body), tc.want, tc.format)
	}
	status, _ := get(t, c, e.srv.URL+"/dashboard/s/"+serverA+"/b/c"+coll+"/export?format=NOPE")
	require.Equal(t, http.StatusBadRequest, status)
}

// TestDiscordSignInRefusals: a callback whose state does not match the
// sign-in this browser started, or that Discord answered with an error, or
// a pasted service key, starts no session.
func TestDiscordSignInRefusals(t *testing.T) {
	e := newEnv(t)
	c := e.httpClient()
	login := func() url.Values {
		resp, err := c.Get(e.srv.URL + "/dashboard/login")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		authorize, err := url.Parse(resp.Header.Get("Location"))
		require.NoError(t, err)
		return authorize.Query()
	}
	q := login()
	require.Equal(t, "identify guilds guilds.members.read", q.Get("scope"))
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.Equal(t, e.public+"/dashboard/callback", q.Get("redirect_uri"))
	for _, tc := range []struct {
		name  string
		query func(state string) string
	}{
		{"forged state", func(string) string { return "code=code-1&state=forged" }},
		{"Discord refused", func(state string) string { return "error=access_denied&state=" + url.QueryEscape(state) }},
		{"unknown code", func(state string) string { return "code=never-issued&state=" + url.QueryEscape(state) }},
	} {
		state := login().Get("state")
		status, body := get(t, c, e.srv.URL+"/dashboard/callback?"+tc.query(state))
		require.Contains(t, []int{http.StatusBadRequest, http.StatusBadGateway}, status, tc.name)
		require.NotContains(t, body, "Sign out", tc.name)
	}
	// A service key is not a member token.
	pre := between(func() string { _, b := get(t, c, e.srv.URL+"/dashboard/"); return b }(), `name="csrf" value="`, `"`)
	resp, err := c.PostForm(e.srv.URL+"/dashboard/dev-login", url.Values{"csrf": {pre}, "token": {serviceKey}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// TestDiscordSignInReplay: against a provider that accepts a code twice, a
// callback replayed with the same state cookie, state and code starts no
// second session (the state is kept server-side and consumed once), and
// neither does the replay from another browser holding a copy of the cookie.
func TestDiscordSignInReplay(t *testing.T) {
	e := newEnv(t)
	e.oauth.lenient = true
	c := e.httpClient()
	resp, err := c.Get(e.srv.URL + "/dashboard/login?next=" + url.QueryEscape("/dashboard/s/"+serverA+"/"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var loginCookie *http.Cookie
	for _, sc := range resp.Cookies() {
		if sc.Name == "loregate_login" {
			loginCookie = sc
		}
	}
	require.NotNil(t, loginCookie)
	resp, err = c.Get(resp.Header.Get("Location")) // the fake's authorize page
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	callback := resp.Header.Get("Location")
	require.Contains(t, callback, "/dashboard/callback?code=")

	session := func(resp *http.Response) bool {
		for _, sc := range resp.Cookies() {
			if sc.Name == "loregate_session" && sc.Value != "" {
				return true
			}
		}
		return false
	}
	resp, err = c.Get(callback)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/dashboard/s/"+serverA+"/", resp.Header.Get("Location"), "the stored next page")
	require.True(t, session(resp), "the first callback signs in")
	var sessions int
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT count(*) FROM dashboard_sessions`).Scan(&sessions))
	require.Equal(t, 1, sessions)

	// The attacker replays the callback with the captured cookie.
	for _, name := range []string{"same browser, cookie put back", "another browser"} {
		replay := e.httpClient()
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, callback, nil)
		require.NoError(t, err)
		req.AddCookie(&http.Cookie{Name: loginCookie.Name, Value: loginCookie.Value})
		resp, err := replay.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, name)
		require.Contains(t, string(body), "could not be completed", name)
		require.False(t, session(resp), name)
	}
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT count(*) FROM dashboard_sessions`).Scan(&sessions))
	require.Equal(t, 1, sessions, "no second session")
	var states int
	require.NoError(t, e.pool.QueryRow(context.Background(), `SELECT count(*) FROM dashboard_login_states`).Scan(&states))
	require.Zero(t, states, "the state was consumed")
}

// TestSettingsSaveAndConflict saves server and book settings from their
// forms; a form loaded before someone else's change is refused and
// changes nothing.
func TestSettingsSaveAndConflict(t *testing.T) {
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	_, page := get(t, c, base)
	csrf := between(page, `name="csrf" value="`, `"`)
	version := between(page, `name="updatedAt" value="`, `"`)
	require.NotEmpty(t, version)
	form := url.Values{"csrf": {csrf}, "updatedAt": {version}, "budgetUnit": {"TOKENS"}, "budgetLimit": {"3000"}, "tokenizer": {"cl100k_base"}, "regexKeys": {"on"},
		"minActivations": {"2"}, "minActivationsDepthMax": {"12"}, "maxEntries": {"5"}, "includeNames": {"on"}}
	resp, err := c.PostForm(base+"settings", form)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var out struct {
		Server struct {
			Settings struct {
				BudgetUnit, Tokenizer string
				BudgetLimit           int
				RegexKeys             bool
				// The selection controls.
				MinActivations, MinActivationsDepthMax, MaxEntries int
				IncludeNames                                       bool
			}
		}
	}
	q := `query($s: String!) { server(discordId: $s) { settings { budgetUnit budgetLimit tokenizer regexKeys minActivations minActivationsDepthMax maxEntries includeNames } } }`
	e.must(q, map[string]any{"s": serverA}, &out)
	require.Equal(t, "TOKENS", out.Server.Settings.BudgetUnit)
	require.Equal(t, []int{2, 12, 5}, []int{out.Server.Settings.MinActivations, out.Server.Settings.MinActivationsDepthMax, out.Server.Settings.MaxEntries})
	require.True(t, out.Server.Settings.IncludeNames)
	_, page = get(t, c, base)
	require.Contains(t, page, `id="maxEntries" name="maxEntries" inputmode="numeric" value="5"`, "the form shows what is stored")
	require.Equal(t, 3000, out.Server.Settings.BudgetLimit)
	require.Equal(t, "cl100k_base", out.Server.Settings.Tokenizer)
	require.True(t, out.Server.Settings.RegexKeys)

	// The same (now old) version again: a conflict, nothing written.
	form.Set("budgetLimit", "4000")
	resp, err = c.PostForm(base+"settings", form)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, string(body), "Someone else changed these settings")
	e.must(q, map[string]any{"s": serverA}, &out)
	require.Equal(t, 3000, out.Server.Settings.BudgetLimit)

	// Book settings: blank inherits, a value is stored.
	_, page = get(t, c, base+"b/c"+coll+"/")
	bookVersion := between(between(page, `id="book-settings"`, `</form>`), `name="updatedAt" value="`, `"`)
	resp, err = c.PostForm(base+"b/c"+coll+"/settings", url.Values{"csrf": {csrf}, "updatedAt": {bookVersion}, "scanDepth": {"4"}, "recursive": {"true"}, "maxBudgetShare": {"40"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var bs struct {
		Server struct {
			Collection struct {
				BookSettings struct {
					ScanDepth   *int
					BudgetLimit *int
					Recursive   *bool
					// MaxBudgetShare is the book's own share (the budget bar's cap).
					MaxBudgetShare *int
				}
			}
		}
	}
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "World") { bookSettings { scanDepth budgetLimit recursive maxBudgetShare } } } }`, map[string]any{"s": serverA}, &bs)
	require.Equal(t, 4, *bs.Server.Collection.BookSettings.ScanDepth)
	require.Equal(t, 40, *bs.Server.Collection.BookSettings.MaxBudgetShare)
	require.Nil(t, bs.Server.Collection.BookSettings.BudgetLimit)
	require.True(t, *bs.Server.Collection.BookSettings.Recursive)
}

// TestCollectionLifecycle creates a collection from the server page (a
// taken name is refused next to the field), disables it, deletes it and
// brings it back from the import history.
func TestCollectionLifecycle(t *testing.T) {
	e := newEnv(t)
	e.collection(serverA, "Taken")
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	_, page := get(t, c, base)
	csrf := between(page, `name="csrf" value="`, `"`)
	post := func(path string, v url.Values) (*http.Response, string) {
		v.Set("csrf", csrf)
		resp, err := c.PostForm(base+path, v)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, body := post("collections", url.Values{"name": {"Taken"}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, body, `id="collection-name-err"`)
	resp, _ = post("collections", url.Values{"name": {"Lore"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	book := strings.TrimPrefix(resp.Header.Get("Location"), "/dashboard/s/"+serverA+"/")
	require.True(t, strings.HasPrefix(book, "b/c"), book)
	e.requireCollections(serverA, 2)

	resp, _ = post(book+"state", url.Values{"action": {"disable"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var out struct {
		Server struct{ Collection struct{ Enabled bool } }
	}
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "Lore") { enabled } } }`, map[string]any{"s": serverA}, &out)
	require.False(t, out.Server.Collection.Enabled)

	// Channels: the book page shows the form; ids are saved one per line
	// or comma-separated, a bad id is refused with the API's message, and
	// a stale version is a conflict.
	_, bookPage := get(t, c, base+book)
	require.Contains(t, bookPage, `id="collection-channels"`)
	version := between(bookPage, `name="updatedAt" value="`, `"`)
	require.NotEmpty(t, version)
	resp, _ = post(book+"state", url.Values{"action": {"channels"}, "channelIds": {"111111111111111111, 222222222222222222\n"}, "updatedAt": {version}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var chans struct {
		Server struct{ Collection struct{ ChannelIds []string } }
	}
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "Lore") { channelIds } } }`, map[string]any{"s": serverA}, &chans)
	require.Equal(t, []string{"111111111111111111", "222222222222222222"}, chans.Server.Collection.ChannelIds)
	resp, body = post(book+"state", url.Values{"action": {"channels"}, "channelIds": {"333333333333333333"}, "updatedAt": {version}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "the version read before the first save is stale")
	require.Contains(t, body, "was changed after you read it; nothing was written")
	resp, body = post(book+"state", url.Values{"action": {"channels"}, "channelIds": {"not-a-channel"}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, body, "channel")

	resp, _ = post(book+"state", url.Values{"action": {"delete"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	e.requireCollections(serverA, 1)
	_, hist := get(t, c, base+"history")
	require.Contains(t, hist, "Collection deleted")
	id := between(hist, `class="undo" data-id="`, `"`)
	require.NotEmpty(t, id)
	resp, _ = post("history/"+id+"/undo", url.Values{})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	e.requireCollections(serverA, 2)
}

// TestStaticAssets: the embedded script and style sheet are served with a
// cache lifetime; a path outside them is not found.
func TestStaticAssets(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		path, contentType string
		status            int
	}{
		{"app.js", "text/javascript; charset=utf-8", http.StatusOK},
		{"app.css", "text/css; charset=utf-8", http.StatusOK},
		{"nope.js", "", http.StatusNotFound},
		{"../templates/layout.html", "", http.StatusNotFound},
	} {
		resp, err := http.Get(e.srv.URL + "/dashboard/static/" + tc.path)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, tc.status, resp.StatusCode, tc.path)
		if tc.status == http.StatusOK {
			require.Equal(t, tc.contentType, resp.Header.Get("Content-Type"), tc.path)
			require.Equal(t, "public, max-age=3600", resp.Header.Get("Cache-Control"), tc.path)
		}
	}
}

// TestLoreEditorSignIn: signing in with Discord reads the member's roles
// (guilds.members.read) where a server names a lore editor role; a member
// holding it writes lore in the dashboard (the book's New entry, the
// badge) but does not see the server settings form, and the grant is
// re-checked: once the manager unsets the role, the same session reads
// only.
func TestLoreEditorSignIn(t *testing.T) {
	e := newEnv(t)
	const role = "700000000000000101"
	e.must(`mutation($s: String!, $r: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, loreEditorRoleId: $r}) { error { message } } }`,
		map[string]any{"s": serverB, "r": role}, nil)
	coll := e.collection(serverB, "Realm")
	signIn := func() *http.Client {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		resp, err := c.Get(e.srv.URL + "/dashboard/login")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "the sign-in ends on the servers page")
		return c
	}
	e.oauth.mu.Lock()
	e.oauth.roles[serverB] = []string{"700000000000000102", role}
	e.oauth.mu.Unlock()
	c := signIn()
	status, body := get(t, c, e.srv.URL+"/dashboard/s/"+serverB+"/")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "Read and write lore (lore editor)")
	require.NotContains(t, body, `id="server-settings"`, "settings stay the managers'")
	require.Contains(t, body, `id="new-collection"`)
	_, body = get(t, c, e.srv.URL+"/dashboard/s/"+serverB+"/b/c"+coll+"/")
	require.Contains(t, body, `id="new-entry"`)
	require.NotContains(t, body, `/backups"`, "no Backups link: backups stay the managers'")
	_, body = get(t, c, e.srv.URL+"/dashboard/")
	require.Contains(t, between(body, `id="servers"`, `</ul>`), "Read and write lore (lore editor)", "the servers list's badge")
	_, body = get(t, c, e.srv.URL+"/dashboard/s/"+serverB+"/personas")
	require.NotContains(t, body, `value="rename"`, "no persona buttons for a lore editor")
	require.NotContains(t, body, `id="h-register"`)

	e.must(`mutation($s: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, loreEditorRoleId: ""}) { error { message } } }`,
		map[string]any{"s": serverB}, nil)
	_, body = get(t, c, e.srv.URL+"/dashboard/s/"+serverB+"/b/c"+coll+"/")
	require.NotContains(t, body, `id="new-entry"`, "the grant is re-checked on every request")

	// A member without the role reads only.
	e.must(`mutation($s: String!, $r: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, loreEditorRoleId: $r}) { error { message } } }`,
		map[string]any{"s": serverB, "r": role}, nil)
	e.oauth.mu.Lock()
	e.oauth.roles[serverB] = []string{"700000000000000102"}
	e.oauth.mu.Unlock()
	c = signIn()
	_, body = get(t, c, e.srv.URL+"/dashboard/s/"+serverB+"/")
	require.Contains(t, body, "Read only")
}

// TestPersonasLoreOnlyBook: the personas page's Book choice names a
// lineage that holds lore but has no persona (a backup restored onto
// another server, say) as that lineage's book, not as an alter of "#9";
// a book with personas stays "Alter: shares the book of <names>".
func TestPersonasLoreOnlyBook(t *testing.T) {
	e := newEnv(t)
	e.must(`mutation($s: String!) {
		a: upsertPersona(input: {serverDiscordId: $s, id: 1, lineageId: 4, name: "Ann"}) { error { message } }
		b: upsertPersona(input: {serverDiscordId: $s, id: 2, lineageId: 9, name: "Gone"}) { error { message } }
		c: createEntry(input: {serverDiscordId: $s, lineageId: 9, entry: {title: "t", content: "c", keys: ["k"]}}) { error { message } } }`,
		map[string]any{"s": serverB}, nil)
	// Lineage 9 keeps its lore without a persona, as a backup restored
	// onto another server leaves it (the API never unregisters one).
	_, err := e.pool.Exec(t.Context(), `DELETE FROM personas WHERE server_id = $1 AND id = 2`, serverB)
	require.NoError(t, err)
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverB: true}))
	_, body := get(t, c, e.srv.URL+"/dashboard/s/"+serverB+"/personas")
	sel := visibleText(between(body, `id="p-lineage"`, `</select>`))
	require.Contains(t, sel, "Alter: shares the book of Ann")
	require.Contains(t, sel, "The book of lineage 9 (no persona reads it)")
	require.NotContains(t, sel, "#9")
}
