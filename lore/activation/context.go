package activation

import (
	"slices"
	"strings"

	"loregate/lore"
)

// This file holds the request-side inputs of a turn (docs/authoring.md
// "Context sources", "Filters"): speaker names, the character filter and
// generation type gates, and the context texts an entry's match flags add
// to its scanned text.

// The context sources, as bits of compiledEntry.match, in the order they
// join the scanned text (SillyTavern's: persona description, character
// description, personality, depth prompt, scenario, creator notes).
const (
	srcPersonaDescription uint8 = 1 << iota
	srcCharacterDescription
	srcCharacterPersonality
	srcCharacterDepthPrompt
	srcScenario
	srcCreatorNotes
)

// matchMask is the context-source mask of m.
func matchMask(m lore.MatchSources) uint8 {
	var b uint8
	for _, f := range []struct {
		on  bool
		bit uint8
	}{{m.PersonaDescription, srcPersonaDescription}, {m.CharacterDescription, srcCharacterDescription},
		{m.CharacterPersonality, srcCharacterPersonality}, {m.CharacterDepthPrompt, srcCharacterDepthPrompt},
		{m.Scenario, srcScenario}, {m.CreatorNotes, srcCreatorNotes}} {
		if f.on {
			b |= f.bit
		}
	}
	return b
}

// compilePosition sets ce's position (the reported one, pos, unless it
// depends on the turn), context-source mask and filter flag from e and
// its decorators: the kind is @@position, else AT_DEPTH for
// @@depth or @@reverse_depth, else e's own kind; the depth is @@depth,
// else @@reverse_depth (resolved per turn), else e's own.
func (ce *compiledEntry) compilePosition(e *lore.Entry) {
	d := &ce.dec
	ce.kind = d.Kind(e.PositionKindOrDerived())
	ce.injected = ce.kind.Injected()
	ce.depth, ce.revDepth, ce.outlet = e.Depth, -1, e.Outlet
	switch {
	case d.Depth != nil:
		ce.depth = min(max(*d.Depth, 0), lore.MaxDepth)
	case d.ReverseDepth != nil:
		ce.revDepth = min(max(*d.ReverseDepth, 0), lore.MaxDepth)
	}
	ce.match = matchMask(e.Match)
	ce.gens = 0
	for _, g := range e.GenerationTypes {
		ce.gens |= genBit(g)
	}
	ce.filtered = len(e.GenerationTypes) > 0 || !e.CharacterFilter.IsZero()
	ce.placing.Position = lore.Position{}
	if ce.revDepth < 0 {
		ce.placing.Position = lore.NewPosition(ce.kind, ce.depth, ce.role, ce.outlet)
	}
}

// position is the reported position of ce this turn: the compiled one,
// or for @@reverse_depth the depth counted from the oldest of the
// conversation's messages.
func (t *turn) position(ce *compiledEntry) lore.Position {
	if ce.revDepth < 0 {
		return ce.placing.Position
	}
	n := t.in.MessageCount
	if n <= 0 {
		n = len(t.in.Messages)
	}
	return lore.NewPosition(ce.kind, max(n-ce.revDepth, 0), ce.role, ce.outlet)
}

// messages returns the texts the turn scans: in.Messages, or with
// Options.IncludeNames each one as "Name: content" where in.Names has
// its speaker (SillyTavern's include names).
func (t *turn) messages() []string {
	in := t.in
	if !t.opts.IncludeNames || len(in.Names) == 0 {
		return in.Messages
	}
	out := make([]string, len(in.Messages))
	for i, m := range in.Messages {
		if i < len(in.Names) && in.Names[i] != "" {
			m = in.Names[i] + ": " + m
		}
		out[i] = m
	}
	return out
}

// genBit is generation type g's bit in compiledEntry.gens ("" is normal;
// an unknown type has none).
func genBit(g lore.GenerationType) uint8 {
	switch g {
	case "", lore.GenNormal:
		return 1
	case lore.GenContinue:
		return 2
	case lore.GenImpersonate:
		return 4
	case lore.GenSwipe:
		return 8
	case lore.GenRegenerate:
		return 16
	case lore.GenQuiet:
		return 32
	}
	return 0
}

// filterGate applies the generation type gate and the character filter of
// an entry that has one (compiledEntry.filtered); "" means e passes.
//
// Rules (docs/authoring.md "Filters"; SillyTavern's where this is silent):
// empty GenerationTypes admit every type; the request's type ("" =
// normal) must be listed. A filter with names needs the character's name
// listed, one with tags needs a listed tag, and one with both needs both
// to include; with Exclude a listed name or a listed tag excludes. Names
// and tags compare exactly. With no character in the request an include
// filter blocks and an exclude filter lets the entry pass.
//
// gens is e's compiled generation types (compiledEntry.gens).
func filterGate(e *lore.Entry, gens uint8, in *Input) (Verdict, string) {
	if len(e.GenerationTypes) > 0 && gens&genBit(in.GenerationType) == 0 {
		g := in.GenerationType
		if g == "" {
			g = lore.GenNormal
		}
		return VerdictFilteredGenerationType, "generation type " + string(g) + " is not one of " + joinGens(e.GenerationTypes)
	}
	f := &e.CharacterFilter
	if f.IsZero() {
		return "", ""
	}
	c := in.Character
	if c == nil {
		if f.Exclude {
			return "", ""
		}
		return VerdictFilteredCharacter, "the request has no character, and " + filterText(f) + " includes only those"
	}
	nameHit := len(f.Names) > 0 && slices.Contains(f.Names, c.Name)
	tagHit := len(f.Tags) > 0 && slices.ContainsFunc(c.Tags, func(t string) bool { return slices.Contains(f.Tags, t) })
	if f.Exclude {
		if nameHit || tagHit {
			return VerdictFilteredCharacter, "character " + quote(c.Name) + " is excluded by " + filterText(f)
		}
		return "", ""
	}
	if (len(f.Names) > 0 && !nameHit) || (len(f.Tags) > 0 && !tagHit) {
		return VerdictFilteredCharacter, "character " + quote(c.Name) + " is not included by " + filterText(f)
	}
	return "", ""
}

func joinGens(gs []lore.GenerationType) string {
	s := make([]string, len(gs))
	for i, g := range gs {
		s[i] = string(g)
	}
	return strings.Join(s, ", ")
}

// filterText names a character filter and its lists for a trace detail.
func filterText(f *lore.CharacterFilter) string {
	var parts []string
	if len(f.Names) > 0 {
		parts = append(parts, "names "+strings.Join(f.Names, ", "))
	}
	if len(f.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(f.Tags, ", "))
	}
	return "the character filter (" + strings.Join(parts, " and ") + ")"
}

func quote(s string) string { return `"` + s + `"` }

// ctxScan is the scan of the context text of one source mask.
type ctxScan struct {
	mask uint8
	ts   *turnScan
	sc   *scratch
}

// ctxSources are the texts of the sources in mask, in SillyTavern's
// order, "" for a source not in mask or blank.
type ctxSources [6]string

// sources returns the turn's ctxSources of mask.
func (t *turn) sources(mask uint8) ctxSources {
	c, p := t.in.Character, t.in.Persona
	if c == nil {
		c = &Character{}
	}
	if p == nil {
		p = &Persona{}
	}
	var out ctxSources
	for k, s := range [...]struct {
		bit  uint8
		text string
	}{{srcPersonaDescription, p.Description}, {srcCharacterDescription, c.Description},
		{srcCharacterPersonality, c.Personality}, {srcCharacterDepthPrompt, c.DepthPrompt},
		{srcScenario, c.Scenario}, {srcCreatorNotes, c.CreatorNotes}} {
		if mask&s.bit != 0 && strings.TrimSpace(s.text) != "" {
			out[k] = s.text
		}
	}
	return out
}

// text is the context text of src joined as SillyTavern joins it
// (non-empty ones, newline-separated), "" when there is none.
func (src *ctxSources) text() string {
	var parts []string
	for _, s := range src {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// contextScan returns the scan of the context text of mask, made once per
// turn and mask, as an entryState.ctx: 1 + its index in t.ctxScans, 0
// when the request has no such text.
func (t *turn) contextScan(mask uint8) int8 {
	for i := range t.ctxScans {
		if t.ctxScans[i].mask == mask {
			if t.ctxScans[i].ts == nil {
				return 0
			}
			return int8(i + 1)
		}
	}
	cs := ctxScan{mask: mask}
	src := t.sources(mask)
	var text string
	if h := t.m.ctxHits.Load(); h != nil && h.src == src {
		text = h.text // the texts the last turn sent: no new join
	} else {
		text = src.text()
	}
	if text != "" {
		cs.sc = t.m.getScratch()
		cs.ts = t.m.newTurnScan(cs.sc, []string{text}, t.ts.dyn, 0)
		cs.ts.texts = t.opts.Texts
		if !cs.ts.reuseHits(text) {
			var need [numAutos]bool
			for slot, a := range cs.ts.autos {
				need[slot] = a != nil
			}
			cs.ts.scanWindow(1, need)
			cs.ts.keepHits(src, text)
		}
		cs.ts.markCandidates()
	}
	t.ctxScans = append(t.ctxScans, cs)
	if cs.ts == nil {
		return 0
	}
	return int8(len(t.ctxScans))
}

// ctxOf is the context-source scan of s, whose ctx is not 0.
func (t *turn) ctxOf(s *entryState) *turnScan { return t.ctxScans[s.ctx-1].ts }

// keyless reports whether no primary key of the plain-keyed entry i
// (state s) occurs in the chat window the turn scanned nor in its context
// text (markCandidates of both scans).
func (t *turn) keyless(i int32, s *entryState) bool {
	return !t.ts.candidate(i) && (s.ctx == 0 || !t.ctxOf(s).candidate(i))
}

// ctxHits are the terminal nodes of the Matcher's own automata that one
// context text reaches: a bot resends the same character and persona
// texts every turn, so the next turn marks them instead of scanning the
// text again. Macro keys (names change) are not memoised.
type ctxHits struct {
	src   ctxSources
	text  string
	nodes [2][]int32
}

// reuseHits marks the memoised matches of text in the scan of a one-text
// window and reports whether it could (same text, no macro automata).
func (ts *turnScan) reuseHits(text string) bool {
	h := ts.m.ctxHits.Load()
	if h == nil || h.text != text || ts.autos[autoDynFold] != nil || ts.autos[autoDynSens] != nil {
		return false
	}
	s := ts.s
	ts.start = len(ts.msgs) - 1
	for slot := range h.nodes {
		if ts.autos[slot] == nil {
			continue
		}
		if uint64(s.gen[slot])+2 >= 1<<32 {
			clear(s.done[slot])
			s.gen[slot] = 0
		}
		g0 := s.gen[slot] + 1
		ts.g0[slot] = g0
		for _, n := range h.nodes[slot] {
			s.done[slot][n] = g0
		}
		s.touched[slot] = append(s.touched[slot][:0], h.nodes[slot]...)
		s.gen[slot] = g0
	}
	return true
}

// keepHits memoises the nodes the scan of text (joined from src) reached
// (after scanWindow).
func (ts *turnScan) keepHits(src ctxSources, text string) {
	if ts.autos[autoDynFold] != nil || ts.autos[autoDynSens] != nil {
		return
	}
	h := &ctxHits{src: src, text: text}
	for slot := range h.nodes {
		h.nodes[slot] = slices.Clone(ts.s.touched[slot])
	}
	ts.m.ctxHits.Store(h)
}

// release returns the recursion items' buffers to the turn's scratch and
// the context scans' scratch to the pool. The texts scanned this turn
// (turnScan.alts: an identity macro resolved, the turn's own strings) are
// cleared, so that a pooled scratch holds none; the items hold no text.
func (t *turn) release() {
	if t.above != nil {
		t.above.Release()
	}
	clear(t.ts.alts)
	t.ts.s.items, t.ts.s.alts = t.ts.items[:0], t.ts.alts[:0]
	t.ts.s.strs = t.strs[:0] // the next turn overwrites them
	t.ts.s.pend, t.ts.s.matched = t.pend[:0], t.matched[:0]
	for _, cs := range t.ctxScans {
		if cs.sc != nil {
			t.m.pool.Put(cs.sc)
		}
	}
}
