package activation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// byTitle returns the trace item of the entry titled title.
func byTitle(t *testing.T, res Result, title string) TraceItem {
	t.Helper()
	for _, tr := range res.Trace {
		if tr.Title == title {
			return tr
		}
	}
	t.Fatalf("no trace item %q", title)
	return TraceItem{}
}

func admittedTitles(res Result) []string {
	out := []string{}
	for _, a := range res.Admitted() {
		out = append(out, a.Entry.Title)
	}
	return out
}

func titled(e lore.Entry, title string) lore.Entry { e.Title = title; return e }

// chain is A (chat "door") -> B ("key" in A) -> C ("vault" in B) -> D
// ("gold" in C).
func chain() []lore.Entry {
	return []lore.Entry{
		titled(ent(1, []string{"door"}, "Behind the door lies a key."), "A"),
		titled(ent(2, []string{"key"}, "The key opens the vault."), "B"),
		titled(ent(3, []string{"vault"}, "The vault holds gold."), "C"),
		titled(ent(4, []string{"gold"}, "Gold is cursed."), "D"),
	}
}

func TestRecursionSteps(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		want   []string
		passes int
	}{
		{"recursion off", Options{}, []string{"A"}, 1},
		{"steps without recursive do not turn it on", Options{MaxRecursionSteps: ptr(5)}, []string{"A"}, 1},
		{"steps 1 is no recursion", Options{Recursive: true, MaxRecursionSteps: ptr(1)}, []string{"A"}, 1},
		{"steps 2 is one recursive pass", Options{Recursive: true, MaxRecursionSteps: ptr(2)}, []string{"A", "B"}, 2},
		{"default 3 passes", Options{Recursive: true}, []string{"A", "B", "C"}, 3},
		{"0 is no limit but the cap", Options{Recursive: true, MaxRecursionSteps: ptr(0)}, []string{"A", "B", "C", "D"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Random = noDraw
			res := run(t, baseInput(chain(), "We open the door."), tt.opts)
			require.Equal(t, tt.want, admittedTitles(res))
			require.Equal(t, tt.passes, res.Passes)
			for k, a := range res.Admitted() {
				require.Equal(t, k+1, a.Pass, "%s admitted in pass %d", a.Entry.Title, a.Pass)
				if k > 0 {
					require.Equal(t, int64(k), a.TriggeredBy, "%s triggered by the previous link", a.Entry.Title)
					require.Contains(t, byTitle(t, res, a.Entry.Title).Detail, "in the content of #")
				} else {
					require.Zero(t, a.TriggeredBy)
				}
			}
		})
	}

	// The hard cap: a chain longer than MaxPasses stops at MaxPasses.
	var long []lore.Entry
	for i := range MaxPasses + 3 {
		long = append(long, ent(int64(i+1), []string{"w" + string(rune('a'+i))}, "w"+string(rune('a'+i+1))))
	}
	res := run(t, baseInput(long, "wa"), Options{Recursive: true, MaxRecursionSteps: ptr(0)})
	require.Equal(t, MaxPasses, res.Passes)
	require.Len(t, res.Admitted(), MaxPasses)
}

func TestRecursionFlags(t *testing.T) {
	rec := Options{Recursive: true, MaxRecursionSteps: ptr(0), Random: noDraw}
	t.Run("exclude", func(t *testing.T) {
		es := chain()
		es[1].ExcludeRecursion = true
		res := run(t, baseInput(es, "We open the door."), rec)
		require.Equal(t, []string{"A"}, admittedTitles(res))
		require.Equal(t, VerdictExcludedFromRecursion, byTitle(t, res, "B").Verdict)
		// Chat text still activates an excluded entry.
		res = run(t, baseInput(es, "We open the door with a key."), rec)
		require.Equal(t, []string{"A", "B", "C", "D"}, admittedTitles(res))
	})
	t.Run("prevent", func(t *testing.T) {
		es := chain()
		es[1].PreventRecursion = true
		res := run(t, baseInput(es, "We open the door."), rec)
		require.Equal(t, []string{"A", "B"}, admittedTitles(res))
		require.Equal(t, VerdictNoKeyMatch, byTitle(t, res, "C").Verdict)
	})
	t.Run("decorators no_recursive_search and unrecursive", func(t *testing.T) {
		es := chain()
		es[1].Content = "@@no_recursive_search\n" + es[1].Content
		res := run(t, baseInput(es, "We open the door."), rec)
		require.Equal(t, VerdictExcludedFromRecursion, byTitle(t, res, "B").Verdict)
		es = chain()
		es[1].Content = "@@unrecursive\n" + es[1].Content
		res = run(t, baseInput(es, "We open the door."), rec)
		require.Equal(t, []string{"A", "B"}, admittedTitles(res))
	})
	t.Run("book recursion off", func(t *testing.T) {
		in := baseInput(chain(), "We open the door.")
		off := false
		in.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true, Settings: lore.BookSettings{Recursive: &off}}}
		res := run(t, in, rec)
		require.Equal(t, []string{"A"}, admittedTitles(res), "the book's own setting wins over the server's")
		on := true
		in.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true, Settings: lore.BookSettings{Recursive: &on, MaxRecursionSteps: ptr(2)}}}
		res = run(t, in, Options{Random: noDraw})
		require.Equal(t, []string{"A", "B"}, admittedTitles(res), "the book turns recursion on with its own steps")
	})
	t.Run("regex keys read recursion text", func(t *testing.T) {
		es := chain()
		es[2].Keys = []string{"/VAU+LT/i"}
		o := rec
		o.RegexKeys = true
		res := run(t, baseInput(es, "We open the door."), o)
		require.Equal(t, []string{"A", "B", "C", "D"}, admittedTitles(res))
		require.Equal(t, int64(2), res.Admitted()[2].TriggeredBy)
	})
	t.Run("non-ASCII recursion text is normalised like chat", func(t *testing.T) {
		es := chain()
		es[0].Content = "Hinter der Tür liegt ein SCHLÜSSEL."
		es[1].Keys = []string{"schlüssel"}
		res := run(t, baseInput(es, "We open the door."), rec)
		require.Equal(t, []string{"A", "B", "C", "D"}, admittedTitles(res))
	})
	t.Run("scan depth 0 still reads recursion text", func(t *testing.T) {
		es := chain()
		es[1].ScanDepth = ptr(0)
		es[1].Keys = []string{"key", "door"}
		res := run(t, baseInput(es, "We open the door."), rec)
		require.Equal(t, []string{"A", "B", "C", "D"}, admittedTitles(res))
		require.Equal(t, 2, byTitle(t, res, "B").Pass, "B did not read the chat (depth 0)")
	})
}

func TestDelayLevels(t *testing.T) {
	es := []lore.Entry{
		titled(ent(1, []string{"harbor"}, "Ships come and go."), "plain"),
		titled(ent(2, []string{"harbor"}, "Level one lore."), "level1"),
		titled(ent(3, []string{"harbor"}, "Level two lore."), "level2"),
	}
	es[1].DelayUntilRecursion = 1
	es[2].DelayUntilRecursion = 2
	in := baseInput(es, "The harbor.")
	res := run(t, in, Options{Recursive: true, MaxRecursionSteps: ptr(0)})
	require.Equal(t, []string{"plain", "level1", "level2"}, admittedTitles(res))
	p1, p2 := byTitle(t, res, "level1").Pass, byTitle(t, res, "level2").Pass
	require.Equal(t, 2, p1)
	require.Greater(t, p2, p1, "level 2 waits until level 1 settled")

	res = run(t, in, Options{Recursive: true, MaxRecursionSteps: ptr(2)})
	require.Equal(t, []string{"plain", "level1"}, admittedTitles(res))
	require.Equal(t, VerdictDelayedUntilRecursion, byTitle(t, res, "level2").Verdict)

	res = run(t, in, Options{})
	require.Equal(t, []string{"plain"}, admittedTitles(res))
	require.Equal(t, VerdictDelayedUntilRecursion, byTitle(t, res, "level1").Verdict)
	require.Contains(t, byTitle(t, res, "level1").Detail, "recursion is off")

	// A delayed entry gets its pass even when nothing else fed recursion.
	es[0].Keys = []string{"absent"}
	res = run(t, baseInput(es, "The harbor."), Options{Recursive: true, MaxRecursionSteps: ptr(0)})
	require.Equal(t, []string{"level1", "level2"}, admittedTitles(res))
}

func TestBudgetDuringRecursion(t *testing.T) {
	es := []lore.Entry{
		titled(ent(1, []string{"door"}, "big small"), "A"),                     // 9 units
		titled(ent(2, []string{"big"}, "a very long text naming hidden"), "B"), // 30: does not fit
		titled(ent(3, []string{"small"}, "tiny"), "C"),                         // 4: fits
		titled(ent(4, []string{"hidden"}, "only B names me"), "D"),             // B's text never feeds
		titled(ent(5, []string{"tiny"}, "ok"), "E"),                            // C's text feeds
	}
	res := run(t, baseInput(es, "the door"), Options{Recursive: true, MaxRecursionSteps: ptr(0), CharBudget: 20, Random: noDraw})
	require.Equal(t, []string{"A", "C", "E"}, admittedTitles(res))
	b := byTitle(t, res, "B")
	require.Equal(t, VerdictOverBudget, b.Verdict)
	require.Equal(t, 2, b.Pass)
	require.Contains(t, b.Detail, "in pass 2")
	require.Equal(t, VerdictNoKeyMatch, byTitle(t, res, "D").Verdict)
	require.Equal(t, 3, byTitle(t, res, "E").Pass)
	require.Equal(t, 15, res.Budget.Used)
}

func TestPriorityBudget(t *testing.T) {
	mk := func(id int64, title string, prio, order int, constant bool) lore.Entry {
		e := titled(ent(id, []string{"glade"}, "12345678"), title)
		e.Priority, e.Order, e.Constant = prio, order, constant
		return e
	}
	tests := []struct {
		name    string
		entries []lore.Entry
		state   map[int64]EntryState
		want    []string
	}{
		{"higher priority evicts a constant", []lore.Entry{mk(1, "const", 100, 1, true), mk(2, "high", 200, 2, false)}, nil, []string{"high"}},
		{"constant first at equal priority", []lore.Entry{mk(1, "kw", 100, 1, false), mk(2, "const", 100, 2, true)}, nil, []string{"const"}},
		{"insertion order ascending at equal rank", []lore.Entry{mk(1, "late", 100, 9, false), mk(2, "early", 100, 3, false)}, nil, []string{"early"}},
		{"id breaks ties", []lore.Entry{mk(2, "two", 100, 5, false), mk(1, "one", 100, 5, false)}, nil, []string{"one"}},
		{"sticky first", []lore.Entry{mk(1, "high", 500, 1, false), mk(2, "sticky", 1, 2, false)}, map[int64]EntryState{2: {Sticky: true}}, []string{"sticky"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput(tt.entries, "the glade")
			in.State = tt.state
			res := run(t, in, Options{CharBudget: 10, Random: noDraw})
			require.Equal(t, tt.want, admittedTitles(res))
			for _, tr := range res.Trace {
				if tr.Verdict != VerdictAdmitted {
					require.Equal(t, VerdictOverBudget, tr.Verdict)
					// Always On took 8 of 10 first: the keyword entry's detail says so.
					require.Regexp(t, `^priority -?\d+: needs 8 utf16, 2 of 10 left(; Always On entries took 8 first)?$`, tr.Detail)
					require.Equal(t, tt.name == "constant first at equal priority", strings.HasSuffix(tr.Detail, "took 8 first"), tr.Detail)
				}
			}
		})
	}
	// Placement among survivors keeps insertion order, whatever the
	// priority.
	es := []lore.Entry{mk(1, "first", 1, 1, false), mk(2, "second", 900, 2, false)}
	res := run(t, baseInput(es, "the glade"), Options{CharBudget: -1, Random: noDraw})
	require.Equal(t, []string{"first", "second"}, admittedTitles(res))
}

// seq returns draws from vals in turn.
func seq(vals ...float64) func() float64 {
	return func() float64 {
		if len(vals) == 0 {
			panic("no draw left")
		}
		v := vals[0]
		vals = vals[1:]
		return v
	}
}

func TestInclusionGroups(t *testing.T) {
	member := func(id int64, title, group string, keys ...string) lore.Entry {
		e := titled(ent(id, keys, title+" text"), title)
		e.Group = group
		return e
	}
	yes := true
	tests := []struct {
		name   string
		edit   func([]lore.Entry)
		extra  []lore.Entry
		random func() float64
		state  map[int64]EntryState
		want   []string
		lost   string // detail fragment of a loser
	}{
		{"override: highest order wins", func(es []lore.Entry) {
			es[0].GroupOverride, es[1].GroupOverride = true, true
			es[0].Order, es[1].Order = 5, 9
		}, nil, noDraw, nil, []string{"b"}, "group override, order 9"},
		{"scoring: most matched keys", func(es []lore.Entry) {
			es[2].UseGroupScoring = &yes
			es[2].Keys = []string{"glade", "forest"}
		}, nil, noDraw, nil, []string{"c"}, "score 2"},
		{"weighted draw low", func(es []lore.Entry) {
			es[0].GroupWeight, es[1].GroupWeight, es[2].GroupWeight = 10, 30, 60
		}, nil, seq(0.05), nil, []string{"a"}, "weighted draw 0.05"},
		{"weighted draw high", func(es []lore.Entry) {
			es[0].GroupWeight, es[1].GroupWeight, es[2].GroupWeight = 10, 30, 60
		}, nil, seq(0.5), nil, []string{"c"}, "lost to #3"},
		{"unset weights draw evenly", nil, nil, seq(0.4), nil, []string{"b"}, "weighted draw"},
		{"chance first: only passers compete", func(es []lore.Entry) {
			es[0].Probability, es[1].Probability = 50, 50
			es[2].Probability = 50
		}, nil, seq(0.9, 0.9, 0.1), nil, []string{"c"}, "not below chance"},
		{"sticky member wins", func(es []lore.Entry) { es[0].GroupOverride = true }, nil, noDraw,
			map[int64]EntryState{2: {Sticky: true}}, []string{"b"}, "(sticky)"},
		{"constant takes part", func(es []lore.Entry) {
			es[0].Constant, es[0].Keys = true, nil
			es[0].GroupOverride = true
		}, nil, noDraw, nil, []string{"a"}, "group override"},
		{"several groups: must win each", func(es []lore.Entry) {
			es[0].Group = "g, h"
			es[0].GroupOverride = true
		}, []lore.Entry{func() lore.Entry { e := member(4, "d", "h", "glade"); e.GroupOverride, e.Order = true, 200; return e }()},
			// a beats b and c in g, then loses h to d: g is settled again
			// among b and c (a group ends empty only if none passed).
			seq(0.1), nil, []string{"b", "d"}, `group "h": lost to #4`},
		{"ungrouped entries are untouched", func(es []lore.Entry) { es[2].Group = "" }, nil, seq(0.1), nil, []string{"a", "c"}, "lost to #1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := []lore.Entry{member(1, "a", "g", "glade"), member(2, "b", "g", "glade"), member(3, "c", "g", "glade")}
			if tt.edit != nil {
				tt.edit(es)
			}
			es = append(es, tt.extra...)
			in := baseInput(es, "the glade and the forest")
			in.State = tt.state
			res := run(t, in, Options{CharBudget: -1, Random: tt.random})
			require.Equal(t, tt.want, admittedTitles(res))
			found := false
			for _, tr := range res.Trace {
				if tr.Verdict != VerdictAdmitted && strings.Contains(tr.Detail, tt.lost) {
					found = true
				}
			}
			require.True(t, found, "a loser's detail contains %q: %+v", tt.lost, res.Trace)
		})
	}

	t.Run("a group won in an earlier pass admits no more", func(t *testing.T) {
		es := []lore.Entry{member(1, "a", "g", "door"), member(2, "b", "g", "key")}
		es[0].Content = "a key"
		res := run(t, baseInput(es, "the door"), Options{Recursive: true, Random: noDraw})
		require.Equal(t, []string{"a"}, admittedTitles(res))
		b := byTitle(t, res, "b")
		require.Equal(t, VerdictGroupLost, b.Verdict)
		require.Contains(t, b.Detail, "won in pass 1 by #1")
	})
}

func TestDecorators(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edit    func(*lore.Entry, *Input)
		opts    Options
		want    Verdict
		detail  string
		check   func(*testing.T, Admitted)
	}{
		{"activate without keys", "@@activate\nTides.", func(e *lore.Entry, _ *Input) { e.Keys = nil }, Options{}, VerdictAdmitted, "@@activate",
			func(t *testing.T, a Admitted) {
				require.Equal(t, Activated, a.Group)
				require.Equal(t, "Tides.", a.Content)
			}},
		{"activate: gates still apply", "@@activate\nx", func(e *lore.Entry, _ *Input) { e.Enabled = false }, Options{}, VerdictDisabled, "", nil},
		{"dont_activate wins over activate", "@@activate\n@@dont_activate\nx", nil, Options{}, VerdictDecoratorBlocked, "@@dont_activate", nil},
		{"dont_activate blocks a constant", "@@dont_activate\nx", func(e *lore.Entry, _ *Input) { e.Constant = true }, Options{}, VerdictDecoratorBlocked, "", nil},
		{"scan_depth overrides the entry", "@@scan_depth 3\nx", func(e *lore.Entry, _ *Input) { e.ScanDepth = ptr(1); e.Keys = []string{"old"} }, Options{}, VerdictAdmitted, "", nil},
		{"scan_depth 0 scans nothing", "@@scan_depth 0\nx", nil, Options{}, VerdictNoKeyMatch, "last 0 messages", nil},
		{"probability overrides", "@@probability 0\nx", nil, Options{}, VerdictChanceFailed, "0%", nil},
		{"order overrides", "@@order 42\nx", nil, Options{}, VerdictAdmitted, "", nil},
		{"priority overrides", "@@priority 7\n" + strings.Repeat("x", 20), nil, Options{CharBudget: 5}, VerdictOverBudget, "priority 7", nil},
		{"depth: before, depth kept", "@@depth 4\nx", nil, Options{}, VerdictAdmitted, "",
			func(t *testing.T, a Admitted) {
				require.Equal(t, lore.Before, a.Placement)
				require.Equal(t, 4, *a.Position.Depth)
			}},
		{"position after_desc", "@@depth 4\n@@position after_desc\nx", nil, Options{}, VerdictAdmitted, "",
			func(t *testing.T, a Admitted) { require.Equal(t, lore.After, a.Placement) }},
		{"position before_desc", "@@position before_desc\nx", nil, Options{}, VerdictAdmitted, "",
			func(t *testing.T, a Admitted) {
				require.Equal(t, lore.Before, a.Placement)
				require.Nil(t, a.Position.Depth)
			}},
		{"role", "@@role assistant\n@@depth 2\nx", nil, Options{}, VerdictAdmitted, "",
			func(t *testing.T, a Admitted) { require.Equal(t, lore.RoleAssistant, *a.Position.Role) }},
		{"additional_keys are primary keys", "@@additional_keys forest, glade\nx", func(e *lore.Entry, _ *Input) { e.Keys = []string{"absent"} }, Options{}, VerdictAdmitted, `key "forest"`, nil},
		{"exclude_keys block", "@@exclude_keys swamp, glade\nx", nil, Options{}, VerdictDecoratorBlocked, `@@exclude_keys: "glade" is present`, nil},
		{"exclude_keys absent", "@@exclude_keys swamp\nx", nil, Options{}, VerdictAdmitted, "", nil},
		{"exclude_keys_all needs all", "@@exclude_keys_all glade, swamp\nx", nil, Options{}, VerdictAdmitted, "", nil},
		{"exclude_keys_all all present", "@@exclude_keys_all glade, forest\nx", nil, Options{}, VerdictDecoratorBlocked, "@@exclude_keys_all", nil},
		{"is_greeting at the greeting", "@@is_greeting\nx", func(_ *lore.Entry, in *Input) { in.MessageCount = 1 }, Options{}, VerdictAdmitted, "", nil},
		{"is_greeting later", "@@is_greeting\nx", func(_ *lore.Entry, in *Input) { in.MessageCount = 2 }, Options{}, VerdictDecoratorBlocked, "@@is_greeting", nil},
		{"activate_only_after too early", "@@activate_only_after 5\nx", func(_ *lore.Entry, in *Input) { in.MessageCount = 4 }, Options{}, VerdictDecoratorBlocked, "@@activate_only_after 5", nil},
		{"activate_only_after reached", "@@activate_only_after 5\nx", func(_ *lore.Entry, in *Input) { in.MessageCount = 5 }, Options{}, VerdictAdmitted, "", nil},
		{"activate_only_every off-beat", "@@activate_only_every 3\nx", func(_ *lore.Entry, in *Input) { in.MessageCount = 4 }, Options{}, VerdictDecoratorBlocked, "@@activate_only_every 3", nil},
		{"activate_only_every on the beat", "@@activate_only_every 3\nx", func(_ *lore.Entry, in *Input) { in.MessageCount = 6 }, Options{}, VerdictAdmitted, "", nil},
		{"keep_activate_after_match keeps", "@@keep_activate_after_match\nx", func(e *lore.Entry, in *Input) {
			e.Keys = []string{"absent"}
			in.State = map[int64]EntryState{1: {Matched: true}}
		}, Options{}, VerdictAdmitted, "@@keep_activate_after_match", nil},
		{"keep_activate_after_match before a match", "@@keep_activate_after_match\nx", func(e *lore.Entry, _ *Input) { e.Keys = []string{"absent"} }, Options{}, VerdictNoKeyMatch, "", nil},
		{"dont_activate_after_match", "@@dont_activate_after_match\nx", func(_ *lore.Entry, in *Input) { in.State = map[int64]EntryState{1: {Matched: true}} },
			Options{}, VerdictDecoratorBlocked, "@@dont_activate_after_match", nil},
		{"fallback applies after an unknown one", "@@instruct_depth 2\n@@@depth 3\nx", nil, Options{}, VerdictAdmitted, "unknown decorator",
			func(t *testing.T, a Admitted) {
				require.Equal(t, 3, *a.Position.Depth)
				require.Equal(t, "x", a.Content)
			}},
		{"unknown is in the trace, never in the content", "@@sparkle 3\nx", nil, Options{}, VerdictAdmitted, `"@@sparkle 3" (unknown decorator)`,
			func(t *testing.T, a Admitted) { require.Equal(t, "x", a.Content) }},
		{"decorators cost nothing", "@@role user\n@@depth 1\n12345", nil, Options{CharBudget: 5}, VerdictAdmitted, "",
			func(t *testing.T, a Admitted) { require.Equal(t, 5, a.Cost) }},
		{"match_partial_word", "@@match_partial_word\nx", func(e *lore.Entry, _ *Input) { e.Keys = []string{"lad"} }, Options{}, VerdictAdmitted, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ent(1, []string{"glade"}, tt.content)
			in := baseInput(nil, "old news", "we rest in the glade, not the forest")
			if tt.edit != nil {
				tt.edit(&e, &in)
			}
			in.Entries = []lore.Entry{e}
			tt.opts.Random = noDraw
			res := run(t, in, tt.opts)
			tr := res.Trace[0]
			require.Equal(t, tt.want, tr.Verdict, tr.Detail)
			require.Contains(t, tr.Detail, tt.detail)
			for _, a := range res.Admitted() {
				require.NotContains(t, a.Content, "@@", "decorators are never sent to the model")
			}
			if tt.check != nil {
				require.Len(t, res.Admitted(), 1)
				tt.check(t, res.Admitted()[0])
			}
		})
	}

	// @@order moves the entry among the survivors.
	a, b := ent(1, []string{"glade"}, "@@order 50\nfirst by id"), ent(2, []string{"glade"}, "second by id")
	a.Order, b.Order = 1, 10
	res := run(t, baseInput([]lore.Entry{a, b}, "glade"), Options{})
	require.Equal(t, []int64{2, 1}, admittedIDs(res))

	// @@ignore_on_max_context: the last to claim the budget.
	big := ent(1, []string{"glade"}, "@@ignore_on_max_context\n12345678")
	big.Priority = 900
	small := ent(2, []string{"glade"}, "12345678")
	res = run(t, baseInput([]lore.Entry{big, small}, "glade"), Options{CharBudget: 10})
	require.Equal(t, []int64{2}, admittedIDs(res))
	require.Equal(t, VerdictOverBudget, verdicts(res)[1])
}

func TestMacroKeys(t *testing.T) {
	user := titled(ent(1, []string{"{{user}}"}, "{{user}} is new here."), "user")
	char := titled(ent(2, []string{"{{Char}}"}, "x"), "char")
	sec := titled(ent(3, []string{"harbor"}, "y"), "sec")
	sec.SecondaryKeys = []string{"{{char}}"}
	bot := titled(ent(4, []string{"{{bot}} keeps"}, "z"), "bot")
	entries := []lore.Entry{user, char, sec, bot}
	in := baseInput(entries, "Mira walks to the harbor.", "Vel keeps the ledger.")
	c := NewCache(4)
	key := CacheKey{Server: srv, Lineage: 7, Version: 1}
	for _, tt := range []struct {
		user, char, bot string
		want            []string
	}{
		{"Mira", "Vel", "", []string{"user", "char", "sec", "bot"}},
		{"Vel", "Mira", "Nobody", []string{"user", "char", "sec"}},
		{"Ann", "Bob", "", []string{}},
		{"", "", "", []string{}}, // a macro without a name never matches
		{"Mira", "Vel", "", []string{"user", "char", "sec", "bot"}},
	} {
		res, err := c.Activate(context.Background(), key, in, Options{UserName: tt.user, CharName: tt.char, BotName: tt.bot})
		require.NoError(t, err)
		require.Equal(t, tt.want, admittedTitles(res), "names %q %q %q", tt.user, tt.char, tt.bot)
	}
	require.Equal(t, int64(1), c.Stats().Builds, "one compiled scope serves every set of names")

	// Regex macro keys resolve too.
	re := ent(5, []string{`/^{{user}}\b/`}, "r")
	res, err := Activate(context.Background(), baseInput([]lore.Entry{re}, "Mira speaks."), Options{UserName: "Mira", RegexKeys: true})
	require.NoError(t, err)
	require.Len(t, res.Admitted(), 1)
}

func TestScanDepthZero(t *testing.T) {
	zero := ent(1, []string{"harbor"}, "x")
	zero.ScanDepth = ptr(0)
	inherit := ent(2, []string{"harbor"}, "y")
	in := baseInput([]lore.Entry{zero, inherit}, "The harbor.")
	res := run(t, in, Options{})
	require.Equal(t, []int64{2}, admittedIDs(res))
	require.Equal(t, VerdictNoKeyMatch, verdicts(res)[1])
	res = run(t, in, Options{ScanDepth: ptr(0)})
	require.Empty(t, res.Admitted(), "--scan-depth 0 scans nothing for entries without their own")
	book := in
	book.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true, Settings: lore.BookSettings{ScanDepth: ptr(0)}}}
	res = run(t, book, Options{ScanDepth: ptr(5)})
	require.Empty(t, res.Admitted(), "the book's depth 0 wins over the server's 5")
}

func TestTurnState(t *testing.T) {
	e := ent(1, []string{"absent"}, "x")
	e.Probability = 10
	e.Sticky, e.Cooldown = 3, 2
	in := baseInput([]lore.Entry{e}, "the glade")
	m := CompileInput(&in, MatchOptions{})
	require.True(t, m.Stateful())
	require.False(t, Compile([]lore.Entry{ent(1, []string{"a"}, "b")}, MatchOptions{}).Stateful())

	in.State = map[int64]EntryState{1: {Sticky: true, Cooldown: true}}
	res, err := m.Activate(context.Background(), in, Options{Random: noDraw})
	require.NoError(t, err)
	require.Len(t, res.Admitted(), 1, "sticky: admitted without keys, no chance roll, cooldown ignored")
	require.Equal(t, "sticky", res.Trace[0].Detail)
	require.Equal(t, UsesSticky|UsesCooldown, res.Admitted()[0].State)

	in.State = map[int64]EntryState{1: {Cooldown: true}}
	res, err = m.Activate(context.Background(), in, Options{Random: noDraw})
	require.NoError(t, err)
	require.Equal(t, VerdictCooldown, res.Trace[0].Verdict)

	// A chance of 0 still blocks a sticky entry (a gate, not a roll).
	zero := e
	zero.Probability = 0
	zin := baseInput([]lore.Entry{zero}, "the glade")
	zin.State = map[int64]EntryState{1: {Sticky: true}}
	res, err = Activate(context.Background(), zin, Options{Random: noDraw})
	require.NoError(t, err)
	require.Empty(t, res.Admitted())
	require.Equal(t, VerdictChanceFailed, res.Trace[0].Verdict)

	d := ent(1, []string{"glade"}, "x")
	d.Delay = 4
	din := baseInput([]lore.Entry{d}, "the glade")
	din.MessageCount = 3
	res = run(t, din, Options{})
	require.Equal(t, VerdictDelayed, res.Trace[0].Verdict)
	din.MessageCount = 4
	res = run(t, din, Options{})
	require.Equal(t, VerdictAdmitted, res.Trace[0].Verdict)
	require.Equal(t, UsesMessageCount, res.Admitted()[0].State)
	din.MessageCount = 0 // = len(Messages) = 1
	res = run(t, din, Options{})
	require.Equal(t, VerdictDelayed, res.Trace[0].Verdict)
}

func TestBookLayers(t *testing.T) {
	no, yes := false, true
	coll := func(s lore.BookSettings) map[string]lore.Collection {
		return map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true, Settings: s},
			"Other": {Name: "Other", Enabled: true, Settings: lore.BookSettings{BudgetLimit: ptr(3)}}}
	}
	t.Run("case sensitive book, entry override", func(t *testing.T) {
		a := ent(1, []string{"Glade"}, "x")
		b := ent(2, []string{"Glade"}, "y")
		b.CaseSensitive = &no
		in := baseInput([]lore.Entry{a, b}, "the glade")
		in.Collections = coll(lore.BookSettings{CaseSensitive: &yes})
		res := run(t, in, Options{})
		require.Equal(t, []int64{2}, admittedIDs(res))
	})
	t.Run("whole words book", func(t *testing.T) {
		a := ent(1, []string{"lad"}, "x")
		in := baseInput([]lore.Entry{a}, "the glade")
		in.Collections = coll(lore.BookSettings{WholeWords: &no})
		require.Len(t, run(t, in, Options{}).Admitted(), 1)
		in.Collections = coll(lore.BookSettings{})
		require.Empty(t, run(t, in, Options{}).Admitted())
	})
	t.Run("highest book budget wins over the server's", func(t *testing.T) {
		in := baseInput([]lore.Entry{ent(1, []string{"glade"}, "1234567")}, "the glade")
		in.Collections = coll(lore.BookSettings{BudgetLimit: ptr(7)})
		res := run(t, in, Options{CharBudget: 2})
		require.Equal(t, 7, res.Budget.Limit)
		require.Len(t, res.Admitted(), 1)
	})
	t.Run("persona book", func(t *testing.T) {
		p := ent(1, []string{"glade"}, "x")
		p.Lineage = 7
		in := baseInput([]lore.Entry{p}, "the glade", "one", "two")
		require.Empty(t, run(t, in, Options{}).Admitted())
		in.PersonaBook = lore.BookSettings{ScanDepth: ptr(3)}
		require.Len(t, run(t, in, Options{}).Admitted(), 1)
	})
	t.Run("a matcher refuses other book case settings; the cache recompiles", func(t *testing.T) {
		in := baseInput([]lore.Entry{ent(1, []string{"Glade"}, "x")}, "the glade")
		m := CompileInput(&in, MatchOptions{})
		in.Collections = coll(lore.BookSettings{CaseSensitive: &yes})
		_, err := m.Activate(context.Background(), in, Options{})
		require.ErrorIs(t, err, lore.ErrInvalid)
		c := NewCache(2)
		k := CacheKey{Server: srv, Version: 1}
		res, err := c.Activate(context.Background(), k, in, Options{})
		require.NoError(t, err)
		require.Empty(t, res.Admitted())
		in.Collections = coll(lore.BookSettings{})
		res, err = c.Activate(context.Background(), k, in, Options{})
		require.NoError(t, err)
		require.Len(t, res.Admitted(), 1)
		require.Equal(t, int64(2), c.Stats().Builds)
	})
}

// countingTokenizer counts words and how often it was called.
type countingTokenizer struct{ calls *int }

func (c countingTokenizer) CountTokens(s string) int { *c.calls++; return len(strings.Fields(s)) }

func TestTokenBudgetCached(t *testing.T) {
	calls := 0
	tok := countingTokenizer{&calls}
	es := []lore.Entry{ent(1, []string{"glade"}, "one two three"), ent(2, []string{"glade"}, "{{user}} four"), ent(3, []string{"glade"}, "a b c d e")}
	in := baseInput(es, "the glade")
	m := CompileInput(&in, MatchOptions{})
	for range 3 {
		res, err := m.Activate(context.Background(), in, Options{TokenBudget: 6, Tokenizer: tok, UserName: "Ann Lee"})
		require.NoError(t, err)
		require.Equal(t, []int64{1, 2}, admittedIDs(res))
		require.Equal(t, UnitTokens, res.Budget.Unit)
		require.Equal(t, 3, *res.Admitted()[0].Tokens)
		require.Equal(t, 3, *res.Admitted()[1].Tokens, "counted after the macros resolve")
		require.Equal(t, 6, res.Budget.Used)
	}
	require.Equal(t, 3, calls, "each entry counted once")
	res, err := m.Activate(context.Background(), in, Options{TokenBudget: 6, Tokenizer: tok, UserName: "Ann"})
	require.NoError(t, err)
	require.Equal(t, 2, *res.Admitted()[1].Tokens)
	require.Equal(t, 4, calls, "only the macro entry is recounted for other names")
	res, err = m.Activate(context.Background(), in, Options{})
	require.NoError(t, err)
	require.Nil(t, res.Admitted()[0].Tokens, "no tokenizer, no count")
}

func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Activate(ctx, baseInput(chain(), "door"), Options{})
	require.True(t, errors.Is(err, context.Canceled), "%v", err)

	// A context that ends during pass 1 stops the turn before pass 2.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	es := chain()
	es[0].Probability = 50
	_, err = Activate(ctx, baseInput(es, "We open the door."), Options{Recursive: true, Random: func() float64 { cancel(); return 0.1 }})
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
}

// TestConcurrentTurns runs turns with different names and a token budget on
// one Matcher from several goroutines (run with -race by make test/race):
// the memoised macro keys and the token cache are shared.
func TestConcurrentTurns(t *testing.T) {
	es := []lore.Entry{ent(1, []string{"{{user}}"}, "{{user}} is here."), ent(2, []string{"{{char}}"}, "x y"), ent(3, []string{"harbor"}, "a b c")}
	in := baseInput(es, "Ann and Bob at the harbor")
	m := CompileInput(&in, MatchOptions{})
	names := [][2]string{{"Ann", "Bob"}, {"Bob", "Ann"}, {"Cy", "Di"}}
	want := make([][]int64, len(names))
	for i, n := range names {
		res, err := m.Activate(t.Context(), in, Options{UserName: n[0], CharName: n[1], TokenBudget: 100, Tokenizer: wordTokens{}})
		require.NoError(t, err)
		want[i] = admittedIDs(res)
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for k := range 60 {
				i := (g + k) % len(names)
				res, err := m.Activate(t.Context(), in, Options{UserName: names[i][0], CharName: names[i][1], TokenBudget: 100, Tokenizer: wordTokens{}})
				if err == nil && !slices.Equal(admittedIDs(res), want[i]) {
					err = fmt.Errorf("names %v: admitted %v, want %v", names[i], admittedIDs(res), want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
}

// wordTokens counts whitespace-separated words.
type wordTokens struct{}

func (wordTokens) CountTokens(s string) int { return len(strings.Fields(s)) }

func TestNoKeyDetailCountsMessages(t *testing.T) {
	tests := []struct {
		depth int
		want  string
	}{
		{0, "no key in the last 0 messages"},
		{1, "no key in the last 1 message"},
		{2, "no key in the last 2 messages"},
		{150, "no key in the last 150 messages"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, noKeyDetail(tt.depth, false))
	}
	e := ent(1, []string{"absent"}, "x")
	one := 1
	e.ScanDepth = &one
	res := run(t, baseInput([]lore.Entry{e}, "the glade"), Options{})
	require.Equal(t, "no key in the last 1 message", res.Trace[0].Detail)
}
