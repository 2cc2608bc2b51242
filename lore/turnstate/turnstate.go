// Package turnstate is the pure state machine of per-conversation turn
// state: the timed effects (sticky, cooldown) and the activation history
// that the stateful decorators read, for one conversation and one entry at a
// time. It does no I/O: lore/postgres stores the [Record]s, graph runs a turn
// as [Derive] (before the engine), the engine, then [Advance] (after it).
//
// Counts are chat message counts, never turns: the number of messages of
// the conversation up to and including the newest (docs/turns.md). The
// rules are SillyTavern's timed effects:
//
//   - At the start of a turn with message count L, each stored window is
//     checked. A window that has not been passed by the chat (L <= its
//     start) is dropped unless protected: the chat did not advance (a swipe,
//     a regenerate, deleted messages), so the turn that opened it is being
//     redone and neither consumes nor extends it. A window of an entry no
//     longer in the scope (disabled, out of the scope) is dropped only once
//     L >= its end; one whose entry no longer has that effect configured is
//     dropped. A window with L >= end is closed; a closing sticky window of
//     an entry with a cooldown opens a protected cooldown window [L,
//     L+cooldown) that applies to this turn already. Every other window is
//     open for this turn.
//   - After a recorded turn, every admitted entry with Sticky > 0 opens a
//     sticky window [L, L+sticky) and every one with Cooldown > 0 a cooldown
//     window [L, L+cooldown), each only when none is open: admitting an entry
//     again never extends a window. A cooldown is not enforced while the
//     entry's sticky window is open; it restarts when the sticky window
//     closes.
//   - Entries keep their state by id, so an edited entry keeps it; the store
//     deletes the state of a deleted entry.
//
// Besides the windows a record keeps the first and last activation of the
// entry in the conversation (message count and time). An entry counts as
// matched (for @@keep_activate_after_match and @@dont_activate_after_match)
// when its first activation came at a message count below the turn's; like
// a window, a first activation at or above the turn's count is dropped (the
// turn that made it is being redone), and the latest activation is kept.
package turnstate

import (
	"maps"
	"slices"
	"time"

	"loregate/lore"
)

// Window is an effect window in message counts: open while Start < L < End
// for a turn with message count L (and at L == Start for the turn that
// opened it, which wrote it after the engine ran).
type Window struct {
	Start int `json:"start"`
	End   int `json:"end"`
	// Protected windows survive a turn whose count did not advance past
	// Start: a cooldown opened by a closing sticky window.
	Protected bool `json:"protected,omitempty"`
}

// Record is the stored state of one entry in one conversation. The zero
// value (no window, never activated) is not stored.
type Record struct {
	EntryID  int64   `json:"entryId"`
	Sticky   *Window `json:"sticky,omitempty"`
	Cooldown *Window `json:"cooldown,omitempty"`
	// FirstCount and LastCount are the message counts of the first and the
	// latest turn that admitted the entry; 0 with a zero FirstAt = never.
	FirstCount int       `json:"firstCount,omitempty"`
	LastCount  int       `json:"lastCount,omitempty"`
	FirstAt    time.Time `json:"firstAt,omitzero"`
	LastAt     time.Time `json:"lastAt,omitzero"`
}

// Activated reports whether the entry was ever admitted in a recorded turn.
func (r Record) Activated() bool { return !r.FirstAt.IsZero() }

// empty reports whether r holds nothing worth storing.
func (r Record) empty() bool {
	return r.Sticky == nil && r.Cooldown == nil && !r.Activated() && r.LastAt.IsZero()
}

// Equal reports whether a and b hold the same state (times compared with
// time.Time.Equal).
func (r Record) Equal(o Record) bool {
	return r.EntryID == o.EntryID && eqWindow(r.Sticky, o.Sticky) && eqWindow(r.Cooldown, o.Cooldown) &&
		r.FirstCount == o.FirstCount && r.LastCount == o.LastCount && r.FirstAt.Equal(o.FirstAt) && r.LastAt.Equal(o.LastAt)
}

func eqWindow(a, b *Window) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Flags are what the engine needs of one entry for one turn.
type Flags struct {
	// Sticky: a sticky window is open (admitted without keys, no chance
	// roll, wins its groups, first for the budget; gates still apply).
	Sticky bool
	// Cooldown: a cooldown window is open and no sticky one (blocked).
	Cooldown bool
	// Matched: admitted in an earlier turn of the conversation.
	Matched bool
}

// State is the state of one conversation: records by entry id.
type State map[int64]Record

// Derive applies the start-of-turn rules for message count count to the
// stored state s of a conversation whose scope holds entries (the turn's
// snapshot), and returns the state after them (s is not modified) and the
// flags of every entry with a set flag. A dry run uses the flags and drops
// the state; a recorded turn passes the state to [Advance].
func Derive(s State, entries []lore.Entry, count int) (State, map[int64]Flags) {
	byID := entriesOf(entries, len(s), func(id int64) bool { _, ok := s[id]; return ok })
	out := make(State, len(s))
	flags := map[int64]Flags{}
	for id, rec := range s {
		e := byID[id]
		rec.EntryID = id
		rec.Cooldown = checkWindow(rec.Cooldown, e, e != nil && e.Cooldown > 0, count)
		rec.Sticky = checkWindow(rec.Sticky, e, e != nil && e.Sticky > 0, count)
		if rec.Sticky != nil && e != nil && count >= rec.Sticky.End {
			// The sticky window closes; its cooldown starts now and applies
			// to this turn.
			rec.Sticky = nil
			if e.Cooldown > 0 {
				rec.Cooldown = &Window{Start: count, End: count + e.Cooldown, Protected: true}
			}
		}
		if rec.Cooldown != nil && e != nil && count >= rec.Cooldown.End {
			rec.Cooldown = nil
		}
		if rec.Activated() && rec.FirstCount >= count {
			// The turn that first admitted the entry is being redone (or its
			// messages were deleted): it no longer counts as a match.
			rec.FirstCount, rec.FirstAt = 0, time.Time{}
		}
		var f Flags
		if e != nil {
			f.Sticky = rec.Sticky != nil
			f.Cooldown = rec.Cooldown != nil && !f.Sticky
			f.Matched = rec.Activated() && rec.FirstCount < count
		}
		if f != (Flags{}) {
			flags[id] = f
		}
		if !rec.empty() {
			out[id] = rec
		}
	}
	return out, flags
}

// checkWindow applies the drop rules that do not depend on the window's
// kind; closing at the end is left to the caller for entries in the scope.
func checkWindow(w *Window, e *lore.Entry, configured bool, count int) *Window {
	switch {
	case w == nil:
		return nil
	case count <= w.Start && !w.Protected:
		return nil // the chat did not advance: the opening turn is redone
	case e == nil:
		if count >= w.End {
			return nil
		}
		c := *w
		return &c // kept, inactive, until its end
	case !configured:
		return nil
	}
	c := *w
	return &c
}

// Advance applies the end-of-turn rules of a recorded turn with message
// count count at time now: s is the state returned by [Derive] for the same
// turn, admitted the ids the engine admitted, entries the turn's snapshot.
// It returns the new state (s is not modified).
func Advance(s State, entries []lore.Entry, admitted []int64, count int, now time.Time) State {
	out := maps.Clone(s)
	if out == nil {
		out = State{}
	}
	want := make(map[int64]bool, len(admitted))
	for _, id := range admitted {
		want[id] = true
	}
	byID := entriesOf(entries, len(want), func(id int64) bool { return want[id] })
	for _, id := range admitted {
		e := byID[id]
		if e == nil {
			continue
		}
		rec := out[id]
		rec.EntryID = id
		if e.Sticky > 0 && rec.Sticky == nil {
			rec.Sticky = &Window{Start: count, End: count + e.Sticky}
		}
		if e.Cooldown > 0 && rec.Cooldown == nil {
			rec.Cooldown = &Window{Start: count, End: count + e.Cooldown}
		}
		if !rec.Activated() || rec.FirstCount >= count {
			rec.FirstCount, rec.FirstAt = count, now
		}
		rec.LastCount, rec.LastAt = count, now
		out[id] = rec
	}
	return out
}

// entriesOf indexes by id the entries whose ids has holds, n of them at
// most (a conversation's records or a turn's admissions: a few), without
// a map of every entry of the scope.
func entriesOf(entries []lore.Entry, n int, has func(int64) bool) map[int64]*lore.Entry {
	out := make(map[int64]*lore.Entry, n)
	for i := 0; i < len(entries) && len(out) < n; i++ {
		if has(entries[i].ID) {
			out[entries[i].ID] = &entries[i]
		}
	}
	return out
}

// Diff returns what turns stored state old into new: the records to write
// (new or changed) by entry id, and the entry ids whose records to delete.
func Diff(old, new State) (upsert []Record, del []int64) {
	for _, id := range slices.Sorted(maps.Keys(new)) {
		rec := new[id]
		if o, ok := old[id]; !ok || !o.Equal(rec) {
			upsert = append(upsert, rec)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(old)) {
		if _, ok := new[id]; !ok {
			del = append(del, id)
		}
	}
	return upsert, del
}
