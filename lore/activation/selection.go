package activation

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"loregate/lore"
)

// This file holds the selection controls of a turn (docs/authoring.md
// "Selection controls"): the min-activations sweep, the entry cap and
// each book's share of the budget with the per-book use it reports.

// selection is the selection controls' state of one turn.
type selection struct {
	// books are the turn's books by first use (nil when no book sets a
	// MaxBudgetShare and the caller reads no ByBook: see bookOf).
	books []BookUse
	// bookIdx maps a collection name to its index in books; persona is
	// the persona book's index (-1 none yet).
	bookIdx map[string]int16
	persona int16
	init    bool
	// last and lastIdx remember the last collection looked up (entries of
	// one collection are usually adjacent).
	last    string
	lastIdx int16
}

// bookOf records which book entry e (state s) belongs to. gc holds e's
// collection when e is Serverwide.
func (t *turn) bookOf(s *entryState, e *lore.Entry, gc *gateCache) {
	sel := &t.sel
	if !sel.init {
		sel.init, sel.persona = true, -1
		sel.bookIdx = map[string]int16{}
	}
	if !e.Lineage.IsServerwide() {
		if sel.persona < 0 {
			sel.persona = int16(len(sel.books))
			sel.books = append(sel.books, BookUse{Lineage: e.Lineage, Limit: t.shareLimit(t.in.PersonaBook)})
		}
		s.book = sel.persona
		return
	}
	name := gc.name
	if sel.last == name && len(sel.books) > 0 {
		s.book = sel.lastIdx
		return
	}
	k, ok := sel.bookIdx[name]
	if !ok {
		k = int16(len(sel.books))
		sel.bookIdx[name] = k
		sel.books = append(sel.books, BookUse{Collection: name, CollectionID: gc.coll.ID, Limit: t.shareLimit(gc.coll.Settings)})
	}
	sel.last, sel.lastIdx = name, k
	s.book = k
}

// shareLimit is the most a book with settings b may take from the turn's
// budget: MaxBudgetShare percent of it, -1 for no share or no limit.
func (t *turn) shareLimit(b lore.BookSettings) int {
	if b.MaxBudgetShare == nil || t.budget.Limit < 0 {
		return -1
	}
	return t.budget.Limit * *b.MaxBudgetShare / 100
}

// overShare reports whether entry s, costing c, would take its book past
// its share (and then marks it over_budget).
func (t *turn) overShare(s *entryState, c, p int) bool {
	b := &t.sel.books[s.book]
	if b.Limit < 0 || b.Used+c <= b.Limit {
		return false
	}
	s.verdict = VerdictOverBudget
	name := b.Collection
	if name == "" {
		name = "the persona book"
	} else {
		name = "book " + strconv.Quote(name)
	}
	s.detail = name + " may use " + strconv.Itoa(b.Limit) + " " + string(t.budget.Unit) + " of the budget (max budget share): needs " +
		strconv.Itoa(c) + ", " + strconv.Itoa(b.Limit-b.Used) + " left"
	if p > 1 {
		s.detail += " in pass " + strconv.Itoa(p)
	}
	return true
}

// byBook is Budget.ByBook: the books that admitted an entry, with what
// they used, in the order they were first met.
func (t *turn) byBook(adm []Admitted) []BookUse {
	if len(adm) == 0 || len(t.sel.books) == 0 {
		return nil
	}
	books := slices.Clone(t.sel.books)
	for i := range books {
		books[i].Used, books[i].Entries = 0, 0
	}
	for k := range adm {
		a := &adm[k]
		i := t.sel.persona
		if a.Entry.Lineage.IsServerwide() {
			name := a.Entry.Collection
			if name == "" {
				name = lore.DefaultCollection
			}
			i = t.sel.bookIdx[name]
		}
		books[i].Used += a.Cost
		books[i].Entries++
	}
	return slices.DeleteFunc(books, func(b BookUse) bool { return b.Entries == 0 })
}

// minActivations runs SillyTavern's min-activations sweep after the
// passes (which ran passes times): while fewer than Options.MinActivations
// entries are admitted, the entries whose depth comes from the server or
// book layer read one more message and are evaluated again, without
// recursion text, up to MinActivationsDepthMax messages (0: the whole
// chat). Rules (docs/authoring.md "Selection controls"): the depth max M
// scans at most M messages; an entry over the budget does not stop the
// sweep; entries with their own scan depth, or scan depth 0, do not widen.
// It returns the passes run in all.
func (t *turn) minActivations(ctx context.Context, passes int) (int, error) {
	limit := t.nmsg
	if m := t.opts.MinActivationsDepthMax; m > 0 && m < limit {
		limit = m
	}
	base := -1 // the smallest widening depth
	for k := range t.st {
		if s := &t.st[k]; s.stage == stagePending && s.widen && s.base > 0 && (base < 0 || s.base < base) {
			base = s.base
		}
	}
	if base < 0 || base >= limit || len(t.ts.s.admitted) >= t.opts.MinActivations {
		return passes, nil
	}
	var need [numAutos]bool
	for slot, a := range t.ts.autos {
		need[slot] = a != nil
	}
	t.ts.scanWindow(limit, need) // once: every depth of the sweep reads it
	t.ts.markCandidates()
	var passed, order []int32
	for skew := 1; base+skew <= limit && len(t.ts.s.admitted) < t.opts.MinActivations; skew++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		passes++
		items := len(t.ts.items)
		var err error
		if passed, err = t.minPassAt(skew, limit, passes, passed[:0]); err != nil {
			return 0, err
		}
		if err := t.settle(passed, &order, passes); err != nil {
			return 0, err
		}
		// SillyTavern: a min-activations pass that added recursion text
		// is followed by recursive passes (at the widened depth).
		for t.recursion && len(t.ts.items) > items && passes < t.maxPasses {
			items = len(t.ts.items)
			passes++
			if passed, _, err = t.pass(ctx, passes, t.level, passed[:0]); err != nil {
				return 0, err
			}
			if err := t.settle(passed, &order, passes); err != nil {
				return 0, err
			}
		}
	}
	return passes, nil
}

// minPassAt evaluates, in min-activations pass p, the pending entries
// that widen and reach no further than limit messages at skew extra
// messages, without recursion text; it appends those that passed.
func (t *turn) minPassAt(skew, limit, p int, passed []int32) ([]int32, error) {
	t.minPass = true
	defer func() { t.minPass = false }()
	for _, i := range t.m.order {
		s := &t.st[i]
		if s.stage != stagePending || !s.widen || s.base <= 0 || s.base+skew > limit || s.level > 0 {
			continue
		}
		s.depth, s.chatChecked = s.base+skew, false
		if s.mode == modeKeys && t.m.entries[i].litOnly && !t.ts.candidate(i) && s.ctx == nil {
			continue // no key anywhere in the widest window
		}
		s.pass = p
		ok, err := t.evaluate(i, p)
		if err != nil {
			return nil, err
		}
		if ok {
			passed = append(passed, i)
		}
	}
	return passed, nil
}

// settle runs the end of a pass over the entries that passed: inclusion
// groups, then the budget in claim order (rules 5 and 6).
func (t *turn) settle(passed []int32, order *[]int32, p int) error {
	var err error
	if t.m.hasGroups && len(passed) > 1 || t.won != nil {
		if passed, err = t.groups(passed, p); err != nil {
			return err
		}
	}
	*order = t.claimOrder(append((*order)[:0], passed...))
	for _, i := range *order {
		t.admit(i, p)
	}
	for _, i := range passed {
		if t.st[i].verdict == VerdictAdmitted {
			t.markWon(i)
		}
	}
	return nil
}

// capEntries applies Options.MaxEntries at the end of the turn: of the
// admitted keyword, chance and similarity entries (not constants, sticky, @@activate,
// kept or ignoreBudget ones), those past the cap in the claim order
// (higher priority first, @@ignore_on_max_context last, then insertion
// order) become over_entry_cap and give their budget back.
func (t *turn) capEntries() {
	adm := t.ts.s.admitted
	var counted []int32
	for _, i := range adm {
		if m := t.st[i].mode; (m == modeKeys || m == modeSemantic) && !t.in.Entries[i].IgnoreBudget {
			counted = append(counted, i)
		}
	}
	if len(counted) <= t.opts.MaxEntries {
		return
	}
	slices.SortStableFunc(counted, func(a, b int32) int {
		ca, cb := &t.m.entries[a], &t.m.entries[b]
		if x, y := ca.dec.IgnoreOnMaxContext, cb.dec.IgnoreOnMaxContext; x != y {
			return -boolFirst(x)
		}
		if c := cmp.Compare(cb.priority, ca.priority); c != 0 {
			return c
		}
		return cmp.Compare(t.m.rank[a], t.m.rank[b])
	})
	cap := t.opts.MaxEntries
	for _, i := range counted[cap:] {
		s := &t.st[i]
		s.verdict = VerdictOverEntryCap
		s.detail = "priority " + strconv.Itoa(t.m.entries[i].priority) + ": " + strconv.Itoa(len(counted)) +
			" keyword entries were admitted, at most " + strconv.Itoa(cap) + " kept (max entries)"
		t.budget.Used -= s.cost
		if t.sel.books != nil {
			t.sel.books[s.book].Used -= s.cost
		}
		s.cost = 0
	}
	t.ts.s.admitted = slices.DeleteFunc(adm, func(i int32) bool { return t.st[i].verdict == VerdictOverEntryCap })
}
