package lore

import (
	"regexp"
	"regexp/syntax"
	"strings"

	"loregate/lore/i18n"
)

// Bounds of regex keys (docs/api.md "Limits"). RE2 runs in time linear in
// the text, but the factor is the size of the compiled program: a key like
// /[\s\S]{0,1000}z/ compiles to about 2,000 instructions and scans 100 KiB
// in about 1.5 s. The bounds keep one key's cost per scanned byte small;
// the engine's per-turn regex budget bounds the sum.
const (
	// MaxRegexLen is the longest regex body (between the slashes) in bytes.
	MaxRegexLen = 400
	// MaxRegexRepeat is the largest repetition count of a regex key
	// ({n} or {n,m} with n or m above it is refused).
	MaxRegexRepeat = 100
	// MaxRegexProgram is the largest compiled RE2 program of a regex key,
	// in instructions.
	MaxRegexProgram = 500
)

// RegexKeySource returns the RE2 source of a key shaped /pattern/flags
// (flags from g i m s u y, no duplicates, a non-empty body without an
// unescaped slash; docs/api.md "Limits") and false for any other key,
// which is then literal. Flags i, m and s become RE2 flags; g, y and u are
// ignored (a key tests for any match, and RE2 is always Unicode-aware).
// Surrounding whitespace is ignored. bodyLen is the body's length in bytes.
func RegexKeySource(key string) (src string, bodyLen int, ok bool) {
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

// CompileRegexKey compiles the RE2 source of a regex key (from
// RegexKeySource) within the bounds: body at most MaxRegexLen bytes,
// repetition counts at most MaxRegexRepeat, program at most MaxRegexProgram
// instructions. It returns the expression and its program size, or nil and
// the reason: over a bound (overBound true), or RE2 cannot compile it
// (lookaround, backreferences). The parse is linear in the source; the
// repetition bound is checked before the program is built.
func CompileRegexKey(src string, bodyLen int) (re *regexp.Regexp, progSize int, problem string, overBound bool) {
	progSize, p, overBound := regexBounds(src, bodyLen)
	if p.key != "" {
		return nil, 0, p.text(), overBound
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, 0, regexProblem{i18n.RegexNoCompile, Params{"detail": err.Error()}}.text(), false
	}
	return re, progSize, "", false
}

// regexProblem is why a regex key cannot be used: a reason key of
// lore/i18n and its params ("" key: no problem).
type regexProblem struct {
	key    i18n.Key
	params Params
}

// text is the problem's English text ("" when there is none).
func (p regexProblem) text() string {
	if p.key == "" {
		return ""
	}
	return i18n.Text(i18n.EN, p.key, p.params)
}

// regexBounds checks src against the bounds without building the matcher
// (half the cost of a compile).
func regexBounds(src string, bodyLen int) (progSize int, problem regexProblem, overBound bool) {
	if bodyLen > MaxRegexLen {
		return 0, regexProblem{i18n.RegexTooLong, Params{"max": MaxRegexLen}}, true
	}
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return 0, regexProblem{i18n.RegexNoCompile, Params{"detail": err.Error()}}, false
	}
	if n := maxRepeat(tree); n > MaxRegexRepeat {
		return 0, regexProblem{i18n.RegexRepeats, Params{"count": n, "max": MaxRegexRepeat}}, true
	}
	// + 4: the program's fail, match and whole-match capture instructions.
	if n := estimateProg(tree) + 4; n > MaxRegexProgram {
		return 0, regexProblem{i18n.RegexTooBig, Params{"count": n, "max": MaxRegexProgram}}, true
	}
	return estimateProg(tree) + 4, regexProblem{}, false
}

// estimateProg estimates the RE2 program size of tree from the parse tree, in
// time linear in the tree (compiling the program costs 100 times more for
// keys near the bound): an upper bound of what syntax.Compile makes of
// tree.Simplify(), which expands counted repetitions into copies.
func estimateProg(r *syntax.Regexp) int {
	const capAt = 1 << 20
	n := 0
	switch r.Op {
	case syntax.OpLiteral:
		n = len(r.Rune)
	case syntax.OpCapture:
		n = 2 + estimateProg(r.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		n = 1 + estimateProg(r.Sub[0])
	case syntax.OpRepeat:
		sub := estimateProg(r.Sub[0])
		if r.Max < 0 {
			n = r.Min*sub + sub + 1
		} else {
			n = r.Min*sub + (r.Max-r.Min)*(sub+1)
		}
	case syntax.OpConcat, syntax.OpAlternate:
		for _, s := range r.Sub {
			n += estimateProg(s) + 1
		}
	default: // character classes, any char, empty-width assertions
		n = 1
	}
	return min(n, capAt)
}

// maxRepeat returns the largest repetition count in tree (nested counts
// multiply: (a{10}){10} repeats 100 times).
func maxRepeat(tree *syntax.Regexp) int {
	best := 0
	var walk func(r *syntax.Regexp, factor int)
	walk = func(r *syntax.Regexp, factor int) {
		if r.Op == syntax.OpRepeat {
			n := max(r.Min, r.Max)
			factor = min(factor*max(n, 1), 1<<20)
			best = max(best, factor)
		}
		for _, s := range r.Sub {
			walk(s, factor)
		}
	}
	walk(tree, 1)
	return best
}

// CheckRegexKey reports whether key has the /pattern/flags shape of a regex
// key and, if so, why the engine cannot use it ("" when it can). Importers
// use it to keep such keys inert and report them with exactly the engine's
// rules.
func CheckRegexKey(key string) (isRegex bool, problem string) {
	src, n, ok := RegexKeySource(key)
	if !ok {
		return false, ""
	}
	_, _, problem, _ = CompileRegexKey(src, n)
	return true, problem
}

// ValidateRegexKeys refuses regex keys over the bounds (MaxRegexLen,
// MaxRegexRepeat, MaxRegexProgram) with the reason, naming the key's field
// (keys[3]). API writes call it; keys RE2 cannot compile for other reasons
// are stored (the engine reports them in the trace), and importers keep
// over-bound keys inert and report them instead of refusing the entry.
func ValidateRegexKeys(field string, keys []string) error {
	for i, k := range keys {
		src, n, ok := RegexKeySource(k)
		if !ok {
			continue
		}
		if _, p, over := regexBounds(src, n); over {
			return Reject(indexField(field, i), p.key, p.params)
		}
	}
	return nil
}

// ValidateRegexBounds applies ValidateRegexKeys to the entry's keys and
// secondary keys (API writes; Entry.Validate does not, so that imports and
// stored entries keep such keys, inert).
func (e *Entry) ValidateRegexBounds() error {
	if err := ValidateRegexKeys("keys", e.Keys); err != nil {
		return err
	}
	return ValidateRegexKeys("secondaryKeys", e.SecondaryKeys)
}
