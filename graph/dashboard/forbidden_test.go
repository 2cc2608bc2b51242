package dashboard_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/dashboard"
	"loregate/lore/i18n"
)

// TestForbiddenNamedOverHTTP: a read-only member's write, settings change
// and export, sent anyway, are refused by the API with FORBIDDEN; the
// dashboard answers 403 with the text of the error's reason key in the
// member's language (not the API's English message).
func TestForbiddenNamedOverHTTP(t *testing.T) {
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	c := e.httpClient()
	e.devSignIn(c, e.token("43", map[string]bool{serverA: false}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	for _, lang := range []string{"en", "pt-BR", "es"} {
		status, _ := get(t, c, e.srv.URL+"/dashboard/lang/"+lang+"?back="+url.QueryEscape("/dashboard/s/"+serverA+"/"))
		require.Equal(t, http.StatusSeeOther, status)
		_, page := get(t, c, base)
		csrf := between(page, `name="csrf" value="`, `"`)
		require.NotEmpty(t, csrf)
		for _, tc := range []struct {
			name, path string
			form       url.Values // nil: a GET
			reason     string
		}{
			{"new collection", "collections", url.Values{"name": {"Mine"}}, i18n.ForbiddenLoreWrite},
			{"server settings", "settings", url.Values{"budgetUnit": {"TOKENS"}}, i18n.ForbiddenSettings},
			{"export", "b/c" + coll + "/export?format=ST_WORLD_INFO", nil, i18n.ForbiddenExport},
		} {
			t.Run(lang+"/"+tc.name, func(t *testing.T) {
				var status int
				var body string
				if tc.form == nil {
					status, body = get(t, c, base+tc.path)
				} else {
					tc.form.Set("csrf", csrf)
					resp, err := c.PostForm(base+tc.path, tc.form)
					require.NoError(t, err)
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					require.NoError(t, err)
					status, body = resp.StatusCode, string(b)
				}
				require.Equal(t, http.StatusForbidden, status, body)
				require.Contains(t, html.UnescapeString(body), dashboard.ForbiddenTexts[tc.reason][lang])
			})
		}
	}
}
