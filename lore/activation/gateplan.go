package activation

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"loregate/lore"
)

// This file holds the gate plan: what gateAll concluded for every entry of
// a turn whose gates read nothing that changes between a conversation's
// turns. A bot's turns over one cached scope repeat the same gates (same
// server, lineage, channel, books and options), so the second such turn
// keeps their outcome in the Matcher and later turns copy it instead of
// reading every entry again. With few messages the gates were most of a
// turn (docs/benchmarks.md "Activation engine").

// planKey is what, besides the entries (the Matcher's own) and the books
// (compared by gatePlan.fits), gateEntry reads in a plannable turn.
type planKey struct {
	server  string
	lineage lore.Lineage
	// channel and parent are "" while channel scoping is off or no list
	// of channels could gate the turn (channelFree): the gates of every
	// channel are then the same.
	channel, parent string
	scoping         bool
	// msgCount is -1 when no entry's gates read it (Matcher.msgGated).
	msgCount  int
	defDepth  int
	recursive bool // Options.Recursive
	recursion bool // turn.recursion
	budget    int  // turn budget's limit (book shares)
	// cands is the candidate set of the turn's similarity scores
	// (CandidateSet), nil without scores.
	cands any
}

// gatePlan is the outcome of gateAll for one planKey: every entry's state
// after its gates, the lowest delay level, the deepest scan depth of the
// pending entries that scan, the own automata they need and the books in
// first-use order. It is immutable once published.
type gatePlan struct {
	key     planKey
	first   *lore.Entry
	colls   map[string]lore.Collection
	persona lore.BookSettings
	states  []entryState
	// strs are the strings the states index (entryState.detail).
	strs []string
	// minLevel is gateAll's result; maxDepth the deepest scan depth among
	// the entries that scan (0 none); need the own automata (autoFold,
	// autoSens) they use, scans whether any does (then the macro automata
	// of the turn's names are scanned too).
	minLevel, maxDepth int
	need               [2]bool
	scans              bool
	sel                selection
	// quiet marks the pending keyword entries of plain literal keys
	// (compiledEntry.litOnly, no delay level): their states already hold
	// pass 1's no_key_match, which plannedPass keeps unless the chat scan
	// marks them as candidates; quietN counts them. loud lists the other
	// pending entries in evaluation order. dozing: the turns are recursive
	// and the quiet states are asleep already for the worklist of the
	// recursive passes (recindex.go), so a turn does not sort every
	// pending entry after pass 1.
	quiet  []bool
	quietN int
	loud   []int32
	dozing bool
	// scored are the positions of the entries the semantic gate marked
	// as candidates, in evaluation order, at their positions in the
	// candidate set: a turn copying the plan reads their scores again
	// (CandidateSet.ScoresAt).
	scored, at []int32
	// For NonzeroScores (their states' scores are 0): entryAt is the
	// entry position by candidate position (-1 none), keyless the scored
	// entries decided by similarity alone, in evaluation order.
	entryAt, keyless []int32
	// posOf is the candidate position by entry position (-1 none), for
	// the result of a turn reading the kept sums (AboveScores).
	posOf []int32
}

// planKey returns the key of t's gates, or false when they read something
// the plan does not hold: turn state, similarity scores of no fixed
// candidate set (CandidateSet), min activations' bookkeeping, context
// sources or filters, the old code path.
func (t *turn) planKey(msgCount, defDepth int) (planKey, bool) {
	in, o, m := t.in, t.opts, t.m
	if o.baseline || m.planOff || len(in.Entries) == 0 || len(in.State) > 0 || o.MinActivations > 0 {
		return planKey{}, false
	}
	var cands any
	if in.Semantic != nil && in.Semantic.Scores != nil {
		cs, ok := in.Semantic.Scores.(CandidateSet)
		if !ok {
			return planKey{}, false
		}
		cands = cs.CandidateSet()
	}
	k := planKey{server: in.Server, lineage: in.Lineage, scoping: in.ChannelScoping, msgCount: -1, defDepth: defDepth,
		recursive: o.Recursive, recursion: t.recursion, budget: t.budget.Limit, cands: cands}
	if in.ChannelScoping && !m.channelFree(in) {
		k.channel, k.parent = in.Channel, in.ParentChannel
	}
	if m.msgGated {
		k.msgCount = msgCount
	}
	return k, true
}

// fits reports whether p was made for key over in's entries and books.
func (p *gatePlan) fits(key *planKey, in *Input) bool {
	if p.key != *key || p.first != &in.Entries[0] || len(p.colls) != len(in.Collections) || !p.persona.Equal(in.PersonaBook) {
		return false
	}
	for name, c := range in.Collections {
		pc, ok := p.colls[name]
		if !ok || pc.ID != c.ID || pc.Name != c.Name || pc.Server != c.Server || pc.Enabled != c.Enabled ||
			!slices.Equal(pc.ChannelIDs, c.ChannelIDs) || !pc.Settings.Equal(c.Settings) {
			return false
		}
	}
	return true
}

// applyPlan sets t's entry states and books from p, with this turn's
// similarity scores, scans the chat window the pending entries need and
// returns the lowest delay level.
func (t *turn) applyPlan(p *gatePlan) int {
	copy(t.st, p.states)
	t.strs = append(t.strs[:0], p.strs...)
	var nz NonzeroScores
	if len(p.scored) > 0 && p.entryAt != nil && t.in.Semantic.Threshold > 0 {
		nz, _ = t.in.Semantic.Scores.(NonzeroScores)
	}
	if nz != nil {
		t.applyNonzero(p, nz)
	} else if len(p.scored) > 0 {
		sc := t.ts.s
		if cap(sc.simScores) < len(p.at) {
			sc.simScores = make([]float32, len(p.at))
		}
		scores := sc.simScores[:len(p.at)]
		t.in.Semantic.Scores.(CandidateSet).ScoresAt(p.at, scores)
		thr, near := t.in.Semantic.Threshold, sc.semNear[:0]
		for k, i := range p.scored {
			s := &t.st[i]
			s.score = scores[k]
			if float64(s.score) >= thr || s.mode == modeSemantic {
				near = append(near, i)
			}
		}
		sc.semNear, t.semNear, t.semPlanned = near, near, true
	}
	t.sel = p.sel
	t.sel.books = slices.Clone(p.sel.books)
	var need [numAutos]bool
	need[autoFold], need[autoSens] = p.need[0], p.need[1]
	if p.scans && t.ts.dyn != nil {
		need[autoDynFold], need[autoDynSens] = t.ts.dyn.autos[0] != nil, t.ts.dyn.autos[1] != nil
	}
	t.ts.scanWindow(min(p.maxDepth, len(t.in.Messages)), need)
	t.ts.markCandidates()
	t.plan = p
	return p.minLevel
}

// offerPlan publishes t's gate outcome as m's plan for key when the turn
// before had the same key (a key seen once, such as an advancing message
// count, is not worth a copy of every state).
func (m *Matcher) offerPlan(key *planKey, t *turn, minLevel, maxDepth int, need [numAutos]bool, scans bool) {
	if last := m.planSeen.Load(); last == nil || *last != *key {
		k := *key
		m.planSeen.Store(&k)
		return
	}
	in := t.in
	colls := make(map[string]lore.Collection, len(in.Collections))
	for name, c := range in.Collections {
		c.ChannelIDs = slices.Clone(c.ChannelIDs)
		c.Settings = cloneSettings(c.Settings)
		colls[name] = c
	}
	p := &gatePlan{key: *key, first: &in.Entries[0], colls: colls, persona: cloneSettings(in.PersonaBook),
		states: slices.Clone(t.st), strs: slices.Clone(t.strs), minLevel: minLevel, maxDepth: maxDepth, need: [2]bool{need[autoFold], need[autoSens]},
		scans: scans, sel: t.sel}
	p.sel.books = slices.Clone(t.sel.books)
	p.sel.bookIdx = maps.Clone(t.sel.bookIdx)
	p.quiet = make([]bool, len(p.states))
	p.dozing = key.recursion
	for _, i := range m.order {
		s := &p.states[i]
		switch {
		case s.stage != stagePending:
		case s.mode == modeKeys && m.entries[i].litOnly && s.level == 0 && s.ctx == 0:
			// What passEntry sets for it in pass 1 when no key of it is in
			// the scanned chat (and then turn.sleeps holds).
			s.pass, s.verdict, s.chatChecked, s.dormant = 1, vNoKeyMatch, true, p.dozing
			s.noDetail()
			p.quiet[i] = true
			p.quietN++
		default:
			p.loud = append(p.loud, i)
		}
	}
	for _, i := range m.order { // evaluation order, as semNear's
		if p.states[i].scored {
			at, ok := in.Semantic.Scores.(CandidateSet).Index(in.Entries[i].ID)
			if !ok {
				return // no candidate of the set it was scored by: no plan
			}
			p.scored, p.at = append(p.scored, int32(i)), append(p.at, at)
		}
	}
	if len(p.at) > 0 {
		if _, ok := in.Semantic.Scores.(NonzeroScores); ok {
			p.indexNonzero()
		}
	}
	m.plan.Store(p)
}

// indexNonzero sets p's entryAt, posOf and keyless and its scored
// states' scores to 0, for turns whose scores are NonzeroScores (applyNonzero).
func (p *gatePlan) indexNonzero() {
	p.entryAt = make([]int32, slices.Max(p.at)+1)
	for k := range p.entryAt {
		p.entryAt[k] = -1
	}
	p.posOf = make([]int32, len(p.states))
	for k := range p.posOf {
		p.posOf[k] = -1
	}
	for k, i := range p.scored {
		s := &p.states[i]
		p.entryAt[p.at[k]], p.posOf[i], s.score = i, p.at[k], 0
		if s.mode == modeSemantic {
			p.keyless = append(p.keyless, i)
		}
	}
}

// applyNonzero sets the scores of a plan's turn whose candidates mostly
// score 0 (NonzeroScores; the plan's states hold 0) and lists in t.semNear
// what semanticPass needs without a trace: the keyless candidates and
// those at or above the threshold (> 0), in evaluation order. Without a
// trace, scores that keep their sums (AboveScores) set those at or above
// the threshold alone: the others stay at the plan's 0 until the result
// reads the admitted ones' from the sums.
func (t *turn) applyNonzero(p *gatePlan, nz NonzeroScores) {
	sc := t.ts.s
	thr := t.in.Semantic.Threshold
	var (
		at     []int32
		scores []float32
	)
	if ab, ok := nz.(AboveScores); ok && !t.trace {
		at, scores, t.sums, t.sumsNorm = ab.Above(thr, sc.simAt[:0], sc.simScores[:0])
		t.above = ab
	} else {
		at, scores = nz.Nonzero(sc.simAt[:0], sc.simScores[:0])
	}
	sc.simAt, sc.simScores = at, scores
	near := append(sc.semNear[:0], p.keyless...)
	for k, a := range at {
		if int(a) >= len(p.entryAt) || p.entryAt[a] < 0 {
			continue
		}
		i := p.entryAt[a]
		s := &t.st[i]
		s.score = scores[k]
		if float64(s.score) >= thr && s.mode != modeSemantic {
			near = append(near, i)
		}
	}
	if len(near) > len(p.keyless) {
		rank := t.m.rank
		slices.SortFunc(near, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	}
	sc.semNear, t.semNear, t.semPlanned = near, near, true
}

// plannedPass is pass 1 (pass) of a turn whose gates came from plan p: it
// evaluates, in evaluation order, the plan's loud entries and the quiet
// ones the chat scan marked (their states set back to what the gates
// left), and counts the other quiet entries pending with the no_key_match
// the plan's states hold. When the plan is dozing and no similarity pass
// follows, it files the entries still pending for the recursive passes'
// worklist as it goes (the other quiet ones sleep already).
func (t *turn) plannedPass(ctx context.Context, p *gatePlan, curLevel int, passed []int32) ([]int32, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	sc := t.ts.s
	// work holds the marked quiet entries' ranks (evaluation positions),
	// sorted.
	work := sc.planWork[:0]
	rank, order := t.m.rank, t.m.order
	for _, i := range sc.candList {
		if p.quiet[i] {
			s := &t.st[i]
			s.verdict, s.chatChecked, s.dormant = vNone, false, false
			work = append(work, rank[i])
		}
	}
	sc.planWork = work[:0] // kept for the next turn before the loop below consumes work
	pending := p.quietN - len(work)
	filing := p.dozing && t.rx.on && t.in.Semantic == nil
	if filing {
		t.startWorklist(pending)
	}
	slices.Sort(work)
	loud := p.loud
	for k := 0; len(loud) > 0 || len(work) > 0; k++ {
		if k%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		var i int32
		if len(work) == 0 || len(loud) > 0 && rank[loud[0]] < work[0] {
			i, loud = loud[0], loud[1:]
		} else {
			i, work = order[work[0]], work[1:]
		}
		ok, still, err := t.passEntry(i, 1, curLevel)
		switch {
		case err != nil:
			return nil, 0, err
		case ok:
			passed = append(passed, i)
		case still:
			pending++
			if filing {
				t.file(i)
			}
		}
	}
	if t.in.Semantic != nil {
		var err error
		if passed, err = t.semanticPass(passed); err != nil {
			return nil, 0, err
		}
	}
	return passed, pending, nil
}

// cloneSettings copies s with its own copies of the values it points to,
// so that a caller changing its settings later cannot change a plan's.
func cloneSettings(s lore.BookSettings) lore.BookSettings {
	for _, p := range []**int{&s.ScanDepth, &s.BudgetLimit, &s.MaxRecursionSteps, &s.MaxBudgetShare} {
		*p = clonePtr(*p)
	}
	for _, p := range []**bool{&s.Recursive, &s.CaseSensitive, &s.WholeWords, &s.SemanticAllEntries} {
		*p = clonePtr(*p)
	}
	return s
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// planFlags sets m.planOff and m.msgGated from the compiled entries.
func (m *Matcher) planFlags(entries []lore.Entry) {
	for i := range m.entries {
		ce := &m.entries[i]
		m.planOff = m.planOff || ce.match != 0 || ce.filtered
		m.msgGated = m.msgGated || !ce.gateFree || entries[i].Delay > 0
	}
}

// channelLists records whether an entries array lists channels
// (Matcher.channelFree), by its first element as gatePlan.fits tells
// arrays apart.
type channelLists struct {
	first *lore.Entry
	n     int
	any   bool
}

// channelFree reports whether no list of channels can gate a turn of in
// (gateCache.gate reads an entry's own list or its collection's): no
// entry and no collection of in lists any, so every channel passes the
// same gates and one plan serves the turns of all channels. What it found
// for in's entries array is kept for the next turn.
func (m *Matcher) channelFree(in *Input) bool {
	for _, c := range in.Collections {
		if len(c.ChannelIDs) > 0 {
			return false
		}
	}
	first := &in.Entries[0]
	if l := m.chanLists.Load(); l != nil && l.first == first && l.n == len(in.Entries) {
		return !l.any
	}
	l := &channelLists{first: first, n: len(in.Entries)}
	for i := range in.Entries {
		if len(in.Entries[i].ChannelIDs) > 0 {
			l.any = true
			break
		}
	}
	m.chanLists.Store(l)
	return !l.any
}
