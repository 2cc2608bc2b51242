package activatecmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"loregate/graph/graphtest"

	"github.com/stretchr/testify/require"
)

// scriptBook is a SillyTavern world info file whose entries exercise what
// a recorded turn carries between turns: sticky, cooldown and delay
// windows, a 50% trigger chance (draws seeded from the turn id), the
// match decorators and recursion.
const scriptBook = `{"name": "Script", "recursive_scanning": true, "entries": {
 "0": {"uid": 0, "comment": "Dragon", "content": "A dragon sleeps under the hill.", "key": ["dragon"], "sticky": 3, "cooldown": 2, "delay": 2, "order": 10},
 "1": {"uid": 1, "comment": "Hill", "content": "The hill hides a cave.", "key": ["hill"], "order": 20},
 "2": {"uid": 2, "comment": "Cave", "content": "Bats live in the cave.", "key": ["cave"], "probability": 50, "useProbability": true, "order": 30},
 "3": {"uid": 3, "comment": "Omen", "content": "@@keep_activate_after_match\nA red sky is an omen.", "key": ["omen"], "order": 40},
 "4": {"uid": 4, "comment": "Coin", "content": "A coin is tossed.", "key": ["coin"], "probability": 30, "useProbability": true, "order": 50},
 "5": {"uid": 5, "comment": "Always", "content": "The kingdom is at war.", "constant": true, "order": 5}
}}`

// scriptTurn is one turn of the script: the newest message and the
// conversation's message count (a repeated count is a swipe).
type scriptTurn struct {
	count int
	text  string
}

var script = []scriptTurn{
	{1, "a dragon"}, {2, "the dragon wakes"}, {2, "swiped: nothing"}, {4, "nothing here"},
	{5, "an omen in the sky"}, {6, "quiet"}, {7, "a coin and a cave"}, {8, "coin coin"},
	{9, "dragon again"}, {10, "the hill"}, {11, "coin"}, {12, "dragon"},
}

// sameTurn is what the comparison reads of a turn: the admitted entries
// (title, content, pass), the budget, the passes, every entry's verdict
// by title.
type sameTurn struct {
	Admitted []string
	Used     int
	Passes   int
	Verdicts []string
}

// TestActivateTurnMatchesCLI runs the same script of turns through the
// activateTurn mutation (a real API on Postgres, the book imported through
// importLorebook) and through `loregate activate --state --turn-id` (the
// same file): both go through lore/turn's Record, so every turn admits the
// same entries with the same verdicts, chance draws included.
func TestActivateTurnMatchesCLI(t *testing.T) {
	api := newTestAPI(t)
	const server, channel = "111111111111111111", "222222222222222222"
	api.call(t, `mutation($id: String!) { upsertServer(input: {discordId: $id, name: "Script"}) { error { code } } }`,
		map[string]any{"id": server}, nil)
	api.importBook(t, server, "script.json", []byte(scriptBook))

	dir := t.TempDir()
	book := filepath.Join(dir, "script.json")
	require.NoError(t, os.WriteFile(book, []byte(scriptBook), 0o600))
	state := filepath.Join(dir, "state.json")
	var history []string
	for i, s := range script {
		if i > 0 && s.count == script[i-1].count {
			history = history[:len(history)-1] // a swipe replaces the newest message
		}
		history = append(history, s.text)
		turnID := "turn-" + strconv.Itoa(i+1)

		msgs := make([]map[string]any, len(history))
		for j, m := range history {
			msgs[j] = map[string]any{"content": m}
		}
		var p struct {
			Result *struct {
				Admitted []struct {
					Title, Content string
					Pass           int
				}
				Budget struct{ Used int }
				Passes int
				Trace  []struct{ Title, Verdict string }
			}
			Error *struct{ Code, Message string }
		}
		api.call(t, `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) {
			result { admitted { title content pass } budget { used } passes trace { title verdict } } error { code message } } }`,
			map[string]any{"input": map[string]any{"serverDiscordId": server, "channelId": channel, "messages": msgs,
				"turnId": turnID, "messageCount": s.count}}, &p)
		require.Nil(t, p.Error, "turn %d", i+1)
		viaAPI := sameTurn{Used: p.Result.Budget.Used, Passes: p.Result.Passes}
		for _, a := range p.Result.Admitted {
			viaAPI.Admitted = append(viaAPI.Admitted, fmt.Sprintf("%s|%s|%d", a.Title, a.Content, a.Pass))
		}
		for _, tr := range p.Result.Trace {
			viaAPI.Verdicts = append(viaAPI.Verdicts, tr.Title+"="+tr.Verdict)
		}

		chat, err := json.Marshal(history)
		require.NoError(t, err)
		code, stdout, stderr := runCmd(t, string(chat), "--book", book, "--chat", "-", "--state", state, "--turn-id", turnID,
			"--message-count", strconv.Itoa(s.count), "--regex-keys=false", "--user", "", "--char", "")
		require.Equal(t, 0, code, stderr)
		var out struct {
			Admitted []struct {
				Title, Content string
				Pass           int
			}
			Budget struct{ Used int }
			Passes int
			Trace  []struct{ Title, Verdict string }
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		viaCLI := sameTurn{Used: out.Budget.Used, Passes: out.Passes}
		for _, a := range out.Admitted {
			viaCLI.Admitted = append(viaCLI.Admitted, fmt.Sprintf("%s|%s|%d", a.Title, a.Content, a.Pass))
		}
		for _, tr := range out.Trace {
			viaCLI.Verdicts = append(viaCLI.Verdicts, tr.Title+"="+tr.Verdict)
		}
		require.Equal(t, viaAPI, viaCLI, "turn %d (count %d, %q)", i+1, s.count, s.text)
		require.Len(t, viaAPI.Verdicts, 6, "turn %d: every entry is in the trace", i+1)
	}
}

// testAPI is a real GraphQL API (graphtest) on a fresh database.
type testAPI struct {
	srv *httptest.Server
	key string
}

func newTestAPI(t *testing.T) *testAPI {
	t.Helper()
	return &testAPI{srv: graphtest.New(t, graphtest.Options{}).Server, key: graphtest.ServiceKey}
}

// call posts query as the service, fails on any GraphQL error and decodes
// the only field of data into out (when not nil).
func (a *testAPI) call(t *testing.T, query string, vars map[string]any, out any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	a.send(t, req, out)
}

func (a *testAPI) send(t *testing.T, req *http.Request, out any) {
	t.Helper()
	req.Header.Set("Authorization", "Bearer "+a.key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var r struct {
		Data   map[string]json.RawMessage
		Errors []struct{ Message string }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	require.Empty(t, r.Errors)
	require.Len(t, r.Data, 1)
	if out != nil {
		for _, v := range r.Data {
			require.NoError(t, json.Unmarshal(v, out))
		}
	}
}

// importBook imports file into a new Serverwide collection through the
// GraphQL multipart upload.
func (a *testAPI) importBook(t *testing.T, server, name string, file []byte) {
	t.Helper()
	ops, err := json.Marshal(map[string]any{
		"query":     `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { added error { code message } } }`,
		"variables": map[string]any{"input": map[string]any{"serverDiscordId": server, "lineageId": 0, "file": nil}}})
	require.NoError(t, err)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	require.NoError(t, mw.WriteField("operations", string(ops)))
	require.NoError(t, mw.WriteField("map", `{"0":["variables.input.file"]}`))
	fw, err := mw.CreateFormFile("0", name)
	require.NoError(t, err)
	_, err = fw.Write(file)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", &buf)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var p struct {
		Added int
		Error *struct{ Code, Message string }
	}
	a.send(t, req, &p)
	require.Nil(t, p.Error)
	require.Equal(t, 6, p.Added)
}
