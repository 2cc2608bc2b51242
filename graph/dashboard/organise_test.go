package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBookOrganisation: a manager writes a book's description and tags and
// adds a category on the book page; the list groups the entries by
// category; the editor offers the book's categories and shows the note; a
// disabled category is marked; the server page filters books by tag
// (docs/workbench.md#categories).
func TestBookOrganisation(t *testing.T) {
	e := newEnv(t)
	coll := e.collection(serverA, "Places")
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/b/c" + coll + "/"
	_, page := get(t, c, base)
	csrf := between(page, `name="csrf" value="`, `"`)
	post := func(form url.Values) {
		t.Helper()
		form.Set("csrf", csrf)
		resp, err := c.PostForm(base+"organise", form)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, "%v", form)
	}
	post(url.Values{"action": {"info"}, "description": {"Towns of the coast."}, "tags": {"coast, cities,"}})
	post(url.Values{"action": {"add-category"}, "name": {"Cities"}})
	var out struct {
		Server struct {
			Collection struct {
				Description string
				Tags        []string
				Categories  []struct{ ID, Name string }
			}
		}
	}
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "Places") { description tags categories { id name } } } }`,
		map[string]any{"s": serverA}, &out)
	got := out.Server.Collection
	require.Equal(t, "Towns of the coast.", got.Description)
	require.Equal(t, []string{"coast", "cities"}, got.Tags)
	require.Len(t, got.Categories, 1)
	cat := got.Categories[0].ID
	lisbon := e.entry(serverA, coll, map[string]any{"title": "Lisbon", "content": "Seven hills.", "keys": []string{"lisbon"}, "categoryId": cat, "note": "count the hills"})
	e.entry(serverA, coll, map[string]any{"title": "Sea", "content": "Salt.", "keys": []string{"sea"}})

	_, page = get(t, c, base)
	require.Contains(t, page, `>Towns of the coast.</textarea>`)
	require.Contains(t, page, `value="coast, cities"`)
	require.Regexp(t, `(?s)scope="rowgroup">Cities</th>.*Lisbon.*scope="rowgroup">No category</th>.*Sea`, page, "grouped by category")

	_, editor := get(t, c, base+"e/"+lisbon)
	require.Contains(t, editor, `<option value="`+cat+`" selected>Cities</option>`)
	require.Contains(t, editor, `>count the hills</textarea>`)

	// The server page lists only the books carrying the tag asked for
	// (case-insensitive), and every book again without one.
	e.collection(serverA, "Harbour")
	serverPage := e.srv.URL + "/dashboard/s/" + serverA + "/"
	_, page = get(t, c, serverPage+"?tag=COAST")
	require.Contains(t, page, `id="tag-filter-note"`)
	require.Contains(t, page, `/b/c`+coll+`/">Places</a>`)
	require.NotContains(t, page, `">Harbour</a>`)
	_, page = get(t, c, serverPage+"?tag=inland")
	require.NotContains(t, page, `">Places</a>`)
	_, page = get(t, c, serverPage+"?tag="+strings.Repeat("c", 101))
	require.Contains(t, page, "A tag has at most 100 characters.")
	require.NotContains(t, page, `">Places</a>`)
	_, page = get(t, c, serverPage)
	require.Contains(t, page, `">Places</a>`)
	require.Contains(t, page, `">Harbour</a>`)
	require.NotContains(t, page, `id="tag-filter-note"`)

	post(url.Values{"action": {"disable-category"}, "categoryId": {cat}})
	_, page = get(t, c, base)
	require.Regexp(t, `scope="rowgroup">Cities <span class="badge">Category disabled</span>`, page)

	// A member without the permission is refused and nothing changes.
	m := e.httpClientSignedIn(e.token("43", map[string]bool{serverA: false}))
	_, mp := get(t, m, base)
	resp, err := m.PostForm(base+"organise", url.Values{"csrf": {between(mp, `name="csrf" value="`, `"`)}, "action": {"delete-category"}, "categoryId": {cat}})
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEqual(t, http.StatusSeeOther, resp.StatusCode)
	e.must(`query($s: String!) { server(discordId: $s) { collection(name: "Places") { description tags categories { id name } } } }`,
		map[string]any{"s": serverA}, &out)
	require.Len(t, out.Server.Collection.Categories, 1)
}
