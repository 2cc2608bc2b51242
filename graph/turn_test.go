package graph_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/turnstate"
)

const (
	qActivateTurn = `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) {
		result { admitted { id title placement group content } blocks { tag role text } budget { unit limit used } trace { id title verdict detail reason params pass } }
		error { code message field } } }`
	qActivationLog = `query($s: String!, $l: Int64, $c: String!, $n: Int) { activationLog(serverDiscordId: $s, lineageId: $l, channelId: $c, last: $n) {
		turnId at messageCount admitted { id group placement pass budgetShare } budget { unit limit used } } }`
	qResetTurnState = `mutation($s: String!, $l: Int64, $c: String!) { resetTurnState(input: {serverDiscordId: $s, lineageId: $l, channelId: $c}) { ok error { code message } } }`
	turnChannel     = "333333333333333333"
)

type traceItem struct {
	ID, Title, Verdict, Reason string
	Detail                     *string
	Params                     map[string]any
	Pass                       int
}

type turnResult struct {
	Admitted []struct{ ID, Title, Content string }
	Budget   struct {
		Unit        string
		Limit, Used int
	}
	Trace []traceItem
}

type turnPayload struct {
	Result *turnResult
	Error  *mutationError
}

type logEntry struct {
	TurnID       string
	At           time.Time
	MessageCount int
	Admitted     []struct {
		ID, Group, Placement string
		Pass, BudgetShare    int
	}
	Budget struct{ Used int }
}

// turnFixture is a server with persona lineage 5 holding entries made
// through the store (the API has no fields for timed effects yet).
type turnFixture struct {
	*api
	server string
	ids    map[string]string // title -> id
}

func newTurnFixture(t *testing.T, entries ...lore.Entry) *turnFixture {
	t.Helper()
	a := newAPI(t)
	ctx := context.Background()
	_, err := a.store.UpsertServer(ctx, serverA, "Turns")
	require.NoError(t, err)
	f := &turnFixture{api: a, server: serverA, ids: map[string]string{}}
	for _, e := range entries {
		e.Server, e.Lineage = serverA, 5
		got, err := a.store.InsertEntry(ctx, e)
		require.NoError(t, err)
		f.ids[e.Title] = strconv.FormatInt(got.ID, 10)
	}
	return f
}

func keyed(title, content string, keys ...string) lore.Entry {
	e := lore.NewEntry()
	e.Title, e.Content, e.Keys = title, content, keys
	return e
}

func (f *turnFixture) input(channel, turnID string, count int, messages ...string) map[string]any {
	msgs := make([]map[string]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"content": m}
	}
	return map[string]any{"serverDiscordId": f.server, "lineageId": 5, "channelId": channel,
		"messages": msgs, "turnId": turnID, "messageCount": count}
}

func (f *turnFixture) turn(bearer string, in map[string]any) turnPayload {
	f.t.Helper()
	var p turnPayload
	f.must(bearer, qActivateTurn, map[string]any{"input": in}, "activateTurn", &p)
	return p
}

func (f *turnFixture) verdict(a *turnResult, title string) string {
	f.t.Helper()
	for _, tr := range a.Trace {
		if tr.ID == f.ids[title] {
			return tr.Verdict
		}
	}
	f.t.Fatalf("entry %q not in the trace", title)
	return ""
}

func (f *turnFixture) log(channel string, n int) []logEntry {
	f.t.Helper()
	var out []logEntry
	f.must(serviceKey, qActivationLog, map[string]any{"s": f.server, "l": 5, "c": channel, "n": n}, "activationLog", &out)
	return out
}

// TestActivateTurnTimedEffects runs sticky 3 / cooldown 2 / delay 4 over a
// scripted conversation of ten turns with swipes (the same message count
// twice) through the real engine on Postgres; the expected verdicts follow
// SillyTavern's timed effects (docs/turns.md).
func TestActivateTurnTimedEffects(t *testing.T) {
	dragon := keyed("Dragon", "A dragon sleeps here.", "dragon")
	dragon.Sticky, dragon.Cooldown, dragon.Delay = 3, 2, 4
	f := newTurnFixture(t, dragon, keyed("Plain", "Plain lore.", "dragon"))
	steps := []struct {
		count int
		text  string
		want  string // the Dragon entry's verdict
	}{
		{2, "a dragon", "delayed"},
		{4, "the dragon", "admitted"},          // sticky [4,7), cooldown [4,6)
		{4, "swiped: nothing", "no_key_match"}, // swipe: the fresh windows go
		{6, "nothing", "no_key_match"},
		{8, "dragon again", "admitted"},     // sticky [8,11), cooldown [8,10)
		{10, "nothing", "admitted"},         // sticky: no keys needed
		{10, "swiped: nothing", "admitted"}, // a swipe neither consumes nor extends
		{12, "dragon", "cooldown"},          // sticky ended at 11: cooldown [12,14)
		{12, "swiped: dragon", "cooldown"},
		{14, "dragon", "admitted"},
	}
	for i, s := range steps {
		p := f.turn(serviceKey, f.input(turnChannel, fmt.Sprintf("turn-%d", i+1), s.count, "hello", s.text))
		require.Nil(t, p.Error, "turn %d", i+1)
		require.Equal(t, s.want, f.verdict(p.Result, "Dragon"), "turn %d (count %d, %q)", i+1, s.count, s.text)
	}
	logs := f.log(turnChannel, 20)
	require.Len(t, logs, len(steps))
	require.Equal(t, "turn-10", logs[0].TurnID)
	require.Equal(t, 14, logs[0].MessageCount)
	require.Len(t, logs[0].Admitted, 2)
	require.Equal(t, 1, logs[0].Admitted[0].Pass)
	require.Positive(t, logs[0].Admitted[0].BudgetShare)
	require.Equal(t, logs[0].Admitted[0].BudgetShare+logs[0].Admitted[1].BudgetShare, logs[0].Budget.Used)

	// A dry run reads the state (sticky from turn 10 is open at 16) and
	// writes nothing; without a channel it reads none.
	var dry turnResult
	in := map[string]any{"serverDiscordId": f.server, "lineageId": 5, "channelId": turnChannel,
		"messages": []map[string]any{{"content": "nothing"}}, "messageCount": 16}
	f.must(serviceKey, qActivate, map[string]any{"input": in}, "activate", &dry)
	require.Equal(t, "admitted", f.verdict(&dry, "Dragon"))
	delete(in, "channelId")
	f.must(serviceKey, qActivate, map[string]any{"input": in}, "activate", &dry)
	require.Equal(t, "no_key_match", f.verdict(&dry, "Dragon"))
	require.Len(t, f.log(turnChannel, 20), len(steps))

	// Reset clears the state: the sticky window is gone.
	var reset struct{ Ok bool }
	f.must(serviceKey, qResetTurnState, map[string]any{"s": f.server, "l": 5, "c": turnChannel}, "resetTurnState", &reset)
	require.True(t, reset.Ok)
	in["channelId"] = turnChannel
	f.must(serviceKey, qActivate, map[string]any{"input": in}, "activate", &dry)
	require.Equal(t, "no_key_match", f.verdict(&dry, "Dragon"))
}

// TestActivateTurnDecorators scripts each stateful decorator.
func TestActivateTurnDecorators(t *testing.T) {
	f := newTurnFixture(t,
		keyed("After", "@@activate_only_after 4\nAfter lore.", "dragon"),
		keyed("Every", "@@activate_only_every 3\nEvery lore.", "dragon"),
		keyed("Keep", "@@keep_activate_after_match\nKept lore.", "dragon"),
		keyed("Once", "@@dont_activate_after_match\nOnce lore.", "dragon"),
		keyed("Greeting", "@@is_greeting\nGreeting lore.", "hello"),
	)
	steps := []struct {
		count int
		text  string
		want  map[string]string
	}{
		{1, "hello dragon", map[string]string{"After": "decorator_blocked", "Every": "decorator_blocked",
			"Keep": "admitted", "Once": "admitted", "Greeting": "admitted"}},
		// A swipe of the first turn: Keep and Once matched in no earlier turn.
		{1, "hello", map[string]string{"Keep": "no_key_match", "Once": "no_key_match", "Greeting": "admitted"}},
		{3, "dragon", map[string]string{"After": "decorator_blocked", "Every": "admitted",
			"Keep": "admitted", "Once": "admitted", "Greeting": "decorator_blocked"}},
		{4, "dragon", map[string]string{"After": "admitted", "Every": "decorator_blocked", "Once": "decorator_blocked"}},
		{6, "no keys at all", map[string]string{"After": "no_key_match", "Every": "no_key_match", "Keep": "admitted",
			"Once": "decorator_blocked"}},
	}
	for i, s := range steps {
		p := f.turn(serviceKey, f.input(turnChannel, fmt.Sprintf("d%d", i), s.count, s.text))
		require.Nil(t, p.Error)
		for title, want := range s.want {
			require.Equal(t, want, f.verdict(p.Result, title), "turn %d (count %d): %s", i+1, s.count, title)
		}
	}
}

// TestActivateTurnRetry: a retry with the same turn id returns the recorded
// result and changes nothing; another input under a used id is refused;
// rolls are seeded from the turn id.
func TestActivateTurnRetry(t *testing.T) {
	sticky := keyed("Sticky", "Sticky lore.", "dragon")
	sticky.Sticky = 5
	var chance []lore.Entry
	for i := range 8 {
		e := keyed(fmt.Sprintf("Chance %d", i), fmt.Sprintf("Chance lore %d.", i), "dragon")
		e.Probability = 50
		chance = append(chance, e)
	}
	f := newTurnFixture(t, append(chance, sticky)...)
	first := f.turn(serviceKey, f.input(turnChannel, "t1", 2, "dragon"))
	require.Nil(t, first.Error)
	require.Equal(t, "admitted", f.verdict(first.Result, "Sticky"))
	for _, tr := range first.Result.Trace { // derived from the stored trace (withReasons)
		require.Equal(t, tr.Verdict, tr.Reason, tr.Title)
		want := map[string]any{"pass": float64(tr.Pass)}
		if tr.Verdict == "chance_failed" {
			want["chance"] = 50.0 // the entry's, as a dry run gives it
		}
		require.Equal(t, want, tr.Params, tr.Title)
	}

	// The entry changes after the turn: the retry still returns what was
	// recorded, and writes nothing.
	_, err := f.store.UpdateEntry(context.Background(), f.server, 5, mustID(t, f.ids["Sticky"]),
		lore.EntryPatch{Content: ptrTo("Changed lore.")})
	require.NoError(t, err)
	again := f.turn(serviceKey, f.input(turnChannel, "t1", 2, "dragon"))
	require.Equal(t, first, again)
	require.Len(t, f.log(turnChannel, 5), 1)

	// The row keeps the result in the compact encoding (migration
	// 000086; format byte 4 since its prompt blocks are rebuilt when
	// read), not as JSON; a row stored as JSON before it (the whole
	// result, reasons included, as rows were then) replays the same.
	ctx := context.Background()
	var compact, emptyResponse bool
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT result IS NOT NULL AND get_byte(result, 0) = 4, response = '{}'::jsonb
		FROM activation_log WHERE turn_id = 't1'`).Scan(&compact, &emptyResponse))
	require.True(t, compact && emptyResponse)
	var raw map[string]json.RawMessage
	f.must(serviceKey, qActivateTurn, map[string]any{"input": f.input(turnChannel, "t1", 2, "dragon")}, "activateTurn", &raw)
	tag, err := f.pool.Exec(ctx, `UPDATE activation_log SET response = $1::jsonb, result = NULL WHERE turn_id = 't1'`, string(raw["result"]))
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())
	require.Equal(t, first, f.turn(serviceKey, f.input(turnChannel, "t1", 2, "dragon")), "a retry of a JSON row")

	other := f.turn(serviceKey, f.input(turnChannel, "t1", 3, "dragon"))
	require.Nil(t, other.Result)
	require.Equal(t, "INVALID_INPUT", other.Error.Code)
	require.Equal(t, "turnId", *other.Error.Field)

	// The input's key is an xxh64 pair and a tag; a row stored before
	// holds the SHA-256 of the input's JSON, which the same input still
	// replays; a key that is neither is another turn.
	var key string
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT input_sha256 FROM activation_log WHERE turn_id = 't1'`).Scan(&key))
	require.True(t, strings.HasSuffix(key, strings.Repeat("0", 32)), key)
	lineage, channel := int64(5), turnChannel
	old, err := json.Marshal(model.ActivateTurnInput{ServerDiscordID: f.server, LineageID: graphql.OmittableOf(&lineage),
		ChannelID: graphql.OmittableOf(&channel), Messages: []*model.MessageInput{{Content: "dragon"}}, TurnID: "t1", MessageCount: 2})
	require.NoError(t, err)
	old = append(bytes.TrimSuffix(old, []byte(`,"context":null,"generationType":null}`)), '}')
	for i, stored := range []string{fmt.Sprintf("%x", sha256.Sum256(old)), strings.Repeat("a", 64)} {
		_, err = f.pool.Exec(ctx, `UPDATE activation_log SET input_sha256 = $1 WHERE turn_id = 't1'`, stored)
		require.NoError(t, err)
		again = f.turn(serviceKey, f.input(turnChannel, "t1", 2, "dragon"))
		if i == 0 {
			require.Equal(t, first, again, "a row keyed by the SHA-256 of %s", old)
			continue
		}
		require.Nil(t, again.Result)
		require.Equal(t, "INVALID_INPUT", again.Error.Code)
	}

	// The same turn id and input in another conversation rolls the same.
	elsewhere := f.turn(serviceKey, f.input("444444444444444444", "t1", 2, "dragon"))
	require.Nil(t, elsewhere.Error)
	require.Equal(t, verdicts(first.Result), verdicts(elsewhere.Result))
	rolled := map[string]bool{}
	for i := range 4 {
		p := f.turn(serviceKey, f.input("444444444444444444", fmt.Sprintf("roll-%d", i), 4+2*i, "dragon"))
		rolled[fmt.Sprint(verdicts(p.Result))] = true
	}
	require.Greater(t, len(rolled), 1, "different turn ids draw differently")

	for _, bad := range []struct {
		field string
		in    map[string]any
	}{
		{"messageCount", f.input(turnChannel, "t9", 1, "a", "b")},
		{"channelId", f.input("general", "t9", 2, "a")},
		{"turnId", f.input(turnChannel, "  ", 2, "a")},
	} {
		p := f.turn(serviceKey, bad.in)
		require.NotNil(t, p.Error, bad.field)
		require.Equal(t, "INVALID_INPUT", p.Error.Code)
		require.Equal(t, bad.field, *p.Error.Field)
	}
}

// TestActivateTurnUntracedRetry: a turn whose request does not select the
// trace (the bot's) records none; a retry that selects it gets the
// recorded result with an empty trace, and a traced turn's retry its
// trace (docs/turns.md#what-the-log-holds).
func TestActivateTurnUntracedRetry(t *testing.T) {
	f := newTurnFixture(t, keyed("Dragon", "Dragon lore.", "dragon"), keyed("Never", "Never lore.", "zzz"))
	const bare = `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) {
		result { admitted { id title content } budget { unit limit used } } error { code message field } } }`
	var first turnPayload
	f.must(serviceKey, bare, map[string]any{"input": f.input(turnChannel, "b1", 2, "dragon")}, "activateTurn", &first)
	require.Nil(t, first.Error)
	require.Len(t, first.Result.Admitted, 1)
	again := f.turn(serviceKey, f.input(turnChannel, "b1", 2, "dragon"))
	require.Nil(t, again.Error)
	require.Equal(t, first.Result.Admitted, again.Result.Admitted)
	require.Equal(t, first.Result.Budget, again.Result.Budget)
	require.Empty(t, again.Result.Trace)

	traced := f.turn(serviceKey, f.input(turnChannel, "b2", 4, "dragon"))
	require.Equal(t, []string{"Dragon:admitted", "Never:no_key_match"}, verdicts(traced.Result))
	var replay turnPayload
	f.must(serviceKey, bare, map[string]any{"input": f.input(turnChannel, "b2", 4, "dragon")}, "activateTurn", &replay)
	require.Equal(t, traced.Result.Admitted, replay.Result.Admitted)
	require.Equal(t, traced, f.turn(serviceKey, f.input(turnChannel, "b2", 4, "dragon")))
	require.Len(t, f.log(turnChannel, 5), 2)
}

func conversationOf(f *turnFixture) postgres.Conversation {
	return postgres.Conversation{Server: f.server, Lineage: 5, Channel: turnChannel}
}

func verdicts(a *turnResult) []string {
	out := make([]string, len(a.Trace))
	for i, tr := range a.Trace {
		out[i] = tr.Title + ":" + tr.Verdict
	}
	return out
}

func mustID(t *testing.T, s string) int64 {
	id, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return id
}

func ptrTo[T any](v T) *T { return &v }

// TestActivateTurnPermissions: recording and resetting need the manage
// permission; every member may read the log.
func TestActivateTurnPermissions(t *testing.T) {
	f := newTurnFixture(t, keyed("A", "A lore.", "dragon"), keyed("Never", "Never lore.", "zzz"))
	reader := f.member("1", map[string]auth.Membership{serverA: {}})
	r := f.do(reader, qActivateTurn, map[string]any{"input": f.input(turnChannel, "t1", 1, "dragon")})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])
	r = f.do(reader, qResetTurnState, map[string]any{"s": f.server, "l": 5, "c": turnChannel})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])
	require.Nil(t, f.turn(serviceKey, f.input(turnChannel, "t1", 1, "dragon")).Error)
	var logs []logEntry
	f.must(reader, qActivationLog, map[string]any{"s": f.server, "l": 5, "c": turnChannel}, "activationLog", &logs)
	require.Len(t, logs, 1)

	// Every member sees an entry's latest activation over all conversations.
	var srv struct {
		PersonaBook struct {
			Entries struct {
				Edges []struct {
					Node struct {
						Title           string
						LastActivatedAt *time.Time
					}
				}
			}
		}
	}
	f.must(reader, `query($s: String!) { server(discordId: $s) { personaBook(lineageId: 5) { entries(first: 10) { edges { node { title lastActivatedAt } } } } } }`,
		map[string]any{"s": f.server}, "server", &srv)
	last := map[string]*time.Time{}
	for _, e := range srv.PersonaBook.Entries.Edges {
		last[e.Node.Title] = e.Node.LastActivatedAt
	}
	require.Len(t, last, 2)
	require.NotNil(t, last["A"])
	require.WithinDuration(t, logs[0].At, *last["A"], time.Second)
	require.Nil(t, last["Never"])
	stranger := f.member("2", map[string]auth.Membership{serverB: {Manage: true}})
	r = f.do(stranger, qActivationLog, map[string]any{"s": f.server, "l": 5, "c": turnChannel})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "NOT_FOUND", r.Errors[0].Extensions["code"])
	r = f.do(reader, qActivationLog, map[string]any{"s": f.server, "l": 5, "c": turnChannel, "n": 500})
	require.NotEmpty(t, r.Errors)
	require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"])
}

// TestActivateTurnConcurrent sends turns of one conversation at once: every
// turn is recorded and the sticky entry's window is opened once.
func TestActivateTurnConcurrent(t *testing.T) {
	sticky := keyed("Sticky", "Sticky lore.", "dragon")
	sticky.Sticky = 100
	f := newTurnFixture(t, sticky)
	const n = 8
	var wg sync.WaitGroup
	results := make([]turnPayload, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.do(serviceKey, qActivateTurn, map[string]any{"input": f.input(turnChannel, fmt.Sprintf("c%d", i), 10+i, "dragon")})
			if len(r.Errors) == 0 {
				_ = json.Unmarshal(r.Data["activateTurn"], &results[i])
			}
		}()
	}
	wg.Wait()
	for i, p := range results {
		require.NotNil(t, p.Result, "turn %d failed: %+v", i, p.Error)
	}
	require.Len(t, f.log(turnChannel, 50), n)
	st, err := f.store.TurnState(context.Background(), conversationOf(f))
	require.NoError(t, err)
	rec := st[mustID(t, f.ids["Sticky"])]
	require.NotNil(t, rec.Sticky)
	require.Equal(t, rec.Sticky.Start+100, rec.Sticky.End)
}

// roundTrips counts what a pool sends to Postgres: each query and each
// batch (one pipeline) is one round trip.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestActivateTurnRoundTrips counts round trips: a recorded turn costs one
// more than the dry run when the process kept its conversation's state
// from the conversation's last turn (docs/turns.md#cached-state: the
// commit checks it and writes), two on a conversation's first turn here
// (one to lock and read, one to write and commit), three when the state
// kept is stale (another process recorded a turn: the cached commit
// writes nothing and the turn runs again under the lock); a dry run reads
// turn state only for a scope with timed effects.
func TestActivateTurnRoundTrips(t *testing.T) {
	cfg, err := pgxpool.ParseConfig(postgrestest.NewDatabase(t))
	require.NoError(t, err)
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	a := newAPIWithStore(t, store)
	f := &turnFixture{api: a, server: serverA, ids: map[string]string{}}
	_, err = store.UpsertServer(context.Background(), serverA, "Turns")
	require.NoError(t, err)
	add := func(lineage lore.Lineage, e lore.Entry) {
		e.Server, e.Lineage = serverA, lineage
		_, err := store.InsertEntry(context.Background(), e)
		require.NoError(t, err)
	}
	add(5, keyed("Plain", "Plain lore.", "dragon"))
	sticky := keyed("Sticky", "Sticky lore.", "dragon")
	sticky.Sticky = 3
	add(6, sticky)

	count := func(fn func()) int64 {
		fn() // warm the matcher cache and the pool
		before := rt.n.Load()
		fn()
		return rt.n.Load() - before
	}
	dry := func(lineage int) func() {
		return func() {
			var out turnResult
			f.must(serviceKey, qActivate, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": lineage,
				"channelId": turnChannel, "messages": []map[string]any{{"content": "dragon"}}}}, "activate", &out)
		}
	}
	turns := 0
	recordedIn := func(lineage int, channel func() string) func() {
		return func() {
			turns++
			in := f.input(channel(), fmt.Sprint("rt-", turns), turns, "dragon")
			in["lineageId"] = lineage
			require.Nil(t, f.turn(serviceKey, in).Error)
		}
	}
	recorded := func(lineage int) func() { return recordedIn(lineage, func() string { return turnChannel }) }
	// A new conversation each call: its first turn.
	first := func(lineage int) func() {
		return recordedIn(lineage, func() string { return fmt.Sprint(444444444444444444 + turns) })
	}
	plainDry, stickyDry := count(dry(5)), count(dry(6))
	require.Equal(t, stickyDry, plainDry+1, "a dry run reads turn state only for a stateful scope")
	require.Equal(t, plainDry+1, count(recorded(5)))
	require.Equal(t, plainDry+1, count(recorded(6)))
	require.Equal(t, plainDry+2, count(first(5)))
	require.Equal(t, plainDry+2, count(first(6)))

	// Another process records a turn of the conversation: this one's
	// cached commit finds the state stale, then runs the turn again under
	// the lock; the conversation's next turns here go to the lock at once
	// for a while.
	other := postgres.New(pool).TurnStore()
	tx, err := other.BeginTurn(context.Background(), turnstate.Conversation{Server: serverA, Lineage: 6, Channel: turnChannel}, "other")
	require.NoError(t, err)
	require.NoError(t, tx.Commit(context.Background(), tx.Stored(), turnstate.LoggedTurn{TurnID: "other",
		MessageCount: turns, InputSHA256: strings.Repeat("0", 64), BudgetUnit: "utf16"}))
	before := rt.n.Load()
	recorded(6)()
	require.Equal(t, plainDry+3, rt.n.Load()-before, "a stale cached commit, then the turn under the lock")
	require.Equal(t, plainDry+2, count(recorded(6)))
}

// TestTurnBuffersNotShared runs dry runs (the lean path and gqlgen's, with
// a trace), assembled prompts and recorded turns at once, each worker's
// requests admitting a set of entries of their own size: the engine's
// admitted list goes to a pooled buffer (turnBuffers), and every answer
// must hold exactly its own entries with their own content, as it would
// if no other request ran (a buffer shared by two requests would mix
// them; -race reports the writes).
func TestTurnBuffersNotShared(t *testing.T) {
	const kinds, workers, rounds = 12, 6, 6
	entries := make([]lore.Entry, kinds)
	for k := range entries {
		entries[k] = keyed(fmt.Sprintf("E%02d", k), fmt.Sprintf("Lore of E%02d.", k), fmt.Sprintf("kw%02d", k))
	}
	f := newTurnFixture(t, entries...)
	const (
		qBot      = `query($input: ActivateInput!) { activate(input: $input) { admitted { title content } budget { used limit } } }`
		qPreview  = `query($input: ActivateInput!) { activate(input: $input) { admitted { title content } blocks { text } trace { verdict } } }`
		qAssemble = `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { activation { admitted { title content } } } }`
	)
	type admitted []struct{ Title, Content string }
	// admittedOf is the admitted list at path (field names) of r's data,
	// or an error.
	admittedOf := func(r gqlResponse, path ...string) (admitted, error) {
		if len(r.Errors) > 0 {
			return nil, fmt.Errorf("errors: %+v", r.Errors)
		}
		raw := r.Data[path[0]]
		for _, p := range path[1:] {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
			raw = m[p]
		}
		var a admitted
		return a, json.Unmarshal(raw, &a)
	}
	// check reports what differs from worker w's entries: E00..E(2w).
	check := func(w int, got admitted, err error) string {
		if err != nil || len(got) != 2*w+1 {
			return fmt.Sprintf("%d admitted, want %d (%v): %+v", len(got), 2*w+1, err, got)
		}
		for _, a := range got {
			var k int
			if _, err := fmt.Sscanf(a.Title, "E%02d", &k); err != nil || k > 2*w || a.Content != fmt.Sprintf("Lore of E%02d.", k) {
				return fmt.Sprintf("admitted %q with %q", a.Title, a.Content)
			}
		}
		return ""
	}
	var wg sync.WaitGroup
	for w := range workers {
		words := make([]string, 2*w+1)
		for k := range words {
			words[k] = fmt.Sprintf("kw%02d", k)
		}
		channel := fmt.Sprintf("4444444444444444%02d", w)
		dry := map[string]any{"serverDiscordId": f.server, "lineageId": 5, "channelId": channel,
			"messages": []map[string]any{{"content": strings.Join(words, " ")}}}
		wg.Go(func() {
			for r := range rounds {
				rec := f.input(channel, fmt.Sprintf("w%d-r%d", w, r), 10+r, strings.Join(words, " "))
				for _, c := range []struct {
					query string
					vars  map[string]any
					path  []string
				}{
					{qBot, map[string]any{"input": dry}, []string{"activate", "admitted"}},
					{qPreview, map[string]any{"input": dry}, []string{"activate", "admitted"}},
					{qAssemble, map[string]any{"input": map[string]any{"activation": dry}}, []string{"assemblePrompt", "activation", "admitted"}},
					{qActivateTurn, map[string]any{"input": rec}, []string{"activateTurn", "result", "admitted"}},
				} {
					got, err := admittedOf(f.do(serviceKey, c.query, c.vars), c.path...)
					if diff := check(w, got, err); diff != "" {
						t.Errorf("worker %d round %d %s: %s", w, r, c.path[0], diff)
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestActivateTurnDeferred runs the turn tests with serve's
// LOREGATE_TURN_COMMIT=deferred (docs/turns.md#durability): a turn on the
// kept state is answered before it is written, and every behaviour they
// check holds the same.
func TestActivateTurnDeferred(t *testing.T) {
	t.Setenv(turnCommitEnv, "deferred")
	for name, test := range map[string]func(*testing.T){
		"TimedEffects": TestActivateTurnTimedEffects, "Decorators": TestActivateTurnDecorators,
		"Retry": TestActivateTurnRetry, "Permissions": TestActivateTurnPermissions, "Concurrent": TestActivateTurnConcurrent,
	} {
		t.Run(name, test)
	}
}

// TestActivateTurnRetrySelections: a retry answers what the recording
// request would have answered for any selection but the trace, whatever
// that request selected: the prompt blocks, which a row of format 4 does
// not store, are rebuilt from its admitted entries (identity-resolved
// content, both groups and placements, an injected and a
// @@reverse_depth entry), byte for byte. The same turn id and input in
// two conversations roll the same, so one records with every field and
// the other with none of the blocks.
func TestActivateTurnRetrySelections(t *testing.T) {
	always := keyed("Always", "{{user}} is always here.")
	always.Constant, always.Placement = true, lore.Before
	deep := keyed("Deep", "@@reverse_depth 1\nSaid at depth to {{user}}.", "dragon")
	after := keyed("After", "The dragon sleeps, {{user}}.", "dragon")
	before := keyed("Before", "Before the dragon.", "dragon")
	before.Placement = lore.Before
	f := newTurnFixture(t, always, deep, after, before)
	const full = `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) {
		result { admitted { id title placement group content tokens pass triggeredBy score position { kind depth role outlet } }
			blocks { tag role text entries { id title content role } } budget { unit limit used byBook { entries used } }
			passes injections { kind depth role outlet text entryIds } outlets { name text } storeUnavailable }
		error { code message field } } }`
	const bare = `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) { result { passes } error { code } } }`
	in := func(channel string) map[string]any {
		m := f.input(channel, "s1", 3, "a dragon", "the dragon wakes")
		m["names"] = map[string]any{"user": "Ann"}
		return m
	}
	do := func(query, channel string) string {
		t.Helper()
		r := f.do(serviceKey, query, map[string]any{"input": in(channel)})
		require.Empty(t, r.Errors)
		return string(r.Data["activateTurn"])
	}
	want := do(full, turnChannel)
	require.Contains(t, want, "Ann is always here.")
	require.Contains(t, want, `"AT_DEPTH"`)
	require.Contains(t, want, "KNOWLEDGE_LOREBOOK_BEFORE")
	require.Equal(t, want, do(full, turnChannel), "a retry of the full selection")
	const other = "444444444444444444"
	require.NotContains(t, do(bare, other), "admitted")
	require.Equal(t, want, do(full, other), "a retry of a turn recorded without the blocks")
}
