package dashboard_test

import (
	"io"
	"net/http"
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
	req, _ := http.NewRequest(http.MethodGet, base, nil)
	req.Header.Set("Accept-Language", "pt-BR,pt;q=0.9")
	resp, err := c.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(b), "Todo o Servidor")
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
