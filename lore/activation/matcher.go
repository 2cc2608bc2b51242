package activation

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"loregate/lore"
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
)

// Automaton slots: keys matched case-insensitively (folded) and
// case-sensitively (NFKC only).
const (
	autoFold = 0
	autoSens = 1
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
	primary   []keyRef
	secondary []keyRef
	// primaryText holds the source text of each primary key, for the trace.
	primaryText []string
	// autos has bit 1<<slot set when a literal key uses that automaton.
	autos uint8
	// hasPrimary: at least one primary key can match.
	hasPrimary bool
	// secondaryN counts non-blank secondary keys (regex errors included).
	secondaryN int
	// regexErr is the first regex compile error of the entry, for the trace.
	regexErr string
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
	// order holds entry positions sorted by (Order, ID, position).
	order   []int32
	autos   [2]*automaton
	regexes []*regexp.Regexp
	pool    sync.Pool
}

type scratch struct {
	gen  [2]uint32
	done [2][]uint32
	buf  []byte
	// reFound is the newest message index a regex matched in (-1 none);
	// reDepth how many newest messages were scanned for it.
	reFound []int
	reDepth []int
	// Per-entry state of Activate.
	states   []entryState
	admitted []int
}

// Compile builds the Matcher of entries under mo. Keys are normalised with
// NFKC and (unless case-sensitive) Unicode case folding and marked for the
// word-boundary rule (see the package documentation). Blank keys are
// dropped; regex keys that RE2 cannot compile or that are longer than
// MaxRegexLen never match and are reported by Activate. Compile costs time
// linear in the total key size; memory is bounded by a dense table of at
// most 8 MiB per case mode plus a sparse trie proportional to the keys.
func Compile(entries []lore.Entry, mo MatchOptions) *Matcher {
	return compile(entries, mo, maxDenseCells)
}

func compile(entries []lore.Entry, mo MatchOptions, denseCap uint32) *Matcher {
	m := &Matcher{mo: mo, ids: make([]int64, len(entries)), entries: make([]compiledEntry, len(entries))}
	nz := newNormalizer()
	var pats [2][][]byte
	idx := [2]map[string]int32{{}, {}}
	reIdx := map[string]int32{}
	var reErrs []string
	compileKey := func(e *lore.Entry, key string) (keyRef, string) {
		ref := keyRef{}
		if strings.TrimSpace(key) == "" {
			return ref, ""
		}
		if mo.RegexKeys {
			if src, bodyLen, ok := regexSource(key); ok {
				i, seen := reIdx[src]
				if !seen {
					i = int32(len(m.regexes))
					reIdx[src] = i
					re, err := compileRegex(src, bodyLen)
					m.regexes = append(m.regexes, re)
					reErrs = append(reErrs, err)
				}
				ref.node = i
				if m.regexes[i] == nil {
					ref.kind = keyBadRegex
					return ref, reErrs[i]
				}
				ref.kind = keyRegex
				return ref, ""
			}
		}
		sens := mo.CaseSensitive
		if e.CaseSensitive != nil {
			sens = *e.CaseSensitive
		}
		whole := !mo.Substring
		if e.WholeWords != nil {
			whole = *e.WholeWords
		}
		slot := autoFold
		if sens {
			slot = autoSens
		}
		p := mark(nil, nz.normalize(key, !sens), whole)
		i, seen := idx[slot][string(p)]
		if !seen {
			i = int32(len(pats[slot]))
			idx[slot][string(p)] = i
			pats[slot] = append(pats[slot], p)
		}
		ref.kind, ref.auto, ref.node = keyLiteral, uint8(slot), i
		return ref, ""
	}
	for i := range entries {
		e := &entries[i]
		m.ids[i] = e.ID
		ce := &m.entries[i]
		for _, k := range e.Keys {
			r, rerr := compileKey(e, k)
			if r.kind == keyBlank {
				continue
			}
			if rerr != "" && ce.regexErr == "" {
				ce.regexErr = rerr
			}
			if r.kind == keyLiteral {
				ce.autos |= 1 << r.auto
			}
			ce.hasPrimary = ce.hasPrimary || r.kind != keyBadRegex
			ce.primary = append(ce.primary, r)
			ce.primaryText = append(ce.primaryText, k)
		}
		for _, k := range e.SecondaryKeys {
			r, rerr := compileKey(e, k)
			if r.kind == keyBlank {
				continue
			}
			if rerr != "" && ce.regexErr == "" {
				ce.regexErr = rerr
			}
			if r.kind == keyLiteral {
				ce.autos |= 1 << r.auto
			}
			ce.secondaryN++
			ce.secondary = append(ce.secondary, r)
		}
	}
	for slot := range pats {
		if len(pats[slot]) == 0 {
			continue
		}
		a, ends := buildAutomaton(pats[slot], slot == autoFold, denseCap)
		m.autos[slot] = a
		for i := range m.entries {
			for _, refs := range [][]keyRef{m.entries[i].primary, m.entries[i].secondary} {
				for j := range refs {
					if refs[j].kind == keyLiteral && int(refs[j].auto) == slot {
						refs[j].node = ends[refs[j].node]
					}
				}
			}
		}
	}
	m.order = make([]int32, len(entries))
	for i := range m.order {
		m.order[i] = int32(i)
	}
	slices.SortStableFunc(m.order, func(a, b int32) int {
		if c := cmp.Compare(entries[a].Order, entries[b].Order); c != 0 {
			return c
		}
		return cmp.Compare(entries[a].ID, entries[b].ID)
	})
	return m
}

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

// regexSource returns the RE2 source of a key shaped /pattern/flags
// (reference/sillytavern.md 2.2: flags from g i m s u y, no duplicates, a
// non-empty body without an unescaped slash), and false for any other key,
// which is then literal. Flags i, m and s become RE2 flags; g, y and u are
// ignored (a key tests for any match, and RE2 is always Unicode-aware).
// Surrounding whitespace is ignored as SillyTavern trims keys.
func regexSource(key string) (src string, bodyLen int, ok bool) {
	k := strings.TrimSpace(key)
	if len(k) < 3 || k[0] != '/' {
		return "", 0, false
	}
	end := strings.LastIndexByte(k, '/')
	if end <= 1 {
		return "", 0, false
	}
	body, flags := k[1:end], k[end+1:]
	var re2 []byte
	seen := ""
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		if !strings.ContainsRune("gimsuy", rune(f)) || strings.IndexByte(seen, f) >= 0 {
			return "", 0, false
		}
		seen += string(f)
		if f == 'i' || f == 'm' || f == 's' {
			re2 = append(re2, f)
		}
	}
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' {
			i++
			continue
		}
		if body[i] == '/' {
			return "", 0, false
		}
	}
	if len(re2) > 0 {
		return "(?" + string(re2) + ")" + body, len(body), true
	}
	return body, len(body), true
}

// CheckRegexKey reports whether key has the /pattern/flags shape of a regex
// key and, if so, why the engine cannot use it: "" when it compiles with
// RE2 within MaxRegexLen, else the reason (too long, RE2 cannot compile it:
// lookaround, backreferences). Importers use it to report unsupported keys
// with exactly the engine's rules.
func CheckRegexKey(key string) (isRegex bool, problem string) {
	src, n, ok := regexSource(key)
	if !ok {
		return false, ""
	}
	_, problem = compileRegex(src, n)
	return true, problem
}

func compileRegex(src string, bodyLen int) (*regexp.Regexp, string) {
	if bodyLen > MaxRegexLen {
		return nil, "regex longer than " + strconv.Itoa(MaxRegexLen) + " bytes"
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, "regex does not compile: " + err.Error()
	}
	return re, ""
}

func (m *Matcher) getScratch() *scratch {
	if s, ok := m.pool.Get().(*scratch); ok {
		return s
	}
	s := &scratch{}
	for slot, a := range m.autos {
		if a != nil {
			s.done[slot] = make([]uint32, len(a.term))
		}
	}
	s.reFound = make([]int, len(m.regexes))
	s.reDepth = make([]int, len(m.regexes))
	s.states = make([]entryState, len(m.ids))
	s.admitted = make([]int, len(m.ids))
	return s
}

// turnScan holds the literal matches of one turn: for every terminal node,
// the newest message (absolute index) it occurred in.
type turnScan struct {
	m     *Matcher
	s     *scratch
	msgs  []string
	g0    [2]uint32
	start int
}

// scanWindow scans the newest w messages once per needed automaton.
func (m *Matcher) scanWindow(s *scratch, msgs []string, w int, need [2]bool) turnScan {
	ts := turnScan{m: m, s: s, msgs: msgs, start: len(msgs) - w}
	for i := range s.reFound {
		s.reFound[i], s.reDepth[i] = -1, 0
	}
	if w <= 0 {
		ts.start = len(msgs)
		return ts
	}
	var nz *normalizer
	for slot, a := range m.autos {
		if a == nil || !need[slot] {
			continue
		}
		if uint64(s.gen[slot])+uint64(w)+1 >= 1<<32 {
			clear(s.done[slot])
			s.gen[slot] = 0
		}
		g0 := s.gen[slot] + 1
		ts.g0[slot] = g0
		fold := slot == autoFold
		for k, msg := range msgs[ts.start:] {
			if isASCII(msg) {
				a.scanASCII(msg, s.done[slot], g0+uint32(k))
				continue
			}
			if nz == nil {
				nz = newNormalizer()
			}
			s.buf = mark(s.buf[:0], nz.normalize(msg, fold), true)
			a.scanMarked(s.buf, s.done[slot], g0+uint32(k))
		}
		s.gen[slot] = g0 + uint32(w) - 1
	}
	return ts
}

// hit returns the newest message index in which the key occurs, or -1.
// depth is the entry's depth, used to bound regex scans.
func (ts *turnScan) hit(ref *keyRef, depth int) int {
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
			if ts.m.regexes[re].MatchString(ts.msgs[i]) {
				s.reFound[re] = i
			}
			s.reDepth[re]++
		}
		return s.reFound[re]
	}
	return -1
}
