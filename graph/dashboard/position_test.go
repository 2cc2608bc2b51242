package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEditorPositionFields: the editor shows an entry's position (kind,
// depth, role, outlet), match flags, character filter and generation
// types, and saves them; an entry saved with only its text changed keeps
// them.
func TestEditorPositionFields(t *testing.T) {
	e := newEnv(t)
	coll := e.collection(serverA, "World")
	id := e.entry(serverA, coll, map[string]any{"title": "Deep", "content": "Deep lore.", "keys": []string{"deep"},
		"position": map[string]any{"kind": "AT_DEPTH", "depth": 2, "role": "USER"}, "role": "USER",
		"matchScenario": true, "characterFilter": map[string]any{"names": []string{"Alice"}}, "generationTypes": []string{"CONTINUE"}})
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true}))
	page := e.srv.URL + "/dashboard/s/" + serverA + "/b/c" + coll + "/e/" + id
	status, body := get(t, c, page)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `<option value="AT_DEPTH" selected>In the chat, at a depth</option>`)
	require.Contains(t, body, `id="f-depth" name="depth" inputmode="numeric" value="2"`)
	require.Contains(t, body, `id="f-matchScenario" name="matchScenario" checked`)
	require.Contains(t, body, ">Alice</textarea>")
	require.Contains(t, body, `value="CONTINUE" checked`)

	read := func() map[string]any {
		var out struct {
			Server struct {
				Collection struct {
					Entries struct {
						Edges []struct{ Node map[string]any }
					}
				}
			}
		}
		e.must(`query($s: String!, $n: String!) { server(discordId: $s) { collection(name: $n) { entries(first: 10) { edges { node {
			content position { kind depth role outlet } matchScenario matchPersonaDescription characterFilter { names tags exclude } generationTypes } } } } } }`,
			map[string]any{"s": serverA, "n": "World"}, &out)
		return out.Server.Collection.Entries.Edges[0].Node
	}
	csrf := between(body, `name="csrf" value="`, `"`)
	stamp := between(body, `name="updatedAt" value="`, `"`)
	form := url.Values{"csrf": {csrf}, "updatedAt": {stamp}, "title": {"Deep"}, "content": {"Deep lore, edited."}, "keys": {"deep"},
		"selectiveLogic": {"AND_ANY"}, "enabled": {"on"}, "probability": {"100"}, "insertionOrder": {"100"}, "priority": {"100"},
		"groupWeight": {"100"}, "delayUntilRecursion": {"0"}, "sticky": {"0"}, "cooldown": {"0"}, "delay": {"0"},
		"positionKind": {"AT_DEPTH"}, "depth": {"2"}, "role": {"USER"}, "matchScenario": {"on"},
		"filterNames": {"Alice"}, "generationTypes": {"CONTINUE"}}
	resp, err := c.PostForm(page, form)
	require.NoError(t, err)
	resp.Body.Close()
	got := read()
	require.Equal(t, "Deep lore, edited.", got["content"])
	require.Equal(t, map[string]any{"kind": "AT_DEPTH", "depth": 2.0, "role": "USER", "outlet": nil}, got["position"])
	require.Equal(t, true, got["matchScenario"])
	require.Equal(t, []any{"Alice"}, got["characterFilter"].(map[string]any)["names"])
	require.Equal(t, []any{"CONTINUE"}, got["generationTypes"])

	// Now an outlet, other flags, an exclude filter with tags, every
	// generation type.
	_, body = get(t, c, page)
	form.Set("csrf", between(body, `name="csrf" value="`, `"`))
	form.Set("updatedAt", between(body, `name="updatedAt" value="`, `"`))
	form.Set("positionKind", "OUTLET")
	form.Set("outlet", "mood")
	form.Del("matchScenario")
	form.Set("matchPersonaDescription", "on")
	form.Set("filterTags", "villain")
	form.Set("filterExclude", "on")
	form.Del("generationTypes")
	resp, err = c.PostForm(page, form)
	require.NoError(t, err)
	resp.Body.Close()
	got = read()
	require.Equal(t, map[string]any{"kind": "OUTLET", "depth": nil, "role": nil, "outlet": "mood"}, got["position"])
	require.Equal(t, false, got["matchScenario"])
	require.Equal(t, true, got["matchPersonaDescription"])
	require.Equal(t, map[string]any{"names": []any{"Alice"}, "tags": []any{"villain"}, "exclude": true}, got["characterFilter"])
	require.Equal(t, []any{}, got["generationTypes"])
}
