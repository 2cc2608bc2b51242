package dashboard_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/discord"
	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/dashboard"
	"loregate/graph/graphtest"
	"loregate/lore/embeddings"
	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/postgres"
)

const (
	serviceKey = graphtest.ServiceKey
	serverA    = "111111111111111111"
	serverB    = "222222222222222222"
	// the fake Discord user
	discordUser = "333333333333333333"
	clientID    = "test-client-id"
	// server A's channels on the fake Discord: #tavern and #forest in the
	// Roleplay category, and the thread "the quest" of #tavern.
	channelTavern = "900000000000000002"
	channelForest = "900000000000000003"
	channelQuest  = "900000000000000005"
	secret        = "test-client-secret"
)

// env is a running loregate API with the dashboard on a fresh database,
// and a fake Discord OAuth server.
type env struct {
	t      testing.TB
	srv    *httptest.Server
	authn  *auth.Authenticator
	store  *postgres.Store
	pool   *pgxpool.Pool
	oauth  *fakeDiscord
	public string
}

// newEnv starts the API and the dashboard on a fresh database; servers A
// and B are registered.
func newEnv(t testing.TB) *env { return newEnvWith(t, 0, true) }

// newEnvJobs is newEnv with background jobs when inline > 0: imports
// larger than inline bytes become jobs.
func newEnvJobs(t testing.TB, inline int) *env { return newEnvWith(t, inline, true) }

// newEnvWith is newEnvJobs whose API reads channel names from the fake
// Discord's REST API (Server.channels, as with a bot token) when bot is
// set, and has none (no bot token) otherwise; each of adjust changes the
// API's options (withEmbeddings).
func newEnvWith(t testing.TB, inline int, bot bool, adjust ...func(*graphtest.Options)) *env {
	t.Helper()
	o := graphtest.Options{Unstarted: true, Logger: slog.New(slog.DiscardHandler)}
	if inline > 0 {
		o.Jobs, o.InlineImportBytes = true, inline
	}
	for _, f := range adjust {
		f(&o)
	}
	a := graphtest.New(t, o)
	srv, authn, store := a.Server, a.Auth, a.Store
	fd := newFakeDiscord(t)
	if bot {
		rest, err := discord.NewREST("test-bot-token", discord.RESTOptions{APIBase: fd.srv.URL})
		require.NoError(t, err)
		a.Resolver.Channels = discord.NewChannelDirectory(rest)
	}
	public := "http://" + srv.Listener.Addr().String()
	api, err := client.New(a.Executor, authn)
	require.NoError(t, err)
	d, err := dashboard.New(dashboard.Config{API: api, Auth: authn, Sessions: store, PublicURL: public,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OAuth:  dashboard.OAuth{ClientID: clientID, ClientSecret: secret, BaseURL: fd.srv.URL}})
	require.NoError(t, err)
	d.Mount(a.Mux)
	srv.Start()
	e := &env{t: t, srv: srv, authn: authn, store: store, pool: a.Pool, oauth: fd, public: public}
	e.must(`mutation($id: String!, $n: String!) { upsertServer(input: {discordId: $id, name: $n}) { error { message } } }`,
		map[string]any{"id": serverA, "n": "Glade Keepers"}, nil)
	e.must(`mutation($id: String!, $n: String!) { upsertServer(input: {discordId: $id, name: $n}) { error { message } } }`,
		map[string]any{"id": serverB, "n": "Other Realm"}, nil)
	return e
}

// withEmbeddings gives the API an embeddings provider: the fake
// OpenAI-compatible server, closed when the test ends (without jobs, the
// candidates stay PENDING).
func withEmbeddings(t testing.TB) func(*graphtest.Options) {
	return func(o *graphtest.Options) {
		fake := embeddingstest.New(8)
		t.Cleanup(fake.Close)
		c, err := embeddings.New(embeddings.Config{URL: fake.URL, Model: "fake-embed"})
		require.NoError(t, err)
		o.Embeddings = c
	}
}

// must runs a GraphQL operation with the service key and decodes data.
func (e *env) must(query string, vars map[string]any, out any) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+serviceKey)
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

// collection creates a Serverwide collection and returns its id.
func (e *env) collection(server, name string) string {
	e.t.Helper()
	var out struct {
		CreateCollection struct{ Collection struct{ ID string } }
	}
	e.must(`mutation($s: String!, $n: String!) { createCollection(input: {serverDiscordId: $s, name: $n}) { collection { id } error { message } } }`,
		map[string]any{"s": server, "n": name}, &out)
	require.NotEmpty(e.t, out.CreateCollection.Collection.ID)
	return out.CreateCollection.Collection.ID
}

// entry creates a Serverwide entry and returns its id.
func (e *env) entry(server, coll string, fields map[string]any) string {
	e.t.Helper()
	var out struct {
		CreateEntry struct {
			Entry *struct{ ID string }
			Error *struct{ Message string }
		}
	}
	e.must(`mutation($in: CreateEntryInput!) { createEntry(input: $in) { entry { id } error { message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": server, "lineageId": 0, "collectionId": coll, "entry": fields}}, &out)
	require.Nil(e.t, out.CreateEntry.Error)
	return out.CreateEntry.Entry.ID
}

// token mints a member token for user with the guild memberships.
func (e *env) token(user string, guilds map[string]bool) string {
	e.t.Helper()
	m := map[string]auth.Membership{}
	for g, manage := range guilds {
		m[g] = auth.Membership{Manage: manage}
	}
	tok, err := e.authn.Mint(user, m, time.Hour, time.Now())
	require.NoError(e.t, err)
	return tok
}

// httpClient is a cookie-keeping client that does not follow redirects.
func (e *env) httpClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// devSignIn signs c in with a pasted token.
func (e *env) devSignIn(c *http.Client, token string) { e.t.Helper(); e.devSignInNamed(c, token, "") }

// devSignInNamed signs in with token, typing name in the form's optional
// name field.
func (e *env) devSignInNamed(c *http.Client, token, name string) {
	e.t.Helper()
	resp, err := c.Get(e.srv.URL + "/dashboard/")
	require.NoError(e.t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pre := between(string(body), `name="csrf" value="`, `"`)
	resp, err = c.PostForm(e.srv.URL+"/dashboard/dev-login", url.Values{"csrf": {pre}, "token": {token}, "name": {name}, "next": {"/dashboard/"}})
	require.NoError(e.t, err)
	resp.Body.Close()
	require.Equal(e.t, http.StatusSeeOther, resp.StatusCode)
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	j := strings.Index(s, b)
	if j < 0 {
		return ""
	}
	return s[:j]
}

// fakeDiscord is Discord's OAuth2 authorize page, token endpoint and user
// and guild reads, checking the PKCE exchange as Discord does.
type fakeDiscord struct {
	srv *httptest.Server
	mu  sync.Mutex
	// codes maps an issued code to its challenge and redirect URI.
	codes map[string][2]string
	// guilds is what /users/@me/guilds answers.
	guilds []map[string]any
	// scopes records the scope of the last authorize request.
	scope string
	// lenient makes the token endpoint accept a code more than once (a
	// provider that does not enforce single-use codes, so only loregate's
	// own state can stop a replayed callback).
	lenient bool
	// roles is what /users/@me/guilds/{id}/member answers as the member's
	// roles per guild (a guild absent: 404, as for a guild left).
	roles map[string][]string
}

func newFakeDiscord(t testing.TB) *fakeDiscord {
	f := &fakeDiscord{codes: map[string][2]string{}, roles: map[string][]string{}, guilds: []map[string]any{
		{"id": serverA, "name": "Glade Keepers", "owner": false, "permissions": fmt.Sprint(1 << 5)},
		{"id": serverB, "name": "Other Realm", "owner": false, "permissions": "1024"},
		{"id": "444444444444444444", "name": "No Bot Here", "owner": true, "permissions": "0"},
	}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth2/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != clientID || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorize request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		code := fmt.Sprintf("code-%d", len(f.codes)+1)
		f.codes[code] = [2]string{q.Get("code_challenge"), q.Get("redirect_uri")}
		f.scope = q.Get("scope")
		f.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /api/oauth2/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		c, ok := f.codes[r.PostForm.Get("code")]
		if !f.lenient {
			delete(f.codes, r.PostForm.Get("code"))
		}
		f.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		id, sec, _ := r.BasicAuth()
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c[0] || r.PostForm.Get("redirect_uri") != c[1] ||
			id != clientID || sec != secret || r.PostForm.Get("grant_type") != "authorization_code" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		scope := f.scope
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "access-1", "token_type": "Bearer", "scope": scope})
	})
	bearer := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer access-1" {
				http.Error(w, "401", http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /api/v10/users/@me", bearer(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"id": discordUser, "username": "ann", "global_name": "Ann of the Glade"})
	}))
	// The bot's REST reads of server A's channels (Server.channels).
	bot := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bot test-bot-token" {
				http.Error(w, `{"message": "401: Unauthorized", "code": 0}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			h(w, r)
		}
	}
	mux.HandleFunc("GET /api/v9/guilds/{guild}/channels", bot(func(w http.ResponseWriter, r *http.Request) {
		var chs []map[string]any
		if r.PathValue("guild") == serverA {
			chs = []map[string]any{
				{"id": "900000000000000001", "type": 4, "name": "Roleplay", "position": 0, "guild_id": serverA},
				{"id": channelTavern, "type": 0, "name": "tavern", "parent_id": "900000000000000001", "position": 1, "guild_id": serverA},
				{"id": channelForest, "type": 0, "name": "forest", "parent_id": "900000000000000001", "position": 2, "guild_id": serverA},
				{"id": "900000000000000004", "type": 2, "name": "Voice chat", "position": 3, "guild_id": serverA},
			}
		}
		_ = json.NewEncoder(w).Encode(chs)
	}))
	mux.HandleFunc("GET /api/v9/guilds/{guild}/threads/active", bot(func(w http.ResponseWriter, r *http.Request) {
		threads := []map[string]any{}
		if r.PathValue("guild") == serverA {
			threads = append(threads, map[string]any{"id": channelQuest, "type": 11, "name": "the quest", "parent_id": channelTavern, "guild_id": serverA})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"threads": threads, "members": []any{}})
	}))
	mux.HandleFunc("GET /api/v10/users/@me/guilds", bearer(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(f.guilds)
	}))
	mux.HandleFunc("GET /api/v10/users/@me/guilds/{guild}/member", bearer(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		roles, ok := f.roles[r.PathValue("guild")]
		granted := strings.Contains(f.scope, "guilds.members.read")
		f.mu.Unlock()
		switch {
		case !granted:
			http.Error(w, `{"message": "Missing Access", "code": 50001}`, http.StatusForbidden)
		case !ok:
			http.Error(w, `{"message": "Unknown Guild", "code": 10004}`, http.StatusNotFound)
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"roles": roles, "joined_at": "2024-01-01T00:00:00Z"})
		}
	}))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// apiEntry is what the tests read back through the API.
type apiEntry struct {
	Title, Content string
	Probability    int
	SecondaryKeys  []string
}

// getEntry reads an entry of a collection with the service key.
func (e *env) getEntry(server, coll, id string) apiEntry {
	e.t.Helper()
	var out struct {
		Server struct {
			Collection struct {
				Entries struct {
					Edges []struct {
						Node struct {
							ID string
							apiEntry
						}
					}
				}
			}
		}
	}
	e.must(`query($s: String!, $n: String!) { server(discordId: $s) { collection(name: $n) { entries(first: 250) { edges { node { id title content probability secondaryKeys } } } } } }`,
		map[string]any{"s": server, "n": coll}, &out)
	for _, ed := range out.Server.Collection.Entries.Edges {
		if ed.Node.ID == id {
			return ed.Node.apiEntry
		}
	}
	e.t.Fatalf("entry %s not found", id)
	return apiEntry{}
}

// requireCollections checks the server's collection count.
func (e *env) requireCollections(server string, n int) {
	e.t.Helper()
	var out struct {
		Server struct{ Collections struct{ TotalCount int } }
	}
	e.must(`query($s: String!) { server(discordId: $s) { collections { totalCount } } }`, map[string]any{"s": server}, &out)
	require.Equal(e.t, n, out.Server.Collections.TotalCount)
}

// requireEntries checks the server's Serverwide entry count.
func (e *env) requireEntries(server string, n int) {
	e.t.Helper()
	var out struct {
		Server struct {
			EntryCounts []struct {
				LineageID *int64
				Count     int
			}
		}
	}
	e.must(`query($s: String!) { server(discordId: $s) { entryCounts { lineageId count } } }`, map[string]any{"s": server}, &out)
	got := 0
	for _, c := range out.Server.EntryCounts {
		if c.LineageID == nil {
			got = c.Count
		}
	}
	require.Equal(e.t, n, got)
}

// httpClientSignedIn is a client signed in with token.
func (e *env) httpClientSignedIn(token string) *http.Client {
	c := e.httpClient()
	e.devSignIn(c, token)
	return c
}

// importBook imports a SillyTavern world info book of the entries (title,
// content, key) into a new collection named name, with the service key,
// and returns the collection's id.
func (e *env) importBook(server, name string, entries [][3]string) string {
	e.t.Helper()
	book := map[string]any{}
	for i, x := range entries {
		book[fmt.Sprint(i)] = map[string]any{"uid": i, "comment": x[0], "content": x[1], "key": []string{x[2]}, "order": i}
	}
	file, _ := json.Marshal(map[string]any{"entries": book})
	return e.importFile(server, name, name+".json", file)
}

// importFile imports a lorebook file into a new collection named name,
// with the service key, and returns the collection's id.
func (e *env) importFile(server, name, fileName string, file []byte) string {
	e.t.Helper()
	ops, _ := json.Marshal(map[string]any{"query": `mutation($in: ImportLorebookInput!) { importLorebook(input: $in) { collection { id } error { message } } }`,
		"variables": map[string]any{"in": map[string]any{"serverDiscordId": server, "lineageId": 0, "name": name, "file": nil}}})
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.in.file"]}`)
	fw, _ := mw.CreateFormFile("0", fileName)
	_, _ = fw.Write(file)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/graphql", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+serviceKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ImportLorebook struct {
				Collection *struct{ ID string }
				Error      *struct{ Message string }
			}
		}
		Errors []map[string]any
	}
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&out))
	require.Empty(e.t, out.Errors)
	require.Nil(e.t, out.Data.ImportLorebook.Error)
	return out.Data.ImportLorebook.Collection.ID
}

// entryID finds an entry of a collection by title.
func (e *env) entryID(server, coll, title string) string {
	e.t.Helper()
	var out struct {
		Server struct {
			Collection struct {
				Entries struct {
					Edges []struct{ Node struct{ ID, Title string } }
				}
			}
		}
	}
	e.must(`query($s: String!, $n: String!) { server(discordId: $s) { collection(name: $n) { entries(first: 250) { edges { node { id title } } } } } }`,
		map[string]any{"s": server, "n": coll}, &out)
	for _, ed := range out.Server.Collection.Entries.Edges {
		if ed.Node.Title == title {
			return ed.Node.ID
		}
	}
	e.t.Fatalf("no entry %q", title)
	return ""
}
