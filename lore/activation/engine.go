package activation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"loregate/lore"
)

// Activate compiles in.Entries and runs one turn. Use a Cache (or Compile
// once) when the same entries serve many turns.
func Activate(ctx context.Context, in Input, opts Options) (Result, error) {
	return Compile(in.Entries, opts.MatchOptions()).Activate(ctx, in, opts)
}

// stage is the per-entry progress of a turn.
type stage uint8

const (
	stageDone      stage = iota // verdict decided
	stageCandidate              // passed every gate, awaiting keys/chance
	stageBudget                 // awaiting the budget
)

type entryState struct {
	stage   stage
	verdict Verdict
	detail  string
	content string
	depth   int
}

// Activate runs one turn over in with the compiled matcher. in.Entries must
// be the entries m was compiled from (same length, same ids in the same
// positions) and opts must have m's MatchOptions; otherwise the error wraps
// lore.ErrInvalid. Other errors (also wrapping lore.ErrInvalid): a token
// budget without a Tokenizer, a Random draw outside [0, 1).
//
// The rules, in order (seed 000 "Activation contract", DESIGN.md):
//
//  1. Gates, constants included: enabled, server, lineage (Serverwide
//     entries always pass), collection (Serverwide entries only: present and
//     enabled), channel (when in.ChannelScoping: the collection's channels for
//     Serverwide entries, the entry's own for persona entries; empty admits
//     all; a thread is admitted when its channel or its parent is listed; a
//     persona entry with LegacyChannelTags admits every channel, while a
//     Serverwide entry always follows its collection's channels).
//  2. Probability 0 blocks every entry, constants included.
//  3. Constants skip keys, secondary logic and the chance roll (group
//     AlwaysOn). Other entries need a primary key occurring in their last
//     scan-depth messages, then their secondary logic (AND_ANY, AND_ALL,
//     NOT_ANY, NOT_ALL over the non-blank secondary keys, each also searched
//     in those messages; no non-blank secondary key = no condition), then,
//     for a chance strictly between 0 and 100, a draw r with r*100 < chance
//     (reference/sillytavern.md 2.3; cases BUG-12, BUG-13, BUG-19). A chance
//     of 100 consumes no draw; draws are taken in insertion order.
//  4. Budget: AlwaysOn entries in insertion order, then Activated ones with
//     what remains. An entry whose identity-resolved content does not fit is
//     over_budget and later, smaller entries may still fit (skip and
//     continue, case BUG-21). Titles are outside the budget. An entry with
//     IgnoreBudget is outside the budget: always admitted, never counted
//     (seed 003 "bypass token budget - always inject"; case BUG-21).
func (m *Matcher) Activate(ctx context.Context, in Input, opts Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if !m.fits(in.Entries) {
		return Result{}, fmt.Errorf("activation: %w", lore.Invalid("entries", "are not the entries the matcher was compiled from"))
	}
	if opts.MatchOptions() != m.mo {
		return Result{}, fmt.Errorf("activation: %w", lore.Invalid("options", "match options differ from the compiled matcher's"))
	}
	budget := Budget{Unit: UnitUTF16, Limit: opts.CharBudget}
	switch {
	case opts.TokenBudget > 0:
		if opts.Tokenizer == nil {
			return Result{}, fmt.Errorf("activation: %w", lore.Invalid("options.tokenizer", "is required with a token budget"))
		}
		budget = Budget{Unit: UnitTokens, Limit: opts.TokenBudget}
	case opts.CharBudget == 0:
		budget.Limit = DefaultCharBudget
	case opts.CharBudget < 0:
		budget.Limit = -1
	}
	defDepth := DefaultScanDepth
	if opts.ScanDepth != nil {
		defDepth = max(*opts.ScanDepth, 0)
	}
	random := opts.Random
	if random == nil {
		random = rand.Float64
	}

	n := len(in.Entries)
	sc := m.getScratch()
	defer m.pool.Put(sc)
	st := sc.states[:n]
	clear(st)
	var gc gateCache
	window := 0
	var need [2]bool
	for i := range in.Entries {
		e := &in.Entries[i]
		s := &st[i]
		if v, d := gc.gate(e, &in); v != "" {
			s.verdict, s.detail = v, d
			continue
		}
		if e.Probability <= 0 {
			s.verdict, s.detail = VerdictChanceFailed, "trigger chance is 0%"
			continue
		}
		if e.Constant {
			s.stage = stageBudget
			continue
		}
		s.stage = stageCandidate
		ce := &m.entries[i]
		if !ce.hasPrimary {
			continue
		}
		d := defDepth
		if e.ScanDepth != nil {
			d = *e.ScanDepth
		}
		if d < 0 {
			d = 0
		}
		s.depth = d
		window = max(window, min(d, len(in.Messages)))
		need[autoFold] = need[autoFold] || ce.autos&(1<<autoFold) != 0
		need[autoSens] = need[autoSens] || ce.autos&(1<<autoSens) != 0
	}

	ts := m.scanWindow(sc, in.Messages, window, need)
	nmsg := len(in.Messages)

	var noKey []string
	for _, i := range m.order {
		s := &st[i]
		if s.stage != stageCandidate {
			continue
		}
		e := &in.Entries[i]
		ce := &m.entries[i]
		s.stage = stageDone
		if !ce.hasPrimary {
			s.verdict = VerdictNoKeyMatch
			s.detail = "no usable key"
			if ce.regexErr != "" {
				s.detail += "; " + ce.regexErr
			}
			continue
		}
		oldest := nmsg - s.depth
		matched := -1
		for j := range ce.primary {
			if at := ts.hit(&ce.primary[j], s.depth); at >= 0 && at >= oldest {
				matched = j
				break
			}
		}
		if matched < 0 {
			s.verdict = VerdictNoKeyMatch
			s.detail = noKeyDetail(&noKey, min(s.depth, nmsg))
			if ce.regexErr != "" {
				s.detail += "; " + ce.regexErr
			}
			continue
		}
		if ce.secondaryN > 0 {
			hits := 0
			for j := range ce.secondary {
				if at := ts.hit(&ce.secondary[j], s.depth); at >= 0 && at >= oldest {
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
			if !ok {
				s.verdict = VerdictSecondaryLogicFailed
				s.detail = string(logic) + ": " + strconv.Itoa(hits) + " of " + strconv.Itoa(ce.secondaryN) + " secondary keys matched"
				continue
			}
		}
		s.detail = "key " + strconv.Quote(ce.primaryText[matched])
		if e.Probability < 100 {
			r := random()
			if !(r >= 0 && r < 1) {
				return Result{}, fmt.Errorf("activation: %w", lore.Invalid("options.random", "returned %v, outside [0, 1)", r))
			}
			if !(r*100 < float64(e.Probability)) {
				s.verdict = VerdictChanceFailed
				s.detail = "draw " + strconv.FormatFloat(r, 'f', -1, 64) + " not below chance " + strconv.Itoa(e.Probability) + "%"
				continue
			}
			s.detail += ", draw " + strconv.FormatFloat(r, 'f', -1, 64) + " below chance " + strconv.Itoa(e.Probability) + "%"
		}
		s.stage = stageBudget
	}

	var res Result
	cost := sc.admitted[:n]
	nAdm := 0
	for _, constants := range []bool{true, false} {
		for _, i := range m.order {
			s := &st[i]
			e := &in.Entries[i]
			if s.stage != stageBudget || e.Constant != constants {
				continue
			}
			s.stage = stageDone
			content := ResolveIdentity(e.Content, opts.UserName, opts.CharName, opts.BotName)
			var c int
			if budget.Unit == UnitTokens {
				c = opts.Tokenizer.CountTokens(content)
			} else {
				c = lore.UTF16Len(content)
			}
			if e.IgnoreBudget {
				// Outside the budget, like titles: admitted, never counted.
				s.verdict, s.content, cost[i] = VerdictAdmitted, content, 0
				s.detail = "ignores the budget"
				if constants {
					s.detail = "always on; ignores the budget"
				}
				nAdm++
				continue
			}
			if budget.Limit >= 0 && budget.Used+c > budget.Limit {
				s.verdict = VerdictOverBudget
				s.detail = "needs " + strconv.Itoa(c) + " " + string(budget.Unit) + ", " +
					strconv.Itoa(budget.Limit-budget.Used) + " of " + strconv.Itoa(budget.Limit) + " left"
				continue
			}
			budget.Used += c
			s.verdict, s.content, cost[i] = VerdictAdmitted, content, c
			nAdm++
			if constants {
				s.detail = "always on"
			}
		}
	}
	res.Budget = budget
	res.Passes = 1
	res.Trace = make([]TraceItem, n)
	if nAdm > 0 {
		res.Admitted = make([]Admitted, 0, nAdm)
	}
	for k, i := range m.order {
		e := &in.Entries[i]
		res.Trace[k] = TraceItem{ID: e.ID, Title: e.Title, Verdict: st[i].verdict, Detail: st[i].detail}
		if st[i].verdict != VerdictAdmitted {
			continue
		}
		g := Activated
		if e.Constant {
			g = AlwaysOn
		}
		p := e.Placement
		if !p.Valid() {
			p = lore.After
		}
		res.Admitted = append(res.Admitted, Admitted{Entry: *e, Content: st[i].content, Placement: p, Group: g, Cost: cost[i], Role: e.Role, Pass: 1})
	}
	return res, nil
}

// noKeyDetail returns the no_key_match detail for a depth, building each
// distinct string once per turn.
func noKeyDetail(cache *[]string, depth int) string {
	if depth < 1024 {
		if len(*cache) <= depth {
			*cache = append(*cache, make([]string, depth+1-len(*cache))...)
		}
		if (*cache)[depth] == "" {
			(*cache)[depth] = "no key in the last " + strconv.Itoa(depth) + " messages"
		}
		return (*cache)[depth]
	}
	return "no key in the last " + strconv.Itoa(depth) + " messages"
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

// channelAdmits is the channel rule of seed 000: an empty list admits every
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
