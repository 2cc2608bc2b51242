package graph_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/lore"
)

// leanPair is one API twice over one resolver: through the lean turn
// handler (lean) and through gqlgen alone (plain); gqlgenCalls counts the
// requests the lean handler passed on.
type leanPair struct {
	lean, plain http.Handler
	gqlgenCalls atomic.Int64
	auth        *auth.Authenticator
}

func newLeanPair(t testing.TB) *leanPair {
	g := graphtest.New(t, graphtest.Options{ScopeCache: true})
	ctx := context.Background()
	_, err := g.Store.UpsertServer(ctx, serverA, "lean")
	require.NoError(t, err)
	var entries []lore.Entry
	for i, spec := range []struct {
		title, content string
		keys           []string
		constant       bool
	}{
		{`Always <b>&"on"</b>`, "{{user}} and {{char}} know the rules: <tags> & \"quotes\" \\ \u2028 \u00e9", nil, true},
		{"Dragon", "The dragon sleeps under the hill.", []string{"dragon"}, false},
		{"城", "城は北にある。\t tab", []string{"castle", "城"}, false},
		{"Unnamed", "never admitted", []string{"zzqxv"}, false},
		{"Vel only", "for Vel's chats", []string{"castle"}, false},
		{"Swipes", "on swipes", []string{"castle"}, false},
		{"Described", "the description names the lantern", []string{"lantern"}, false},
	} {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Title, e.Content, e.Keys, e.Constant = serverA, lore.Serverwide, spec.title, spec.content, spec.keys, spec.constant
		e.Order = i
		switch spec.title { // read from the request's context and generation type
		case "Vel only":
			e.CharacterFilter = lore.CharacterFilter{Names: []string{"Vel"}, Tags: []string{"knight"}}
		case "Swipes":
			e.GenerationTypes = []lore.GenerationType{lore.GenSwipe}
		case "Described":
			e.Match = lore.MatchSources{CharacterDescription: true, PersonaDescription: true}
		}
		entries = append(entries, e)
	}
	_, _, err = g.Store.CreateCollectionWithEntries(ctx, lore.Collection{Server: serverA, Name: "lean", Enabled: true}, entries)
	require.NoError(t, err)
	cfg := graph.Config{Resolver: g.Resolver, Auth: g.Auth}
	p := &leanPair{auth: g.Auth}
	api := graph.NewServer(cfg)
	p.plain = g.Auth.Middleware(api)
	p.lean = g.Auth.Middleware(graph.LeanHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.gqlgenCalls.Add(1)
		api.ServeHTTP(w, r)
	}), cfg))
	return p
}

// post sends body to h and returns the status, content type and body.
func (p *leanPair) post(h http.Handler, body string, hdr map[string]string) (int, string, string) {
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+graphtest.ServiceKey)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code, w.Header().Get("Content-Type"), w.Body.String()
}

// same posts body through both handlers, requires byte-identical answers
// and reports whether the lean handler answered it itself.
func (p *leanPair) same(t testing.TB, body string, hdr map[string]string) (lean bool, reply string) {
	t.Helper()
	before := p.gqlgenCalls.Load()
	code, ct, got := p.post(p.lean, body, hdr)
	lean = p.gqlgenCalls.Load() == before
	wantCode, wantCT, want := p.post(p.plain, body, hdr)
	require.Equal(t, wantCode, code, "status of %s", body)
	require.Equal(t, wantCT, ct, "content type of %s", body)
	require.Equal(t, want, got, "answer to %s", body)
	return lean, got
}

const leanMsgs = `"messages":[{"content":"the dragon woke"},{"role":"user","name":"Ana","content":"we saw the castle and 城"},{"name":null,"role":null,"content":""}]`

// TestLeanTurnMatchesGqlgen posts the bot's turn and its variations to
// the lean handler and to gqlgen alone: every answer is byte for byte
// the same (status, content type, body), and the lean handler answers
// exactly the lean shapes itself.
func TestLeanTurnMatchesGqlgen(t *testing.T) {
	p := newLeanPair(t)
	in := `{"serverDiscordId":"` + serverA + `","lineageId":0,` + leanMsgs + `}`
	q := func(sel string) string { return `query($i:ActivateInput!){activate(input:$i){` + sel + `}}` }
	body := func(query, vars string) string { return `{"query":` + quote(query) + `,"variables":` + vars + `}` }
	bot := q(`admitted { title placement } budget { used limit }`)
	ctxIn := func(context, generation string) string {
		return `{"serverDiscordId":"` + serverA + `",` + leanMsgs + `,"context":` + context + `,"generationType":` + generation + `}`
	}
	all := q(`__typename passes storeUnavailable admitted { __typename id title placement group content tokens pass triggeredBy } blocks { __typename tag role text } budget { __typename unit limit used }`)
	for _, c := range []struct {
		name string
		body string
		hdr  map[string]string
		lean bool
	}{
		{"bot turn", body(bot, `{"i":`+in+`}`), nil, true},
		{"every lean field", body(all, `{"i":`+in+`}`), nil, true},
		{"aliases", body(`query T($v: ActivateInput!) { turn: activate(input: $v) { a: admitted { t: title } b: budget { u: used } } }`, `{"v":`+in+`}`), nil, true},
		{"operation name", `{"operationName":"T","query":` + quote(`query T($v: ActivateInput!) { activate(input: $v) { passes } }`) + `,"variables":{"v":` + in + `}}`, nil, true},
		{"variables first, names, channel, count", `{"variables":{"i":{"names":{"user":"Ana","char":null},"channelId":"333333333333333333","parentChannelId":null,"messageCount":40,"serverDiscordId":"` + serverA + `",` + leanMsgs + `}},"query":` + quote(all) + `}`, nil, true},
		{"escaped strings", body(bot, `{"i":{"serverDiscordId":"\u0031`+serverA[1:]+`","messages":[{"content":"the dr\u0061gon \"woke\"\n"}]}}`), nil, true},
		{"context and generation type", body(all, `{"i":`+ctxIn(`{"character":{"name":"Vel","tags":["knight","x"],"description":"a lantern","personality":null,"scenario":"s","creatorNotes":"c","depthPrompt":"d"},"persona":{"name":"Ana","description":"\u00e9 lantern"}}`, `"SWIPE"`)+`}`), nil, true},
		{"context of nulls", body(all, `{"i":`+ctxIn(`{"character":{"name":null,"tags":null},"persona":null}`, `null`)+`}`), nil, true},
		{"empty context", body(bot, `{"i":`+ctxIn(`{}`, `"NORMAL"`)+`}`), nil, true},
		{"null context, empty tags", body(bot, `{"i":`+ctxIn(`{"character":{"tags":[]}}`, `"QUIET"`)+`}`), nil, true},
		{"context null", body(bot, `{"i":`+ctxIn(`null`, `"CONTINUE"`)+`}`), nil, true},
		{"Accept json", body(bot, `{"i":`+in+`}`), map[string]string{"Accept": "text/html, application/json"}, true},
		{"charset", body(bot, `{"i":`+in+`}`), map[string]string{"Content-Type": "application/json; charset=utf-8"}, true},
		// Everything below goes to gqlgen.
		{"trace", body(q(`trace { verdict }`), `{"i":`+in+`}`), nil, false},
		{"unknown generation type", body(bot, `{"i":`+ctxIn(`{}`, `"swipe"`)+`}`), nil, false},
		{"generation type not a string", body(bot, `{"i":`+ctxIn(`{}`, `1`)+`}`), nil, false},
		{"one tag as a string", body(bot, `{"i":`+ctxIn(`{"character":{"tags":"knight"}}`, `null`)+`}`), nil, false},
		{"null tag", body(bot, `{"i":`+ctxIn(`{"character":{"tags":["knight",null]}}`, `null`)+`}`), nil, false},
		{"unknown context member", body(bot, `{"i":`+ctxIn(`{"world":{}}`, `null`)+`}`), nil, false},
		{"unknown character member", body(bot, `{"i":`+ctxIn(`{"character":{"age":3}}`, `null`)+`}`), nil, false},
		{"context over the text budget", body(bot, `{"i":`+ctxIn(`{"persona":{"description":"`+strings.Repeat("x", graph.MaxActivateChars)+`"}}`, `null`)+`}`), nil, false},
		{"Accept graphql-response", body(bot, `{"i":`+in+`}`), map[string]string{"Accept": "application/graphql-response+json"}, false},
		{"wrong operation name", `{"operationName":"X","query":` + quote(bot) + `,"variables":{"i":` + in + `}}`, nil, false},
		{"no variables", body(bot, `null`), nil, false},
		{"extra variable", body(bot, `{"i":`+in+`,"j":1}`), nil, false},
		{"single message object", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","messages":{"content":"dragon"}}}`), nil, false},
		{"null content", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","messages":[{"content":null}]}}`), nil, false},
		{"unknown input field", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","messages":[],"foo":1}}`), nil, false},
		{"upper-case field", body(bot, `{"i":{"ServerDiscordId":"`+serverA+`","messages":[]}}`), nil, false},
		{"lineage as string", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","lineageId":"0","messages":[]}}`), nil, false},
		{"lineage fraction", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","lineageId":1.5,"messages":[]}}`), nil, false},
		{"message count over Int", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","messageCount":3000000000,"messages":[]}}`), nil, false},
		{"negative lineage", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","lineageId":-1,"messages":[]}}`), nil, false},
		{"unknown server", body(bot, `{"i":{"serverDiscordId":"999999999999999999","messages":[]}}`), nil, false},
		{"duplicate member", `{"query":` + quote(bot) + `,"query":` + quote(bot) + `,"variables":{"i":` + in + `}}`, nil, false},
		{"trailing data", body(bot, `{"i":`+in+`}`) + `{}`, nil, false},
		{"invalid UTF-8", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","messages":[{"content":"dr`+"\xff"+`gon"}]}}`), nil, false},
		{"not JSON", `{"query":`, nil, false},
		{"fragment", body(`query($i:ActivateInput!){activate(input:$i){...F}} fragment F on Activation { passes }`, `{"i":`+in+`}`), nil, false},
		{"directive", body(q(`passes @include(if: true)`), `{"i":`+in+`}`), nil, false},
		{"two fields", body(`query($i:ActivateInput!){activate(input:$i){passes} __typename}`, `{"i":`+in+`}`), nil, false},
		{"invalid document", body(q(`nope`), `{"i":`+in+`}`), nil, false},
		{"persisted query", `{"query":` + quote(bot) + `,"variables":{"i":` + in + `},"extensions":{"persistedQuery":{"version":1,"sha256Hash":"00"}}}`, nil, false},
		{"too many messages", body(bot, `{"i":{"serverDiscordId":"`+serverA+`","messages":[`+strings.Repeat(`{"content":"x"},`, graph.MaxActivateMessages)+`{"content":"x"}]}}`), nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			lean, reply := p.same(t, c.body, c.hdr)
			require.Equal(t, c.lean, lean, "answered by the lean handler: %s", reply)
			if c.lean {
				require.NotContains(t, reply, `"errors"`)
			}
			if c.name == "context and generation type" { // the filter, generation type and match flags read them
				for _, title := range []string{"Vel only", "Swipes", "Described"} {
					require.Contains(t, reply, `"`+title+`"`)
				}
			}
		})
	}
	// A member of another server gets gqlgen's answer (not found), an
	// anonymous caller the authenticator's.
	tok, err := p.auth.Mint("42", map[string]auth.Membership{"999999999999999999": {}}, time.Hour, time.Now())
	require.NoError(t, err)
	lean, reply := p.same(t, body(bot, `{"i":`+in+`}`), map[string]string{"Authorization": "Bearer " + tok})
	require.False(t, lean)
	require.Contains(t, reply, `NOT_FOUND`)
	code, _, _ := p.post(p.lean, body(bot, `{"i":`+in+`}`), map[string]string{"Authorization": ""})
	require.Equal(t, http.StatusUnauthorized, code)
}

// FuzzLeanTurn mutates request bodies around the bot's turn: the lean
// handler and gqlgen alone answer every one byte for byte alike.
func FuzzLeanTurn(f *testing.F) {
	in := `{"serverDiscordId":"` + serverA + `","lineageId":0,` + leanMsgs + `}`
	for _, s := range []string{
		`{"query":"query($i:ActivateInput!){activate(input:$i){admitted{title placement} budget{used limit}}}","variables":{"i":` + in + `}}`,
		`{"variables":{"i":{"names":{"user":"A"},"messageCount":3,"serverDiscordId":"` + serverA + `","messages":[{"content":"dragon"}]}},"query":"query($i:ActivateInput){x:activate(input:$i){blocks{text} passes}}"}`,
		`{"operationName":"T","query":"query T($v:ActivateInput!){activate(input:$v){admitted{id content group pass tokens triggeredBy}}}","variables":{"v":` + in + `}}`,
		`{"query":"query($i:ActivateInput!){activate(input:$i){admitted{title}}}","variables":{"i":{"serverDiscordId":"` + serverA + `","messages":[{"content":"castle"}],"context":{"character":{"name":"Vel","tags":["knight"],"description":"lantern"},"persona":{"name":null,"description":"d"}},"generationType":"SWIPE"}}}`,
	} {
		f.Add(s)
	}
	p := newLeanPair(f)
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 64<<10 {
			return
		}
		p.same(t, body, nil)
	})
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
