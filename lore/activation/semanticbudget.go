package activation

import (
	"slices"
	"strconv"

	"loregate/lore"
)

// This file holds the similarity matches' share of the budget
// (docs/contract.md#semantic-budget): the pass that admits by similarity
// holds back up to Semantic.BudgetShare of the turn's budget, as much as
// its similarity matches cost, so that keyword and Always On entries are
// admitted within the budget less what is held and the similarity
// matches within what is held plus what the others left. A turn without
// similarity matches holds nothing.

// overCause says which share of the budget an over_budget entry failed.
type overCause uint8

const (
	// overPlain: the budget itself (or a book's share of it).
	overPlain overCause = iota
	// overAlwaysOn: the budget, after Always On entries took more than
	// half of it (an entry that is not Always On).
	overAlwaysOn
	// overKeywordShare: the budget less what is held for similarity
	// matches (the entry would have fit without the hold).
	overKeywordShare
	// overSemanticShare: what is left for similarity matches (a
	// similarity match while the pass held a share).
	overSemanticShare
)

// The params an over_budget item carries beyond priority (TraceItem.Params,
// docs/api.md "Reason keys"): share names the share it failed ("keyword"
// or "semantic"), held what the turn held for similarity matches,
// alwaysOn what the Always On entries took, limit the budget.
const (
	shareKeyword  = "keyword"
	shareSemantic = "semantic"
)

// heldMatch is a similarity match of the holding pass that has not yet
// claimed the budget: its entry, cost and priority.
type heldMatch struct {
	i          int32
	cost, prio int
}

// holdShare sets the hold of a pass whose entries include similarity
// matches: BudgetShare of the budget, at most what those matches (not
// ignoring the budget) cost, and lists them (t.pend). Nothing is held
// without Semantic, without a share, with an unlimited budget or without
// a similarity match. The pass's similarity matches are those
// semanticPass passed in it (t.matched, pass 1's alone) that the pass's
// groups left passed, in the pass's order: no other pass passes an entry
// decided by similarity (passEntry).
func (t *turn) holdShare() {
	t.pend, t.semUsed = t.pend[:0], 0
	matched := t.matched
	t.matched = t.matched[:0] // the next pass's are none
	sem := t.in.Semantic
	if sem == nil || sem.BudgetShare <= 0 || t.budget.Limit < 0 {
		return
	}
	need := 0
	for _, i := range matched {
		if s := &t.st[i]; s.stage == stagePassed && s.mode == modeSemantic && !t.in.Entries[i].IgnoreBudget {
			_, c := t.costOf(i)
			need += c
			t.pend = append(t.pend, heldMatch{i: i, cost: c, prio: t.m.entries[i].priority})
		}
	}
	if need == 0 {
		return
	}
	t.hold = min(int(sem.BudgetShare*float64(t.budget.Limit)), need)
}

// heldFrom is what entry i (state s) may not use of the budget: nothing
// for a similarity match; for another entry, what the similarity matches
// still waiting to claim the budget cost, counting only those of its
// priority or higher (a match never keeps a higher-priority entry out:
// docs/contract.md#semantic-budget), at most the hold less what the
// matches already took.
func (t *turn) heldFrom(i int32, s *entryState) int {
	if s.mode == modeSemantic || len(t.pend) == 0 {
		return 0
	}
	prio, need := t.m.entries[i].priority, 0
	for _, h := range t.pend {
		if h.prio >= prio {
			need += h.cost
		}
	}
	return max(min(t.hold-t.semUsed, need), 0)
}

// claimed takes similarity match i off the waiting list when it claims
// the budget, admitted or not, so that what it cannot use is not held
// from the entries after it; c is what it took.
func (t *turn) claimed(i int32, c int) {
	t.semUsed += c
	for k, h := range t.pend {
		if h.i == i {
			t.pend = slices.Delete(t.pend, k, k+1)
			return
		}
	}
}

// overWhy records which share over_budget entry s (e, costing c) failed.
func (t *turn) overWhy(s *entryState, e *lore.Entry, c int) {
	b := &t.budget
	switch {
	case t.held > 0 && s.mode != modeSemantic && b.Used+c <= b.Limit:
		s.over = overKeywordShare
	case t.hold > 0 && s.mode == modeSemantic:
		s.over = overSemanticShare
	case !e.Constant && 2*t.alwaysOnUsed > b.Limit:
		s.over = overAlwaysOn
	}
	s.aoTook = int32(t.alwaysOnUsed)
}

// costOf is entry i's identity-resolved content and its cost in the
// budget's unit (its tokens are kept in its state).
func (t *turn) costOf(i int32) (string, int) {
	ce, s := &t.m.entries[i], &t.st[i]
	content := ce.body
	if ce.ident {
		content = ResolveIdentity(content, t.opts.UserName, t.opts.CharName, t.opts.BotName)
	}
	if tok := t.opts.Tokenizer; tok != nil {
		s.tokens = int32(t.m.tokens.count(tok, int(i), len(t.st), content, content != ce.body, t.opts))
	}
	switch {
	case t.budget.Unit == UnitTokens:
		return content, int(s.tokens)
	case content == ce.body:
		return content, ce.units
	}
	return content, lore.UTF16Len(content)
}

// overBudgetDetail is the over_budget detail of entry s (compiled ce) that
// needed c in pass p: what was left, which share it failed when a share
// was held for similarity matches, and, for an entry that is not Always
// On when the Always On entries took more than half the budget, what they
// took first (docs/contract.md#semantic: a book whose constants fill the
// budget leaves little to its keyword and similarity hits).
func (t *turn) overBudgetDetail(ce *compiledEntry, s *entryState, c, p int) string {
	b := &t.budget
	unit := string(b.Unit)
	d := "priority " + strconv.Itoa(ce.priority) + ": needs " + strconv.Itoa(c) + " " + unit + ", " +
		strconv.Itoa(b.Limit-b.Used) + " of " + strconv.Itoa(b.Limit) + " left"
	switch s.over {
	case overKeywordShare:
		d += ", " + strconv.Itoa(t.held) + " of it held for similarity matches (semanticBudgetShare)"
	case overSemanticShare:
		d += " for similarity matches (" + strconv.Itoa(t.hold) + " held for them, semanticBudgetShare)"
	}
	if p > 1 {
		d += " in pass " + strconv.Itoa(p)
	}
	if s.over == overAlwaysOn {
		d += "; Always On entries took " + strconv.Itoa(int(s.aoTook)) + " first"
	}
	return d
}

// overBudgetParams adds to params (an over_budget item's) the share the
// entry (state s) failed: share, held and limit for a held share;
// alwaysOn and limit when the Always On entries took the budget first.
func (t *turn) overBudgetParams(s *entryState, params lore.Params) lore.Params {
	switch s.over {
	case overKeywordShare:
		params["share"], params["held"], params["limit"] = shareKeyword, t.hold, t.budget.Limit
	case overSemanticShare:
		params["share"], params["held"], params["limit"] = shareSemantic, t.hold, t.budget.Limit
	case overAlwaysOn:
		params["alwaysOn"], params["limit"] = int(s.aoTook), t.budget.Limit
	}
	return params
}

// overBudgetKey is the reason key of an over_budget item with params
// (TraceItem.Reason): which share it failed, or that the Always On
// entries took the budget first; plain over_budget otherwise.
func overBudgetKey(params map[string]any) string {
	switch params["share"] {
	case shareKeyword:
		return "over_budget_keyword_share"
	case shareSemantic:
		return "over_budget_semantic_share"
	}
	if _, ok := params["alwaysOn"]; ok {
		return "over_budget_always_on"
	}
	return string(VerdictOverBudget)
}
