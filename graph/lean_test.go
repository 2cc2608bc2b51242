package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/lore"
	"loregate/lore/turnstate"
)

// leanPair is one API twice over one resolver: through the lean turn
// handler (lean) and through gqlgen alone (plain); gqlgenCalls counts the
// requests the lean handler passed on.
type leanPair struct {
	lean, plain http.Handler
	gqlgenCalls atomic.Int64
	auth        *auth.Authenticator
	pool        *pgxpool.Pool
	r           *graph.Resolver
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
		{"Sticky", "sticks for three messages", []string{"dragon"}, false},
		{"Coin", "half the time", []string{"coin"}, false},
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
		case "Sticky": // recorded turns open and close its windows
			e.Sticky, e.Cooldown = 3, 2
		case "Coin": // recorded turns seed its roll from the turn id
			e.Probability = 50
		}
		entries = append(entries, e)
	}
	_, _, err = g.Store.CreateCollectionWithEntries(ctx, lore.Collection{Server: serverA, Name: "lean", Enabled: true}, entries)
	require.NoError(t, err)
	cfg := graph.Config{Resolver: g.Resolver, Auth: g.Auth}
	p := &leanPair{auth: g.Auth, pool: g.Pool, r: g.Resolver}
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
		{"one field under two keys", body(q(`passes p: passes budget { used u: used }`), `{"i":`+in+`}`), nil, true},
		{"notices, none", body(q(`notices { reason } passes`), `{"i":`+in+`}`), nil, true},
		{"notices of an unknown lineage", body(q(`admitted { title } notices { __typename reason params message }`),
			`{"i":{"serverDiscordId":"`+serverA+`","lineageId":42,`+leanMsgs+`}}`), nil, true},
		// Everything below goes to gqlgen.
		{"trace", body(q(`trace { verdict }`), `{"i":`+in+`}`), nil, false},
		// A response key selected twice: gqlgen merges the fields.
		{"repeated field", body(q(`passes passes`), `{"i":`+in+`}`), nil, false},
		{"repeated alias", body(q(`p: passes p: passes admitted { title }`), `{"i":`+in+`}`), nil, false},
		{"repeated subfield", body(q(`admitted { title title }`), `{"i":`+in+`}`), nil, false},
		{"repeated object", body(q(`budget { used } budget { limit }`), `{"i":`+in+`}`), nil, false},
		{"repeated __typename", body(q(`__typename __typename`), `{"i":`+in+`}`), nil, false},
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
			switch c.name {
			case "notices, none":
				require.Contains(t, reply, `"notices":[]`)
			case "notices of an unknown lineage":
				require.Contains(t, reply, `"notices":[{"__typename":"ActivationNotice","reason":"unregistered_lineage","params":{"lineage":42},"message":"lineage 42 is not registered`)
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
// handler and gqlgen alone answer every one byte for byte alike (a
// recorded turn's second answer, gqlgen's, is its replay).
func FuzzLeanTurn(f *testing.F) {
	in := `{"serverDiscordId":"` + serverA + `","lineageId":0,` + leanMsgs + `}`
	for _, s := range []string{
		`{"query":"query($i:ActivateInput!){activate(input:$i){admitted{title placement} budget{used limit}}}","variables":{"i":` + in + `}}`,
		`{"variables":{"i":{"names":{"user":"A"},"messageCount":3,"serverDiscordId":"` + serverA + `","messages":[{"content":"dragon"}]}},"query":"query($i:ActivateInput){x:activate(input:$i){blocks{text} passes}}"}`,
		`{"operationName":"T","query":"query T($v:ActivateInput!){activate(input:$v){admitted{id content group pass tokens triggeredBy}}}","variables":{"v":` + in + `}}`,
		`{"query":"query($i:ActivateInput!){activate(input:$i){admitted{title}}}","variables":{"i":{"serverDiscordId":"` + serverA + `","messages":[{"content":"castle"}],"context":{"character":{"name":"Vel","tags":["knight"],"description":"lantern"},"persona":{"name":null,"description":"d"}},"generationType":"SWIPE"}}}`,
		// A recorded turn: the lean handler records it, gqlgen replays it.
		`{"query":"mutation($t:ActivateTurnInput!){activateTurn(input:$t){result{admitted{title} budget{used}} error{code}}}","variables":{"t":{"serverDiscordId":"` + serverA + `","channelId":"888888888888888888","turnId":"f1","messageCount":4,"messages":[{"content":"dragon coin"}]}}}`,
		// The same turn id with another input: the lean handler answers the
		// payload's error; response keys selected twice go to gqlgen.
		`{"query":"mutation($t:ActivateTurnInput!){activateTurn(input:$t){__typename result{passes} error{code message field limit reason params fields{field reason message params}}}}","variables":{"t":{"serverDiscordId":"` + serverA + `","channelId":"888888888888888888","turnId":"f1","messageCount":5,"messages":[{"content":"dragon"}]}}}`,
		`{"query":"mutation($t:ActivateTurnInput!){activateTurn(input:$t){__typename __typename error{code} error{message} result{passes passes}}}","variables":{"t":{"serverDiscordId":"` + serverA + `","channelId":"888888888888888888","turnId":"f2","messageCount":4,"messages":[{"content":"dragon"}]}}}`,
		`{"query":"query($i:ActivateInput!){activate(input:$i){passes passes admitted{title title}}}","variables":{"i":` + in + `}}`,
		`{"query":"query($i:ActivateInput!){activate(input:$i){notices{reason params message} admitted{title}}}","variables":{"i":{"serverDiscordId":"` + serverA + `","lineageId":42,"messages":[{"content":"dragon"}]}}}`,
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

// TestLeanActivateTurnMatchesGqlgen records the same five turns in two
// conversations, one through the lean handler and one through gqlgen
// alone: every answer is byte for byte the same, turn by turn (timed
// effects, a swipe, seeded chance rolls), the lean handler answered each
// itself, and a retry through the other path replays the recorded answer
// unchanged (the input hashes alike whichever path decoded it). The
// payload's errors (a reused turn id, no channel, the store failing at the
// commit) the lean handler answers itself, having run the turn once (one
// conversation transaction); a member without Manage Server, null or
// missing members and selections outside the lean shape (a response key
// selected twice) go to gqlgen; every answer is the same.
func TestLeanActivateTurnMatchesGqlgen(t *testing.T) {
	p := newLeanPair(t)
	const chLean, chPlain = "555555555555555555", "666666666666666666"
	sel := `admitted { __typename id title placement group content tokens pass triggeredBy } blocks { tag role text } budget { unit limit used } passes storeUnavailable __typename`
	mutation := `mutation Turn($t: ActivateTurnInput!) { activateTurn(input: $t) { __typename result { ` + sel + ` } error { code message field reason fields { field reason } } } }`
	turnBody := func(query, channel, turnID string, count int, text string) string {
		return `{"query":` + quote(query) + `,"operationName":"Turn","variables":{"t":{"serverDiscordId":"` + serverA +
			`","lineageId":0,"channelId":"` + channel + `","turnId":"` + turnID + `","messageCount":` + strconv.Itoa(count) +
			`,"names":{"user":"Ana"},"messages":[{"content":"hello"},{"role":"user","content":` + quote(text) + `}]}}}`
	}
	post := func(h http.Handler, body string) (bool, string) {
		before := p.gqlgenCalls.Load()
		code, ct, reply := p.post(h, body, nil)
		require.Equal(t, http.StatusOK, code, reply)
		require.Equal(t, "application/json", ct)
		return p.gqlgenCalls.Load() == before, reply
	}
	admittedSticky := 0
	for i, step := range []struct {
		count int
		text  string
	}{{2, "the dragon woke"}, {4, "quiet night"}, {4, "a swipe: the castle coin"}, {8, "dragon at the castle"}, {10, "dragon and a coin 城"}} {
		id := fmt.Sprint("turn-", i)
		lean, got := post(p.lean, turnBody(mutation, chLean, id, step.count, step.text))
		require.True(t, lean, "answered by the lean handler: %s", got)
		_, want := post(p.plain, turnBody(mutation, chPlain, id, step.count, step.text))
		require.Equal(t, want, got, "turn %d", i)
		require.NotContains(t, got, `"errors"`)
		require.Contains(t, got, `"error":null`)
		if strings.Contains(got, `"sticks for three messages"`) {
			admittedSticky++
		}
		// Retries through the other path replay the recorded answer.
		lean, again := post(p.lean, turnBody(mutation, chPlain, id, step.count, step.text))
		require.True(t, lean)
		require.Equal(t, want, again, "lean retry of turn %d", i)
		_, again = post(p.plain, turnBody(mutation, chLean, id, step.count, step.text))
		require.Equal(t, got, again, "gqlgen retry of turn %d", i)
	}
	require.Greater(t, admittedSticky, 1, "the sticky entry's window admitted it again")
	var rows int
	require.NoError(t, p.pool.QueryRow(context.Background(), `SELECT count(*) FROM activation_log l JOIN turn_conversations c ON c.id = l.conversation_id
		WHERE c.channel_id IN ($1, $2)`, chLean, chPlain).Scan(&rows))
	require.Equal(t, 10, rows, "one row per turn and conversation: retries record nothing")

	tok, err := p.auth.Mint("42", map[string]auth.Membership{serverA: {}}, time.Hour, time.Now())
	require.NoError(t, err)
	bot := `mutation($t: ActivateTurnInput!) { t: activateTurn(input: $t) { result { admitted { title } budget { used limit } } error { code message field } } }`
	vars := func(members string) string {
		return `{"query":` + quote(bot) + `,"variables":{"t":{"serverDiscordId":"` + serverA + `",` + leanMsgs + members + `}}}`
	}
	turnSel := func(sel, members string) string {
		return `{"query":` + quote(`mutation($t: ActivateTurnInput!) { activateTurn(input: $t) { `+sel+` } }`) +
			`,"variables":{"t":{"serverDiscordId":"` + serverA + `",` + leanMsgs + members + `}}}`
	}
	everyError := `__typename result { passes } error { __typename code message field limit reason params fields { __typename field reason message params } }`
	for _, c := range []struct {
		name string
		body string
		hdr  map[string]string
		lean bool
		code string // the payload's error code of a lean answer ("": none)
	}{
		{"bot's selection", vars(`,"channelId":"777777777777777777","turnId":"b1","messageCount":3`), nil, true, ""},
		{"only error", turnSel(`error { code }`, `,"channelId":"777777777777777777","turnId":"b2","messageCount":3`), nil, true, ""},
		{"result under two keys", turnSel(`result { passes } error { code } r: result { p: passes admitted { title } }`, `,"channelId":"777777777777777777","turnId":"b11","messageCount":3`), nil, true, ""},
		{"reused turn id, other input", vars(`,"channelId":"777777777777777777","turnId":"b1","messageCount":9`), nil, true, "INVALID_INPUT"},
		{"reused turn id, every error field", turnSel(everyError, `,"channelId":"777777777777777777","turnId":"b1","messageCount":10`), nil, true, "INVALID_INPUT"},
		{"no channel", vars(`,"turnId":"b3","messageCount":3`), nil, true, "INVALID_INPUT"},
		{"notices of an unknown lineage", turnSel(`result { notices { reason params } } error { code }`, `,"lineageId":42,"channelId":"777777777777777777","turnId":"b16","messageCount":3`), nil, true, ""},
		{"message count below the messages", vars(`,"channelId":"777777777777777777","turnId":"b6","messageCount":1`), nil, true, "INVALID_INPUT"},
		// Everything below goes to gqlgen.
		{"repeated __typename", turnSel(`__typename __typename result { passes }`, `,"channelId":"777777777777777777","turnId":"b12","messageCount":3`), nil, false, ""},
		{"repeated error", turnSel(`error { code } error { message }`, `,"channelId":"777777777777777777","turnId":"b13","messageCount":3`), nil, false, ""},
		{"repeated result field", turnSel(`result { passes passes }`, `,"channelId":"777777777777777777","turnId":"b14","messageCount":3`), nil, false, ""},
		{"repeated error field", turnSel(`error { code code }`, `,"channelId":"777777777777777777","turnId":"b15","messageCount":3`), nil, false, ""},
		{"member without Manage Server", vars(`,"channelId":"777777777777777777","turnId":"b4","messageCount":3`), map[string]string{"Authorization": "Bearer " + tok}, false, ""},
		{"null turn id", vars(`,"channelId":"777777777777777777","turnId":null,"messageCount":3`), nil, false, ""},
		{"no turn id", vars(`,"channelId":"777777777777777777","messageCount":3`), nil, false, ""},
		{"null message count", vars(`,"channelId":"777777777777777777","turnId":"b5","messageCount":null`), nil, false, ""},
		{"overrides", vars(`,"channelId":"777777777777777777","turnId":"b7","messageCount":3,"overrides":{"random":0.5}}`), nil, false, ""},
		{"turn id in activate", `{"query":` + quote(`query($t: ActivateInput!) { activate(input: $t) { passes } }`) + `,"variables":{"t":{"serverDiscordId":"` + serverA + `",` + leanMsgs + `,"turnId":"x"}}}`, nil, false, ""},
		{"trace", `{"query":` + quote(`mutation($t: ActivateTurnInput!) { activateTurn(input: $t) { result { trace { verdict } } } }`) + `,"variables":{"t":{"serverDiscordId":"` + serverA + `",` + leanMsgs + `,"channelId":"777777777777777777","turnId":"b8","messageCount":3}}}`, nil, false, ""},
		{"directive on error", `{"query":` + quote(`mutation($t: ActivateTurnInput!) { activateTurn(input: $t) { error @include(if: true) { code } } }`) + `,"variables":{"t":{"serverDiscordId":"` + serverA + `",` + leanMsgs + `,"channelId":"777777777777777777","turnId":"b9","messageCount":3}}}`, nil, false, ""},
		{"two mutations", `{"query":` + quote(`mutation($t: ActivateTurnInput!) { a: activateTurn(input: $t) { error { code } } b: activateTurn(input: $t) { error { code } } }`) + `,"variables":{"t":{"serverDiscordId":"` + serverA + `",` + leanMsgs + `,"channelId":"777777777777777777","turnId":"b10","messageCount":3}}}`, nil, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			lean, reply := p.same(t, c.body, c.hdr)
			require.Equal(t, c.lean, lean, "answered by the lean handler: %s", reply)
			if c.lean {
				require.NotContains(t, reply, `"errors"`)
				if c.name == "notices of an unknown lineage" {
					require.Contains(t, reply, `"notices":[{"reason":"unregistered_lineage","params":{"lineage":42}}]`)
				}
				if c.code == "" {
					require.Contains(t, reply, `"error":null`)
				} else {
					require.Contains(t, reply, `"result":null`)
					require.Contains(t, reply, `"code":"`+c.code+`"`)
				}
			}
		})
	}

	// The store failing at the commit, after the engine ran: the lean
	// handler answers the payload's UNAVAILABLE itself, one conversation
	// transaction for the request (the turn is not run again by gqlgen).
	turns := &commitFailingTurns{Store: p.r.Turns}
	p.r.Turns = turns
	defer func() { p.r.Turns = turns.Store }()
	lean, reply := p.same(t, turnSel(everyError, `,"channelId":"777777777777777777","turnId":"s1","messageCount":3`), nil)
	require.Equal(t, int64(2), turns.begun.Load(), "one transaction per handler: %s", reply)
	require.True(t, lean, reply)
	require.Contains(t, reply, `"code":"UNAVAILABLE"`)
}

// commitFailingTurns is a turn store whose commits fail as a lost
// connection does (lore/postgres wraps it as lore.ErrUnavailable); begun
// counts the turns begun.
type commitFailingTurns struct {
	turnstate.Store
	begun atomic.Int64
}

func (s *commitFailingTurns) BeginTurn(ctx context.Context, c turnstate.Conversation, turnID string) (turnstate.Turn, error) {
	s.begun.Add(1)
	tx, err := s.Store.BeginTurn(ctx, c, turnID)
	return failingCommit{tx}, err
}

type failingCommit struct{ turnstate.Turn }

func (f failingCommit) Commit(ctx context.Context, _ turnstate.State, _ turnstate.LoggedTurn) error {
	f.Rollback(ctx)
	return fmt.Errorf("commit turn: %w: connection reset by peer", lore.ErrUnavailable)
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
