package activation

import (
	"cmp"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"loregate/lore"
	"loregate/lore/decorator"
)

// MatchOptions are the options a compiled Matcher depends on. Two turns with
// equal MatchOptions and the same entries can share a Matcher.
type MatchOptions struct {
	Substring     bool
	CaseSensitive bool
	RegexKeys     bool
}

// MatchOptions returns the subset of o that Compile uses.
func (o Options) MatchOptions() MatchOptions {
	return MatchOptions{Substring: o.Substring, CaseSensitive: o.CaseSensitive, RegexKeys: o.RegexKeys}
}

type keyKind uint8

const (
	keyBlank keyKind = iota
	keyLiteral
	keyRegex
	keyBadRegex
	// keyMacro is a key holding {{user}}, {{char}} or {{bot}}: node indexes
	// Matcher.macros, and each turn resolves it for the turn's names.
	keyMacro
)

// Automaton slots: keys matched case-insensitively (folded) and
// case-sensitively (NFKC only), then the same two for the macro keys of
// one set of names (built per set of names, see dynKeys).
const (
	autoFold    = 0
	autoSens    = 1
	autoDynFold = 2
	autoDynSens = 3
	numAutos    = 4
)

// keyRef is a compiled key: a terminal node of an automaton (literal) or a
// regex index (regex and bad regex), 8 bytes so the per-turn walk over
// every key stays in cache.
type keyRef struct {
	kind keyKind
	auto uint8
	// node is the terminal node (literal) or the regex index (regex).
	node int32
}

type compiledEntry struct {
	// The fields a turn reads for every entry it evaluates, admits or
	// reports come first, so that they share few cache lines.

	// litOnly: every primary key is a literal without macros and the
	// entry has no @@exclude_keys(_all), so a first pass in which none of
	// its primary keys' terminal nodes was reached decides no_key_match
	// without evaluate.
	litOnly bool
	// keysOnly: litOnly, and nothing but the primary keys decides the
	// entry in evaluate (no secondary keys, chance 100; recEntry).
	keysOnly bool
	// gateFree: no decorator of preGate applies and the chance is above
	// 0, so preGate passes the entry unless its Delay or an open cooldown
	// stops it.
	gateFree bool
	// hasPrimary: at least one primary key can match.
	hasPrimary bool
	// constant and ignoreBudget are the entry's Constant and
	// IgnoreBudget, read with the rest of its compiled state; injected:
	// its kind leaves the two placements (lore.PositionKind.Injected).
	constant, ignoreBudget, injected bool
	// ident: body holds an identity macro (costOf resolves it).
	ident                  bool
	excludeRec, preventRec bool
	state                  StateUse
	// body is the content without its decorator lines; units its length
	// in UTF-16 code units; revDepth is explained with placing below. A
	// turn reads the three for every entry it admits.
	body     string
	units    int
	revDepth int
	primary  []keyRef
	// exclude and excludeAll are the @@exclude_keys and @@exclude_keys_all
	// keys.
	exclude, excludeAll []keyRef
	// secondaryN counts non-blank secondary keys (regex errors included).
	secondaryN int
	// order, priority and probability are the entry's, decorators applied.
	order, priority, probability int
	placement                    lore.Placement
	role                         lore.Role
	// kind, depth and outlet are the entry's position, decorators applied
	// (revDepth >= 0: @@reverse_depth, resolved per turn); placing is
	// what every result that admits the entry points at, its Position the
	// reported position when that does not depend on the turn (revDepth <
	// 0). match is the entry's context-source mask and filtered says it
	// has a character filter or generation types; gens is the set of its
	// generation types (genBit; 0 none listed) (compilePosition).
	placing  Placing
	dec      decorator.Set
	kind     lore.PositionKind
	depth    int
	outlet   string
	match    uint8
	gens     uint8
	filtered bool

	secondary []keyRef
	// primaryText holds the source text of each primary key, for the trace.
	primaryText []string
	// sens and whole are the entry's effective case and whole-word rules
	// (for the trace's near misses).
	sens, whole bool
	// autos has bit 1<<slot set when a literal key uses that automaton.
	autos uint8
	// regexErr is the first regex compile error of the entry, for the trace.
	regexErr string
	// note lists the decorators the engine ignores, for the trace.
	note string
	// groups are the entry's inclusion groups (Entry.Group split on
	// commas, trimmed, empty names dropped).
	groups []string
	// pad makes the size a multiple of 64 bytes, so that the fields at
	// the top share the first cache line of every entry of the
	// Matcher's array (TestCompiledEntryLines).
	_ [48]byte
}

// macroKey is a key with identity macros, resolved per turn.
type macroKey struct {
	text        string
	sens, whole bool
}

// Matcher is the compiled form of one set of entries: an Aho-Corasick
// automaton per case mode over all literal keys, the compiled regex keys,
// and the insertion order. Build it with Compile (or through a Cache) and
// run turns with Activate. A Matcher is immutable and safe for concurrent
// use; it is tied to the entries it was compiled from (same length and ids
// in the same positions), and Activate refuses other entries.
type Matcher struct {
	mo      MatchOptions
	ids     []int64
	entries []compiledEntry
	// order holds entry positions sorted by (Order, ID, position), the
	// effective order (@@order applied).
	order []int32
	// rank is the inverse of order: rank[order[k]] == k. claim is each
	// entry's place in the budget's claim order before stickiness
	// (claimKeys); byClaim holds the positions sorted by (claim, rank),
	// claimRank is its inverse.
	rank      []int32
	claim     []int32
	byClaim   []int32
	claimRank []int32
	autos     [2]*automaton
	regexes   []*regexp.Regexp
	// regexCost is each regex's program size in instructions: scanning n
	// bytes costs n+1 times that many units of the turn's RegexBudget.
	regexCost []int64
	macros    []macroKey
	// books is the signature of the book settings the keys were compiled
	// with (see bookSignature).
	books     string
	stateful  bool
	hasGroups bool
	// keyEntries indexes the litOnly entries by the terminal nodes of
	// their primary keys, per own automaton; special lists the others and
	// the entries with context sources (sweepSet).
	keyEntries [2]nodeEntries
	special    []int32
	pool       sync.Pool
	// dyn memoises the macro keys of the last set of names.
	dyn atomic.Pointer[dynKeys]
	// ctxHits memoises the matches of the last context text (context.go).
	ctxHits atomic.Pointer[ctxHits]
	// plan memoises the gates of the last repeated turn, planSeen the key
	// of the last plannable turn (gateplan.go); planOff: some entry's
	// gates read context sources or filters, so no turn is planned;
	// msgGated: some entry's gates read the message count; chanLists:
	// whether the entries array of the last turn lists channels
	// (channelFree).
	plan              atomic.Pointer[gatePlan]
	planSeen          atomic.Pointer[planKey]
	planOff, msgGated bool
	chanLists         atomic.Pointer[channelLists]
	// content memoises, per entry, the key nodes its content reaches as
	// recursion text (recindex.go); wakes, the entries it wakes, when
	// none or one (wakeSum: 8 bytes an entry, read without the memo's
	// object).
	content []atomic.Pointer[contentHits]
	wakes   []atomic.Uint64
	// chat memoises the key nodes of recent chat messages (chatmemo.go).
	chat chatMemo
	// tokens caches token counts (see tokenCache).
	tokens tokenCache
}

type scratch struct {
	gen  [numAutos]uint32
	done [numAutos][]uint32
	// rgen and rdone are gen and done for recursion text.
	rgen  [numAutos]uint32
	rdone [numAutos][]uint32
	buf   []byte
	// reFound is the newest message index a regex matched in (-1 none);
	// reDepth how many newest messages were scanned for it. reRec is the
	// recursion item a regex matched in (-1 none), reRecN how many items
	// were tested.
	reFound []int
	reDepth []int
	reRec   []int
	reRecN  []int
	// Per-entry state of Activate, and the strings it indexes (turn.strs).
	states []entryState
	strs   []string
	// simScores holds the similarity scores a gate plan's turn reads
	// (gateplan.go), simAt their candidate positions.
	simScores []float32
	simAt     []int32
	semNear   []int32
	// touched lists the terminal nodes of the Matcher's own automata
	// (autoFold, autoSens) the turn's chat scan reached; cand[i] ==
	// candGen marks the litOnly entries with a primary key among them.
	touched [2][]int32
	// rtouched is touched for the newest batch of recursion items
	// (turnScan.startBatch).
	rtouched [2][]int32
	// rxActive, rxWork and rxDormant are the buffers of recIndex; mgen
	// and mdone are gen and done for contentHits, hits its node buffer.
	rxActive, rxWork, rxDormant []int32
	// wakeKey[i] is the primary key by which wakeByContent decided entry
	// i in its pass.
	wakeKey []int32
	mgen    [2]uint32
	mdone   [2][]uint32
	hits    []int32
	cand    []uint32
	candGen uint32
	// candList lists the entries markCandidates stamped; planWork is
	// plannedPass's buffer.
	candList, planWork []int32
	// chatHits is scanWindow's buffer of memoised message hits.
	chatHits []*contentHits
	// admitted lists the positions of the entries admitted so far;
	// items and alts are turnScan's buffers; rankBits is inOrder's
	// bitmap, claimKeys and claimArrived claimOrder's buffers.
	admitted     []int32
	items        []recItem
	alts         []string
	rankBits     []uint64
	claimKeys    []uint64
	claimArrived []int32
	// pend and matched are turn.pend's and turn.matched's arrays, kept
	// between turns.
	pend    []heldMatch
	matched []int32
}

// nodeEntries lists, for every node of one automaton, the litOnly entries
// with a primary key ending there: ents[start[node]:start[node+1]].
type nodeEntries struct {
	start, ents []int32
}

// Compile builds the Matcher of entries under mo, with no book settings
// (CompileInput takes them from an Input). Keys are normalised with NFKC
// and (unless case-sensitive) Unicode case folding and marked for the
// word-boundary rule (see the package documentation). Blank keys are
// dropped; regex keys that RE2 cannot compile or that are over the bounds
// of lore.CompileRegexKey never match and are reported by Activate; keys holding
// {{user}}, {{char}} or {{bot}} are resolved per turn. Decorator lines at
// the start of each content are parsed here (lore/decorator). Compile costs
// time linear in the total key size; memory is bounded by a dense table of
// at most 8 MiB per case mode plus a sparse trie proportional to the keys.
func Compile(entries []lore.Entry, mo MatchOptions) *Matcher {
	return compile(&Input{Entries: entries}, mo, maxDenseCells)
}

// CompileInput is Compile for in.Entries with the case-sensitive and
// whole-word defaults of in's book settings (in.Collections[...].Settings
// for Serverwide entries, in.PersonaBook for persona entries). The Matcher
// serves turns whose Input has the same entries and the same values of
// those two settings.
func CompileInput(in *Input, mo MatchOptions) *Matcher {
	return compile(in, mo, maxDenseCells)
}

// bookOf returns the settings of e's book in in.
func bookOf(e *lore.Entry, in *Input) lore.BookSettings {
	if !e.Lineage.IsServerwide() {
		return in.PersonaBook
	}
	name := e.Collection
	if name == "" {
		name = lore.DefaultCollection
	}
	return in.Collections[name].Settings
}

// bookSignature encodes the book settings that compiled keys depend on
// (case-sensitive and whole-word defaults) so that a Matcher can refuse an
// Input whose books changed them.
func bookSignature(in *Input) string {
	sets := func(s *lore.BookSettings) bool { return s.CaseSensitive != nil || s.WholeWords != nil }
	set := sets(&in.PersonaBook)
	for _, c := range in.Collections {
		set = set || sets(&c.Settings)
	}
	if !set {
		return "" // what the builder below gives, without sorting the names
	}
	var b strings.Builder
	add := func(name string, s lore.BookSettings) {
		if s.CaseSensitive == nil && s.WholeWords == nil {
			return
		}
		b.WriteString(strconv.Quote(name))
		for _, p := range []*bool{s.CaseSensitive, s.WholeWords} {
			switch {
			case p == nil:
				b.WriteByte('-')
			case *p:
				b.WriteByte('1')
			default:
				b.WriteByte('0')
			}
		}
	}
	add("", in.PersonaBook)
	for _, name := range slices.Sorted(maps.Keys(in.Collections)) {
		add(name, in.Collections[name].Settings)
	}
	return b.String()
}

// hasIdentityMacro reports whether s holds {{user}}, {{char}} or {{bot}}.
func hasIdentityMacro(s string) bool {
	return strings.Contains(s, "{{") && ResolveIdentity(s, "u", "c", "b") != s
}

// compile is CompileInput with the dense tables capped at denseCap cells.
func compile(in *Input, mo MatchOptions, denseCap uint32) *Matcher {
	entries := in.Entries
	m := &Matcher{mo: mo, ids: make([]int64, len(entries)), entries: make([]compiledEntry, len(entries)), books: bookSignature(in),
		content: make([]atomic.Pointer[contentHits], len(entries)), wakes: make([]atomic.Uint64, len(entries))}
	kc := &keyCompiler{m: m, nz: newNormalizer(), idx: [2]map[string]int32{{}, {}}, reIdx: map[string]int32{},
		regexLeft: int64(MaxMatcherRegexProgram)}
	for i := range entries {
		kc.entry(i, in)
	}
	m.buildAutomata(&kc.pats, denseCap)
	m.sortOrder(entries)
	m.planFlags(entries)
	return m
}

// keyCompiler is the state of compiling the keys of one Matcher: the
// literal patterns of each automaton, the regexes and what is left of
// their program budget.
type keyCompiler struct {
	m  *Matcher
	nz *normalizer
	// pats are the marked literal patterns of each automaton slot; idx
	// maps a pattern to its index in pats.
	pats [2][][]byte
	idx  [2]map[string]int32
	// reIdx maps a regex source to its index in m.regexes; reErrs holds
	// the reason each one that did not compile never matches.
	reIdx  map[string]int32
	reErrs []string
	// regexLeft is what is left of MaxMatcherRegexProgram.
	regexLeft int64
}

// entry compiles the decorators, key settings, keys and groups of entry i
// of in.
func (kc *keyCompiler) entry(i int, in *Input) {
	m := kc.m
	e := &in.Entries[i]
	m.ids[i] = e.ID
	ce := &m.entries[i]
	ce.compileDecorators(e)
	book := bookOf(e, in)
	sens := m.mo.CaseSensitive
	if book.CaseSensitive != nil {
		sens = *book.CaseSensitive
	}
	if e.CaseSensitive != nil {
		sens = *e.CaseSensitive
	}
	whole := !m.mo.Substring
	for _, p := range []*bool{book.WholeWords, e.WholeWords, ce.dec.WholeWords} {
		if p != nil {
			whole = *p
		}
	}
	ce.sens, ce.whole = sens, whole
	kc.addKeys(ce, e.Keys, &ce.primary, true)
	kc.addKeys(ce, ce.dec.AdditionalKeys, &ce.primary, true)
	kc.addKeys(ce, e.SecondaryKeys, &ce.secondary, false)
	ce.secondaryN = len(ce.secondary)
	kc.addKeys(ce, ce.dec.ExcludeKeys, &ce.exclude, false)
	kc.addKeys(ce, ce.dec.ExcludeKeysAll, &ce.excludeAll, false)
	ce.litOnly = len(ce.exclude) == 0 && len(ce.excludeAll) == 0
	for _, r := range ce.primary {
		ce.litOnly = ce.litOnly && r.kind == keyLiteral
	}
	ce.keysOnly = ce.litOnly && ce.secondaryN == 0 && ce.probability >= 100
	m.stateful = m.stateful || ce.state != 0
	for _, g := range strings.Split(e.Group, ",") {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(ce.groups, g) {
			ce.groups = append(ce.groups, g)
		}
	}
	m.hasGroups = m.hasGroups || len(ce.groups) > 0
}

// addKeys compiles keys under ce's case and whole-word settings and
// appends the non-blank ones to dst; primary keys also count towards
// ce.hasPrimary and ce.primaryText.
func (kc *keyCompiler) addKeys(ce *compiledEntry, keys []string, dst *[]keyRef, primary bool) {
	for _, k := range keys {
		r, rerr := kc.key(ce.sens, ce.whole, k)
		if r.kind == keyBlank {
			continue
		}
		if rerr != "" && ce.regexErr == "" {
			ce.regexErr = rerr
		}
		if r.kind == keyLiteral {
			ce.autos |= 1 << r.auto
		}
		if primary {
			ce.hasPrimary = ce.hasPrimary || r.kind != keyBadRegex
			ce.primaryText = append(ce.primaryText, k)
		}
		*dst = append(*dst, r)
	}
}

// key compiles one key: blank, an identity macro (resolved per turn), a
// regex (when MatchOptions.RegexKeys) or a literal. The string is why a
// regex key never matches ("" otherwise).
func (kc *keyCompiler) key(sens, whole bool, key string) (keyRef, string) {
	m := kc.m
	ref := keyRef{}
	if strings.TrimSpace(key) == "" {
		return ref, ""
	}
	if hasIdentityMacro(key) {
		ref.kind, ref.node = keyMacro, int32(len(m.macros))
		m.macros = append(m.macros, macroKey{text: key, sens: sens, whole: whole})
		return ref, ""
	}
	if m.mo.RegexKeys {
		if src, bodyLen, ok := lore.RegexKeySource(key); ok {
			return kc.regex(src, bodyLen)
		}
	}
	slot := autoFold
	if sens {
		slot = autoSens
	}
	p := mark(nil, kc.nz.normalize(key, !sens), whole)
	i, seen := kc.idx[slot][string(p)]
	if !seen {
		i = int32(len(kc.pats[slot]))
		kc.idx[slot][string(p)] = i
		kc.pats[slot] = append(kc.pats[slot], p)
	}
	ref.kind, ref.auto, ref.node = keyLiteral, uint8(slot), i
	return ref, ""
}

// regex compiles the regex key of source src (body bodyLen bytes) once
// per Matcher, within what is left of the program budget.
func (kc *keyCompiler) regex(src string, bodyLen int) (keyRef, string) {
	m := kc.m
	ref := keyRef{}
	i, seen := kc.reIdx[src]
	if !seen {
		i = int32(len(m.regexes))
		kc.reIdx[src] = i
		var re *regexp.Regexp
		var size int64
		err := regexTotalDetail
		if kc.regexLeft > 0 {
			var n int
			re, n, err, _ = lore.CompileRegexKey(src, bodyLen)
			if size = int64(n); re != nil && size > kc.regexLeft {
				re, size, err = nil, 0, regexTotalDetail
			}
			// Once one key does not fit, no later one is
			// compiled: the rule does not depend on sizes.
			kc.regexLeft = max(kc.regexLeft-size, 0)
			if re == nil && err == regexTotalDetail {
				kc.regexLeft = 0
			}
		}
		m.regexes = append(m.regexes, re)
		m.regexCost = append(m.regexCost, size)
		kc.reErrs = append(kc.reErrs, err)
	}
	ref.node = i
	if m.regexes[i] == nil {
		ref.kind = keyBadRegex
		return ref, kc.reErrs[i]
	}
	ref.kind = keyRegex
	return ref, ""
}

// buildAutomata builds the automaton of each slot with patterns and points
// every literal key at its terminal node.
func (m *Matcher) buildAutomata(pats *[2][][]byte, denseCap uint32) {
	for slot := range pats {
		if len(pats[slot]) == 0 {
			continue
		}
		a, ends := buildAutomaton(pats[slot], slot == autoFold, denseCap)
		m.autos[slot] = a
		m.keyEntries[slot] = m.indexKeys(slot, len(a.term), ends)
		for i := range m.entries {
			ce := &m.entries[i]
			for _, refs := range [][]keyRef{ce.primary, ce.secondary, ce.exclude, ce.excludeAll} {
				for j := range refs {
					if refs[j].kind == keyLiteral && int(refs[j].auto) == slot {
						refs[j].node = ends[refs[j].node]
					}
				}
			}
		}
	}
}

// sortOrder sets m.order (the positions of entries in effective insertion
// order, then id) and m.rank (each position's place in it).
func (m *Matcher) sortOrder(entries []lore.Entry) {
	m.order = make([]int32, len(entries))
	for i := range m.order {
		m.order[i] = int32(i)
	}
	slices.SortStableFunc(m.order, func(a, b int32) int {
		if c := cmp.Compare(m.entries[a].order, m.entries[b].order); c != 0 {
			return c
		}
		return cmp.Compare(entries[a].ID, entries[b].ID)
	})
	m.rank = make([]int32, len(entries))
	for k, i := range m.order {
		m.rank[i] = int32(k)
	}
	m.claimKeys(entries)
	m.special = nil
	for i := range m.entries {
		if ce := &m.entries[i]; !ce.litOnly || ce.match != 0 {
			m.special = append(m.special, int32(i))
		}
	}
}

// claimKeys sets m.claim: each entry's place in the order in which a
// pass's entries claim the budget (rule 6 of Activate), stickiness and
// arrival aside: @@ignore_on_max_context last, then higher priority
// first, then Always On before activated. Entries that tie share a place.
func (m *Matcher) claimKeys(entries []lore.Entry) {
	compare := func(a, b int32) int {
		ca, cb := &m.entries[a], &m.entries[b]
		return cmp.Or(cmpFalseFirst(ca.dec.IgnoreOnMaxContext, cb.dec.IgnoreOnMaxContext), cmp.Compare(cb.priority, ca.priority),
			cmpFalseFirst(!entries[a].Constant, !entries[b].Constant))
	}
	byKey := slices.Clone(m.order)
	slices.SortStableFunc(byKey, compare) // ties keep m.order's order
	m.claim = make([]int32, len(entries))
	place := int32(0)
	for k, i := range byKey {
		if k > 0 && compare(byKey[k-1], i) != 0 {
			place++
		}
		m.claim[i] = place
	}
	m.byClaim, m.claimRank = byKey, make([]int32, len(entries))
	for k, i := range byKey {
		m.claimRank[i] = int32(k)
	}
}

// cmpFalseFirst orders false before true.
func cmpFalseFirst(x, y bool) int {
	if x == y {
		return 0
	}
	return boolFirst(!x)
}

// indexKeys builds the nodeEntries of slot (an automaton of nodes nodes)
// with ends mapping a pattern to its terminal node: every litOnly entry
// once per distinct primary key node.
func (m *Matcher) indexKeys(slot, nodes int, ends []int32) nodeEntries {
	ne := nodeEntries{start: make([]int32, nodes+1)}
	each := func(f func(node, entry int32)) {
		for i := range m.entries {
			ce := &m.entries[i]
			if !ce.litOnly {
				continue
			}
			for j, r := range ce.primary {
				if int(r.auto) == slot && !slices.ContainsFunc(ce.primary[:j], func(q keyRef) bool { return q == r }) {
					f(ends[r.node], int32(i))
				}
			}
		}
	}
	each(func(node, _ int32) { ne.start[node+1]++ })
	for n := range nodes {
		ne.start[n+1] += ne.start[n]
	}
	ne.ents = make([]int32, ne.start[nodes])
	next := slices.Clone(ne.start[:nodes])
	each(func(node, entry int32) {
		ne.ents[next[node]] = entry
		next[node]++
	})
	return ne
}

// compileDecorators parses e's decorator lines and sets the decorator
// layer of ce: overridden fields, the content body and the trace note.
func (ce *compiledEntry) compileDecorators(e *lore.Entry) {
	ce.dec, ce.body = decorator.ParseSet(e.Content)
	ce.units, ce.ident = lore.UTF16Len(ce.body), hasIdentityMacro(ce.body)
	d := &ce.dec
	ce.order, ce.priority, ce.probability = e.Order, e.Priority, e.Probability
	for _, o := range []struct {
		dst *int
		src *int
	}{{&ce.order, d.Order}, {&ce.priority, d.Priority}, {&ce.probability, d.Probability}} {
		if o.src != nil {
			*o.dst = *o.src
		}
	}
	ce.placement = e.Placement
	if !ce.placement.Valid() {
		ce.placement = lore.After
	}
	if k := d.Kind(""); k != "" {
		ce.placement = k.Placement()
	}
	ce.role = e.Role
	if d.Role != "" {
		ce.role = d.Role
	}
	ce.compilePosition(e)
	ce.excludeRec = e.ExcludeRecursion || d.ExcludeRecursion
	ce.preventRec = e.PreventRecursion || d.PreventRecursion
	ce.constant, ce.ignoreBudget = e.Constant, e.IgnoreBudget
	if e.Sticky > 0 {
		ce.state |= UsesSticky
	}
	if e.Cooldown > 0 {
		ce.state |= UsesCooldown
	}
	if d.KeepActivateAfterMatch || d.DontActivateAfterMatch {
		ce.state |= UsesMatched
	}
	ce.gateFree = !d.DontActivate && !d.IsGreeting && d.ActivateOnlyAfter == nil && d.ActivateOnlyEvery == nil &&
		!d.DontActivateAfterMatch && ce.probability > 0
	if e.Delay > 0 || d.ActivateOnlyAfter != nil || d.ActivateOnlyEvery != nil || d.IsGreeting {
		ce.state |= UsesMessageCount
	}
	for i, ig := range d.Ignored {
		if i == 0 {
			ce.note = "ignored "
		} else {
			ce.note += ", "
		}
		ce.note += strconv.Quote(ig.Line) + " (" + ig.Reason + ")"
	}
	ce.placing.Placement, ce.placing.Group, ce.placing.State = ce.placement, Activated, ce.state
	if ce.constant {
		ce.placing.Group = AlwaysOn
	}
}

// Stateful reports whether any entry of m opens or reads turn state
// (Sticky, Cooldown or Delay > 0, or a decorator among
// @@keep_activate_after_match, @@dont_activate_after_match,
// @@activate_only_after, @@activate_only_every, @@is_greeting). A caller
// may skip loading turn state for a scope that is not stateful.
func (m *Matcher) Stateful() bool { return m.stateful }

// fits reports whether m was compiled from entries (same length and ids).
func (m *Matcher) fits(entries []lore.Entry) bool {
	if len(entries) != len(m.ids) {
		return false
	}
	for i := range entries {
		if entries[i].ID != m.ids[i] {
			return false
		}
	}
	return true
}

// Bytes estimates the memory m holds, for caches with a byte budget: what
// Compile keeps (compiledBytes: the automata, the compiled entries and
// keys, the regexes, the orders) and what turns add at most (turnBytes: a
// pooled scratch, a gate plan, the chat memo at its bound). Entry bodies
// and key texts share the entries' strings and are not counted; token
// counts cached for token budgets (4 bytes per entry per tokenizer and set
// of names) and the recursion memo of entry contents are not either.
// TestMatcherBytesMeasured compares it with the live heap on corpus books.
func (m *Matcher) Bytes() int {
	return m.compiledBytes() + m.turnBytes()
}

// Sizes of the structures, for compiledBytes and turnBytes.
const (
	matcherSize       = int(unsafe.Sizeof(Matcher{}))
	compiledEntrySize = int(unsafe.Sizeof(compiledEntry{}))
	keyRefSize        = int(unsafe.Sizeof(keyRef{}))
	automatonSize     = int(unsafe.Sizeof(automaton{}))
	macroKeySize      = int(unsafe.Sizeof(macroKey{}))
	stringSize        = int(unsafe.Sizeof(""))
	entryStateSize    = int(unsafe.Sizeof(entryState{}))
	scratchSize       = int(unsafe.Sizeof(scratch{}))
	gatePlanSize      = int(unsafe.Sizeof(gatePlan{}))
)

// compiledBytes is what Compile allocated and m keeps: the arrays by
// their capacity, the decorators' values, and per regex its program
// (about 120 bytes per RE2 instruction, regexCost) and source.
func (m *Matcher) compiledBytes() int {
	n := matcherSize + len(m.books) + 8*cap(m.ids) + compiledEntrySize*cap(m.entries) +
		4*(cap(m.order)+cap(m.rank)+cap(m.claim)+cap(m.byClaim)+cap(m.claimRank)+cap(m.special)) +
		8*(cap(m.regexes)+cap(m.regexCost)+cap(m.content)+cap(m.wakes)) + macroKeySize*cap(m.macros)
	for _, ke := range m.keyEntries {
		n += 4 * (cap(ke.start) + cap(ke.ents))
	}
	for i := range m.entries {
		ce := &m.entries[i]
		n += keyRefSize*(cap(ce.primary)+cap(ce.secondary)+cap(ce.exclude)+cap(ce.excludeAll)) +
			stringSize*(cap(ce.primaryText)+cap(ce.groups)) + len(ce.regexErr) + len(ce.note) + decoratorBytes(&ce.dec)
	}
	for _, a := range m.autos {
		if a != nil {
			n += automatonSize + 4*(cap(a.delta)+cap(a.childStart)+cap(a.childNext)+cap(a.fail)+cap(a.dict)) +
				cap(a.childCls) + cap(a.term) + cap(a.out)
		}
	}
	for i, re := range m.regexes {
		if re != nil {
			n += 1024 + len(re.String()) + 120*int(m.regexCost[i])
		}
	}
	return n
}

// decoratorBytes is what d holds outside its struct: a word per value
// set through a pointer, and its lists (their strings are the content's).
func decoratorBytes(d *decorator.Set) int {
	n := 0
	for _, set := range []bool{d.ScanDepth != nil, d.Probability != nil, d.Order != nil, d.Priority != nil, d.Depth != nil,
		d.ReverseDepth != nil, d.Position != nil, d.ActivateOnlyAfter != nil, d.ActivateOnlyEvery != nil, d.WholeWords != nil} {
		if set {
			n += 8
		}
	}
	return n + stringSize*(cap(d.AdditionalKeys)+cap(d.ExcludeKeys)+cap(d.ExcludeKeysAll)) +
		int(unsafe.Sizeof(decorator.Ignored{}))*cap(d.Ignored)
}

// turnBytes is what turns add to m at most, besides what the entries'
// contents memoise for recursion: a pooled scratch (its three match
// arrays per node of an own automaton, and per entry its state, the
// string it indexes and two positions) and the pool's array of 128 bytes
// per P, a gate plan (gateplan.go: per entry a copy of the state and its
// string, and a mark) and the chat memo at its bound (chatmemo.go).
func (m *Matcher) turnBytes() int {
	n := scratchSize + 128*runtime.GOMAXPROCS(0) + gatePlanSize + (2*entryStateSize+2*stringSize+9)*len(m.ids)
	for _, a := range m.autos {
		if a != nil {
			n += 12 * len(a.term)
		}
	}
	return n + chatMemoBytes
}

// MaxMatcherRegexProgram bounds the compiled regex keys of one matcher (one
// scope) together, in RE2 instructions (about 120 bytes of memory each):
// distinct regex keys are compiled in entry order, then key order, and from
// the first one that does not fit on, regex keys are not compiled and never
// match, with regexTotalDetail in the trace. A literal-heavy scope is
// untouched; 100,000 instructions are thousands of ordinary regex keys.
const MaxMatcherRegexProgram = 100_000

const regexTotalDetail = "regex not used: the scope's regex keys together exceed 100000 RE2 instructions"

// RegexBudget bounds the regex work of one turn, in units of one byte of
// text (chat messages and recursion items) scanned by one instruction of a
// regex program (about 7 ns each at worst, so the budget is about 0.35 s).
// Literal keys do not count. Once a regex scan would exceed what is left,
// no further regex key is evaluated in that turn, and entries whose outcome
// depended on one get the verdict VerdictRegexBudgetExhausted. Ordinary
// turns (a few KiB of text, tens of small regex keys) use well under 1%.
const RegexBudget = 50_000_000

// VerdictRegexBudgetExhausted: the entry's keys could not be decided
// because the turn's RegexBudget ran out before its regex keys were
// evaluated. The entry is not admitted.
const VerdictRegexBudgetExhausted Verdict = "regex_budget_exhausted"

// regexBudgetDetail is the trace detail of VerdictRegexBudgetExhausted.
const regexBudgetDetail = "the turn's regex budget ran out before this entry's regex keys were evaluated"
