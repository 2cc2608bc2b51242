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
	s.verdict = vOverBudget
	name := b.Collection
	if name == "" {
		name = "the persona book"
	} else {
		name = "book " + strconv.Quote(name)
	}
	t.setDetail(s, name+" may use "+strconv.Itoa(b.Limit)+" "+string(t.budget.Unit)+" of the budget (max budget share): needs "+
		strconv.Itoa(c)+", "+strconv.Itoa(b.Limit-b.Used)+" left")
	if p > 1 {
		t.addDetail(s, " in pass "+strconv.Itoa(p))
	}
	return true
}

// bookUses returns the turn's books, in the order they were first met,
// with nothing used yet, for result to count the admitted entries into
// (Budget.ByBook keeps those that admitted one); nil when the turn
// admitted nothing or has no book.
func (t *turn) bookUses() []BookUse {
	if len(t.ts.s.admitted) == 0 || len(t.sel.books) == 0 {
		return nil
	}
	books := slices.Clone(t.sel.books)
	for i := range books {
		books[i].Used, books[i].Entries = 0, 0
	}
	return books
}

// sweepSteps is the pass limit of a min-activations sweep: the highest
// maxRecursionSteps the request or a book of the turn sets, every pass of
// the turn counted (SillyTavern: max recursion steps applies to the
// min-activations passes too; docs/authoring.md "Selection controls"); 0
// for none, when none is set or one is 0 (no limit). Recursion's own
// default (DefaultMaxRecursionSteps) does not limit the sweep.
func sweepSteps(in *Input, opts *Options) int {
	steps, unset := 0, true
	consider := func(p *int) {
		if p == nil {
			return
		}
		if *p <= 0 {
			steps, unset = -1, false
		} else if steps >= 0 {
			steps, unset = max(steps, *p), false
		}
	}
	consider(opts.MaxRecursionSteps)
	eachBook(in, func(b lore.BookSettings) { consider(b.MaxRecursionSteps) })
	if unset || steps < 0 {
		return 0
	}
	return steps
}

// minActivations runs SillyTavern's min-activations sweep after the
// passes (which ran passes times): while fewer than Options.MinActivations
// entries are admitted, the entries whose depth comes from the server or
// book layer read one more message and are evaluated again, without
// recursion text, up to MinActivationsDepthMax messages (0: the whole
// chat). Rules (docs/authoring.md "Selection controls"): the depth max M
// scans at most M messages; an entry over the budget does not stop the
// sweep; entries with their own scan depth, or scan depth 0, do not widen;
// a set maxRecursionSteps stops it (sweepSteps). It runs at most one pass
// per message, plus recursive passes below the turn's recursion limit,
// and returns the passes run in all.
func (t *turn) minActivations(ctx context.Context, passes int) (int, error) {
	limit := t.nmsg
	if m := t.opts.MinActivationsDepthMax; m > 0 && m < limit {
		limit = m
	}
	base := -1 // the smallest widening depth
	for k := range t.st {
		if s := &t.st[k]; s.stage == stagePending && s.widen && s.base > 0 && (base < 0 || int(s.base) < base) {
			base = int(s.base)
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
	steps := sweepSteps(t.in, t.opts)
	cands, depths := t.widening(limit)
	var passed, order []int32
	skew := 1
	for ; base+skew <= limit && len(t.ts.s.admitted) < t.opts.MinActivations && (steps == 0 || passes < steps); skew++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		passes++
		items := len(t.ts.items)
		var err error
		if passed, cands, depths, err = t.minPassAt(skew, limit, passes, cands, depths, passed[:0]); err != nil {
			return 0, err
		}
		if err := t.settle(passed, &order, passes); err != nil {
			return 0, err
		}
		// SillyTavern: a min-activations pass that added recursion text
		// is followed by recursive passes (at the widened depth).
		for t.recursion && len(t.ts.items) > items && passes < t.maxPasses && (steps == 0 || passes < steps) {
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
	t.swept.skews, t.swept.limit = skew-1, limit
	return passes, nil
}

// widening lists, in evaluation order, the pending entries a
// min-activations pass widens and evaluates: those whose depth comes from
// the server or book layer and that are not delayed until recursion,
// except keyword entries of plain keys with no primary key in the
// limit-message window (the sweep's widest; markCandidates) nor in their
// context text, which cannot match at any depth (their trace depth is
// scannedDepth's). need[k] is the depth at which cands[k] can first match
// (minDepth).
func (t *turn) widening(limit int) (cands []int32, need []int) {
	set := t.m.order
	if !t.opts.baseline {
		set = t.sweepSet()
	}
	for _, i := range set {
		s := &t.st[i]
		if s.stage != stagePending || !s.widen || s.base <= 0 || int(s.base) >= limit || s.level > 0 {
			continue
		}
		if s.mode == modeKeys && t.m.entries[i].litOnly && t.keyless(i, s) {
			continue
		}
		cands, need = append(cands, i), append(need, t.minDepth(i, s, limit))
	}
	return cands, need
}

// sweepSet lists, in evaluation order, the entries widening may keep,
// without a walk over every entry: the plain-keyed entries with a primary
// key in the scanned window (markCandidates' touched nodes), the others
// and those with context sources (Matcher.special), and this turn's
// pending entries of another mode than keys (turn.nonKeys).
func (t *turn) sweepSet() []int32 {
	set := append(slices.Clip(t.m.special), t.nonKeys...)
	sc := t.ts.s
	for slot := range sc.touched {
		ke := &t.m.keyEntries[slot]
		for _, n := range sc.touched[slot] {
			set = append(set, ke.ents[ke.start[n]:ke.start[n+1]]...)
		}
	}
	rank := t.m.rank
	slices.SortFunc(set, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	return slices.Compact(set)
}

// scannedDepth is the depth entry s was last evaluated at, for its
// no_key_match detail: its own, or, if the min-activations sweep widened
// it, as far as the sweep went.
func (t *turn) scannedDepth(s *entryState) int {
	d := int(s.depth)
	if w, b := t.swept, int(s.base); w.skews > 0 && s.widen && b > 0 && s.level == 0 && b < w.limit {
		d = max(d, b+min(w.skews, w.limit-b))
	}
	return min(d, t.nmsg)
}

// minDepth is the smallest scan depth at which a primary key of entry i
// (state s) is visible, for a keyword entry of plain keys whose evaluation
// in a min-activations pass cannot end otherwise than no_key_match before
// then (no exclude keys, no exclude-recursion check); 0 for any other
// entry (evaluated at every depth), limit+1 when no key occurs within
// limit messages.
func (t *turn) minDepth(i int32, s *entryState, limit int) int {
	ce := &t.m.entries[i]
	if t.opts.baseline || s.mode != modeKeys || !ce.litOnly || len(ce.exclude) > 0 || len(ce.excludeAll) > 0 || (s.recBook && ce.excludeRec) {
		return 0
	}
	need := limit + 1
	for j := range ce.primary {
		ref := &ce.primary[j]
		if s.ctx != 0 && t.ctxOf(s).hit(ref, 1) >= 0 {
			return 1
		}
		if at := t.ts.hit(ref, limit); at >= 0 && at >= t.nmsg-limit {
			need = min(need, t.nmsg-at)
		}
	}
	return need
}

// minPassAt evaluates, in min-activations pass p, the entries of cands
// (widening) still pending that reach no further than limit messages at
// skew extra messages, without recursion text; it appends those that
// passed, and returns cands (and their need) without the entries no
// longer pending. An entry whose keys are not yet visible (need) gets the
// no_key_match evaluate would give it, without the per-key walk.
func (t *turn) minPassAt(skew, limit, p int, cands []int32, need []int, passed []int32) ([]int32, []int32, []int, error) {
	t.minPass = true
	defer func() { t.minPass = false }()
	for k, i := range cands {
		s := &t.st[i]
		if s.stage != stagePending || int(s.base)+skew > limit {
			continue
		}
		s.depth, s.chatChecked, s.pass = sat32(int(s.base)+skew), false, int32(p)
		if int(s.depth) < need[k] {
			s.verdict, s.chatChecked, s.chatHit, s.noKeyRec = vNoKeyMatch, true, false, s.recOK
			s.noDetail()
			continue
		}
		ok, err := t.evaluate(i, p)
		if err != nil {
			return nil, nil, nil, err
		}
		if ok {
			passed = append(passed, i)
		}
	}
	n := 0
	for k, i := range cands {
		if t.st[i].stage == stagePending {
			cands[n], need[n] = i, need[k]
			n++
		}
	}
	return passed, cands[:n], need[:n], nil
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
		if t.st[i].verdict == vAdmitted {
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
		s.verdict = vOverEntryCap
		t.setDetail(s, "priority "+strconv.Itoa(t.m.entries[i].priority)+": "+strconv.Itoa(len(counted))+
			" keyword entries were admitted, at most "+strconv.Itoa(cap)+" kept (max entries)")
		t.budget.Used -= int(s.cost)
		if t.sel.books != nil {
			t.sel.books[s.book].Used -= int(s.cost)
		}
		s.cost = 0
	}
	t.ts.s.admitted = slices.DeleteFunc(adm, func(i int32) bool { return t.st[i].verdict == vOverEntryCap })
}
