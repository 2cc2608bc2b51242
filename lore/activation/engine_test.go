package activation

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

const (
	srv   = "111111111111111111"
	chanA = "222222222222222222"
	chanB = "333333333333333333"
	chanT = "444444444444444444" // a thread
)

// ent returns an enabled Serverwide entry of srv in General.
func ent(id int64, keys []string, content string) lore.Entry {
	e := lore.NewEntry()
	e.ID, e.Server, e.Title, e.Keys, e.Content = id, srv, "e"+string(rune('0'+id%10)), keys, content
	return e
}

func constant(id int64, content string) lore.Entry {
	e := ent(id, nil, content)
	e.Constant = true
	return e
}

func general(channels ...string) map[string]lore.Collection {
	return map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true, ChannelIDs: channels}}
}

func baseInput(entries []lore.Entry, msgs ...string) Input {
	return Input{Entries: entries, Collections: general(), Messages: msgs, Server: srv, Lineage: 7, Channel: chanA, ChannelScoping: true}
}

func verdicts(res Result) map[int64]Verdict {
	out := map[int64]Verdict{}
	for _, tr := range res.Trace {
		out[tr.ID] = tr.Verdict
	}
	return out
}

func admittedIDs(res Result) []int64 {
	ids := []int64{}
	for _, a := range res.Admitted() {
		ids = append(ids, a.Entry.ID)
	}
	return ids
}

func run(t *testing.T, in Input, opts Options) Result {
	t.Helper()
	res, err := Activate(context.Background(), in, opts)
	require.NoError(t, err)
	require.Len(t, res.Trace, len(in.Entries), "one trace item per entry")
	return res
}

func noDraw() float64 { panic("no draw expected") }

func TestGates(t *testing.T) {
	persona := func(e lore.Entry, lineage lore.Lineage, channels ...string) lore.Entry {
		e.Lineage, e.ChannelIDs = lineage, channels
		return e
	}
	inColl := func(e lore.Entry, name string) lore.Entry { e.Collection = name; return e }
	tests := []struct {
		name  string
		entry lore.Entry
		edit  func(*Input)
		want  Verdict
	}{
		{"keyword admitted", ent(1, []string{"glade"}, "x"), nil, VerdictAdmitted},
		{"constant admitted", constant(1, "x"), nil, VerdictAdmitted},
		{"disabled constant", func() lore.Entry { e := constant(1, "x"); e.Enabled = false; return e }(), nil, VerdictDisabled},
		{"disabled keyword", func() lore.Entry { e := ent(1, []string{"glade"}, "x"); e.Enabled = false; return e }(), nil, VerdictDisabled},
		{"other server constant", func() lore.Entry { e := constant(1, "x"); e.Server = "999999999999999999"; return e }(), nil, VerdictGatedServer},
		{"persona of active lineage", persona(constant(1, "x"), 7), nil, VerdictAdmitted},
		{"persona of other lineage", persona(constant(1, "x"), 8), nil, VerdictGatedLineage},
		{"persona while Serverwide active", persona(constant(1, "x"), 7), func(in *Input) { in.Lineage = lore.Serverwide }, VerdictGatedLineage},
		{"Serverwide passes any lineage", constant(1, "x"), func(in *Input) { in.Lineage = 42 }, VerdictAdmitted},
		{"collection missing", inColl(constant(1, "x"), "Atlas"), nil, VerdictGatedCollection},
		{"collection disabled", constant(1, "x"), func(in *Input) {
			in.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection}}
		}, VerdictGatedCollection},
		{"named collection enabled", inColl(constant(1, "x"), "Atlas"), func(in *Input) {
			in.Collections = map[string]lore.Collection{"Atlas": {Name: "Atlas", Enabled: true}}
		}, VerdictAdmitted},
		{"persona entry ignores collections", persona(constant(1, "x"), 7), func(in *Input) { in.Collections = nil }, VerdictAdmitted},
		{"collection channel listed", constant(1, "x"), func(in *Input) { in.Collections = general(chanB, chanA) }, VerdictAdmitted},
		{"collection channel not listed", constant(1, "x"), func(in *Input) { in.Collections = general(chanB) }, VerdictGatedChannel},
		{"thread inherits parent", constant(1, "x"), func(in *Input) {
			in.Collections = general(chanA)
			in.Channel, in.ParentChannel = chanT, chanA
		}, VerdictAdmitted},
		{"thread listed itself", constant(1, "x"), func(in *Input) {
			in.Collections = general(chanT)
			in.Channel, in.ParentChannel = chanT, chanB
		}, VerdictAdmitted},
		{"thread of unlisted parent", constant(1, "x"), func(in *Input) {
			in.Collections = general(chanA)
			in.Channel, in.ParentChannel = chanT, chanB
		}, VerdictGatedChannel},
		{"scoping off bypasses channels", constant(1, "x"), func(in *Input) {
			in.Collections = general(chanB)
			in.ChannelScoping = false
		}, VerdictAdmitted},
		{"scoping off keeps collection gate", constant(1, "x"), func(in *Input) {
			in.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, ChannelIDs: []string{chanB}}}
			in.ChannelScoping = false
		}, VerdictGatedCollection},
		{"persona own channel listed", persona(constant(1, "x"), 7, chanA), nil, VerdictAdmitted},
		{"persona own channel not listed", persona(constant(1, "x"), 7, chanB), nil, VerdictGatedChannel},
		{"persona ignores collection channels", persona(constant(1, "x"), 7), func(in *Input) { in.Collections = general(chanB) }, VerdictAdmitted},
		{"Serverwide ignores its own channel ids", func() lore.Entry { e := constant(1, "x"); e.ChannelIDs = []string{chanB}; return e }(), nil, VerdictAdmitted},
		{"legacy tags admit every channel", func() lore.Entry {
			e := persona(constant(1, "x"), 7, chanB)
			e.LegacyChannelTags = []string{"#general"}
			return e
		}(), nil, VerdictAdmitted},
		{"legacy tags do not override a collection's channels", func() lore.Entry {
			e := constant(1, "x")
			e.LegacyChannelTags = []string{"#general"}
			return e
		}(), func(in *Input) { in.Collections = general(chanB) }, VerdictGatedChannel},
		{"legacy tags do not bypass lineage", func() lore.Entry {
			e := persona(constant(1, "x"), 8)
			e.LegacyChannelTags = []string{"#general"}
			return e
		}(), nil, VerdictGatedLineage},
		{"no channel while scoped", constant(1, "x"), func(in *Input) { in.Collections = general(chanA); in.Channel = "" }, VerdictGatedChannel},
		{"keyword gated by channel before keys", ent(1, []string{"glade"}, "x"), func(in *Input) { in.Collections = general(chanB) }, VerdictGatedChannel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput([]lore.Entry{tt.entry}, "we rest in the glade")
			if tt.edit != nil {
				tt.edit(&in)
			}
			res := run(t, in, Options{Random: noDraw})
			require.Equal(t, tt.want, res.Trace[0].Verdict, "detail: %s", res.Trace[0].Detail)
			require.NotEmpty(t, res.Trace[0].Detail)
			require.Equal(t, tt.want == VerdictAdmitted, res.NumAdmitted() == 1)
		})
	}
}

func TestChance(t *testing.T) {
	withP := func(e lore.Entry, p int) lore.Entry { e.Probability = p; return e }
	tests := []struct {
		name   string
		entry  lore.Entry
		draw   float64
		want   Verdict
		nodraw bool
	}{
		{"chance 0 blocks a constant", withP(constant(1, "x"), 0), 0, VerdictChanceFailed, true},
		{"chance 0 blocks a keyword entry", withP(ent(1, []string{"storm"}, "x"), 0), 0, VerdictChanceFailed, true},
		{"chance 0 blocks a keyless entry", withP(ent(1, nil, "x"), 0), 0, VerdictChanceFailed, true},
		{"constant skips a positive chance", withP(constant(1, "x"), 10), 0, VerdictAdmitted, true},
		{"chance 100 takes no draw", withP(ent(1, []string{"storm"}, "x"), 100), 0, VerdictAdmitted, true},
		{"draw below chance", withP(ent(1, []string{"storm"}, "x"), 10), 0.04, VerdictAdmitted, false},
		{"draw at chance fails", withP(ent(1, []string{"storm"}, "x"), 10), 0.10, VerdictChanceFailed, false},
		{"draw above chance", withP(ent(1, []string{"storm"}, "x"), 10), 0.49, VerdictChanceFailed, false},
		{"draw 0 with chance 1", withP(ent(1, []string{"storm"}, "x"), 1), 0, VerdictAdmitted, false},
		{"draw 0.99 with chance 99", withP(ent(1, []string{"storm"}, "x"), 99), 0.99, VerdictChanceFailed, false},
		{"no key match takes no draw", withP(ent(1, []string{"calm"}, "x"), 50), 0, VerdictNoKeyMatch, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			draws := 0
			rnd := func() float64 { draws++; return tt.draw }
			res := run(t, baseInput([]lore.Entry{tt.entry}, "a storm"), Options{Random: rnd})
			require.Equal(t, tt.want, res.Trace[0].Verdict, res.Trace[0].Detail)
			if tt.nodraw {
				require.Zero(t, draws)
			} else {
				require.Equal(t, 1, draws)
			}
		})
	}
}

func TestChanceDrawOrderAndRange(t *testing.T) {
	a := ent(1, []string{"storm"}, "a")
	a.Probability, a.Order = 50, 20
	b := ent(2, []string{"storm"}, "b")
	b.Probability, b.Order = 50, 10
	draws := []float64{0.9, 0.1} // first draw goes to b (order 10)
	rnd := func() float64 { d := draws[0]; draws = draws[1:]; return d }
	res := run(t, baseInput([]lore.Entry{a, b}, "storm"), Options{Random: rnd})
	require.Equal(t, map[int64]Verdict{1: VerdictAdmitted, 2: VerdictChanceFailed}, verdicts(res))

	_, err := Activate(context.Background(), baseInput([]lore.Entry{a}, "storm"), Options{Random: func() float64 { return 1 }})
	require.ErrorIs(t, err, lore.ErrInvalid)
}

func TestKeysAndDepth(t *testing.T) {
	depth := func(e lore.Entry, d int) lore.Entry { e.ScanDepth = &d; return e }
	msgs := []string{"the glade is quiet", "nothing", "still nothing"} // glade is 3 messages back
	tests := []struct {
		name  string
		entry lore.Entry
		opts  Options
		want  Verdict
	}{
		{"default depth 2 misses", ent(1, []string{"glade"}, "x"), Options{}, VerdictNoKeyMatch},
		{"option depth 3 finds", ent(1, []string{"glade"}, "x"), Options{ScanDepth: ptr(3)}, VerdictAdmitted},
		{"entry depth 3 finds", depth(ent(1, []string{"glade"}, "x"), 3), Options{}, VerdictAdmitted},
		{"entry depth 1 beats option", depth(ent(1, []string{"glade"}, "x"), 1), Options{ScanDepth: ptr(3)}, VerdictNoKeyMatch},
		{"depth beyond chat", depth(ent(1, []string{"glade"}, "x"), 50), Options{}, VerdictAdmitted},
		{"negative option scans nothing", ent(1, []string{"nothing"}, "x"), Options{ScanDepth: ptr(-1)}, VerdictNoKeyMatch},
		{"option depth 0 scans nothing (BUG-36)", ent(1, []string{"still"}, "x"), Options{ScanDepth: ptr(0)}, VerdictNoKeyMatch},
		{"recent key found", ent(1, []string{"still"}, "x"), Options{}, VerdictAdmitted},
		{"no keys", ent(1, nil, "x"), Options{}, VerdictNoKeyMatch},
		{"empty and blank keys", ent(1, []string{"", "  ", "\u3000"}, "x"), Options{}, VerdictNoKeyMatch},
		{"any primary key", ent(1, []string{"absent", "nothing"}, "x"), Options{}, VerdictAdmitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Random = noDraw
			res := run(t, baseInput([]lore.Entry{tt.entry}, msgs...), tt.opts)
			require.Equal(t, tt.want, res.Trace[0].Verdict, res.Trace[0].Detail)
		})
	}
}

func TestMatchesDoNotCrossMessages(t *testing.T) {
	res := run(t, baseInput([]lore.Entry{ent(1, []string{"safe haven"}, "x"), ent(2, []string{"龙胆"}, "y")}, "a safe", "haven here 龙", "胆"), Options{ScanDepth: ptr(3)})
	require.Equal(t, map[int64]Verdict{1: VerdictNoKeyMatch, 2: VerdictNoKeyMatch}, verdicts(res))
}

func TestSecondaryLogic(t *testing.T) {
	sec := func(logic lore.SelectiveLogic, keys ...string) lore.Entry {
		e := ent(1, []string{"weather"}, "x")
		e.SecondaryKeys, e.Logic = keys, logic
		return e
	}
	tests := []struct {
		entry lore.Entry
		text  string
		want  Verdict
	}{
		{sec(lore.AndAny, "rain", "snow"), "weather", VerdictSecondaryLogicFailed},
		{sec(lore.AndAny, "rain", "snow"), "weather and snow", VerdictAdmitted},
		{sec("", "rain", "snow"), "weather and snow", VerdictAdmitted},
		{sec("", "rain", "snow"), "weather", VerdictSecondaryLogicFailed},
		{sec(lore.AndAll, "rain", "snow"), "weather and snow", VerdictSecondaryLogicFailed},
		{sec(lore.AndAll, "rain", "snow"), "weather, rain and snow", VerdictAdmitted},
		{sec(lore.NotAny, "rain", "snow"), "weather", VerdictAdmitted},
		{sec(lore.NotAny, "rain", "snow"), "weather and snow", VerdictSecondaryLogicFailed},
		{sec(lore.NotAll, "rain", "snow"), "weather and snow", VerdictAdmitted},
		{sec(lore.NotAll, "rain", "snow"), "weather, rain and snow", VerdictSecondaryLogicFailed},
		{sec(lore.NotAll, "rain", "snow"), "weather", VerdictAdmitted},
		{sec(lore.AndAll, "rain", "  "), "weather, rain", VerdictAdmitted}, // blank secondary keys are ignored
		{sec(lore.AndAll), "weather", VerdictAdmitted},                     // no secondary keys: no condition
		{sec(lore.AndAny, "rain"), "the rain", VerdictNoKeyMatch},          // primary first
	}
	for _, tt := range tests {
		t.Run(string(tt.entry.Logic)+"/"+tt.text, func(t *testing.T) {
			res := run(t, baseInput([]lore.Entry{tt.entry}, tt.text), Options{Random: noDraw})
			require.Equal(t, tt.want, res.Trace[0].Verdict, res.Trace[0].Detail)
		})
	}
}

func TestSecondaryWithinDepth(t *testing.T) {
	e := ent(1, []string{"weather"}, "x")
	e.SecondaryKeys = []string{"rain"}
	res := run(t, baseInput([]lore.Entry{e}, "rain", "a", "weather"), Options{})
	require.Equal(t, VerdictSecondaryLogicFailed, res.Trace[0].Verdict, "rain is 3 messages back, depth 2")
}

func TestGroupsPlacementAndOrder(t *testing.T) {
	c := constant(1, "always")
	c.Order, c.Placement = 50, lore.Before
	k := ent(2, []string{"glade"}, "keyed")
	k.Order = 10
	tie1 := ent(4, []string{"glade"}, "tie4")
	tie1.Order = 30
	tie2 := ent(3, []string{"glade"}, "tie3")
	tie2.Order = 30
	bad := ent(5, []string{"glade"}, "bad placement")
	bad.Order, bad.Placement = 99, ""
	res := run(t, baseInput([]lore.Entry{c, k, tie1, tie2, bad}, "the glade"), Options{})
	require.Equal(t, []int64{2, 3, 4, 1, 5}, admittedIDs(res))
	require.Equal(t, AlwaysOn, res.Admitted()[3].Group)
	require.Equal(t, lore.Before, res.Admitted()[3].Placement)
	require.Equal(t, Activated, res.Admitted()[0].Group)
	require.Equal(t, lore.After, res.Admitted()[0].Placement)
	require.Equal(t, lore.After, res.Admitted()[4].Placement, "invalid placement becomes after")
	ids := []int64{}
	for _, tr := range res.Trace {
		ids = append(ids, tr.ID)
	}
	require.Equal(t, []int64{2, 3, 4, 1, 5}, ids, "trace in insertion order")
}

func TestBudget(t *testing.T) {
	big := constant(1, strings.Repeat("a", 60))
	big.Order = 200
	small := ent(2, []string{"gate"}, strings.Repeat("b", 30))
	small.Order = 1
	mid := ent(3, []string{"gate"}, strings.Repeat("c", 50))
	mid.Order = 2
	tiny := ent(4, []string{"gate"}, strings.Repeat("d", 10))
	tiny.Order = 3
	entries := []lore.Entry{big, small, mid, tiny}
	tests := []struct {
		name   string
		opts   Options
		want   map[int64]Verdict
		used   int
		unit   BudgetUnit
		limit  int
		admits []int64
	}{
		{
			name: "always on first, skip and continue", opts: Options{CharBudget: 100},
			// big (60) first although its order is last; small (30) fits; mid (50) does not; tiny (10) fits exactly.
			want: map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictOverBudget, 4: VerdictAdmitted},
			used: 100, unit: UnitUTF16, limit: 100, admits: []int64{2, 4, 1},
		},
		{
			name: "constant over budget", opts: Options{CharBudget: 59},
			want: map[int64]Verdict{1: VerdictOverBudget, 2: VerdictAdmitted, 3: VerdictOverBudget, 4: VerdictAdmitted},
			used: 40, unit: UnitUTF16, limit: 59, admits: []int64{2, 4},
		},
		{
			name: "default budget", opts: Options{},
			want: map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictAdmitted, 4: VerdictAdmitted},
			used: 150, unit: UnitUTF16, limit: DefaultCharBudget, admits: []int64{2, 3, 4, 1},
		},
		{
			name: "unlimited", opts: Options{CharBudget: -1},
			want: map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictAdmitted, 4: VerdictAdmitted},
			used: 150, unit: UnitUTF16, limit: -1, admits: []int64{2, 3, 4, 1},
		},
		{
			name: "tokens", opts: Options{TokenBudget: 3, CharBudget: 1, Tokenizer: wordTokenizer{}},
			want: map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictAdmitted, 4: VerdictOverBudget},
			used: 3, unit: UnitTokens, limit: 3, admits: []int64{2, 3, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, baseInput(entries, "at the gate"), tt.opts)
			require.Equal(t, tt.want, verdicts(res))
			require.Equal(t, Budget{Unit: tt.unit, Limit: tt.limit, Used: tt.used,
				ByBook: []BookUse{{Collection: lore.DefaultCollection, Used: tt.used, Entries: len(tt.admits), Limit: -1}}}, res.Budget)
			require.Equal(t, tt.admits, admittedIDs(res))
		})
	}
	_, err := Activate(context.Background(), baseInput(entries, "gate"), Options{TokenBudget: 5})
	require.ErrorIs(t, err, lore.ErrInvalid)
}

func TestBudgetCountsUTF16AndResolvedContent(t *testing.T) {
	emoji := ent(1, []string{"gate"}, "😀😀") // 4 UTF-16 units, 8 bytes, 2 runes
	emoji.Order = 1
	macro := ent(2, []string{"gate"}, "{{user}}") // resolves to 3 units
	macro.Order = 2
	res := run(t, baseInput([]lore.Entry{emoji, macro}, "gate"), Options{CharBudget: 7, UserName: "Ana"})
	require.Equal(t, []int64{1, 2}, admittedIDs(res))
	require.Equal(t, 7, res.Budget.Used)
	require.Equal(t, "Ana", res.Admitted()[1].Content)
	res = run(t, baseInput([]lore.Entry{emoji, macro}, "gate"), Options{CharBudget: 6, UserName: "Ana"})
	require.Equal(t, []int64{1}, admittedIDs(res))
}

// wordTokenizer counts one token per whitespace-separated word.
type wordTokenizer struct{}

func (wordTokenizer) CountTokens(s string) int { return len(strings.Fields(s)) }

func TestResolveIdentity(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{{user}} meets {{char}}", "Ana meets Vex"},
		{"{{USER}} and {{Char}} and {{bot}}", "Ana and Vex and Bot"},
		{"{{random:a,b}} {{if x}}y{{/if}} {{ user }}", "{{random:a,b}} {{if x}}y{{/if}} {{ user }}"},
		{"{{{user}}}", "{Ana}"},
		{"no macros", "no macros"},
		{"{{user", "{{user"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, ResolveIdentity(tt.in, "Ana", "Vex", "Bot"), "ResolveIdentity(%q)", tt.in)
	}
	require.Equal(t, "Vex", ResolveIdentity("{{bot}}", "Ana", "Vex", ""), "bot falls back to char")
	require.Equal(t, "{{user}}", ResolveIdentity("{{user}}", "", "Vex", ""), "empty name stays literal")
}

func TestMatchingRules(t *testing.T) {
	tr, fa := true, false
	tests := []struct {
		name  string
		key   string
		text  string
		opts  Options
		sens  *bool
		whole *bool
		want  bool
	}{
		{"case-insensitive", "Glade", "the GLADE", Options{}, nil, nil, true},
		{"case-sensitive option", "Glade", "the glade", Options{CaseSensitive: true}, nil, nil, false},
		{"case-sensitive entry", "Glade", "the glade", Options{}, &tr, nil, false},
		{"case-insensitive entry beats option", "Glade", "the glade", Options{CaseSensitive: true}, &fa, nil, true},
		{"whole word blocks", "art", "we start now", Options{}, nil, nil, false},
		{"substring option", "art", "we start now", Options{Substring: true}, nil, nil, true},
		{"substring entry", "art", "we start now", Options{}, nil, &fa, true},
		{"whole-word entry beats option", "art", "we start now", Options{Substring: true}, nil, &tr, false},
		{"greek final sigma", "ΟΔΥΣΣΕΥΣ", "ο Οδυσσευς ήρθε", Options{}, nil, nil, true},
		{"sharp s folds", "straße", "STRASSE", Options{}, nil, nil, true},
		{"full width", "ＧＬＡＤＥ", "the glade", Options{}, nil, nil, true},
		{"decomposed accent", "café", "cafe\u0301!", Options{}, nil, nil, true},
		{"combining mark joins", "cafe", "cafe\u0301", Options{}, nil, nil, false},
		{"supplementary letter joins", "a", "a𝐀", Options{}, nil, nil, false},
		{"latin inside han", "Gentian", "我喜欢Gentian花", Options{}, nil, nil, true},
		{"digit edge", "42", "room 420", Options{}, nil, nil, false},
		{"digit whole", "42", "room 42.", Options{}, nil, nil, true},
		{"underscore is a boundary", "snake", "snake_case", Options{}, nil, nil, true},
		{"thai substring", "แมว", "ฉันรักแมวมาก", Options{}, nil, nil, true},
		{"hangul substring", "서울", "서울시", Options{}, nil, nil, true},
		{"leading space kept", " divines", "Divines watch.", Options{}, nil, nil, false},
		{"leading space kept matches", " divines", "to the divines.", Options{}, nil, nil, true},
		{"multi-word key", "safe haven", "a Safe  haven", Options{}, nil, nil, false},
		{"multi-word key exact", "safe haven", "a Safe haven!", Options{}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ent(1, []string{tt.key}, "x")
			e.CaseSensitive, e.WholeWords = tt.sens, tt.whole
			res := run(t, baseInput([]lore.Entry{e}, tt.text), tt.opts)
			require.Equal(t, tt.want, res.Trace[0].Verdict == VerdictAdmitted, res.Trace[0].Detail)
		})
	}
}

func TestRegexKeys(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		text   string
		regex  bool
		want   Verdict
		detail string
	}{
		{"regex on", "/gl[a-z]de/", "the glade", true, VerdictAdmitted, ""},
		{"regex is case-sensitive without i", "/glade/", "the GLADE", true, VerdictNoKeyMatch, ""},
		{"flag i", "/glade/i", "the GLADE", true, VerdictAdmitted, ""},
		{"flags g y u ignored", "/glade/gyu", "the glade", true, VerdictAdmitted, ""},
		{"flag m", "/^b/m", "a\nb", true, VerdictAdmitted, ""},
		{"flag s", "/a.b/s", "a\nb", true, VerdictAdmitted, ""},
		{"no s flag", "/a.b/", "a\nb", true, VerdictNoKeyMatch, ""},
		{"regex off is literal", "/a+/", "say /a+/ now", false, VerdictAdmitted, ""},
		{"regex off does not match pattern", "/a+/", "aaa", false, VerdictNoKeyMatch, ""},
		{"lookahead never matches", "/a(?=b)/", "ab", true, VerdictNoKeyMatch, "does not compile"},
		{"backreference never matches", `/(a)\1/`, "aa", true, VerdictNoKeyMatch, "does not compile"},
		{"too long", "/" + strings.Repeat("a", MaxRegexLen+1) + "/", strings.Repeat("a", MaxRegexLen+1), true, VerdictNoKeyMatch, "longer than"},
		{"bad flag is literal", "/glade/x", "the /glade/x", true, VerdictAdmitted, ""},
		{"unescaped slash is literal", "/a/b/", "x /a/b/ y", true, VerdictAdmitted, ""},
		{"escaped slash", `/a\/b/`, "a/b", true, VerdictAdmitted, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, baseInput([]lore.Entry{ent(1, []string{tt.key}, "x")}, tt.text), Options{RegexKeys: tt.regex})
			require.Equal(t, tt.want, res.Trace[0].Verdict, res.Trace[0].Detail)
			require.Contains(t, res.Trace[0].Detail, tt.detail)
		})
	}
	// A bad regex key does not hide the entry's other keys.
	res := run(t, baseInput([]lore.Entry{ent(1, []string{"/(?<=x)y/", "glade"}, "x")}, "glade"), Options{RegexKeys: true})
	require.Equal(t, VerdictAdmitted, res.Trace[0].Verdict)
	// Regex keys respect the scan depth.
	res = run(t, baseInput([]lore.Entry{ent(1, []string{"/glade/"}, "x")}, "glade", "a", "b"), Options{RegexKeys: true})
	require.Equal(t, VerdictNoKeyMatch, res.Trace[0].Verdict)
}

func TestInputsNotMutated(t *testing.T) {
	d := 3
	e1 := ent(1, []string{"Glade", "/x/"}, "{{user}} {{char}}")
	e1.SecondaryKeys, e1.ScanDepth, e1.Extensions = []string{"rest"}, &d, map[string]json.RawMessage{"st/uid": json.RawMessage("1")}
	e2 := constant(2, strings.Repeat("z", 90))
	e3 := ent(3, []string{"rest"}, "budget victim")
	e3.Lineage, e3.ChannelIDs, e3.LegacyChannelTags = 7, []string{chanA}, []string{"#x"}
	entries := []lore.Entry{e1, e2, e3}
	in := baseInput(entries, "We REST in the glade", "x")
	in.Collections = general(chanA)
	before := deepCopyInput(in)
	_, err := Activate(context.Background(), in, Options{CharBudget: 100, UserName: "Ana", CharName: "Vex", RegexKeys: true})
	require.NoError(t, err)
	require.Equal(t, before, in)
}

func deepCopyInput(in Input) Input {
	out := in
	out.Entries = make([]lore.Entry, len(in.Entries))
	for i, e := range in.Entries {
		out.Entries[i] = e.Clone()
	}
	out.Messages = append([]string(nil), in.Messages...)
	out.Collections = map[string]lore.Collection{}
	for k, v := range in.Collections {
		v.ChannelIDs = append([]string(nil), v.ChannelIDs...)
		out.Collections[k] = v
	}
	return out
}

func TestMatcherRefusesOtherEntries(t *testing.T) {
	m := Compile([]lore.Entry{ent(1, []string{"a"}, "x")}, MatchOptions{})
	_, err := m.Activate(context.Background(), baseInput([]lore.Entry{ent(2, []string{"a"}, "x")}, "a"), Options{})
	require.ErrorIs(t, err, lore.ErrInvalid)
	_, err = m.Activate(context.Background(), baseInput([]lore.Entry{ent(1, []string{"a"}, "x")}, "a"), Options{Substring: true})
	require.ErrorIs(t, err, lore.ErrInvalid)
}

func TestCache(t *testing.T) {
	c := NewCache(2)
	entries := []lore.Entry{ent(1, []string{"glade"}, "x")}
	in := baseInput(entries, "glade")
	k1 := CacheKey{Server: srv, Lineage: 7, Version: 1}
	for range 3 {
		res, err := c.Activate(context.Background(), k1, in, Options{})
		require.NoError(t, err)
		require.Equal(t, []int64{1}, admittedIDs(res))
	}
	require.Equal(t, CacheStats{Hits: 2, Builds: 1, Len: 1}, c.Stats())

	// Other match options are another matcher.
	_, err := c.Activate(context.Background(), k1, in, Options{Substring: true})
	require.NoError(t, err)
	require.Equal(t, int64(2), c.Stats().Builds)

	// A new version rebuilds and, past the capacity, evicts the oldest.
	k2 := k1
	k2.Version = 2
	in2 := baseInput([]lore.Entry{ent(1, []string{"meadow"}, "x")}, "meadow")
	res, err := c.Activate(context.Background(), k2, in2, Options{})
	require.NoError(t, err)
	require.Equal(t, []int64{1}, admittedIDs(res))
	require.Equal(t, CacheStats{Hits: 2, Builds: 3, Len: 2}, c.Stats())
	_, err = c.Activate(context.Background(), k1, in, Options{})
	require.NoError(t, err)
	require.Equal(t, int64(4), c.Stats().Builds, "k1 default options were evicted")

	// Same key, different entry list: rebuilt, never a wrong matcher.
	in3 := baseInput([]lore.Entry{ent(1, []string{"glade"}, "x"), ent(9, []string{"meadow"}, "y")}, "meadow")
	res, err = c.Activate(context.Background(), k1, in3, Options{})
	require.NoError(t, err)
	require.Equal(t, []int64{9}, admittedIDs(res))
}

// TestAdversarialOverlaps checks correctness (not speed; see the
// benchmarks) on many overlapping keys over long repetitive text.
func TestAdversarialOverlaps(t *testing.T) {
	var keys []string
	for i := 1; i <= 300; i++ {
		keys = append(keys, strings.Repeat("a", i))
		keys = append(keys, "b"+strings.Repeat(" ab", i%40))
	}
	msgs := []string{strings.Repeat("a", 5000), strings.Repeat("ab ", 2000), strings.Repeat("a", 150) + " x"}
	checkAgainstNaive(t, keys, msgs, Options{})
	checkAgainstNaive(t, keys, msgs, Options{Substring: true})
}

func TestMatcherConcurrentTurns(t *testing.T) {
	entries := []lore.Entry{ent(1, []string{"glade"}, "x"), ent(2, []string{"Вега"}, "y")}
	m := Compile(entries, MatchOptions{})
	done := make(chan []int64)
	for g := range 4 {
		go func() {
			var got []int64
			for i := range 50 {
				msg := "nothing"
				if (g+i)%2 == 0 {
					msg = "the glade and «Вега»"
				}
				res, err := m.Activate(context.Background(), baseInput(entries, msg), Options{})
				if err != nil || res.NumAdmitted() != 2*((g+i+1)%2) {
					got = append(got, int64(i))
				}
			}
			done <- got
		}()
	}
	for range 4 {
		require.Empty(t, <-done, "turns with a wrong result")
	}
}

func ptr[T any](v T) *T { return &v }

// TestTraceBuf: a traced turn writes its trace into Options.TraceBuf when
// it has room for every entry (old items overwritten, the same trace as
// without it) and into a trace of its own otherwise.
func TestTraceBuf(t *testing.T) {
	entries := []lore.Entry{ent(1, []string{"dragon"}, "A dragon."), constant(2, "Always."), ent(3, []string{"elf"}, "An elf.")}
	in := baseInput(entries, "the dragon flies")
	want := run(t, in, Options{})
	buf := make([]TraceItem, 4)
	for i := range buf {
		buf[i] = TraceItem{ID: 99, Title: "stale", Detail: "stale", Params: lore.Params{"x": 1}}
	}
	got := run(t, in, Options{TraceBuf: buf})
	require.Equal(t, want.Trace, got.Trace)
	require.Same(t, &buf[0], &got.Trace[0], "the trace is the buffer")
	small := run(t, in, Options{TraceBuf: make([]TraceItem, 0, 2)})
	require.Equal(t, want.Trace, small.Trace)
	require.Equal(t, len(entries), cap(small.Trace), "a buffer too small is not used")
}

// TestAdmittedBuf: a turn writes Result.Admissions into Options.AdmittedBuf
// when it has room, over stale items, and the Result is the same.
func TestAdmittedBuf(t *testing.T) {
	entries := []lore.Entry{ent(1, []string{"dragon"}, "A dragon names the elf."), constant(2, "Always."), ent(3, []string{"elf"}, "An elf.")}
	in := baseInput(entries, "the dragon flies")
	opts := Options{Recursive: true}
	want := run(t, in, opts)
	require.Len(t, want.Admitted(), 3)
	buf := make([]Admission, 4)
	for i := range buf {
		buf[i] = Admission{pos: 2, trig: 3, cost: 9, passFlags: 5<<admPassShift | admRare | admCounted}
	}
	opts.AdmittedBuf = buf
	got := run(t, in, opts)
	require.Equal(t, viewOf(want), viewOf(got))
	require.Equal(t, want.Admitted(), got.Admitted())
	require.Same(t, &buf[0], &got.Admissions[0], "the result is the buffer")
	opts.AdmittedBuf = make([]Admission, 0, 2)
	small := run(t, in, opts)
	require.Equal(t, viewOf(want), viewOf(small))
	require.Equal(t, 3, cap(small.Admissions), "a buffer too small is not used")
}
