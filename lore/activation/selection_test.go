package activation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// sweepChat is six messages, oldest first: "near" is in the newest, "mid"
// three messages back (depth 3), "far" five back (depth 5), "big" at depth
// 4.
var sweepChat = []string{"old", "far", "big", "mid", "filler", "near"}

// TestMinActivations pins the min-activations sweep (docs/authoring.md
// "Selection controls"): one message deeper at a time until that many
// entries are admitted; the depth max M scans at most M messages (not
// SillyTavern's M+1); a budget skip does not stop the widening; entries
// with their own scan depth, or scan depth 0, do not widen.
func TestMinActivations(t *testing.T) {
	near := ent(1, []string{"near"}, "n")
	mid := ent(2, []string{"mid"}, "m")
	far := ent(3, []string{"far"}, "f")
	big := ent(4, []string{"big"}, strings.Repeat("b", 50))
	own := func(e lore.Entry, d int) lore.Entry { e.ScanDepth = &d; return e }
	tests := []struct {
		name    string
		entries []lore.Entry
		opts    Options
		edit    func(*Input)
		admits  []int64
		passes  int
	}{
		{"off", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2)}, nil, []int64{1}, 1},
		{"reached at depth 3", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2), MinActivations: 2}, nil, []int64{1, 2}, 2},
		{"reached at depth 5", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2), MinActivations: 3}, nil, []int64{1, 2, 3}, 4},
		{"already reached", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2), MinActivations: 1}, nil, []int64{1}, 1},
		{"depth max 4 scans 4 messages", []lore.Entry{near, mid, far},
			Options{ScanDepth: ptr(2), MinActivations: 3, MinActivationsDepthMax: 4}, nil, []int64{1, 2}, 3},
		{"depth max 5 scans 5 messages", []lore.Entry{near, mid, far},
			Options{ScanDepth: ptr(2), MinActivations: 3, MinActivationsDepthMax: 5}, nil, []int64{1, 2, 3}, 4},
		{"depth max at the scan depth: no sweep", []lore.Entry{near, mid, far},
			Options{ScanDepth: ptr(2), MinActivations: 3, MinActivationsDepthMax: 2}, nil, []int64{1}, 1},
		{"the chat ends the sweep", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2), MinActivations: 9}, nil, []int64{1, 2, 3}, 5},
		{"a budget skip does not stop it", []lore.Entry{near, big, far}, Options{ScanDepth: ptr(2), MinActivations: 2, CharBudget: 10},
			nil, []int64{1, 3}, 4},
		{"own scan depth does not widen", []lore.Entry{near, own(mid, 2), far}, Options{ScanDepth: ptr(2), MinActivations: 2},
			nil, []int64{1, 3}, 4},
		{"own scan depth 0 does not widen", []lore.Entry{near, own(mid, 0), far}, Options{ScanDepth: ptr(2), MinActivations: 3},
			nil, []int64{1, 3}, 5},
		{"server scan depth 0 scans nothing", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(0), MinActivations: 2}, nil, []int64{}, 1},
		// maxRecursionSteps, when set, counts the sweep's passes too
		// (SillyTavern's); its default does not limit the sweep.
		{"steps 2 stop the sweep after one widening", []lore.Entry{near, mid, far},
			Options{ScanDepth: ptr(2), MinActivations: 3, MaxRecursionSteps: ptr(2)}, nil, []int64{1, 2}, 2},
		{"steps 1: no sweep", []lore.Entry{near, mid, far},
			Options{ScanDepth: ptr(2), MinActivations: 3, MaxRecursionSteps: ptr(1)}, nil, []int64{1}, 1},
		{"steps 0: no limit", []lore.Entry{near, mid, far},
			Options{ScanDepth: ptr(2), MinActivations: 3, MaxRecursionSteps: ptr(0)}, nil, []int64{1, 2, 3}, 4},
		{"default steps do not limit it", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2), MinActivations: 3, Recursive: true},
			nil, []int64{1, 2, 3}, 5}, // pass 2 is near's recursion
		{"a book's steps count, the highest wins", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(2), MinActivations: 3,
			MaxRecursionSteps: ptr(2)},
			func(in *Input) {
				in.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true,
					Settings: lore.BookSettings{MaxRecursionSteps: ptr(3)}}}
			}, []int64{1, 2}, 3},
		{"book depth widens", []lore.Entry{near, mid, far}, Options{ScanDepth: ptr(5), MinActivations: 2},
			func(in *Input) {
				in.Collections = map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true,
					Settings: lore.BookSettings{ScanDepth: ptr(1)}}}
			}, []int64{1, 2}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput(tt.entries, sweepChat...)
			if tt.edit != nil {
				tt.edit(&in)
			}
			res := run(t, in, tt.opts)
			require.Equal(t, tt.admits, admittedIDs(res))
			require.Equal(t, tt.passes, res.Passes)
		})
	}
	res := run(t, baseInput([]lore.Entry{near, big, far}, sweepChat...), Options{ScanDepth: ptr(2), MinActivations: 2, CharBudget: 10})
	require.Equal(t, VerdictOverBudget, verdicts(res)[4])
	require.Equal(t, 4, traceOf(res, 3).Pass, "far entered in the third widening pass")
	require.Equal(t, 3, traceOf(res, 4).Pass, "big was over the budget in the second")
}

// TestMinActivationsRecursion: a widening pass that admits content feeding
// recursion is followed by a recursive pass (SillyTavern's), and the
// widening passes themselves read no recursion text.
func TestMinActivationsRecursion(t *testing.T) {
	mid := ent(2, []string{"mid"}, "it names the comet")
	comet := ent(5, []string{"comet"}, "c")
	res := run(t, baseInput([]lore.Entry{mid, comet}, sweepChat...), Options{ScanDepth: ptr(2), MinActivations: 1, Recursive: true})
	require.Equal(t, []int64{2, 5}, admittedIDs(res))
	require.Equal(t, 3, traceOf(res, 5).Pass, "pass 1, widening pass 2, recursive pass 3")
	require.Equal(t, int64(2), traceOf(res, 5).TriggeredBy)
}

// TestMaxEntries pins the entry cap: at the end of the turn the admitted
// keyword entries past the cap, lowest priority first (then the later in
// insertion order), become over_entry_cap and give their budget back;
// constants, sticky and ignoreBudget entries are not counted.
func TestMaxEntries(t *testing.T) {
	pri := func(e lore.Entry, p int) lore.Entry { e.Priority = p; return e }
	ignore := ent(6, []string{"gate"}, "ignores")
	ignore.IgnoreBudget = true
	entries := []lore.Entry{constant(1, "always"), pri(ent(2, []string{"gate"}, "p10"), 10), pri(ent(3, []string{"gate"}, "p90"), 90),
		pri(ent(4, []string{"gate"}, "p50a"), 50), pri(ent(5, []string{"gate"}, "p50b"), 50), ignore}
	tests := []struct {
		name   string
		max    int
		admits []int64
		used   int
	}{
		{"off", 0, []int64{1, 2, 3, 4, 5, 6}, 6 + 3 + 3 + 4 + 4},
		{"cap 1 keeps the highest priority", 1, []int64{1, 3, 6}, 6 + 3},
		{"cap 2 keeps the first of a priority tie", 2, []int64{1, 3, 4, 6}, 6 + 3 + 4},
		{"cap 4 keeps all", 4, []int64{1, 2, 3, 4, 5, 6}, 6 + 3 + 3 + 4 + 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput(entries, "the gate")
			in.State = map[int64]EntryState{}
			res := run(t, in, Options{MaxEntries: tt.max})
			require.Equal(t, tt.admits, admittedIDs(res))
			require.Equal(t, tt.used, res.Budget.Used)
			require.Equal(t, tt.used, res.Budget.ByBook[0].Used)
			for _, tr := range res.Trace {
				if !containsID(tt.admits, tr.ID) {
					require.Equal(t, VerdictOverEntryCap, tr.Verdict, "entry %d", tr.ID)
					require.Contains(t, tr.Detail, "max entries")
					key, params := tr.Reason(&entries[tr.ID-1])
					require.Equal(t, "over_entry_cap", key)
					require.Equal(t, entries[tr.ID-1].Priority, params["priority"])
				}
			}
		})
	}
	// A sticky entry is not counted.
	in := baseInput(entries[1:3], "nothing here")
	in.State = map[int64]EntryState{2: {Sticky: true}}
	in.Messages = []string{"the gate"}
	res := run(t, in, Options{MaxEntries: 1})
	require.Equal(t, []int64{2, 3}, admittedIDs(res))
}

func traceOf(res Result, id int64) TraceItem {
	for _, tr := range res.Trace {
		if tr.ID == id {
			return tr
		}
	}
	return TraceItem{}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// TestMaxBudgetShare: a book's maxBudgetShare caps its entries at that
// percent of the shared budget, inside it; other books still use the
// rest, and Budget.ByBook says who used what.
func TestMaxBudgetShare(t *testing.T) {
	inColl := func(e lore.Entry, name string) lore.Entry { e.Collection = name; return e }
	entries := []lore.Entry{
		inColl(constant(1, strings.Repeat("a", 30)), "Veil"),
		inColl(constant(2, strings.Repeat("b", 30)), "Veil"),
		inColl(ent(3, []string{"gate"}, strings.Repeat("c", 41)), "Town"),
	}
	colls := func(share *int) map[string]lore.Collection {
		return map[string]lore.Collection{
			"Veil": {ID: 11, Name: "Veil", Enabled: true, Settings: lore.BookSettings{MaxBudgetShare: share}},
			"Town": {ID: 12, Name: "Town", Enabled: true},
		}
	}
	tests := []struct {
		name   string
		share  *int
		budget int
		want   map[int64]Verdict
		byBook []BookUse
	}{
		{"no share: Always On takes the budget", nil, 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictOverBudget},
			[]BookUse{{Collection: "Veil", CollectionID: 11, Used: 60, Entries: 2, Limit: -1}}},
		{"share 50: the second Always On entry waits", ptr(50), 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverBudget, 3: VerdictAdmitted},
			[]BookUse{{Collection: "Veil", CollectionID: 11, Used: 30, Entries: 1, Limit: 50}, {Collection: "Town", CollectionID: 12, Used: 41, Entries: 1, Limit: -1}}},
		{"share 100 is the budget", ptr(100), 100,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictOverBudget},
			[]BookUse{{Collection: "Veil", CollectionID: 11, Used: 60, Entries: 2, Limit: 100}}},
		{"unlimited budget: no share", ptr(10), -1,
			map[int64]Verdict{1: VerdictAdmitted, 2: VerdictAdmitted, 3: VerdictAdmitted},
			[]BookUse{{Collection: "Veil", CollectionID: 11, Used: 60, Entries: 2, Limit: -1}, {Collection: "Town", CollectionID: 12, Used: 41, Entries: 1, Limit: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput(entries, "the gate")
			in.Collections = colls(tt.share)
			res := run(t, in, Options{CharBudget: tt.budget})
			require.Equal(t, tt.want, verdicts(res))
			require.Equal(t, tt.byBook, res.Budget.ByBook)
			if tt.want[2] == VerdictOverBudget && tt.share != nil && *tt.share < 100 {
				require.Contains(t, res.Trace[1].Detail, `book "Veil" may use 50`)
			}
		})
	}
}

// TestByBookPersona: the persona book has its own line (its lineage), and
// its share comes from the persona book's settings.
func TestByBookPersona(t *testing.T) {
	p := constant(1, strings.Repeat("p", 30))
	p.Lineage = 7
	p2 := constant(2, strings.Repeat("q", 30))
	p2.Lineage = 7
	in := baseInput([]lore.Entry{p, p2, ent(3, []string{"gate"}, "s")}, "the gate")
	in.PersonaBook = lore.BookSettings{MaxBudgetShare: ptr(40)}
	res := run(t, in, Options{CharBudget: 100})
	require.Equal(t, map[int64]Verdict{1: VerdictAdmitted, 2: VerdictOverBudget, 3: VerdictAdmitted}, verdicts(res))
	require.Equal(t, []BookUse{{Lineage: 7, Used: 30, Entries: 1, Limit: 40},
		{Collection: lore.DefaultCollection, Used: 1, Entries: 1, Limit: -1}}, res.Budget.ByBook)
}
