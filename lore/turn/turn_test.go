package turn_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

func ptr[T any](v T) *T { return &v }

// TestPrepareLayers: the server layer, then the request's overrides, each
// checked against its bounds (table-driven).
func TestPrepareLayers(t *testing.T) {
	chars := lore.DefaultServerSettings()
	tokens := chars
	tokens.BudgetUnit, tokens.BudgetLimit = lore.BudgetTokens, 500
	tests := []struct {
		name   string
		set    lore.ServerSettings
		req    turn.Request
		check  func(t *testing.T, tr *turn.Turn)
		field  string // the *lore.InvalidError's field, "" for success
		reason string
	}{
		{name: "server defaults", set: chars, check: func(t *testing.T, tr *turn.Turn) {
			require.Equal(t, lore.DefaultBudgetCharacters, tr.Options.CharBudget)
			require.Zero(t, tr.Options.TokenBudget)
			require.Nil(t, tr.Options.ScanDepth)
			require.True(t, tr.Input.ChannelScoping)
			require.False(t, tr.Options.RegexKeys)
			require.True(t, tr.Options.SkipTrace, "no trace asked: none built")
		}},
		{name: "server token budget", set: tokens, check: func(t *testing.T, tr *turn.Turn) {
			require.Equal(t, 500, tr.Options.TokenBudget)
		}},
		{name: "character override on a token server", set: tokens, req: turn.Request{Overrides: turn.Overrides{Budget: ptr(300)}},
			check: func(t *testing.T, tr *turn.Turn) {
				require.Equal(t, 300, tr.Options.CharBudget)
				require.Zero(t, tr.Options.TokenBudget)
			}},
		{name: "every override", set: chars, req: turn.Request{Trace: true, Overrides: turn.Overrides{ScanDepth: ptr(0),
			BudgetTokens: ptr(200), Recursive: ptr(true), MaxRecursionSteps: ptr(2), WholeWords: ptr(false),
			CaseSensitive: ptr(true), ChannelScoping: ptr(false), Random: ptr(0.5)}},
			check: func(t *testing.T, tr *turn.Turn) {
				o := tr.Options
				require.Equal(t, 0, *o.ScanDepth)
				require.Equal(t, 200, o.TokenBudget)
				require.True(t, o.Recursive)
				require.Equal(t, 2, *o.MaxRecursionSteps)
				require.True(t, o.Substring)
				require.True(t, o.CaseSensitive)
				require.False(t, tr.Input.ChannelScoping)
				require.Equal(t, 0.5, o.Random())
				require.True(t, o.NearMisses)
				require.False(t, o.SkipTrace)
			}},
		{name: "scan depth over the API range", set: chars, req: turn.Request{Overrides: turn.Overrides{ScanDepth: ptr(101)}},
			field: "overrides.scanDepth", reason: "101 is outside 0-100"},
		{name: "scan depth over 100 offline", set: chars, req: turn.Request{Bounds: turn.OfflineBounds, Overrides: turn.Overrides{ScanDepth: ptr(500)}},
			check: func(t *testing.T, tr *turn.Turn) { require.Equal(t, 500, *tr.Options.ScanDepth) }},
		{name: "negative scan depth offline", set: chars, req: turn.Request{Bounds: turn.OfflineBounds, Overrides: turn.Overrides{ScanDepth: ptr(-1)}},
			field: "overrides.scanDepth", reason: "-1 is negative"},
		{name: "both budgets", set: chars, req: turn.Request{Overrides: turn.Overrides{Budget: ptr(100), BudgetTokens: ptr(200)}},
			field: "overrides.budgetTokens", reason: "give budget or budgetTokens, not both"},
		{name: "negative budget is unlimited offline", set: chars, req: turn.Request{Bounds: turn.OfflineBounds, Overrides: turn.Overrides{Budget: ptr(-1)}},
			check: func(t *testing.T, tr *turn.Turn) { require.Equal(t, -1, tr.Options.CharBudget) }},
		{name: "negative budget refused by the API", set: chars, req: turn.Request{Overrides: turn.Overrides{Budget: ptr(-1)}},
			field: "overrides.budget", reason: "-1 is outside 1-2000000 characters"},
		{name: "zero budget offline", set: chars, req: turn.Request{Bounds: turn.OfflineBounds, Overrides: turn.Overrides{Budget: ptr(0)}},
			field: "overrides.budget", reason: "0 would admit nothing"},
		{name: "token budget below the API range", set: chars, req: turn.Request{Overrides: turn.Overrides{BudgetTokens: ptr(10)}},
			field: "overrides.budgetTokens", reason: "10 is outside 100-32000 tokens"},
		{name: "steps over the cap", set: chars, req: turn.Request{Overrides: turn.Overrides{MaxRecursionSteps: ptr(11)}},
			field: "overrides.maxRecursionSteps", reason: "11 is outside 0-10"},
		{name: "draw of 1", set: chars, req: turn.Request{Overrides: turn.Overrides{Random: ptr(1.0)}},
			field: "overrides.random", reason: "must be in [0, 1)"},
		{name: "message count below the messages", set: chars, req: turn.Request{Messages: []string{"a", "b"}, MessageCount: ptr(1)},
			field: "messageCount", reason: "1 is outside 2 (the messages sent)"},
		{name: "message count below the messages offline", set: chars,
			req:   turn.Request{Bounds: turn.OfflineBounds, Messages: []string{"a", "b"}, MessageCount: ptr(1)},
			check: func(t *testing.T, tr *turn.Turn) { require.Equal(t, 1, tr.Input.MessageCount) }},
		{name: "caller's draw source", set: chars, req: turn.Request{Random: func() float64 { return 0.25 }},
			check: func(t *testing.T, tr *turn.Turn) { require.Equal(t, 0.25, tr.Options.Random()) }},
		{name: "override draw wins over the caller's", set: chars,
			req:   turn.Request{Random: func() float64 { return 0.25 }, Overrides: turn.Overrides{Random: ptr(0.75)}},
			check: func(t *testing.T, tr *turn.Turn) { require.Equal(t, 0.75, tr.Options.Random()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := lore.Snapshot{Server: lore.Server{ID: "1", Settings: tt.set}}
			tr, err := turn.Prepare(snap, tt.req)
			if tt.field != "" {
				var ie *lore.InvalidError
				require.True(t, errors.As(err, &ie), "%v", err)
				require.Equal(t, tt.field, ie.Field)
				require.Contains(t, ie.Reason, tt.reason)
				if strings.HasPrefix(tt.field, "overrides.") {
					require.Error(t, tt.req.Overrides.Check(tt.req.Bounds), "Check agrees")
				}
				return
			}
			require.NoError(t, err)
			tt.check(t, tr)
		})
	}
}

// TestPrepareClampsBookBudgets: under APIBounds a book budget stored in
// the other unit is clamped into the turn's unit; offline it is kept.
func TestPrepareClampsBookBudgets(t *testing.T) {
	snap := lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()},
		Collections: map[string]lore.Collection{"World": {Name: "World", Enabled: true, Settings: lore.BookSettings{BudgetLimit: ptr(5_000_000)}}},
		PersonaBook: lore.BookSettings{BudgetLimit: ptr(5_000_000)}}
	tr, err := turn.Prepare(snap, turn.Request{})
	require.NoError(t, err)
	require.Equal(t, lore.MaxBudgetCharacters, *tr.Input.Collections["World"].Settings.BudgetLimit)
	require.Equal(t, lore.MaxBudgetCharacters, *tr.Input.PersonaBook.BudgetLimit)
	require.Equal(t, 5_000_000, *snap.Collections["World"].Settings.BudgetLimit, "the snapshot is not modified")
	tr, err = turn.Prepare(snap, turn.Request{Bounds: turn.OfflineBounds})
	require.NoError(t, err)
	require.Equal(t, 5_000_000, *tr.Input.Collections["World"].Settings.BudgetLimit)
}

// TestOverridesEverywhere: every override has a GraphQL field in the
// ActivationOverrides input of graph/activation.graphqls, and a rule in
// Prepare (setting it changes the prepared turn); a flag-tagged one is a
// flag whose value reaches the field.
func TestOverridesEverywhere(t *testing.T) {
	sdl, err := os.ReadFile("../../graph/activation.graphqls")
	require.NoError(t, err)
	block := regexp.MustCompile(`(?s)input ActivationOverrides \{(.*?)\n\}`).FindSubmatch(sdl)
	require.NotNil(t, block, "input ActivationOverrides in graph/activation.graphqls")
	// A valid sample value per field, unlike the default.
	samples := map[reflect.Kind]func(name string) any{
		reflect.Int: func(name string) any {
			if strings.HasPrefix(name, "Budget") {
				return 200
			}
			return 2
		},
		reflect.Bool:    func(name string) any { return name != "WholeWords" && name != "ChannelScoping" },
		reflect.Float64: func(string) any { return 0.5 },
		reflect.String:  func(string) any { return lore.RankerLexical },
	}
	base, err := turn.Prepare(lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()}}, turn.Request{})
	require.NoError(t, err)
	typ := reflect.TypeOf(turn.Overrides{})
	require.Positive(t, typ.NumField())
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			require.NotEmpty(t, name, "a json tag (the GraphQL field)")
			require.Regexp(t, `(?m)^\s+`+name+`: `, string(block[1]), "overrides.%s is in the schema", name)
			require.Equal(t, reflect.Pointer, f.Type.Kind(), "nil is 'not set'")
			sample := samples[f.Type.Elem().Kind()]
			require.NotNil(t, sample, "a sample for %s", f.Type)
			var o turn.Overrides
			v := reflect.New(f.Type.Elem())
			v.Elem().Set(reflect.ValueOf(sample(f.Name)))
			reflect.ValueOf(&o).Elem().Field(i).Set(v)
			got, err := turn.Prepare(lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()}}, turn.Request{Overrides: o})
			require.NoError(t, err)
			require.False(t, sameTurn(base, got), "setting %s changes the turn: it has a rule", f.Name)
		})
	}
	var o turn.Overrides
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range turn.Flags(&o) {
		require.NotEmpty(t, f.Usage, "--%s has a usage", f.Name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
	require.NoError(t, fs.Parse([]string{"--scan-depth", "7", "--recursive", "--whole-words=false", "--random", "0.5"}))
	require.Equal(t, 7, *o.ScanDepth)
	require.True(t, *o.Recursive)
	require.False(t, *o.WholeWords)
	require.Equal(t, 0.5, *o.Random)
	require.Nil(t, o.Budget, "a flag not given stays nil")
	require.Error(t, fs.Parse([]string{"--scan-depth", "seven"}))
}

// sameTurn compares the prepared options and input (draws by one value).
func sameTurn(a, b *turn.Turn) bool {
	ao, bo := a.Options, b.Options
	ar, br := ao.Random, bo.Random
	ao.Random, bo.Random = nil, nil
	if (ar == nil) != (br == nil) || ar != nil && ar() != br() {
		return false
	}
	return reflect.DeepEqual(ao, bo) && reflect.DeepEqual(a.Input, b.Input) && reflect.DeepEqual(a.Semantic, b.Semantic)
}

// recordFixture is a server with one scope of lore in a real database.
type recordFixture struct {
	store *postgres.Store
	snap  lore.Snapshot
	conv  turnstate.Conversation
}

func newRecordFixture(t *testing.T) *recordFixture {
	t.Helper()
	ctx := context.Background()
	store := postgres.New(postgrestest.NewPool(t))
	const server = "111111111111111111"
	_, err := store.UpsertServer(ctx, server, "Turns")
	require.NoError(t, err)
	dragon := lore.NewEntry()
	dragon.Server, dragon.Lineage, dragon.Title, dragon.Content, dragon.Keys = server, 5, "Dragon", "A dragon.", []string{"dragon"}
	dragon.Sticky = 2
	coin := lore.NewEntry()
	coin.Server, coin.Lineage, coin.Title, coin.Content, coin.Keys, coin.Probability = server, 5, "Coin", "A coin.", []string{"coin"}, 50
	for _, e := range []lore.Entry{dragon, coin} {
		_, err := store.InsertEntry(ctx, e)
		require.NoError(t, err)
	}
	snap, err := store.LoadEnabledForScope(ctx, server, 5)
	require.NoError(t, err)
	return &recordFixture{store: store, snap: snap, conv: turnstate.Conversation{Server: server, Lineage: 5, Channel: "222222222222222222"}}
}

func (f *recordFixture) prepare(t *testing.T, count int, msgs ...string) (*turn.Turn, *activation.Matcher) {
	t.Helper()
	tr, err := turn.Prepare(f.snap, turn.Request{Lineage: 5, Channel: f.conv.Channel, Messages: msgs, MessageCount: &count})
	require.NoError(t, err)
	return tr, activation.CompileInput(&tr.Input, tr.Options.MatchOptions())
}

var (
	hashA = strings.Repeat("a", 64)
	hashB = strings.Repeat("b", 64)
)

func encode(res activation.Result) ([]byte, error) {
	titles := []string{}
	for _, a := range res.Admitted() {
		titles = append(titles, a.Entry.Title)
	}
	return json.Marshal(map[string]any{"admitted": titles}) // the log keeps a JSON object
}

// TestRecordReplay: a recorded turn commits state and its response; the
// same turn id and input replays the response without running the engine
// (Outcome.Replayed, no error); another input under that id is refused;
// a dry run reads the state and writes nothing.
func TestRecordReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRecordFixture(t)
	turns := f.store.TurnStore()

	tr, m := f.prepare(t, 1, "a dragon and a coin")
	out, err := turn.Record(ctx, m, tr, turns, f.conv, turn.Recording{TurnID: "t1", InputSHA256: hashA, Encode: encode})
	require.NoError(t, err)
	require.False(t, out.Replayed)
	require.Contains(t, string(out.Response), "Dragon")
	require.Nil(t, out.Result.Trace, "a request that does not read the trace builds none (Request.Trace)")
	first := out.Response

	tr, m = f.prepare(t, 1, "a dragon and a coin")
	out, err = turn.Record(ctx, m, tr, turns, f.conv, turn.Recording{TurnID: "t1", InputSHA256: hashA,
		Encode: func(activation.Result) ([]byte, error) { t.Fatal("a replay encodes nothing"); return nil, nil }})
	require.NoError(t, err)
	require.True(t, out.Replayed)
	require.JSONEq(t, string(first), string(out.Response))
	require.Empty(t, out.Result.Admitted(), "the engine did not run")

	_, err = turn.Record(ctx, m, tr, turns, f.conv, turn.Recording{TurnID: "t1", InputSHA256: hashB, Encode: encode})
	var ie *lore.InvalidError
	require.True(t, errors.As(err, &ie), "%v", err)
	require.Equal(t, "turnId", ie.Field)
	// A caller that changed its key: the key it gave the same input before
	// replays a turn logged under it; another is another turn.
	out, err = turn.Record(ctx, m, tr, turns, f.conv, turn.Recording{TurnID: "t1", InputSHA256: hashB,
		InputKeyBefore: func() string { return hashA }, Encode: encode})
	require.NoError(t, err)
	require.True(t, out.Replayed)
	_, err = turn.Record(ctx, m, tr, turns, f.conv, turn.Recording{TurnID: "t1", InputSHA256: hashB,
		InputKeyBefore: func() string { return hashB }, Encode: encode})
	require.True(t, errors.As(err, &ie), "%v", err)

	// Sticky 2 from count 1: the next turn admits Dragon without its key,
	// in a dry run too, which leaves the state as it was.
	before, err := turns.TurnState(ctx, f.conv)
	require.NoError(t, err)
	tr, m = f.prepare(t, 2, "nothing")
	out, err = turn.DryRun(ctx, m, tr, turns, f.conv)
	require.NoError(t, err)
	require.NoError(t, out.StateErr)
	require.Len(t, out.Result.Admitted(), 1)
	require.Equal(t, "Dragon", out.Result.Admitted()[0].Entry.Title)
	after, err := turns.TurnState(ctx, f.conv)
	require.NoError(t, err)
	require.Equal(t, before, after, "a dry run writes nothing")

	// Without the state reader the dry run has no timed effects.
	tr, m = f.prepare(t, 2, "nothing")
	out, err = turn.DryRun(ctx, m, tr, nil, f.conv)
	require.NoError(t, err)
	require.Empty(t, out.Result.Admitted())

	// A request that reads the trace records it.
	count := 3
	tr, err = turn.Prepare(f.snap, turn.Request{Lineage: 5, Channel: f.conv.Channel, Messages: []string{"coin"}, MessageCount: &count, Trace: true})
	require.NoError(t, err)
	out, err = turn.Record(ctx, activation.CompileInput(&tr.Input, tr.Options.MatchOptions()), tr, turns, f.conv,
		turn.Recording{TurnID: "t2", InputSHA256: hashA, Encode: encode})
	require.NoError(t, err)
	require.NotEmpty(t, out.Result.Trace)
}

// failingStates is a state reader whose reads fail.
type failingStates struct{}

func (failingStates) TurnState(context.Context, turnstate.Conversation) (turnstate.State, error) {
	return nil, lore.ErrUnavailable
}

// TestDryRunStateUnavailable: a failed state read leaves the dry run
// without state and says so.
func TestDryRunStateUnavailable(t *testing.T) {
	t.Parallel()
	f := newRecordFixture(t)
	tr, m := f.prepare(t, 1, "a dragon")
	out, err := turn.DryRun(context.Background(), m, tr, failingStates{}, f.conv)
	require.NoError(t, err)
	require.ErrorIs(t, out.StateErr, lore.ErrUnavailable)
	require.Len(t, out.Result.Admitted(), 1)
}

// TestRecordSeedsDraws: a recorded turn draws from turnstate.Random(turn
// id) unless the request fixes the draws.
func TestRecordSeedsDraws(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRecordFixture(t)
	for i, id := range []string{"a", "b", "c", "d", "e", "f"} {
		tr, m := f.prepare(t, 1, "coin")
		conv := f.conv
		conv.Channel = strconv.Itoa(222222222222222230 + i) // a conversation per turn id
		out, err := turn.Record(ctx, m, tr, f.store.TurnStore(), conv, turn.Recording{TurnID: id, InputSHA256: hashA, Encode: encode})
		require.NoError(t, err)
		want := turnstate.Random(id)() < 0.5
		require.Equal(t, want, out.Result.NumAdmitted() == 1, "turn %s", id)
	}
}

// TestPrepareCardCharacter: a persona lineage's card character
// (Snapshot.Character) reaches the engine as the request's character, so
// an entry limited to that character fires and one excluding it does
// not; a scope without a card has no character (an include filter
// blocks).
func TestPrepareCardCharacter(t *testing.T) {
	entry := func(id int64, f lore.CharacterFilter) lore.Entry {
		return lore.Entry{ID: id, Lineage: 5, Enabled: true, Probability: 100, Constant: true, Placement: lore.After,
			Content: "x", CharacterFilter: f}
	}
	entries := []lore.Entry{entry(1, lore.CharacterFilter{Names: []string{"Aether"}}),
		entry(2, lore.CharacterFilter{Tags: []string{"genshin"}, Exclude: true})}
	card := &lore.CharacterContext{Name: "Aether", Tags: []string{"genshin"}, Description: "A traveller."}
	for _, tt := range []struct {
		name string
		card *lore.CharacterContext
		want []int64
	}{{"with the card", card, []int64{1}}, {"without a card", nil, []int64{2}}} {
		t.Run(tt.name, func(t *testing.T) {
			snap := lore.Snapshot{Server: lore.Server{Settings: lore.DefaultServerSettings()}, Lineage: 5, Entries: entries, Character: tt.card}
			tr, err := turn.Prepare(snap, turn.Request{Lineage: 5, Messages: []string{"hi"}})
			require.NoError(t, err)
			if tt.card != nil {
				require.Equal(t, &activation.Character{Name: "Aether", Tags: []string{"genshin"}, Description: "A traveller."}, tr.Input.Character)
			}
			res, err := activation.Activate(context.Background(), tr.Input, tr.Options)
			require.NoError(t, err)
			got := []int64{}
			for _, a := range res.Admitted() {
				got = append(got, a.Entry.ID)
			}
			require.Equal(t, tt.want, got)
		})
	}
}
