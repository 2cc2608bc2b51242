package turnstate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"loregate/lore"
)

func entry(id int64, sticky, cooldown, delay int) lore.Entry {
	e := lore.NewEntry()
	e.ID, e.Sticky, e.Cooldown, e.Delay = id, sticky, cooldown, delay
	e.Keys = []string{"dragon"}
	e.Content = "lore"
	return e
}

// verdict is what an engine that honours the flags and the delay does with
// one keyword entry: the rules the engine applies (sticky first, then
// cooldown and delay blocks, then keys).
func verdict(e lore.Entry, f Flags, count int, text string) string {
	switch {
	case f.Sticky:
		return "sticky"
	case f.Cooldown:
		return "cooldown"
	case count < e.Delay:
		return "delay"
	case strings.Contains(text, "dragon"):
		return "keys"
	}
	return "no_key_match"
}

func win(w *Window) string {
	if w == nil {
		return "-"
	}
	s := fmt.Sprintf("[%d,%d)", w.Start, w.End)
	if w.Protected {
		s += "p"
	}
	return s
}

// TestStickyCooldownDelayTimeline scripts sticky 3 / cooldown 2 / delay 4
// over ten turns (two messages a turn) with swipes: the message count stays
// the same twice. Expected values follow SillyTavern's timed effects
// (docs/turns.md).
func TestStickyCooldownDelayTimeline(t *testing.T) {
	e := entry(7, 3, 2, 4)
	entries := []lore.Entry{e}
	steps := []struct {
		count          int
		text           string
		want           string // verdict
		sticky, cooldn string // windows stored after the turn
	}{
		{2, "a dragon", "delay", "-", "-"},
		{4, "the dragon", "keys", "[4,7)", "[4,6)"},
		{4, "swiped: nothing", "no_key_match", "-", "-"}, // swipe: the fresh windows go
		{6, "nothing", "no_key_match", "-", "-"},
		{8, "dragon again", "keys", "[8,11)", "[8,10)"},
		{10, "nothing", "sticky", "[8,11)", "[10,12)"},         // cooldown closed at 10, reopened by the admission
		{10, "swiped: nothing", "sticky", "[8,11)", "[10,12)"}, // swipe neither consumes nor extends
		{12, "dragon", "cooldown", "-", "[12,14)p"},            // sticky ends: protected cooldown applies now
		{12, "swiped: dragon", "cooldown", "-", "[12,14)p"},
		{14, "dragon", "keys", "[14,17)", "[14,16)"},
	}
	st := State{}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i, s := range steps {
		next, flags := Derive(st, entries, s.count)
		got := verdict(e, flags[e.ID], s.count, s.text)
		var admitted []int64
		if got == "sticky" || got == "keys" {
			admitted = []int64{e.ID}
		}
		st = Advance(next, entries, admitted, s.count, now.Add(time.Duration(i)*time.Minute))
		rec := st[e.ID]
		if got != s.want || win(rec.Sticky) != s.sticky || win(rec.Cooldown) != s.cooldn {
			t.Fatalf("turn %d (count %d): verdict %s, sticky %s, cooldown %s; want %s, %s, %s",
				i+1, s.count, got, win(rec.Sticky), win(rec.Cooldown), s.want, s.sticky, s.cooldn)
		}
	}
	// The admission at 4 was swiped away, so the first activation is 8.
	rec := st[e.ID]
	if rec.FirstCount != 8 || rec.LastCount != 14 {
		t.Fatalf("first/last activation counts %d/%d, want 8/14", rec.FirstCount, rec.LastCount)
	}
}

func TestDeriveRules(t *testing.T) {
	w := func(s, e int) *Window { return &Window{Start: s, End: e} }
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		rec     Record
		entries []lore.Entry // the scope (entry id 1 or none)
		count   int
		flags   Flags
		sticky  string
		cooldn  string
		kept    bool
	}{
		{"sticky open", Record{Sticky: w(4, 7)}, []lore.Entry{entry(1, 3, 0, 0)}, 6, Flags{Sticky: true}, "[4,7)", "-", true},
		{"sticky ends without cooldown", Record{Sticky: w(4, 7)}, []lore.Entry{entry(1, 3, 0, 0)}, 7, Flags{}, "-", "-", false},
		{"sticky ends into cooldown", Record{Sticky: w(4, 7)}, []lore.Entry{entry(1, 3, 2, 0)}, 9, Flags{Cooldown: true}, "-", "[9,11)p", true},
		{"cooldown not enforced under sticky", Record{Sticky: w(4, 7), Cooldown: w(4, 9)}, []lore.Entry{entry(1, 3, 5, 0)}, 6, Flags{Sticky: true}, "[4,7)", "[4,9)", true},
		{"swipe drops fresh windows", Record{Sticky: w(4, 7), Cooldown: w(4, 6)}, []lore.Entry{entry(1, 3, 2, 0)}, 4, Flags{}, "-", "-", false},
		{"deleted messages drop later windows", Record{Sticky: w(4, 7)}, []lore.Entry{entry(1, 3, 0, 0)}, 3, Flags{}, "-", "-", false},
		{"protected cooldown survives a swipe", Record{Cooldown: &Window{Start: 9, End: 11, Protected: true}}, []lore.Entry{entry(1, 3, 2, 0)}, 9, Flags{Cooldown: true}, "-", "[9,11)p", true},
		{"effect no longer configured", Record{Sticky: w(4, 7), Cooldown: w(4, 6)}, []lore.Entry{entry(1, 0, 0, 0)}, 5, Flags{}, "-", "-", false},
		{"edited sticky length keeps the window", Record{Sticky: w(4, 7)}, []lore.Entry{entry(1, 10, 0, 0)}, 6, Flags{Sticky: true}, "[4,7)", "-", true},
		{"entry out of scope keeps its window until the end", Record{Sticky: w(4, 7)}, nil, 6, Flags{}, "[4,7)", "-", true},
		{"entry out of scope: window dropped at its end", Record{Sticky: w(4, 7)}, nil, 7, Flags{}, "-", "-", false},
		{"matched in an earlier turn", Record{FirstCount: 2, FirstAt: at}, []lore.Entry{entry(1, 0, 0, 0)}, 4, Flags{Matched: true}, "-", "-", true},
		{"first match being swiped is not matched", Record{FirstCount: 4, FirstAt: at, LastCount: 4, LastAt: at}, []lore.Entry{entry(1, 0, 0, 0)}, 4, Flags{}, "-", "-", true},
		{"first match swiped with no other state", Record{FirstCount: 4, FirstAt: at}, []lore.Entry{entry(1, 0, 0, 0)}, 4, Flags{}, "-", "-", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := State{1: tt.rec}
			out, flags := Derive(in, tt.entries, tt.count)
			rec, kept := out[1]
			if flags[1] != tt.flags || win(rec.Sticky) != tt.sticky || win(rec.Cooldown) != tt.cooldn || kept != tt.kept {
				t.Fatalf("flags %+v sticky %s cooldown %s kept %v; want %+v %s %s %v",
					flags[1], win(rec.Sticky), win(rec.Cooldown), kept, tt.flags, tt.sticky, tt.cooldn, tt.kept)
			}
			if !in[1].Equal(tt.rec) {
				t.Fatal("Derive modified its input")
			}
		})
	}
}

func TestAdvanceNeverExtends(t *testing.T) {
	e := entry(1, 5, 3, 0)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := Advance(nil, []lore.Entry{e}, []int64{1}, 2, at)
	st, _ = Derive(st, []lore.Entry{e}, 4)
	st = Advance(st, []lore.Entry{e}, []int64{1, 99}, 4, at.Add(time.Minute))
	rec := st[1]
	if win(rec.Sticky) != "[2,7)" || win(rec.Cooldown) != "[2,5)" {
		t.Fatalf("re-admission changed windows: sticky %s cooldown %s", win(rec.Sticky), win(rec.Cooldown))
	}
	if rec.FirstCount != 2 || !rec.FirstAt.Equal(at) || rec.LastCount != 4 || !rec.LastAt.Equal(at.Add(time.Minute)) {
		t.Fatalf("first/last activation: %+v", rec)
	}
	if _, ok := st[99]; ok {
		t.Fatal("an id outside the scope got state")
	}
}

func TestDiff(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := State{
		1: {EntryID: 1, FirstCount: 1, FirstAt: at, LastCount: 1, LastAt: at},
		2: {EntryID: 2, Sticky: &Window{Start: 1, End: 3}},
		3: {EntryID: 3, Cooldown: &Window{Start: 1, End: 3}},
	}
	new := State{
		1: {EntryID: 1, FirstCount: 1, FirstAt: at.In(time.FixedZone("x", 3600)), LastCount: 1, LastAt: at},
		2: {EntryID: 2, Sticky: &Window{Start: 1, End: 4}},
		4: {EntryID: 4, FirstCount: 3, FirstAt: at},
	}
	up, del := Diff(old, new)
	var ids []int64
	for _, r := range up {
		ids = append(ids, r.EntryID)
	}
	if fmt.Sprint(ids) != "[2 4]" || fmt.Sprint(del) != "[3]" {
		t.Fatalf("Diff: upsert %v delete %v, want [2 4] and [3]", ids, del)
	}
}

// TestRandomIsStablePerTurn: the same turn id draws the same rolls (a retry,
// another replica, the offline CLI), another id different ones, all in [0, 1).
func TestRandomIsStablePerTurn(t *testing.T) {
	a, b, c := Random("turn-1"), Random("turn-1"), Random("turn-2")
	same := true
	for range 8 {
		x, y, z := a(), b(), c()
		if x != y {
			t.Fatalf("the same turn id drew %v and %v", x, y)
		}
		if x < 0 || x >= 1 || z < 0 || z >= 1 {
			t.Fatalf("rolls %v, %v outside [0, 1)", x, z)
		}
		same = same && x == z
	}
	if same {
		t.Fatal("another turn id drew the same rolls")
	}
}
