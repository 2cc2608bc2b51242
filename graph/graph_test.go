package graph_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/sharedtest"
)

const (
	serviceKey = graphtest.ServiceKey
	jwtSecret  = graphtest.JWTSecret
	serverA    = "111111111111111111"
	serverB    = "222222222222222222"
)

// api is a test client of one loregate HTTP handler on a fresh database.
type api struct {
	t     testing.TB
	srv   *httptest.Server
	authn *auth.Authenticator
	// store is the API's store, for test setup the API does not offer;
	// pool its database.
	store *postgres.Store
	pool  *pgxpool.Pool
}

func newAPI(t *testing.T) *api {
	t.Helper()
	return newAPILimits(t, lore.Limits{})
}

// turnCommitEnv set to deferred makes newAPI record turns as serve's
// LOREGATE_TURN_COMMIT=deferred does: TestActivateTurnDeferred sets it
// with t.Setenv to run the turn tests in that mode too.
const turnCommitEnv = "LOREGATE_TEST_TURN_COMMIT"

// newAPILimits is newAPI for a deployment with limits lim (zero fields:
// defaults), enforced by the store and the importers.
func newAPILimits(t *testing.T, lim lore.Limits) *api {
	t.Helper()
	return wrap(t, graphtest.New(t, graphtest.Options{Limits: lim, ScopeCache: true, DeferredTurns: os.Getenv(turnCommitEnv) == "deferred"}))
}

// wrap is the test client of a graphtest API.
func wrap(t testing.TB, g *graphtest.API) *api {
	return &api{t: t, srv: g.Server, authn: g.Auth, store: g.Store, pool: g.Pool}
}

// token returns a bearer credential: "" (anonymous), the service key, or a
// member token with the given guild memberships.
func (a *api) member(user string, guilds map[string]auth.Membership) string {
	tok, err := a.authn.Mint(user, guilds, time.Hour, time.Now())
	require.NoError(a.t, err)
	return tok
}

type gqlResponse struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
	status int
}

// do posts a GraphQL operation with bearer (may be "") and decodes the reply.
func (a *api) do(bearer, query string, vars map[string]any) gqlResponse {
	a.t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(a.t, err)
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", bytes.NewReader(body))
	require.NoError(a.t, err)
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return a.send(req)
}

func (a *api) send(req *http.Request) gqlResponse {
	a.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(a.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(a.t, err)
	var out gqlResponse
	require.NoError(a.t, json.Unmarshal(raw, &out), "body: %s", raw)
	out.status = resp.StatusCode
	return out
}

// upload sends a GraphQL multipart request with one file in variable
// input.file.
func (a *api) upload(bearer, query string, input map[string]any, fileName string, file []byte) gqlResponse {
	a.t.Helper()
	input["file"] = nil
	ops, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"input": input}})
	require.NoError(a.t, err)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	require.NoError(a.t, mw.WriteField("operations", string(ops)))
	require.NoError(a.t, mw.WriteField("map", `{"0":["variables.input.file"]}`))
	fw, err := mw.CreateFormFile("0", fileName)
	require.NoError(a.t, err)
	_, err = fw.Write(file)
	require.NoError(a.t, err)
	require.NoError(a.t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", &buf)
	require.NoError(a.t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return a.send(req)
}

// must posts as the service and fails the test on any GraphQL error,
// returning the named field decoded into out.
func (a *api) must(bearer, query string, vars map[string]any, field string, out any) {
	a.t.Helper()
	r := a.do(bearer, query, vars)
	require.Empty(a.t, r.Errors, "query %s", query)
	require.NoError(a.t, json.Unmarshal(r.Data[field], out))
}

func corpus(t *testing.T, rel string) []byte {
	t.Helper()
	return sharedtest.Read(t, "corpus", rel)
}
