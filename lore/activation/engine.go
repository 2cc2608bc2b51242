package activation

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Activate compiles in.Entries and runs one turn. Use a Cache (or Compile
// once) when the same entries serve many turns.
func Activate(ctx context.Context, in Input, opts Options) (Result, error) {
	return CompileInput(&in, opts.MatchOptions()).Activate(ctx, in, opts)
}

// stage is the per-entry progress of a turn.
type stage uint8

const (
	stageDone    stage = iota // verdict decided
	stagePending              // passed the gates, awaiting a pass that decides it
	stagePassed               // matched and passed its chance in this pass
)

// mode is how an entry may be admitted.
type mode uint8

const (
	modeKeys     mode = iota // by its keys
	modeConstant             // Always On
	modeActivate             // @@activate
	modeKept                 // @@keep_activate_after_match after a match
	modeSticky               // turn state: a sticky window is open
	modeSemantic             // by similarity (semantic.go)
)

// verdictCode is a Verdict as a number (verdictNames lists them), so that an
// entryState holds no pointer for its verdict: a turn sets and resets the
// verdict of every entry it reads, and while a collection marks, each
// pointer written passes through the write barrier
// (docs/benchmarks.md#recursion-per-admission).
type verdictCode uint8

// The verdict codes: vNone for no verdict yet, then one per Verdict.
const (
	vNone verdictCode = iota
	vAdmitted
	vDisabled
	vGatedServer
	vGatedLineage
	vGatedCollection
	vGatedCategory
	vGatedChannel
	vNoKeyMatch
	vSecondaryLogicFailed
	vChanceFailed
	vOverBudget
	vGroupLost
	vExcludedFromRecursion
	vDelayedUntilRecursion
	vDecoratorBlocked
	vCooldown
	vDelayed
	vFilteredCharacter
	vFilteredGenerationType
	vOverEntryCap
	vSemanticMatch
	vBelowThreshold
	vOverSemanticCap
	vRegexBudgetExhausted
)

// verdictNames are the Verdicts of the codes.
var verdictNames = [...]Verdict{
	vNone:                   "",
	vAdmitted:               VerdictAdmitted,
	vDisabled:               VerdictDisabled,
	vGatedServer:            VerdictGatedServer,
	vGatedLineage:           VerdictGatedLineage,
	vGatedCollection:        VerdictGatedCollection,
	vGatedCategory:          VerdictGatedCategory,
	vGatedChannel:           VerdictGatedChannel,
	vNoKeyMatch:             VerdictNoKeyMatch,
	vSecondaryLogicFailed:   VerdictSecondaryLogicFailed,
	vChanceFailed:           VerdictChanceFailed,
	vOverBudget:             VerdictOverBudget,
	vGroupLost:              VerdictGroupLost,
	vExcludedFromRecursion:  VerdictExcludedFromRecursion,
	vDelayedUntilRecursion:  VerdictDelayedUntilRecursion,
	vDecoratorBlocked:       VerdictDecoratorBlocked,
	vCooldown:               VerdictCooldown,
	vDelayed:                VerdictDelayed,
	vFilteredCharacter:      VerdictFilteredCharacter,
	vFilteredGenerationType: VerdictFilteredGenerationType,
	vOverEntryCap:           VerdictOverEntryCap,
	vSemanticMatch:          VerdictSemanticMatch,
	vBelowThreshold:         VerdictBelowThreshold,
	vOverSemanticCap:        VerdictOverSemanticCap,
	vRegexBudgetExhausted:   VerdictRegexBudgetExhausted,
}

// verdict is c's Verdict.
func (c verdictCode) verdict() Verdict { return verdictNames[c] }

// codeOf is v's code; it panics for a verdict verdictNames does not list (a
// new Verdict needs its code).
func codeOf(v Verdict) verdictCode {
	for c, w := range verdictNames {
		if w == v {
			return verdictCode(c)
		}
	}
	panic("activation: verdict " + string(v) + " has no verdictCode")
}

// entryState holds no string nor pointer: a turn resets the states of every
// entry (a copy of the gate plan's, gateplan.go), and while a collection
// marks, a copy of pointers passes each through the write barrier
// (docs/benchmarks.md#recursion-per-admission). Its detail, its admitted
// content and its context scan are indexes into the turn's strs and
// ctxScans (turn.str, turn.setStr, turn.ctxOf).
type entryState struct {
	stage   stage
	mode    mode
	verdict verdictCode
	// recOK: recursion text may activate the entry; feeds: its content
	// feeds recursion; recBook: its book scans recursively.
	recOK, feeds, recBook bool
	// noKeyRec: the last no_key_match also read recursion text (the detail
	// is built once, in result).
	noKeyRec bool
	// chatChecked: the primary keys were looked up in the chat (which does
	// not change between passes); chatHit: one occurred there.
	chatChecked, chatHit bool
	// dormant: a recursive pass skips the entry until new recursion text
	// reaches one of its primary keys (recindex.go).
	dormant bool
	scored  bool
	// ctx is the entry's context-source scan, 1 + its index in
	// turn.ctxScans (0: its keys read the chat only, or the request has
	// no context text; see context.go and turn.ctxOf); widen: its depth
	// comes from the server or book layer and widens in a min-activations
	// pass (base is that depth); book indexes turn.books.
	ctx   int8
	widen bool
	book  int16
	// over says which share of the budget an over_budget entry failed;
	// aoTook is what the Always On entries had taken by then
	// (semanticbudget.go).
	over overCause
	// detail and content index the turn's strs (turn.str; 0 is ""); a
	// content of bodyContent is the compiled entry's body.
	detail, content int32
	// The numbers are int32 (sat32), so that a state is 64 bytes, one
	// cache line, which every pass reads.
	depth int32
	// level is the delay-until-recursion level (0 none).
	level int32
	pass  int32
	// trig is the position+1 of the entry whose content matched (0 none).
	trig   int32
	cost   int32
	tokens int32
	// score is the entry's similarity when scored (a Semantic candidate).
	score  float32
	base   int32
	aoTook int32
}

// sat32 is v as an int32, saturated: an entryState's number (a depth,
// level, pass or cost) never comes near 2^31.
func sat32(v int) int32 {
	return int32(min(max(v, math.MinInt32), math.MaxInt32))
}

// bodyContent is the entryState.content of an entry admitted with its
// compiled body (no identity macros, costed in UTF-16 units).
const bodyContent = -1

// noDetail clears s's detail.
func (s *entryState) noDetail() { s.detail = 0 }

// str is the turn's string k (an entryState's detail or content; 0 is "").
func (t *turn) str(k int32) string {
	if k == 0 {
		return ""
	}
	return t.strs[k-1]
}

// setStr sets the string *k (an entryState's detail or content) to v: in
// its place when *k holds one, else appended to the turn's strs.
func (t *turn) setStr(k *int32, v string) {
	if *k > 0 {
		t.strs[*k-1] = v
		return
	}
	t.strs = append(t.strs, v)
	*k = int32(len(t.strs))
}

// setDetail sets s's detail to d.
func (t *turn) setDetail(s *entryState, d string) { t.setStr(&s.detail, d) }

// addDetail appends more to s's detail.
func (t *turn) addDetail(s *entryState, more string) { t.setStr(&s.detail, t.str(s.detail)+more) }

// turn is the state of one Activate call.
type turn struct {
	m    *Matcher
	in   *Input
	opts *Options
	ts   *turnScan
	st   []entryState
	// strs holds the strings of st (entryState.detail, content): the gate
	// plan's, then those the turn sets.
	strs   []string
	random func() float64
	budget Budget
	nmsg   int
	// unitCost: the budget counts UTF-16 units without a tokenizer, so
	// an entry without identity macros costs its compiled body's units
	// (costOf).
	unitCost bool
	// won maps an inclusion group to the position of the entry that won
	// it in an earlier pass.
	won map[string]int32
	// trace: the Result carries the trace (not Options.SkipTrace), so the
	// details are built.
	trace bool
	// recursion: some book of the turn scans recursively; maxPasses: the
	// turn's pass limit (turnRecursion).
	recursion bool
	maxPasses int
	// near bounds the trace's near-miss search (nearmiss.go).
	near nearMissScan
	// sel holds the selection controls' state (selection.go); ctxScans the
	// context-source scans by source mask (context.go).
	sel      selection
	ctxScans []ctxScan
	// minPass: the pass being run widens the chat for min activations and
	// reads no recursion text; level is the delay-until-recursion level
	// runPasses ended at (recursive passes after a min-activations pass
	// run at it).
	minPass bool
	level   int
	// scores hold the trace's scores (scoreOf), a slab instead of one
	// allocation each (the result's are Result.scores).
	scores []float64
	// semNear, when semPlanned (a gate plan's turn, applyPlan), are the
	// scored entries semanticPass needs without a trace, in evaluation
	// order: those at or above the threshold and the keyless ones.
	semNear    []int32
	semPlanned bool
	// above, when set, kept the turn's sums (applyNonzero): result reads
	// the admitted entries' scores from sums (by candidate position, the
	// query's length sumsNorm), release gives them back.
	above    AboveScores
	sums     []float32
	sumsNorm float64
	// alwaysOnUsed is what the admitted Always On entries took of the
	// budget (overBudgetDetail names it).
	alwaysOnUsed int
	// hold is what the pass that admits by similarity held of the budget
	// for its similarity matches, semUsed what they took of it, held what
	// was held from the entry claiming the budget now, and pend the
	// matches still waiting to claim it (semanticbudget.go).
	hold, semUsed, held int
	pend                []heldMatch
	// matched are the similarity matches semanticPass passed in the pass
	// being run, in order (holdShare's).
	matched []int32
	// nonKeys are the pending entries of a mode other than keys, when
	// the turn may sweep (sweepSet).
	nonKeys []int32
	// swept is how many widening passes the min-activations sweep ran,
	// up to which depth limit (scannedDepth).
	swept struct{ skews, limit int }
	// rx is the worklist of runPasses' recursive passes (recindex.go).
	rx recIndex
	// plan is the gate plan the turn's gates came from (gateplan.go).
	plan *gatePlan
}

// checkEvery is how many entries a loop handles between context checks.
const checkEvery = 256

// Activate runs one turn over in with the compiled matcher. in.Entries must
// be the entries m was compiled from (same length, same ids in the same
// positions) with the same book case and whole-word settings, and opts
// must have m's MatchOptions; otherwise the error wraps lore.ErrInvalid.
// Other errors (also wrapping lore.ErrInvalid): a token budget without a
// Tokenizer, a Random draw outside [0, 1). When ctx ends, Activate stops
// between passes and every few hundred entries with ctx.Err().
//
// The rules, in order (docs/contract.md "Activation", "Budget", "Settings
// layers", "Recursion"; docs/authoring.md explains them for book authors):
//
//  1. Gates, constants included: enabled, server, lineage (Serverwide
//     entries always pass), collection (Serverwide entries only: present and
//     enabled), channel (when in.ChannelScoping: the collection's channels for
//     Serverwide entries, the entry's own for persona entries; empty admits
//     all; a thread is admitted when its channel or its parent is listed; a
//     persona entry with LegacyChannelTags admits every channel, while a
//     Serverwide entry always follows its collection's channels). Then
//     @@dont_activate (decorator_blocked), Delay (delayed while the
//     conversation has fewer messages), an open cooldown (cooldown, unless
//     sticky), @@is_greeting, @@activate_only_after, @@activate_only_every
//     and @@dont_activate_after_match (decorator_blocked).
//  2. Probability 0 blocks every entry, constants included (sticky ones
//     excepted).
//  3. Settings layers: server (opts) -> book (in.Collections[...].Settings
//     or in.PersonaBook) -> entry field -> decorator; the most specific set
//     value wins (scan depth, case, whole words, recursion, order,
//     priority, probability).
//  4. Passes. Pass 1 scans the chat; with recursion on, each later pass
//     also scans the content admitted so far (only new text is scanned;
//     earlier hits are remembered). Constants, @@activate, sticky and kept
//     entries need no key; others need a primary key (@@additional_keys
//     included) in their last scan-depth messages or in recursion text
//     (not for entries excluded from recursion), then their secondary
//     logic (AND_ANY, AND_ALL, NOT_ANY, NOT_ALL over the non-blank
//     secondary keys), and no @@exclude_keys key present; then, for a
//     chance strictly between 0 and 100, a draw r with r*100 < chance
//     (sticky entries skip it; draws in insertion order). Entries delayed
//     until recursion wait for a recursive pass of their level.
//  5. Inclusion groups (per pass, groups in name order): sticky members
//     win; else the groupOverride member with the highest order; else, when
//     a member uses group scoring, the most matched keys; else (and among
//     tied scores) a draw weighted by groupWeight. An entry must win every
//     group it is in (a group whose winner lost elsewhere is settled again
//     among the members it beat); a group won in an earlier pass admits no
//     more.
//  6. Budget, pass by pass: the pass's entries claim what earlier passes
//     left, sticky first, then higher priority, then Always On before
//     activated, then insertion order, then id; @@ignore_on_max_context
//     entries claim last. An entry that does not fit is over_budget and
//     later ones may still fit (skip, not stop; case BUG-21). IgnoreBudget
//     entries are outside the budget. Costs are identity-resolved content
//     without decorator lines, in UTF-16 units or tokens. The pass that
//     admits by similarity holds up to Semantic.BudgetShare of the budget
//     for its similarity matches, as much as they cost: the other entries
//     claim the budget less what is still held (semanticbudget.go).
//  7. Recursion goes on while a pass admits content that feeds it (not
//     PreventRecursion, book recursive) and passes remain
//     (maxRecursionSteps counts every pass, hard cap MaxPasses); when it
//     would stop, entries delayed to a higher level get a pass of their
//     level.
func (m *Matcher) Activate(ctx context.Context, in Input, opts Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := m.checkInput(&in, &opts); err != nil {
		return Result{}, err
	}
	budget, err := turnBudget(&in, &opts)
	if err != nil {
		return Result{}, err
	}
	random := opts.Random
	if random == nil {
		random = rand.Float64
	}
	n := len(in.Entries)
	sc := m.getScratch()
	defer m.pool.Put(sc)
	sc.admitted = sc.admitted[:0]
	// Each state is reset by gateAll, which visits every entry.
	t := &turn{m: m, in: &in, opts: &opts, st: sc.states[:n], strs: sc.strs[:0], random: random, budget: budget, nmsg: len(in.Messages),
		trace: !opts.SkipTrace || opts.baseline, pend: sc.pend[:0], matched: sc.matched[:0]}
	t.recursion, t.maxPasses = turnRecursion(&in, &opts)
	t.unitCost = opts.Tokenizer == nil && budget.Unit != UnitTokens
	t.ts = m.newTurnScan(sc, t.messages(), m.dynFor(opts.UserName, opts.CharName, opts.BotName), n)
	// The reference text path (benchmarks) predates the chat memo too.
	t.ts.texts, t.ts.memo = opts.Texts, !opts.baseline && (opts.Texts == nil || !opts.Texts.reference)
	if t.trace && opts.NearMisses {
		t.near = newNearMissScan(ctx, len(in.Messages))
	}
	defer t.release()
	minLevel, err := t.gateAll(ctx)
	if err != nil {
		return Result{}, err
	}
	passes, err := t.runPasses(ctx, minLevel)
	if err != nil {
		return Result{}, err
	}
	if opts.MinActivations > 0 {
		if passes, err = t.minActivations(ctx, passes); err != nil {
			return Result{}, err
		}
	}
	if opts.MaxEntries > 0 {
		t.capEntries()
	}
	return t.result(passes), nil
}

// checkInput reports (wrapping lore.ErrInvalid) when in or opts do not fit
// the compiled matcher: other entries, other match options, other book case
// or whole-word settings.
func (m *Matcher) checkInput(in *Input, opts *Options) error {
	if !m.fits(in.Entries) {
		return fmt.Errorf("activation: %w", lore.Reject("entries", i18n.MatcherEntriesDiffer, nil))
	}
	if opts.MatchOptions() != m.mo {
		return fmt.Errorf("activation: %w", lore.Reject("options", i18n.MatcherOptionsDiffer, nil))
	}
	if bookSignature(in) != m.books {
		return fmt.Errorf("activation: %w", lore.Reject("input", i18n.MatcherBookSettingsDiffer, nil))
	}
	return nil
}

// gateAll is the first step of a turn: it resets every entry's state,
// applies the gates of rules 1-3 (gateEntry), then scans the chat window
// the pending entries need. It returns the lowest delay-until-recursion
// level among the entries (0 none).
func (t *turn) gateAll(ctx context.Context) (int, error) {
	defDepth := DefaultScanDepth
	if t.opts.ScanDepth != nil {
		defDepth = max(*t.opts.ScanDepth, 0)
	}
	msgCount := t.in.MessageCount
	if msgCount <= 0 {
		msgCount = len(t.in.Messages)
	}
	key, plannable := t.planKey(msgCount, defDepth)
	if plannable {
		if p := t.m.plan.Load(); p != nil && p.fits(&key, t.in) {
			return t.applyPlan(p), nil
		}
	}
	var gc gateCache
	depth := 0
	var need [numAutos]bool
	minLevel, scans := 0, false
	for k, i := range t.m.order {
		if k%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if l := t.gateEntry(i, &gc, msgCount, defDepth); l > 0 && (minLevel == 0 || l < minLevel) {
			minLevel = l
		}
		s, ce := &t.st[i], &t.m.entries[i]
		if s.stage == stagePending && (s.mode == modeKeys || len(ce.exclude) > 0 || len(ce.excludeAll) > 0) {
			depth, scans = max(depth, int(s.depth)), true
			t.ts.usesAutos(ce, &need)
		}
	}
	if plannable {
		t.m.offerPlan(&key, t, minLevel, depth, need, scans)
	}
	t.ts.scanWindow(min(depth, len(t.in.Messages)), need)
	t.ts.markCandidates()
	return minLevel, nil
}

// gateEntry resets entry i's state and decides its gates (rule 1, with
// preGate), its mode, its recursion flags, its delay-until-recursion level
// and its scan depth (rule 3). An entry that passes is left pending. It
// returns the delay-until-recursion level it waits for while recursion is
// on (0 none).
func (t *turn) gateEntry(i int32, gc *gateCache, msgCount, defDepth int) int {
	in, opts := t.in, t.opts
	e := &in.Entries[i]
	ce := &t.m.entries[i]
	s := &t.st[i]
	*s = entryState{}
	if v, d := gc.gate(e, in); v != "" {
		s.verdict = codeOf(v)
		t.setDetail(s, d)
		return 0
	}
	if ce.filtered {
		if v, d := filterGate(e, ce.gens, in); v != "" {
			s.verdict = codeOf(v)
			t.setDetail(s, d)
			return 0
		}
	}
	book := in.PersonaBook
	if e.Lineage.IsServerwide() {
		book = gc.coll.Settings
	}
	var es EntryState
	if len(in.State) > 0 {
		es = in.State[e.ID]
	}
	if ce.gateFree && e.Delay <= 0 && !es.Cooldown && !opts.baseline {
		// preGate passes it (see compiledEntry.gateFree).
	} else if v, d := preGate(e, ce, es, msgCount); v != "" {
		s.verdict = codeOf(v)
		t.setDetail(s, d)
		return 0
	}
	switch {
	case es.Sticky:
		s.mode = modeSticky
	case e.Constant:
		s.mode = modeConstant
	case ce.dec.Activate:
		s.mode = modeActivate
	case ce.dec.KeepActivateAfterMatch && es.Matched:
		s.mode = modeKept
	}
	s.recBook = opts.Recursive
	if book.Recursive != nil {
		s.recBook = *book.Recursive
	}
	s.recBook = s.recBook && t.recursion
	s.recOK, s.feeds = s.recBook && !ce.excludeRec, s.recBook && !ce.preventRec
	t.semanticGate(i, e.ID)
	level := 0
	if s.mode != modeSticky && e.DelayUntilRecursion > 0 {
		s.level = sat32(e.DelayUntilRecursion)
		if !t.recursion {
			s.verdict = vDelayedUntilRecursion
			t.setDetail(s, "waits for recursion level "+strconv.Itoa(int(s.level))+"; recursion is off")
			return 0
		}
		level = int(s.level)
	}
	if s.mode == modeKeys && !ce.hasPrimary {
		s.verdict = vNoKeyMatch
		t.setDetail(s, "no usable key")
		if ce.regexErr != "" {
			t.addDetail(s, "; "+ce.regexErr)
		}
		return level
	}
	s.stage = stagePending
	s.tokens = -1
	d := defDepth
	for _, p := range []*int{book.ScanDepth, e.ScanDepth, ce.dec.ScanDepth} {
		if p != nil {
			d = max(*p, 0)
		}
	}
	s.depth = sat32(d)
	s.widen, s.base = e.ScanDepth == nil && ce.dec.ScanDepth == nil, sat32(d)
	if ce.match != 0 {
		s.ctx = t.contextScan(ce.match)
	}
	t.bookOf(s, e, gc)
	if s.mode != modeKeys && opts.MinActivations > 0 {
		t.nonKeys = append(t.nonKeys, i) // see sweepSet
	}
	return level
}

// runPasses is the second step of a turn: passes (rule 4) each followed by
// inclusion groups (rule 5) and the budget (rule 6), while recursion goes
// on (rule 7). minLevel is gateAll's lowest delay level. It returns how
// many passes ran.
func (t *turn) runPasses(ctx context.Context, minLevel int) (int, error) {
	passes := 0
	curLevel, visited := minLevel, 0
	var passed, order []int32
	t.rx.on = t.recursion && t.maxPasses > 1 && !t.opts.baseline
	defer t.wakeDormant()
	for p := 1; ; p++ {
		if p > 1 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			visited = curLevel
		}
		passes = p
		items := len(t.ts.items)
		var pending int
		var err error
		if passed, pending, err = t.pass(ctx, p, curLevel, passed[:0]); err != nil {
			return 0, err
		}
		if t.m.hasGroups && len(passed) > 1 || t.won != nil {
			if passed, err = t.groups(passed, p); err != nil {
				return 0, err
			}
		}
		if t.rx.on {
			t.ts.startBatch()
		}
		order = append(order[:0], passed...)
		if !t.rx.claimed {
			order = t.claimOrder(order)
		}
		t.holdShare()
		t.admitAll(order, p)
		t.pend, t.held = t.pend[:0], 0 // what the similarity matches left returns to later passes
		for k := 0; t.m.hasGroups && k < len(passed); k++ {
			if i := passed[k]; t.st[i].verdict == vAdmitted {
				t.markWon(i)
			}
		}
		if !t.recursion || p >= t.maxPasses || pending == 0 {
			break
		}
		if len(t.ts.items) > items {
			continue
		}
		next := 0
		if minLevel > 0 { // else no entry waits for a delay level: no walk over every state
			next = t.nextLevel(visited)
		}
		if next == 0 {
			break
		}
		curLevel = max(curLevel, next)
	}
	t.level = curLevel
	return passes, nil
}

// pass evaluates the pending entries in pass p (rule 4) at delay level
// curLevel. It appends the entries that passed to passed and returns them
// with how many entries are still pending. A recursive pass of runPasses
// reads only the entries the new recursion text may change (recindex.go).
func (t *turn) pass(ctx context.Context, p, curLevel int, passed []int32) ([]int32, int, error) {
	if p > 1 && t.rx.on {
		return t.indexedPass(ctx, p, curLevel, passed)
	}
	if p == 1 && t.plan != nil {
		return t.plannedPass(ctx, t.plan, curLevel, passed)
	}
	pending := 0
	for k, i := range t.m.order {
		if k%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		ok, still, err := t.passEntry(i, p, curLevel)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			passed = append(passed, i)
		} else if still {
			pending++
		}
	}
	if p == 1 && t.in.Semantic != nil {
		var err error
		if passed, err = t.semanticPass(passed); err != nil {
			return nil, 0, err
		}
	}
	return passed, pending, nil
}

// passEntry evaluates entry i in pass p at delay level curLevel when it is
// pending (not a keyless similarity candidate, which semanticPass decides)
// and reports whether it passed, or else whether it is still pending.
func (t *turn) passEntry(i int32, p, curLevel int) (ok, pending bool, err error) {
	s := &t.st[i]
	if s.stage != stagePending || s.mode == modeSemantic {
		return false, false, nil
	}
	s.pass = int32(p)
	if s.level > 0 && (p == 1 || int(s.level) > curLevel) {
		s.verdict = vDelayedUntilRecursion // detail in result
		s.noDetail()
		return false, true, nil
	}
	if p == 1 && s.mode == modeKeys && t.m.entries[i].litOnly && !t.opts.baseline && t.keyless(i, s) {
		// What evaluate concludes for an entry whose literal keys
		// occur nowhere in the scanned chat or context text, without its per-key
		// walk: most entries of a turn.
		s.verdict, s.chatChecked = vNoKeyMatch, true
		s.noDetail()
		return false, true, nil
	}
	if ok, err = t.evaluate(i, p); err != nil {
		return false, false, err
	}
	return ok, !ok && s.stage == stagePending, nil
}

// nextLevel is the lowest delay-until-recursion level above visited among
// the pending entries (0 none).
func (t *turn) nextLevel(visited int) int {
	next := 0
	for i := range t.st {
		if l := int(t.st[i].level); t.st[i].stage == stagePending && l > visited && (next == 0 || l < next) {
			next = l
		}
	}
	return next
}

// preGate applies the decorator and turn-state gates of rule 1 and the
// probability-0 block of rule 2; "" means the entry passes.
func preGate(e *lore.Entry, ce *compiledEntry, es EntryState, msgCount int) (Verdict, string) {
	d := &ce.dec
	has := func() string { return ": the conversation has " + lore.Count(msgCount, "message", "messages") }
	switch {
	case d.DontActivate:
		return VerdictDecoratorBlocked, "@@dont_activate"
	case e.Delay > 0 && msgCount < e.Delay:
		return VerdictDelayed, "delay " + strconv.Itoa(e.Delay) + has()
	case es.Cooldown && !es.Sticky:
		return VerdictCooldown, "cooldown window open"
	case d.IsGreeting && msgCount > 1:
		return VerdictDecoratorBlocked, "@@is_greeting" + has()
	case d.ActivateOnlyAfter != nil && msgCount < *d.ActivateOnlyAfter:
		return VerdictDecoratorBlocked, "@@activate_only_after " + strconv.Itoa(*d.ActivateOnlyAfter) + has()
	case d.ActivateOnlyEvery != nil && msgCount%*d.ActivateOnlyEvery != 0:
		return VerdictDecoratorBlocked, "@@activate_only_every " + strconv.Itoa(*d.ActivateOnlyEvery) + has()
	case d.DontActivateAfterMatch && es.Matched:
		return VerdictDecoratorBlocked, "@@dont_activate_after_match: admitted in an earlier turn"
	case ce.probability <= 0:
		// A chance of 0 blocks sticky entries too (only positive rolls are
		// skipped by stickiness; docs/turns.md "Timed effects").
		return VerdictChanceFailed, "trigger chance is 0%"
	}
	return "", ""
}

// turnBudget returns the turn's budget: the unit and limit of opts, unless
// a book of the turn sets a limit (the highest of those wins;
// docs/contract.md "Settings layers").
func turnBudget(in *Input, opts *Options) (Budget, error) {
	b := Budget{Unit: UnitUTF16, Limit: opts.CharBudget}
	switch {
	case opts.TokenBudget > 0:
		if opts.Tokenizer == nil {
			return b, fmt.Errorf("activation: %w", lore.Reject("options.tokenizer", i18n.TokenizerRequired, nil))
		}
		b = Budget{Unit: UnitTokens, Limit: opts.TokenBudget}
	case opts.CharBudget == 0:
		b.Limit = DefaultCharBudget
	case opts.CharBudget < 0:
		b.Limit = -1
	}
	book := 0
	eachBook(in, func(s lore.BookSettings) {
		if s.BudgetLimit != nil && *s.BudgetLimit > book {
			book = *s.BudgetLimit
		}
	})
	if book > 0 {
		b.Limit = book
	}
	return b, nil
}

// turnRecursion reports whether any book of the turn scans recursively and
// the turn's pass limit: the highest maxRecursionSteps among those books
// (0 = MaxPasses), capped at MaxPasses. A limit of 1 turns recursion off.
func turnRecursion(in *Input, opts *Options) (bool, int) {
	on, steps, books := false, 0, 0
	consider := func(s lore.BookSettings) {
		books++
		rec := opts.Recursive
		if s.Recursive != nil {
			rec = *s.Recursive
		}
		if !rec {
			return
		}
		on = true
		n := DefaultMaxRecursionSteps
		if opts.MaxRecursionSteps != nil {
			n = *opts.MaxRecursionSteps
		}
		if s.MaxRecursionSteps != nil {
			n = *s.MaxRecursionSteps
		}
		if n <= 0 || n > MaxPasses {
			n = MaxPasses
		}
		steps = max(steps, n)
	}
	eachBook(in, consider)
	if books == 0 {
		consider(lore.BookSettings{})
	}
	if !on || steps <= 1 {
		return false, 1
	}
	return true, steps
}

// eachBook calls f with the settings of every book of the turn: the
// enabled collections and, for a persona lineage, its book.
func eachBook(in *Input, f func(lore.BookSettings)) {
	for _, c := range in.Collections {
		if c.Enabled {
			f(c.Settings)
		}
	}
	if !in.Lineage.IsServerwide() {
		f(in.PersonaBook)
	}
}

// visible reports where a key of entry s occurs for pass p: the newest
// chat message within its depth (chat) and the newest recursion item
// (item, -1 none; only when recursion text may activate the entry).
func (t *turn) visible(ref *keyRef, s *entryState, p int) (chat bool, item int) {
	at := t.ts.hit(ref, int(s.depth))
	chat = at >= 0 && at >= t.nmsg-int(s.depth)
	if !chat && s.ctx != 0 && s.depth > 0 {
		chat = t.ctxOf(s).hit(ref, 1) >= 0 // a context source joins the scanned text
	}
	item = -1
	if p > 1 && s.recOK && !t.minPass {
		item = t.ts.recHit(ref)
	}
	return chat, item
}

// evaluate applies the keys, secondary logic, exclude keys and chance of
// rule 4 to entry i in pass p and reports whether it passed. A failure that
// later recursion text may change leaves it pending.
func (t *turn) evaluate(i int32, p int) (bool, error) {
	ce := &t.m.entries[i]
	s := &t.st[i]
	if (ce.exclude != nil || ce.excludeAll != nil) && t.excluded(ce, s, p) {
		return false, nil
	}
	switch s.mode {
	case modeConstant:
		t.setDetail(s, "always on")
	case modeActivate:
		t.setDetail(s, "@@activate")
	case modeKept:
		t.setDetail(s, "@@keep_activate_after_match: admitted in an earlier turn")
	case modeSticky:
		t.setDetail(s, "sticky")
	default:
		if !t.matchKeys(i, p) {
			return false, nil
		}
	}
	if s.mode != modeSticky && s.mode != modeConstant && ce.probability < 100 {
		if ok, err := t.roll(ce, s); !ok || err != nil {
			return false, err
		}
	}
	s.stage = stagePassed
	return true, nil
}

// excluded reports whether an @@exclude_keys key, or every
// @@exclude_keys_all key, of entry s is present in pass p, deciding it
// decorator_blocked.
func (t *turn) excluded(ce *compiledEntry, s *entryState, p int) bool {
	for j := range ce.exclude {
		if chat, item := t.visible(&ce.exclude[j], s, p); chat || item >= 0 {
			s.stage, s.verdict = stageDone, vDecoratorBlocked
			t.setDetail(s, "@@exclude_keys: "+strconv.Quote(ce.dec.ExcludeKeys[j])+" is present")
			return true
		}
	}
	all := len(ce.excludeAll) > 0
	for j := range ce.excludeAll {
		if chat, item := t.visible(&ce.excludeAll[j], s, p); !chat && item < 0 {
			all = false
			break
		}
	}
	if all {
		s.stage, s.verdict = stageDone, vDecoratorBlocked
		t.setDetail(s, "every @@exclude_keys_all key is present")
	}
	return all
}

// matchKeys applies the primary keys and the secondary logic of rule 4 to
// keyed entry i in pass p. On a failure it sets the verdict and reports
// false; on a match it records the triggering entry and the detail.
func (t *turn) matchKeys(i int32, p int) bool {
	ce := &t.m.entries[i]
	s := &t.st[i]
	skips := t.ts.reSkips
	// The chat (and context text) was looked up for these keys in this
	// depth and held none: only the recursion text is read again (by the
	// loop below, which decides as the shortcut would when none is there).
	recOnlyText := s.chatChecked && !s.chatHit && p > 1 && s.recOK && !t.minPass
	if s.chatChecked && !s.chatHit && !recOnlyText && !t.recursionHit(ce) {
		// Only recursion text can bring a primary key now, and none did.
		s.verdict, s.noKeyRec = vNoKeyMatch, s.recOK
		s.noDetail()
		if t.ts.reSkips > skips {
			s.verdict = vRegexBudgetExhausted
			t.setDetail(s, regexBudgetDetail)
		}
		return false
	}
	matched, trig, recOnly := t.firstKey(ce, s, p, recOnlyText)
	s.chatChecked, s.chatHit = true, matched >= 0 && trig < 0
	if matched < 0 {
		switch {
		case t.ts.reSkips > skips:
			s.verdict = vRegexBudgetExhausted
			t.setDetail(s, regexBudgetDetail)
		case recOnly:
			s.verdict = vExcludedFromRecursion
			t.setDetail(s, "a key occurs only in recursion text; the entry is excluded from recursion")
		default:
			s.verdict = vNoKeyMatch // detail in result
			s.noDetail()
			s.noKeyRec = p > 1 && s.recOK
		}
		return false
	}
	if ce.secondaryN > 0 && !t.secondary(i, p, skips) {
		return false
	}
	t.keyFound(ce, s, matched, trig)
	return true
}

// keyFound records that primary key j of entry s (compiled ce) matched in
// recursion item trig (-1: in the chat): the triggering entry and, with a
// trace, the detail.
func (t *turn) keyFound(ce *compiledEntry, s *entryState, j, trig int) {
	s.trig = 0
	if trig >= 0 {
		s.trig = t.ts.items[trig].src + 1
	}
	if t.trace {
		t.setDetail(s, "key "+strconv.Quote(ce.primaryText[j]))
		if trig >= 0 {
			t.addDetail(s, " in the content of #"+strconv.FormatInt(t.in.Entries[s.trig-1].ID, 10))
		}
	}
}

// firstKey finds the primary key of entry s (compiled ce) that matches in
// pass p: the first one in its chat window (trig -1), else the first one
// in the recursion text it may read (trig the newest item holding it);
// matched -1 for none, and then recOnly says a key occurs only in
// recursion text the entry is excluded from. recOnlyText: the chat held
// none of its keys (matchKeys).
func (t *turn) firstKey(ce *compiledEntry, s *entryState, p int, recOnlyText bool) (matched, trig int, recOnly bool) {
	ts := t.ts
	if recOnlyText && ce.litOnly {
		// Literal keys charge no regex budget: the first hit decides.
		for j := range ce.primary {
			if item := ts.recLit(&ce.primary[j]); item >= 0 {
				return j, item, false
			}
		}
		return -1, -1, false
	}
	matched, trig = -1, -1
	excluded := p > 1 && s.recBook && ce.excludeRec
	for j := range ce.primary {
		var chat bool
		var item int
		if recOnlyText {
			item = ts.recHit(&ce.primary[j])
		} else {
			chat, item = t.visible(&ce.primary[j], s, p)
		}
		if chat {
			return j, -1, recOnly
		}
		if item >= 0 && matched < 0 {
			matched, trig = j, item
		}
		if excluded && !recOnly && ts.recHit(&ce.primary[j]) >= 0 {
			recOnly = true
		}
	}
	return matched, trig, recOnly
}

// recursionHit reports whether a primary key of ce occurs in the recursion
// text.
func (t *turn) recursionHit(ce *compiledEntry) bool {
	for j := range ce.primary {
		if t.ts.recHit(&ce.primary[j]) >= 0 {
			return true
		}
	}
	return false
}

// secondary applies the selective logic of entry i over its non-blank
// secondary keys in pass p; skips is the regex-budget skip count before
// the entry's keys were looked up. On a failure it sets the verdict.
func (t *turn) secondary(i int32, p, skips int) bool {
	e := &t.in.Entries[i]
	ce := &t.m.entries[i]
	s := &t.st[i]
	hits := 0
	for j := range ce.secondary {
		if chat, item := t.visible(&ce.secondary[j], s, p); chat || item >= 0 {
			hits++
		}
	}
	logic := e.Logic
	if logic == "" {
		logic = lore.AndAny
	}
	var ok bool
	switch logic {
	case lore.AndAny:
		ok = hits > 0
	case lore.AndAll:
		ok = hits == ce.secondaryN
	case lore.NotAny:
		ok = hits == 0
	case lore.NotAll:
		ok = hits < ce.secondaryN
	}
	if t.ts.reSkips > skips {
		s.verdict = vRegexBudgetExhausted
		t.setDetail(s, regexBudgetDetail)
		return false
	}
	if !ok {
		s.verdict = vSecondaryLogicFailed
		t.setDetail(s, string(logic)+": "+strconv.Itoa(hits)+" of "+strconv.Itoa(ce.secondaryN)+" secondary keys matched")
		return false
	}
	return true
}

// roll draws entry s's chance (rule 4); a failed draw decides it
// chance_failed. The error (wrapping lore.ErrInvalid) is a draw outside
// [0, 1).
func (t *turn) roll(ce *compiledEntry, s *entryState) (bool, error) {
	r := t.random()
	if !(r >= 0 && r < 1) {
		return false, fmt.Errorf("activation: %w", lore.Reject("options.random", i18n.RandomOutOfRange, lore.Params{"value": r}))
	}
	if !(r*100 < float64(ce.probability)) {
		s.stage, s.verdict = stageDone, vChanceFailed
		t.setDetail(s, "draw "+strconv.FormatFloat(r, 'f', -1, 64)+" not below chance "+strconv.Itoa(ce.probability)+"%")
		return false, nil
	}
	if t.trace {
		t.addDetail(s, ", draw "+strconv.FormatFloat(r, 'f', -1, 64)+" below chance "+strconv.Itoa(ce.probability)+"%")
	}
	return true, nil
}

// claimOrder sorts a pass's survivors into the order in which they claim
// the budget (rule 6): sticky first, then by Matcher.claim, ties in the
// order they arrive (insertion order). Survivors that arrive in evaluation
// order, none sticky (a recursive pass's, most first passes'), are read
// off a bitmap of their places in Matcher.byClaim; the others are sorted
// as one integer each: their place (sticky or not, claim) above their
// arrival index.
func (t *turn) claimOrder(order []int32) []int32 {
	if len(order) < 2 {
		return order
	}
	m := t.m
	sorted, ranked := true, true
	for k, i := range order {
		if t.st[i].mode == modeSticky {
			sorted, ranked = false, false
			break
		}
		if k > 0 {
			prev := order[k-1]
			sorted = sorted && m.claim[prev] <= m.claim[i]
			ranked = ranked && m.rank[prev] < m.rank[i]
		}
	}
	switch {
	case sorted:
		return order
	case ranked:
		return t.ts.s.bitSort(order, m.claimRank, m.byClaim)
	}
	sc := t.ts.s
	keys := sc.claimKeys[:0]
	for k, i := range order {
		key := uint64(m.claim[i])<<32 | uint64(k)
		if t.st[i].mode != modeSticky {
			key |= 1 << 62
		}
		keys = append(keys, key)
	}
	slices.Sort(keys)
	arrived := append(sc.claimArrived[:0], order...)
	for k, key := range keys {
		order[k] = arrived[uint32(key)]
	}
	sc.claimArrived, sc.claimKeys = arrived, keys
	return order
}

// boolFirst orders true before false.
func boolFirst(x bool) int {
	if x {
		return -1
	}
	return 1
}

// admitAll admits the entries of order in that order in pass p (admit).
// A turn without a trace or token counts takes admit's common case
// inline: an entry without identity macros that fits the budget, its
// book without a share of its own. While similarity matches hold a share
// (holdShare), an entry fits when it would with all that is still held
// held from it (heldFrom holds at most that), and a similarity match
// takes admit's way, which takes it off the waiting list (claimed), until
// the matches have taken the hold: from then on nothing is held from any
// entry, whichever wait.
func (t *turn) admitAll(order []int32, p int) {
	if t.trace || !t.unitCost {
		for _, i := range order {
			t.admit(i, p)
		}
		return
	}
	t.held = t.stillHeld() // the most heldFrom holds; admit sets its own
	b, sc, feeds := &t.budget, t.ts.s, p < t.maxPasses
	for _, i := range order {
		ce, s := &t.m.entries[i], &t.st[i]
		c := ce.units
		var book *BookUse
		if t.sel.books != nil {
			book = &t.sel.books[s.book]
		}
		if s.stage != stagePassed || ce.ident || ce.ignoreBudget || b.Limit >= 0 && b.Used+c > b.Limit-t.held || book != nil && book.Limit >= 0 ||
			t.held > 0 && s.mode == modeSemantic {
			t.admit(i, p)
			t.held = t.stillHeld()
			continue
		}
		s.stage, s.verdict, s.cost = stageDone, vAdmitted, sat32(c)
		s.content = bodyContent
		b.Used += c
		if ce.constant {
			t.alwaysOnUsed += c
		}
		if book != nil {
			book.Used += c
		}
		sc.admitted = append(sc.admitted, i)
		if !feeds || !s.feeds || ce.body == "" {
			continue
		}
		if ts := t.ts; t.m.content[i].Load() != nil {
			ts.items = append(ts.items, recItem{src: i}) // addRecursion's, its body's hits memoised
		} else {
			ts.addRecursion(i, ce.body, true)
		}
	}
}

// stillHeld is the most heldFrom holds from an entry now: what the hold
// has left while similarity matches wait to claim the budget, else 0.
func (t *turn) stillHeld() int {
	if len(t.pend) == 0 {
		return 0
	}
	return max(t.hold-t.semUsed, 0)
}

// admit spends the budget on entry i (rule 6) and feeds recursion.
func (t *turn) admit(i int32, p int) {
	ce := &t.m.entries[i]
	s := &t.st[i]
	if s.stage != stagePassed {
		return
	}
	s.stage = stageDone
	content, c := ce.body, ce.units // costOf's, without identity macros or tokens
	own := ce.ident || !t.unitCost
	if own {
		content, c = t.costOf(i)
	}
	b := &t.budget
	t.held = t.heldFrom(i, s)
	if s.mode == modeSemantic && len(t.pend) > 0 {
		defer func() { t.claimed(i, int(s.cost)) }()
	}
	var book *BookUse // the entry's book's share, when books have shares
	if t.sel.books != nil {
		book = &t.sel.books[s.book]
	}
	switch {
	case ce.ignoreBudget:
		// Outside the budget, like titles: admitted, never counted.
		if t.trace {
			t.addDetail(s, "; ignores the budget")
		}
	case book != nil && book.Limit >= 0 && t.overShare(s, c, p):
		return
	case b.Limit >= 0 && b.Used+c > b.Limit-t.held:
		s.verdict = vOverBudget
		t.overWhy(s, &t.in.Entries[i], c)
		if t.trace {
			t.setDetail(s, t.overBudgetDetail(ce, s, c, p))
		}
		return
	default:
		b.Used += c
		s.cost = sat32(c)
		if ce.constant {
			t.alwaysOnUsed += c
		}
	}
	if book != nil {
		book.Used += int(s.cost)
	}
	s.verdict = vAdmitted
	if own {
		t.setStr(&s.content, content)
	} else {
		s.content = bodyContent
	}
	t.ts.s.admitted = append(t.ts.s.admitted, i)
	if p > 1 && t.trace {
		t.addDetail(s, "; pass "+strconv.Itoa(p))
	}
	// Text admitted in the turn's last recursive pass is read by no pass:
	// runPasses stops there, and later passes of minActivations read no
	// recursion text (minPass) or run only below maxPasses.
	if s.feeds && content != "" && p < t.maxPasses {
		t.ts.addRecursion(i, content, !ce.ident || content == ce.body)
	}
}

// result builds the Result of the turn.
func (t *turn) result(passes int) Result {
	m, st := t.m, t.st
	res := Result{Budget: t.budget, Passes: passes, entries: t.in.Entries, m: m}
	adm := t.ts.s.admitted
	if buf := t.opts.AdmittedBuf; len(adm) > 0 && cap(buf) >= len(adm) {
		res.Admissions = buf[:0]
	} else if len(adm) > 0 {
		res.Admissions = make([]Admission, 0, len(adm))
	}
	order := m.order
	if t.in.Semantic != nil && t.trace { // scoreOf's slab, once
		t.scores = make([]float64, 0, len(st))
	}
	if t.trace {
		res.Trace = t.opts.TraceBuf
		if cap(res.Trace) < len(st) {
			res.Trace = make([]TraceItem, len(st))
		}
		res.Trace = res.Trace[:len(st)]
	} else {
		// Only the admitted entries, in the same (effective) order.
		order = t.inOrder(adm)
	}
	books := t.bookUses()
	if t.trace {
		for k, i := range order {
			s := &st[i]
			res.Trace[k] = t.traceItem(&t.in.Entries[i], &m.entries[i], s, t.trigID(s))
		}
	}
	injected := false
	if len(adm) > 0 {
		injected = t.collect(&res, res.Admissions[:len(adm)], order, books)
	}
	res.nearMissWork = t.near.work
	if injected {
		res.Injections, res.Outlets = injections(&res)
	}
	if books != nil {
		res.Budget.ByBook = slices.DeleteFunc(books, func(b BookUse) bool { return b.Entries == 0 })
	}
	return res
}

// collect fills out (one Admission per admitted entry) with the admitted
// entries of order, in that order, sets res.Admissions to them, counts
// each into its book of books (when not nil) and reports whether one is
// injected. An entry with a token count has it in res.tokens, one with a
// score in res.scores; one with identity-resolved content or
// @@reverse_depth's position has its res.rare item (fillRare).
func (t *turn) collect(res *Result, out []Admission, order []int32, books []BookUse) bool {
	m, st := t.m, t.st
	injected, n := false, 0
	for _, i := range order {
		s := &st[i]
		if s.verdict != vAdmitted {
			continue
		}
		if t.sums != nil && t.plan.posOf[i] >= 0 {
			// A score the plan's turn left at 0 (applyNonzero).
			s.score = SumScore(t.sums[t.plan.posOf[i]], t.sumsNorm)
		}
		ce := &m.entries[i]
		out[n] = Admission{pos: i, trig: s.trig, cost: s.cost, passFlags: uint32(s.pass) << admPassShift}
		if s.tokens >= 0 {
			if res.tokens == nil {
				res.tokens = make([]int, len(out))
			}
			res.tokens[n] = int(s.tokens)
			out[n].passFlags |= admCounted
		}
		if s.scored {
			if res.scores == nil {
				res.scores = make([]float64, len(out))
			}
			res.scores[n] = float64(s.score)
			out[n].passFlags |= admScored
		}
		if s.content != bodyContent || ce.revDepth >= 0 {
			if res.rare == nil {
				res.rare = make([]rareAdmission, len(out))
			}
			t.fillRare(&res.rare[n], ce, s)
			out[n].passFlags |= admRare
		}
		n++
		injected = injected || ce.injected
		if books != nil {
			bu := &books[s.book]
			bu.Used += int(s.cost)
			bu.Entries++
		}
	}
	res.Admissions = out[:n]
	return injected
}

// fillRare sets x, the rare part of the Admission of entry state s
// (compiled ce): identity-resolved content and @@reverse_depth's
// position.
func (t *turn) fillRare(x *rareAdmission, ce *compiledEntry, s *entryState) {
	if s.content != bodyContent {
		x.content, x.ownContent = t.str(s.content), true
	}
	if ce.revDepth >= 0 {
		p := ce.placing
		p.Position = t.position(ce)
		x.placing = &p
	}
}

// trigID is the id of the entry whose content triggered state s (0 none).
func (t *turn) trigID(s *entryState) int64 {
	if s.trig > 0 {
		return t.m.ids[s.trig-1]
	}
	return 0
}

// inOrder sorts the entry positions list (distinct) into evaluation order
// in place (bitSort): linear in the entries admitted, not in the book's.
func (t *turn) inOrder(list []int32) []int32 {
	return t.ts.s.bitSort(list, t.m.rank, t.m.order)
}

// bitSort sorts the entry positions list (distinct) in place by rank,
// through a bitmap of their ranks: order is rank's inverse
// (order[rank[i]] == i).
func (sc *scratch) bitSort(list, rank, order []int32) []int32 {
	if len(list) < 2 {
		return list
	}
	words := (len(order) + 63) / 64
	if cap(sc.rankBits) < words {
		sc.rankBits = make([]uint64, words)
	}
	set := sc.rankBits[:words]
	clear(set)
	for _, i := range list {
		r := uint32(rank[i])
		set[r>>6] |= 1 << (r & 63)
	}
	k := 0
	for w, b := range set {
		base := order[w<<6:]
		for ; b != 0 && k < len(list); b &= b - 1 {
			list[k] = base[bits.TrailingZeros64(b)]
			k++
		}
	}
	return list
}

// traceItem is the trace item of entry e (compiled ce, state s, triggered
// by the entry with id trig).
func (t *turn) traceItem(e *lore.Entry, ce *compiledEntry, s *entryState, trig int64) TraceItem {
	detail := t.str(s.detail)
	if detail == "" {
		switch s.verdict {
		case vNoKeyMatch:
			depth := t.scannedDepth(s)
			detail = noKeyDetail(depth, s.noKeyRec)
			if t.opts.NearMisses && ce.whole {
				detail += t.nearMiss(ce, depth)
			}
			if ce.regexErr != "" {
				detail += "; " + ce.regexErr
			}
		case vDelayedUntilRecursion:
			detail = "waits for recursion level " + strconv.Itoa(int(s.level))
		}
	}
	if ce.note != "" {
		detail += "; " + ce.note
	}
	v := semanticVerdict(s)
	params := verdictParams(v, e, detail)
	if v == VerdictOverBudget && s.over != overPlain {
		params = t.overBudgetParams(s, params)
	}
	return TraceItem{ID: e.ID, Title: e.Title, Verdict: v, Detail: detail, Pass: int(s.pass), TriggeredBy: trig, Params: params,
		Score: t.scoreOf(s)}
}

// noKeyDetails are the no_key_match details of small depths, without and
// with recursion text, built once.
var noKeyDetails = func() (d [2][lore.MaxScanDepth + 1]string) {
	for i := range d[0] {
		d[0][i] = "no key in the last " + lore.Count(i, "message", "messages")
		d[1][i] = d[0][i] + noKeyRecSuffix
	}
	return d
}()

const noKeyRecSuffix = " nor in recursion text"

// noKeyDetail returns the no_key_match detail for a depth.
func noKeyDetail(depth int, rec bool) string {
	r := 0
	if rec {
		r = 1
	}
	if depth >= 0 && depth < len(noKeyDetails[r]) {
		return noKeyDetails[r][depth]
	}
	d := "no key in the last " + lore.Count(depth, "message", "messages")
	if rec {
		d += noKeyRecSuffix
	}
	return d
}

// gateCache remembers the last collection looked up: entries of one
// collection are usually adjacent.
type gateCache struct {
	name string
	coll lore.Collection
	ok   bool
	set  bool
}

// gate applies the scope and channel gates and returns "" when e passes.
func (gc *gateCache) gate(e *lore.Entry, in *Input) (Verdict, string) {
	if !e.Enabled {
		return VerdictDisabled, "entry is disabled"
	}
	if e.Server != in.Server {
		return VerdictGatedServer, "entry belongs to another server"
	}
	channels := e.ChannelIDs
	if !e.Lineage.IsServerwide() {
		if e.Lineage != in.Lineage {
			return VerdictGatedLineage, "persona lineage " + strconv.FormatInt(int64(e.Lineage), 10) + " is not the active lineage"
		}
	} else {
		name := e.Collection
		if name == "" {
			name = lore.DefaultCollection
		}
		if !gc.set || gc.name != name {
			gc.coll, gc.ok = in.Collections[name]
			gc.name, gc.set = name, true
		}
		c, ok := gc.coll, gc.ok
		if !ok {
			return VerdictGatedCollection, "collection " + strconv.Quote(name) + " not found"
		}
		if !c.Enabled {
			return VerdictGatedCollection, "collection " + strconv.Quote(name) + " is disabled"
		}
		channels = c.ChannelIDs
	}
	// Pending legacy channel names stand for the persona entry's own
	// channels until the backfill resolves them, so they admit every
	// channel; a Serverwide entry's channels belong to its collection, set
	// by a manager, which pending names never override.
	pending := !e.Lineage.IsServerwide() && len(e.LegacyChannelTags) > 0
	if in.ChannelScoping && !pending && !channelAdmits(channels, in.Channel, in.ParentChannel) {
		if e.Lineage.IsServerwide() {
			return VerdictGatedChannel, "channel is not in the collection's channels"
		}
		return VerdictGatedChannel, "channel is not in the entry's channels"
	}
	return "", ""
}

// channelAdmits is the channel rule of docs/contract.md#channels: an empty list admits every
// channel; otherwise the channel or, for a thread, its parent must be listed.
func channelAdmits(list []string, channel, parent string) bool {
	if len(list) == 0 {
		return true
	}
	for _, id := range list {
		if (channel != "" && id == channel) || (parent != "" && id == parent) {
			return true
		}
	}
	return false
}
