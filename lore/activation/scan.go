package activation

import (
	"regexp"
	"strings"

	"loregate/lore"
)

// dynKeys are the macro keys of a Matcher resolved for one set of names:
// literal ones in their own automata (slots autoDynFold and autoDynSens),
// regex ones appended after the Matcher's regexes.
type dynKeys struct {
	user, char, bot string
	autos           [2]*automaton
	// refs holds the resolved key of each Matcher.macros entry.
	refs    []keyRef
	regexes []*regexp.Regexp
	costs   []int64
}

// dynFor returns the macro keys of m resolved for the names, reusing the
// last resolution when the names are the same (the common case: one
// conversation's turns). A key whose macro has no name (empty user or
// char) never matches, nor does one that resolves to blank text (case
// BUG-35).
func (m *Matcher) dynFor(user, char, bot string) *dynKeys {
	if len(m.macros) == 0 {
		return nil
	}
	if d := m.dyn.Load(); d != nil && d.user == user && d.char == char && d.bot == bot {
		return d
	}
	d := &dynKeys{user: user, char: char, bot: bot, refs: make([]keyRef, len(m.macros))}
	nz := newNormalizer()
	var pats [2][][]byte
	idx := [2]map[string]int32{{}, {}}
	for i, mk := range m.macros {
		key := ResolveIdentity(mk.text, user, char, bot)
		if strings.TrimSpace(key) == "" || hasIdentityMacro(key) {
			continue // keyBlank: never matches
		}
		if m.mo.RegexKeys {
			if src, n, ok := lore.RegexKeySource(key); ok {
				re, size, _, _ := lore.CompileRegexKey(src, n)
				ref := keyRef{kind: keyRegex, node: int32(len(m.regexes) + len(d.regexes))}
				if re == nil {
					ref.kind = keyBadRegex
				}
				d.regexes = append(d.regexes, re)
				d.costs = append(d.costs, int64(size))
				d.refs[i] = ref
				continue
			}
		}
		slot := 0
		if mk.sens {
			slot = 1
		}
		p := mark(nil, nz.normalize(key, !mk.sens), mk.whole)
		j, seen := idx[slot][string(p)]
		if !seen {
			j = int32(len(pats[slot]))
			idx[slot][string(p)] = j
			pats[slot] = append(pats[slot], p)
		}
		d.refs[i] = keyRef{kind: keyLiteral, auto: uint8(autoDynFold + slot), node: j}
	}
	for slot := range pats {
		if len(pats[slot]) == 0 {
			continue
		}
		a, ends := buildAutomaton(pats[slot], slot == 0, maxDenseCells/8)
		d.autos[slot] = a
		for i := range d.refs {
			if d.refs[i].kind == keyLiteral && int(d.refs[i].auto) == autoDynFold+slot {
				d.refs[i].node = ends[d.refs[i].node]
			}
		}
	}
	m.dyn.Store(d)
	return d
}

func (m *Matcher) getScratch() *scratch {
	if s, ok := m.pool.Get().(*scratch); ok {
		return s
	}
	s := &scratch{}
	for slot, a := range m.autos {
		if a != nil {
			s.done[slot] = make([]uint32, len(a.term))
			s.rdone[slot] = make([]uint32, len(a.term))
		}
	}
	s.states = make([]entryState, len(m.ids))
	s.cand = make([]uint32, len(m.ids))
	s.wakeKey = make([]int32, len(m.ids))
	return s
}

// recItem is the admitted content of one entry, scanned by later passes
// (turnScan.itemText). It holds no pointer, so that recording one passes
// nothing through the garbage collector's write barrier.
type recItem struct {
	src int32 // entry position
	// alt is 0 when the text is the entry's body as compiled, whose hits
	// are memoised (Matcher.content, turnScan.itemHits); else the text
	// (identity macros resolved) is turnScan.alts[alt-1], and is scanned.
	alt int32
}

// turnScan holds the matches of one turn: for every terminal node, the
// newest chat message (absolute index) and the newest recursion item it
// occurred in, and the same for regex keys, computed lazily.
type turnScan struct {
	m       *Matcher
	s       *scratch
	msgs    []string
	autos   [numAutos]*automaton
	regexes []*regexp.Regexp
	// costs are the regexes' program sizes; reLeft is what is left of the
	// turn's RegexBudget, reSkips counts regex evaluations skipped because
	// it ran out.
	costs   []int64
	reLeft  int64
	reSkips int
	dyn     *dynKeys
	g0      [numAutos]uint32
	start   int
	items   []recItem
	alts    []string
	rg0     [numAutos]uint32
	// track: addRecursion lists in scratch.rtouched the nodes of the own
	// automata that the items from batch on reach first (startBatch).
	track bool
	batch uint32
	// marked counts the items whose nodes are marked (flush); plain: an
	// item of the newest batch has no memoised hits.
	marked int
	plain  bool
	nz     *normalizer
	// texts caches the matching form of non-ASCII texts across turns
	// (Options.Texts; may be nil).
	texts *TextCache
	// memo: scanWindow marks the own automata's nodes of the messages
	// from the Matcher's chat memo (chatmemo.go).
	memo bool
}

// newTurnScan prepares the scratch of one turn for m and the names' macro
// keys; maxItems bounds the recursion items the turn may add.
func (m *Matcher) newTurnScan(s *scratch, msgs []string, dyn *dynKeys, maxItems int) *turnScan {
	ts := &turnScan{m: m, s: s, msgs: msgs, dyn: dyn, regexes: m.regexes, costs: m.regexCost, reLeft: RegexBudget, items: s.items[:0], alts: s.alts[:0]}
	ts.autos[autoFold], ts.autos[autoSens] = m.autos[autoFold], m.autos[autoSens]
	if dyn != nil {
		ts.autos[autoDynFold], ts.autos[autoDynSens] = dyn.autos[0], dyn.autos[1]
		if len(dyn.regexes) > 0 {
			ts.regexes = append(m.regexes[:len(m.regexes):len(m.regexes)], dyn.regexes...)
			ts.costs = append(m.regexCost[:len(m.regexCost):len(m.regexCost)], dyn.costs...)
		}
	}
	for slot, a := range ts.autos {
		if a == nil {
			continue
		}
		for _, d := range []*[]uint32{&s.done[slot], &s.rdone[slot]} {
			if len(*d) < len(a.term) {
				*d = make([]uint32, len(a.term))
			}
		}
		if uint64(s.rgen[slot])+uint64(maxItems)+2 >= 1<<32 {
			clear(s.rdone[slot])
			s.rgen[slot] = 0
		}
		ts.rg0[slot] = s.rgen[slot] + 1
	}
	for slot := range s.touched {
		s.touched[slot] = s.touched[slot][:0]
	}
	n := len(ts.regexes)
	for _, r := range []*[]int{&s.reFound, &s.reDepth, &s.reRec, &s.reRecN} {
		if cap(*r) < n {
			*r = make([]int, n)
		}
		*r = (*r)[:n]
	}
	for i := range n {
		s.reFound[i], s.reDepth[i], s.reRec[i], s.reRecN[i] = -1, 0, -1, 0
	}
	return ts
}

// resolve returns the key a macro key stands for this turn.
func (ts *turnScan) resolve(ref *keyRef) *keyRef {
	if ref.kind == keyMacro {
		if ts.dyn == nil {
			return &keyRef{}
		}
		return &ts.dyn.refs[ref.node]
	}
	return ref
}

// usesAutos returns the automaton slots the keys of ce need this turn.
func (ts *turnScan) usesAutos(ce *compiledEntry, need *[numAutos]bool) {
	need[autoFold] = need[autoFold] || ce.autos&(1<<autoFold) != 0
	need[autoSens] = need[autoSens] || ce.autos&(1<<autoSens) != 0
	if ts.dyn != nil {
		need[autoDynFold] = need[autoDynFold] || ts.dyn.autos[0] != nil
		need[autoDynSens] = need[autoDynSens] || ts.dyn.autos[1] != nil
	}
}

// scanWindow scans the newest w messages once per needed automaton.
func (ts *turnScan) scanWindow(w int, need [numAutos]bool) {
	s, msgs := ts.s, ts.msgs
	ts.start = len(msgs) - w
	if w <= 0 {
		ts.start = len(msgs)
		return
	}
	var hits []*contentHits
	if (need[autoFold] && ts.autos[autoFold] != nil || need[autoSens] && ts.autos[autoSens] != nil) && ts.memo && fitsMemo(msgs[ts.start:]) {
		hits = ts.chatHits(msgs[ts.start:], s.chatHits)
		s.chatHits = hits
	}
	for slot, a := range ts.autos {
		if a == nil || !need[slot] {
			continue
		}
		if uint64(s.gen[slot])+uint64(w)+1 >= 1<<32 {
			clear(s.done[slot])
			s.gen[slot] = 0
		}
		g0 := s.gen[slot] + 1
		ts.g0[slot] = g0
		fold := slot == autoFold || slot == autoDynFold
		mk := marks{done: s.done[slot], g0: g0}
		if slot < len(s.touched) {
			mk.touched = &s.touched[slot]
		}
		for k, msg := range msgs[ts.start:] {
			if hits != nil && slot < len(hits[k].nodes) {
				mk.mark(hits[k].nodes[slot], g0+uint32(k))
			} else {
				ts.scanText(a, msg, fold, &mk, g0+uint32(k))
			}
		}
		s.gen[slot] = g0 + uint32(w) - 1
	}
}

// scanText runs one text through automaton a, marking done[node] = gen for
// every key occurring in it.
func (ts *turnScan) scanText(a *automaton, text string, fold bool, mk *marks, gen uint32) {
	if isASCII(text) {
		a.scanASCII(text, mk, gen)
		return
	}
	if ts.nz == nil {
		ts.nz = newNormalizer()
	}
	var marked []byte
	marked, ts.s.buf = markedText(ts.s.buf, ts.nz, ts.texts, text, fold)
	a.scanMarked(marked, mk, gen)
}

// addRecursion records the admitted content of entry src for later
// passes; memo says text is the entry's body as compiled (no identity
// macro), so the key nodes it reaches in the own automata, and the
// entries they wake (contentHits), are memoised with the Matcher the
// first time. The item's nodes are marked later, when a pass reads them
// (flush): a recursive pass whose new items are all memoised wakes the
// sleeping entries from the memo (turn.wakeByContent) without them.
func (ts *turnScan) addRecursion(src int32, text string, memo bool) {
	var alt int32
	if memo {
		if ts.m.content[src].Load() == nil {
			ts.contentHits(src, text)
		}
	} else {
		ts.plain = ts.plain || ts.track
		ts.alts = append(ts.alts, text)
		alt = int32(len(ts.alts))
	}
	ts.items = append(ts.items, recItem{src: src, alt: alt})
}

// itemText is the text of recursion item k.
func (ts *turnScan) itemText(k int) string {
	if it := ts.items[k]; it.alt > 0 {
		return ts.alts[it.alt-1]
	}
	return ts.m.entries[ts.items[k].src].body
}

// itemHits are the memoised hits of recursion item k's text, nil when
// it is scanned (recItem.alt).
func (ts *turnScan) itemHits(k int) *contentHits {
	if it := ts.items[k]; it.alt == 0 {
		return ts.m.content[it.src].Load()
	}
	return nil
}

// flush marks the nodes of the recursion items not marked yet, in item
// order, before anything reads the marks (recLit).
func (ts *turnScan) flush() {
	for k := ts.marked; k < len(ts.items); k++ {
		ts.markItem(k)
	}
	ts.marked = len(ts.items)
}

// markItem marks the nodes recursion item k reaches: from its memoised
// hits in the own automata, else by a scan; the macro automata are
// scanned.
func (ts *turnScan) markItem(k int) {
	s := ts.s
	scan := 0
	if hits := ts.itemHits(k); hits != nil {
		// Only an own automaton's nodes are memoised (none when it is
		// nil); the macro automata are scanned.
		if fold := hits.nodes[autoFold]; len(fold) > 0 {
			ts.markRec(autoFold, fold, uint32(k))
		}
		if sens := hits.nodes[autoSens]; len(sens) > 0 {
			ts.markRec(autoSens, sens, uint32(k))
		}
		if ts.autos[autoDynFold] == nil && ts.autos[autoDynSens] == nil {
			return
		}
		scan = len(hits.nodes)
	}
	track := ts.track && uint32(k) >= ts.batch
	for slot := scan; slot < numAutos; slot++ {
		a := ts.autos[slot]
		if a == nil {
			continue
		}
		gen := ts.rg0[slot] + uint32(k)
		s.rgen[slot] = gen
		mk := marks{done: s.rdone[slot]}
		if track && slot < len(s.rtouched) {
			mk.g0, mk.touched = ts.rg0[slot]+ts.batch, &s.rtouched[slot]
		}
		ts.scanText(a, ts.itemText(k), slot == autoFold || slot == autoDynFold, &mk, gen)
	}
}

// markRec marks the memoised nodes of recursion item k in own automaton
// slot, listing in scratch.rtouched those the batch has not reached yet.
// scratch.rgen is the newest generation marked (an item that reaches no
// node marks none).
func (ts *turnScan) markRec(slot int, nodes []int32, k uint32) {
	s := ts.s
	gen := ts.rg0[slot] + k
	s.rgen[slot] = gen
	done, g0 := s.rdone[slot], ts.rg0[slot]+ts.batch
	track := ts.track && k >= ts.batch
	for _, n := range nodes {
		if track && done[n] < g0 {
			s.rtouched[slot] = append(s.rtouched[slot], n)
		}
		done[n] = gen
	}
}

// startBatch begins a new batch of recursion items: from now on,
// addRecursion lists the own automata's nodes these items reach and the
// items before them did not (scratch.rtouched).
func (ts *turnScan) startBatch() {
	ts.track, ts.batch, ts.plain = true, uint32(len(ts.items)), false
	for slot := range ts.s.rtouched {
		ts.s.rtouched[slot] = ts.s.rtouched[slot][:0]
	}
}

// matchRegex is the one place where a regex key is evaluated against a
// text (chat message or recursion item). It charges the turn's RegexBudget;
// once that is spent, it matches nothing and counts the skip (reSkips).
func (ts *turnScan) matchRegex(re int32, text string) bool {
	cost := int64(len(text)+1) * ts.costs[re]
	if cost > ts.reLeft {
		// Spent for the rest of the turn, so the outcome does not depend
		// on the order of later, cheaper scans.
		ts.reLeft = 0
		ts.reSkips++
		return false
	}
	ts.reLeft -= cost
	return ts.regexes[re].MatchString(text)
}

// hit returns the newest chat message index in which the key occurs among
// the newest depth messages of the window, or -1.
func (ts *turnScan) hit(ref *keyRef, depth int) int {
	ref = ts.resolve(ref)
	switch ref.kind {
	case keyLiteral:
		g0 := ts.g0[ref.auto]
		if g0 == 0 {
			return -1
		}
		d := ts.s.done[ref.auto][ref.node]
		if d < g0 {
			return -1
		}
		return ts.start + int(d-g0)
	case keyRegex:
		s := ts.s
		n := len(ts.msgs)
		if depth > n {
			depth = n
		}
		re := ref.node
		for s.reFound[re] < 0 && s.reDepth[re] < depth {
			i := n - 1 - s.reDepth[re]
			if ts.matchRegex(re, ts.msgs[i]) {
				s.reFound[re] = i
			}
			s.reDepth[re]++
		}
		return s.reFound[re]
	}
	return -1
}

// markCandidates stamps, after scanWindow, every litOnly entry one of
// whose primary keys occurs in the scanned chat window (hit(ref, depth) >=
// 0 for a depth covering the window), from the nodes the scan touched; the
// turn then decides the other litOnly entries without reading their keys
// (see candidate).
func (ts *turnScan) markCandidates() {
	s, m := ts.s, ts.m
	s.candGen++
	if s.candGen == 0 {
		clear(s.cand)
		s.candGen = 1
	}
	s.candList = s.candList[:0]
	for slot := range s.touched {
		ke := &m.keyEntries[slot]
		for _, n := range s.touched[slot] {
			for _, e := range ke.ents[ke.start[n]:ke.start[n+1]] {
				if s.cand[e] != s.candGen {
					s.cand[e] = s.candGen
					s.candList = append(s.candList, e)
				}
			}
		}
	}
}

// candidate reports whether litOnly entry i was stamped by markCandidates
// this turn, i.e. whether one of its primary keys occurs in the scanned
// chat window.
func (ts *turnScan) candidate(i int32) bool {
	return ts.s.cand[i] == ts.s.candGen
}

// recLit is recHit for a literal key (kind keyLiteral, not a macro key).
func (ts *turnScan) recLit(ref *keyRef) int {
	if ts.marked < len(ts.items) {
		ts.flush()
	}
	// A mark older than the turn's first item (d < rg0) wraps to more
	// than the turn's items: newTurnScan keeps rg0 + maxItems below 2^32.
	k := ts.s.rdone[ref.auto][ref.node] - ts.rg0[ref.auto]
	if k >= uint32(len(ts.items)) {
		return -1
	}
	return int(k)
}

// recHit returns the newest recursion item in which the key occurs, or -1.
func (ts *turnScan) recHit(ref *keyRef) int {
	if len(ts.items) == 0 {
		return -1
	}
	ref = ts.resolve(ref)
	switch ref.kind {
	case keyLiteral:
		return ts.recLit(ref)
	case keyRegex:
		s := ts.s
		re := ref.node
		for ; s.reRecN[re] < len(ts.items); s.reRecN[re]++ {
			if ts.matchRegex(re, ts.itemText(s.reRecN[re])) {
				s.reRec[re] = s.reRecN[re]
			}
		}
		return s.reRec[re]
	}
	return -1
}
