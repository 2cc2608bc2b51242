package activation

import (
	"context"
	"slices"
)

// This file holds the worklist of the recursive passes of runPasses
// (docs/benchmarks.md "Recursion by new text"): a recursive pass reads the
// text admitted by the pass before it, so an entry whose keys found
// nothing so far can change only if that new text reaches one of its
// keys. Such an entry sleeps: the pass does not evaluate it until the new
// items wake it, from the wake lists memoised with their contents
// (contentHits.wakes, wakeByContent), or, when an item's content has
// identity macros, from the index from key node to entries
// (Matcher.keyEntries) read with the nodes the new items reached
// (scratch.rtouched, wakeByNodes). A pass whose new text names no
// sleeping entry's key evaluates only the few entries that are not
// asleep. The Result is the one of evaluating every pending entry in
// every pass (Options.baseline still does; requireSameTurn compares).

// recIndex is the worklist of one turn's recursive passes.
type recIndex struct {
	// on: runPasses' recursive passes use the worklist; init: the
	// pending entries were sorted into awake and asleep.
	on, init bool
	// active lists, in evaluation order, the pending entries every
	// recursive pass evaluates; work is the next pass's list.
	active, work []int32
	// dormant lists the entries put to sleep (some have woken since),
	// sleeping how many still sleep.
	dormant  []int32
	sleeping int
	// last is the last recursive pass run; claimed: its entries that
	// passed are in the order in which they claim the budget (passOrder).
	last    int
	claimed bool
}

// sleeps reports whether pending entry i may sleep: a keyword entry of
// plain literal keys (no exclude keys: compiledEntry.litOnly) whose
// primary keys occur neither in its chat window nor in the recursion text
// it may read. Evaluated again without new text reaching a primary key, it
// gets the same no_key_match; only its pass and whether the detail names
// recursion text change (wakeDormant sets them).
func (t *turn) sleeps(i int32) bool {
	s := &t.st[i]
	return s.stage == stagePending && s.mode == modeKeys && s.verdict == vNoKeyMatch &&
		s.chatChecked && !s.chatHit && t.m.entries[i].litOnly
}

// sleep puts pending entry i to sleep.
func (t *turn) sleep(i int32) {
	t.st[i].dormant = true
	t.rx.sleeping++
	t.rx.dormant = append(t.rx.dormant, i)
}

// startWorklist starts the worklist with sleeping entries already asleep
// (their dormant flags set, not listed in rx.dormant).
func (t *turn) startWorklist(sleeping int) {
	rx := &t.rx
	sc := t.ts.s
	rx.init, rx.sleeping = true, sleeping
	rx.active, rx.work, rx.dormant = sc.rxActive[:0], sc.rxWork[:0], sc.rxDormant[:0]
}

// file puts pending entry i, evaluated in pass 1, to sleep or on the
// active list; entries are filed in evaluation order.
func (t *turn) file(i int32) {
	if t.sleeps(i) {
		t.sleep(i)
	} else {
		t.rx.active = append(t.rx.active, i)
	}
}

// sortPending sorts the pending entries after pass 1 into those that sleep
// and the others (rx.active), once per turn, when pass 1 did not
// (plannedPass files them as it goes).
func (t *turn) sortPending() {
	t.startWorklist(0)
	for _, i := range t.m.order {
		s := &t.st[i]
		// A gate plan's state may say dormant (offerPlan), also of an
		// entry pass 1 then admitted by similarity: clear it for every
		// entry, or a later pass would wake one that was never asleep.
		s.dormant = false
		if s.stage != stagePending || s.mode == modeSemantic {
			continue
		}
		t.file(i)
	}
}

// indexedPass is pass for a recursive pass p of runPasses: it evaluates
// the awake pending entries and those the newest recursion items wake, in
// evaluation order, and puts to sleep those that may sleep. A woken entry
// that recEntry decides is decided as it wakes (its outcome does not
// depend on the order), and the entries that passed are returned in the
// order in which they claim the budget (claimOrder then keeps it), or in
// evaluation order when inclusion groups read them.
func (t *turn) indexedPass(ctx context.Context, p, curLevel int, passed []int32) ([]int32, int, error) {
	rx := &t.rx
	if !rx.init {
		t.sortPending()
	}
	work := append(rx.work[:0], rx.active...)
	awake := len(work)
	if t.ts.plain {
		// An item without memoised hits: wake from the nodes the batch
		// reached.
		t.ts.flush()
		passed, work = t.wakeByNodes(p, curLevel, passed, work)
	} else {
		passed, work = t.wakeByContent(p, curLevel, passed, work)
	}
	direct := len(passed)
	if len(work) > awake {
		work = t.inOrder(work)
	}
	if len(work) > 0 {
		t.ts.flush() // the entries evaluated below read the marks
	}
	active := rx.active[:0]
	for k, i := range work {
		if k%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		ok, still, err := false, false, error(nil)
		if done, admits := t.recEntry(i, p, curLevel); done {
			ok, still = admits, !admits
		} else {
			ok, still, err = t.passEntry(i, p, curLevel)
		}
		switch {
		case err != nil:
			return nil, 0, err
		case ok:
			passed = append(passed, i)
		case still && t.sleeps(i):
			t.sleep(i)
		case still:
			active = append(active, i)
		}
	}
	rx.active, rx.work, rx.last, rx.claimed = active, work, p, false
	if direct > 0 {
		passed = t.passOrder(passed, direct)
	}
	return passed, rx.sleeping + len(active), nil
}

// wakeByNodes wakes, for recursive pass p at delay level curLevel, the
// sleeping entries with a primary key at a node the newest batch of
// recursion items reached (scratch.rtouched, marked by flush): those
// recEntry decides are decided (added to passed or put to sleep again),
// the others added to work.
func (t *turn) wakeByNodes(p, curLevel int, passed, work []int32) ([]int32, []int32) {
	sc := t.ts.s
	for slot := range sc.rtouched {
		ke := &t.m.keyEntries[slot]
		for _, n := range sc.rtouched[slot] {
			for _, i := range ke.ents[ke.start[n]:ke.start[n+1]] {
				s := &t.st[i]
				if !s.dormant || s.stage != stagePending {
					continue
				}
				s.dormant = false
				t.rx.sleeping--
				// Asleep, it is what recEntry asks of its state
				// (turn.sleeps) but its level and recursion.
				ce := &t.m.entries[i]
				switch {
				case !ce.keysOnly || !s.recOK || t.minPass || int(s.level) > curLevel:
					work = append(work, i)
				case t.recDecide(ce, s, p):
					passed = append(passed, i)
				default:
					t.sleep(i)
				}
			}
		}
	}
	return passed, work
}

// wakeByContent is wakeByNodes when every item of the newest batch has
// memoised hits: the entries to wake are the items' contentHits.wakes,
// and an entry recEntry decides passes with its first key (in key order)
// that an item of the batch reaches, triggered by the newest such item.
// That is what recDecide reads off the marks: a sleeping entry that may
// read recursion text found none of its keys in the items before the
// batch, or a pass since would have woken it.
func (t *turn) wakeByContent(p, curLevel int, passed, work []int32) ([]int32, []int32) {
	ts := t.ts
	wk := waking{p: int32(p), curLevel: curLevel, decide: !t.minPass, passed: passed, work: work}
	batch := int(ts.batch)
	for k, it := range ts.items[batch:] {
		switch sum := t.m.wakes[it.src].Load(); {
		case sum&wakeOne != 0:
			w := recWake{ent: int32(sum & wakeMask), key: int32(sum >> 30 & wakeMask), keysOnly: sum&wakeKeysOnly != 0}
			t.wake(&wk, w, batch+k)
		case sum == 0:
			for _, w := range ts.m.content[it.src].Load().wakes {
				t.wake(&wk, w, batch+k)
			}
		}
	}
	t.rx.sleeping -= wk.woke
	return wk.passed, wk.work
}

// waking is the state of one wakeByContent: its pass p and delay level,
// whether it decides (no min-activations pass), the entries it decided
// (passed) and those it woke for the pass to evaluate (work), and how
// many it woke.
type waking struct {
	p            int32
	curLevel     int
	decide       bool
	passed, work []int32
	woke         int
}

// wake is wakeByContent's for wake w of recursion item k.
func (t *turn) wake(wk *waking, w recWake, k int) {
	s := &t.st[w.ent]
	if !s.dormant || s.stage != stagePending {
		if !s.dormant && s.stage == stagePassed && s.pass == wk.p && w.key <= t.ts.s.wakeKey[w.ent] {
			// Decided by an earlier item of the batch (passed in this
			// pass), a newer item or an earlier key triggers it.
			t.ts.s.wakeKey[w.ent] = w.key
			t.keyFound(&t.m.entries[w.ent], s, int(w.key), k)
		}
		return
	}
	s.dormant = false
	wk.woke++
	if !w.keysOnly || !wk.decide || !s.recOK || int(s.level) > wk.curLevel {
		wk.work = append(wk.work, w.ent)
		return
	}
	t.ts.s.wakeKey[w.ent] = w.key
	s.pass, s.stage, s.trig = wk.p, stagePassed, t.ts.items[k].src+1 // keyFound's without a trace
	if t.trace {
		t.keyFound(&t.m.entries[w.ent], s, int(w.key), k)
	}
	wk.passed = append(wk.passed, w.ent)
}

// passOrder sorts the entries that passed a recursive pass, some decided
// as they woke, into the order in which they claim the budget (by
// Matcher.byClaim, ties in evaluation order, as claimOrder sorts entries
// that arrive in evaluation order), or into evaluation order when
// inclusion groups read them or one is sticky. The first direct entries
// were decided as they woke (asleep, none is sticky).
func (t *turn) passOrder(passed []int32, direct int) []int32 {
	if t.m.hasGroups || t.won != nil {
		return t.inOrder(passed)
	}
	for _, i := range passed[direct:] {
		if t.st[i].mode == modeSticky {
			return t.inOrder(passed)
		}
	}
	t.rx.claimed = true
	return t.ts.s.bitSort(passed, t.m.claimRank, t.m.byClaim)
}

// recEntry is passEntry for pending entry i in recursive pass p at delay
// level curLevel when only the recursion text can change it (matchKeys'
// recOnlyText: its chat window holds none of its keys) and its literal
// primary keys alone decide it (no exclude or secondary keys, chance
// 100): the first key in the recursion text admits it, as evaluate does.
// done reports false, having changed nothing, for any other entry.
func (t *turn) recEntry(i int32, p, curLevel int) (done, ok bool) {
	s, ce := &t.st[i], &t.m.entries[i]
	if !ce.keysOnly || s.stage != stagePending || s.mode != modeKeys || !s.chatChecked || s.chatHit || !s.recOK ||
		t.minPass || int(s.level) > curLevel {
		return false, false
	}
	return true, t.recDecide(ce, s, p)
}

// recDecide decides entry s (compiled ce) for recEntry in pass p and
// reports whether it passed.
func (t *turn) recDecide(ce *compiledEntry, s *entryState, p int) bool {
	s.pass = int32(p)
	for j := range ce.primary {
		if item := t.ts.recLit(&ce.primary[j]); item >= 0 {
			t.keyFound(ce, s, j, item)
			s.stage = stagePassed
			return true
		}
	}
	s.verdict, s.noKeyRec = vNoKeyMatch, true
	s.noDetail()
	return false
}

// wakeDormant ends the worklist when runPasses returns: every entry still
// asleep gets what evaluating it in the last recursive pass would have
// given it (that pass, and a no_key_match detail that names recursion text
// when it may read it), and the buffers go back to the scratch. Only the
// trace and the min-activations passes read a pending entry's pass and
// detail, so a turn with neither leaves them.
func (t *turn) wakeDormant() {
	rx := &t.rx
	wake := func(i int32) {
		s := &t.st[i]
		if !s.dormant {
			return
		}
		s.dormant = false
		if rx.last > int(s.pass) {
			s.pass, s.noKeyRec = int32(rx.last), s.recOK
		}
	}
	if rx.init && (t.trace || t.opts.MinActivations > 0) {
		for _, i := range rx.dormant {
			wake(i)
		}
		if p := t.plan; p != nil && p.dozing {
			for _, i := range t.m.order {
				if p.quiet[i] {
					wake(i)
				}
			}
		}
	}
	if rx.init {
		sc := t.ts.s
		sc.rxActive, sc.rxWork, sc.rxDormant = rx.active[:0], rx.work[:0], rx.dormant[:0]
	}
	*rx = recIndex{}
}

// contentHits are the terminal nodes of the Matcher's own automata
// (autoFold, autoSens) that one entry's content reaches: an admitted
// entry's content is the same text turn after turn, so it is scanned once
// per compiled scope.
type contentHits struct {
	// wakes lists the litOnly entries with a primary key at one of nodes
	// (Matcher.keyEntries), each with the first such key: the entries the
	// content wakes as recursion text (turn.wakeByContent). The chat memo
	// leaves it nil. It comes first, and up to two wakes are held in few,
	// in the same object: a recursive pass reads them for every item, and
	// no more cache lines than needed.
	wakes []recWake
	few   [2]recWake
	nodes [2][]int32
}

// recWake is an entry a content wakes, its first primary key (index into
// compiledEntry.primary) that the content reaches, and its keysOnly.
type recWake struct {
	ent, key int32
	keysOnly bool
}

// A content's wakes when it has none or one, as Matcher.wakes holds them:
// wakeKnown set, and with wakeOne the wake, its ent in the low 30 bits and
// its key in the next 30. 0 means the memo (contentHits.wakes) holds them.
const (
	wakeKnown    = 1 << 63
	wakeOne      = 1 << 62
	wakeKeysOnly = 1 << 61
	wakeMask     = 1<<30 - 1
)

// wakeSum is Matcher.wakes' form of wakes.
func wakeSum(wakes []recWake) uint64 {
	switch {
	case len(wakes) == 0:
		return wakeKnown
	case len(wakes) > 1 || wakes[0].ent > wakeMask || wakes[0].key > wakeMask:
		return 0
	}
	w := wakes[0]
	sum := uint64(wakeKnown|wakeOne) | uint64(w.ent) | uint64(w.key)<<30
	if w.keysOnly {
		sum |= wakeKeysOnly
	}
	return sum
}

// contentHits returns the memoised hits of entry src's content text,
// scanning it into the scratch's own marks the first time.
func (ts *turnScan) contentHits(src int32, text string) *contentHits {
	m := ts.m
	if h := m.content[src].Load(); h != nil {
		return h
	}
	h := ts.hitsOf(text)
	h.wakes = ts.wakesOf(h)
	if len(h.wakes) <= len(h.few) {
		h.wakes = h.few[:copy(h.few[:], h.wakes)]
	}
	m.wakes[src].Store(wakeSum(h.wakes))
	m.content[src].Store(h)
	return h
}

// wakesOf lists the entries content h wakes (contentHits.wakes), right
// after hitsOf marked h's nodes in the scratch's own marks.
func (ts *turnScan) wakesOf(h *contentHits) []recWake {
	m, sc := ts.m, ts.s
	var wakes []recWake
	for slot := range h.nodes {
		ke := &m.keyEntries[slot]
		for _, n := range h.nodes[slot] {
			for _, i := range ke.ents[ke.start[n]:ke.start[n+1]] {
				if slices.ContainsFunc(wakes, func(w recWake) bool { return w.ent == i }) {
					continue
				}
				ce := &m.entries[i]
				for j := range ce.primary {
					if r := &ce.primary[j]; sc.mdone[r.auto][r.node] == sc.mgen[r.auto] {
						wakes = append(wakes, recWake{ent: i, key: int32(j), keysOnly: ce.keysOnly})
						break
					}
				}
			}
		}
	}
	return wakes
}

// mark sets done[node] = gen for every node of nodes, listing in touched
// those not reached since g0, as a scan of the text they came from does.
func (mk *marks) mark(nodes []int32, gen uint32) {
	for _, n := range nodes {
		if mk.touched != nil && mk.done[n] < mk.g0 {
			*mk.touched = append(*mk.touched, n)
		}
		mk.done[n] = gen
	}
}
