// Package decorator parses the decorator lines at the start of an entry's
// content (`@@name value`, fallback `@@@name value`), the CCv3 syntax that
// loregate honours in every entry whatever its route (docs/authoring.md
// "Decorators"). It is pure: the activation engine acts on the parsed Set,
// and importers use it to report decorators loregate does not act on.
//
// Syntax (CCv3 spec and the parser RisuAI uses): the content is trimmed and
// split into lines; the leading lines that start with "@@" followed by a
// name (ASCII letters, digits, underscores) form the header; the first
// other line, a blank one included, ends it, and the trimmed rest is the
// body sent to the model. The name runs to the first space; the value is
// the trimmed rest, and Args is the value split on commas, trimmed, with
// empty parts dropped.
package decorator

import (
	"strconv"
	"strings"

	"loregate/lore"
)

// Decorator is one header line.
type Decorator struct {
	// Name is the decorator name without its "@@" or "@@@" prefix.
	Name string
	// Value is the trimmed text after the name ("" for a flag).
	Value string
	// Args is Value split on commas, each trimmed, empty ones dropped.
	Args []string
	// Fallback is set for a "@@@" line: it applies only when the decorator
	// before it was not handled (unknown name or invalid value).
	Fallback bool
	// Line is the line as written, without its line break.
	Line string
}

// Parse returns the leading decorator lines of content and the body: the
// content without them, trimmed. Content whose trimmed text does not start
// with a decorator line comes back unchanged with no decorators.
func Parse(content string) (decs []Decorator, body string) {
	trimmed := strings.TrimSpace(content)
	if !strings.HasPrefix(trimmed, "@@") {
		return nil, content
	}
	rest := trimmed
	for rest != "" {
		line, next, _ := strings.Cut(rest, "\n")
		line = strings.TrimRight(line, "\r")
		d, ok := parseLine(line)
		if !ok {
			break
		}
		decs = append(decs, d)
		rest = next
	}
	if decs == nil {
		return nil, content
	}
	return decs, strings.TrimSpace(rest)
}

// Body returns content without its leading decorator lines (Parse's body).
func Body(content string) string {
	_, body := Parse(content)
	return body
}

func parseLine(line string) (Decorator, bool) {
	d := Decorator{Line: line}
	s, ok := strings.CutPrefix(line, "@@")
	if !ok {
		return d, false
	}
	if t, ok := strings.CutPrefix(s, "@"); ok {
		d.Fallback, s = true, t
	}
	name, value, _ := strings.Cut(s, " ")
	if name == "" {
		return d, false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return d, false
		}
	}
	d.Name, d.Value = name, strings.TrimSpace(value)
	for _, p := range strings.Split(d.Value, ",") {
		if p = strings.TrimSpace(p); p != "" {
			d.Args = append(d.Args, p)
		}
	}
	return d, true
}

// Set is the resolved decorators of one entry: what loregate acts on.
// Pointer fields are nil when the decorator is absent.
type Set struct {
	// Activate (@@activate): admitted as if a key matched; gates apply.
	Activate bool
	// DontActivate (@@dont_activate): never admitted; wins over Activate.
	DontActivate bool
	// ScanDepth (@@scan_depth N, 0-100), Probability (@@probability N,
	// 0-100), Order (@@order N) and Priority (@@priority N) override the
	// entry field.
	ScanDepth, Probability, Order, Priority *int
	// Depth (@@depth N, N >= 0): messages from the newest; the position is
	// then AT_DEPTH unless @@position says otherwise. ReverseDepth
	// (@@reverse_depth N, N >= 0): N messages after the oldest, resolved per
	// turn to AT_DEPTH at depth (message count - N); ignored when @@depth
	// or @@position is present (the CCv3 rule).
	Depth, ReverseDepth *int
	// Position (@@position P): before_desc and before_char mean
	// BEFORE_CHAR, after_desc and after_char AFTER_CHAR, and a kind's own
	// name (at_depth, an_top, ...; not outlet, which needs a name) that
	// kind. Values with no kind here (personality, scenario, RisuAI's
	// pt_* prompt-template slots) are kept in the content and placed at
	// AFTER_CHAR, where RisuAI's lore goes by default; PositionCollapsed
	// says so (import reports count it as a collapsed placement).
	Position          *lore.PositionKind
	PositionCollapsed bool
	// Role (@@role R): system, user or assistant; "" when absent.
	Role lore.Role
	// AdditionalKeys (@@additional_keys a,b, repeatable): extra primary keys.
	AdditionalKeys []string
	// ExcludeKeys (@@exclude_keys a,b, repeatable): any of them present
	// blocks the entry. ExcludeKeysAll (@@exclude_keys_all a,b, RisuAI):
	// blocks only when all of them are present.
	ExcludeKeys, ExcludeKeysAll []string
	// IsGreeting (@@is_greeting): admitted only while the conversation is at
	// its greeting (message count <= 1).
	IsGreeting bool
	// IgnoreOnMaxContext (@@ignore_on_max_context): the last to claim the
	// budget, so the first dropped when it runs out.
	IgnoreOnMaxContext bool
	// ActivateOnlyAfter (@@activate_only_after N, N >= 0): blocked while
	// the conversation has fewer than N messages. ActivateOnlyEvery
	// (@@activate_only_every N, N >= 1): blocked unless the message count
	// is a multiple of N.
	ActivateOnlyAfter, ActivateOnlyEvery *int
	// KeepActivateAfterMatch (@@keep_activate_after_match): once admitted in
	// a conversation, admitted without keys on later turns.
	// DontActivateAfterMatch (@@dont_activate_after_match): once admitted,
	// never again in that conversation. Both act through turn state.
	KeepActivateAfterMatch, DontActivateAfterMatch bool
	// WholeWords (@@match_full_word / @@match_partial_word, RisuAI)
	// overrides the entry's whole-word rule.
	WholeWords *bool
	// ExcludeRecursion (@@no_recursive_search, RisuAI): recursion text
	// never activates the entry. PreventRecursion (@@unrecursive, RisuAI):
	// its content never feeds recursion.
	ExcludeRecursion, PreventRecursion bool
	// Ignored lists the lines loregate does not act on, in order, each
	// with the reason: unknown name, invalid value, repeated scalar. A
	// fallback line that was not needed is not listed.
	Ignored []Ignored
}

// Ignored is a decorator line the Set does not act on.
type Ignored struct {
	Line   string
	Reason string
}

// IsZero reports whether s holds no decorator at all.
func (s *Set) IsZero() bool {
	return !s.Activate && !s.DontActivate && s.ScanDepth == nil && s.Probability == nil && s.Order == nil &&
		s.Priority == nil && s.Depth == nil && s.ReverseDepth == nil && s.Position == nil && s.Role == "" && s.AdditionalKeys == nil &&
		s.ExcludeKeys == nil && s.ExcludeKeysAll == nil && !s.IsGreeting && !s.IgnoreOnMaxContext &&
		s.ActivateOnlyAfter == nil && s.ActivateOnlyEvery == nil && !s.KeepActivateAfterMatch &&
		!s.DontActivateAfterMatch && s.WholeWords == nil && !s.ExcludeRecursion && !s.PreventRecursion &&
		s.Ignored == nil
}

// Known reports whether loregate acts on the decorator name (see Set).
func Known(name string) bool {
	_, ok := handlers[name]
	return ok
}

// Reasons of Ignored.
const (
	ReasonUnknown  = "unknown decorator"
	ReasonInvalid  = "invalid value"
	ReasonRepeated = "repeated; the first one counts"
)

// handler applies one decorator to s and reports whether it was handled;
// false means an invalid value.
type handler func(s *Set, d *Decorator) bool

func flag(f func(*Set)) handler {
	return func(s *Set, _ *Decorator) bool { f(s); return true }
}

func number(lo, hi int, f func(*Set, int)) handler {
	return func(s *Set, d *Decorator) bool {
		n, err := strconv.Atoi(d.Value)
		if err != nil || n < lo || n > hi {
			return false
		}
		f(s, n)
		return true
	}
}

func keys(f func(*Set, []string)) handler {
	return func(s *Set, d *Decorator) bool {
		if len(d.Args) == 0 {
			return false
		}
		f(s, d.Args)
		return true
	}
}

const maxInt32 = 1<<31 - 1

var handlers = map[string]handler{
	"activate":                  flag(func(s *Set) { s.Activate = true }),
	"dont_activate":             flag(func(s *Set) { s.DontActivate = true }),
	"scan_depth":                number(0, lore.MaxScanDepth, func(s *Set, n int) { s.ScanDepth = &n }),
	"probability":               number(0, 100, func(s *Set, n int) { s.Probability = &n }),
	"order":                     number(-maxInt32-1, maxInt32, func(s *Set, n int) { s.Order = &n }),
	"priority":                  number(-maxInt32-1, maxInt32, func(s *Set, n int) { s.Priority = &n }),
	"depth":                     number(0, maxInt32, func(s *Set, n int) { s.Depth = &n }),
	"reverse_depth":             number(0, maxInt32, func(s *Set, n int) { s.ReverseDepth = &n }),
	"activate_only_after":       number(0, maxInt32, func(s *Set, n int) { s.ActivateOnlyAfter = &n }),
	"activate_only_every":       number(1, maxInt32, func(s *Set, n int) { s.ActivateOnlyEvery = &n }),
	"is_greeting":               flag(func(s *Set) { s.IsGreeting = true }),
	"ignore_on_max_context":     flag(func(s *Set) { s.IgnoreOnMaxContext = true }),
	"keep_activate_after_match": flag(func(s *Set) { s.KeepActivateAfterMatch = true }),
	"dont_activate_after_match": flag(func(s *Set) { s.DontActivateAfterMatch = true }),
	"additional_keys":           keys(func(s *Set, k []string) { s.AdditionalKeys = append(s.AdditionalKeys, k...) }),
	"exclude_keys":              keys(func(s *Set, k []string) { s.ExcludeKeys = append(s.ExcludeKeys, k...) }),
	"exclude_keys_all":          keys(func(s *Set, k []string) { s.ExcludeKeysAll = append(s.ExcludeKeysAll, k...) }),
	"match_full_word":           flag(func(s *Set) { v := true; s.WholeWords = &v }),
	"match_partial_word":        flag(func(s *Set) { v := false; s.WholeWords = &v }),
	"no_recursive_search":       flag(func(s *Set) { s.ExcludeRecursion = true }),
	"unrecursive":               flag(func(s *Set) { s.PreventRecursion = true }),
	"role": func(s *Set, d *Decorator) bool {
		r := lore.Role(strings.ToLower(d.Value))
		if !r.Valid() {
			return false
		}
		s.Role = r
		return true
	},
	"position": func(s *Set, d *Decorator) bool {
		p, collapsed, ok := positionValue(d.Value)
		if !ok {
			return false
		}
		s.Position, s.PositionCollapsed = &p, collapsed
		return true
	},
}

// positionValue reads a @@position value (see Set.Position).
func positionValue(v string) (k lore.PositionKind, collapsed, ok bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case v == "before_desc" || v == "before_char":
		return lore.PositionBeforeChar, false, true
	case v == "after_desc" || v == "after_char":
		return lore.PositionAfterChar, false, true
	case v == "personality" || v == "scenario" || strings.HasPrefix(v, "pt_") && len(v) > 3:
		return lore.PositionAfterChar, true, true
	}
	k = lore.PositionKind(strings.ToUpper(v))
	if k.Valid() && k != lore.PositionOutlet {
		return k, false, true
	}
	return "", false, false
}

// Kind returns the position kind the decorators give an entry whose own
// kind is own: @@position, else AT_DEPTH for @@depth or @@reverse_depth,
// else own.
func (s *Set) Kind(own lore.PositionKind) lore.PositionKind {
	switch {
	case s.Position != nil:
		return *s.Position
	case s.Depth != nil || s.ReverseDepth != nil:
		return lore.PositionAtDepth
	}
	return own
}

// repeatable decorators accumulate; every other one counts once (the first
// occurrence, the CCv3 rule).
var repeatable = map[string]bool{"additional_keys": true, "exclude_keys": true, "exclude_keys_all": true}

// Resolve applies decorators in order: a scalar counts at its first
// occurrence (later ones are Ignored as repeated), additional_keys and
// exclude_keys accumulate, and a "@@@" fallback line is evaluated only
// while the decorator before it (or the fallback chain it ends) was not
// handled; a fallback that is not needed is skipped silently.
func Resolve(decs []Decorator) Set {
	var s Set
	seen := map[string]bool{}
	handled := true
	for i := range decs {
		d := &decs[i]
		if d.Fallback && handled {
			continue
		}
		h, ok := handlers[d.Name]
		switch {
		case !ok:
			s.Ignored = append(s.Ignored, Ignored{Line: d.Line, Reason: ReasonUnknown})
			handled = false
		case seen[d.Name] && !repeatable[d.Name]:
			s.Ignored = append(s.Ignored, Ignored{Line: d.Line, Reason: ReasonRepeated})
			handled = true
		case !h(&s, d):
			s.Ignored = append(s.Ignored, Ignored{Line: d.Line, Reason: ReasonInvalid})
			handled = false
		default:
			seen[d.Name] = true
			handled = true
		}
	}
	return s
}

// ParseSet is Parse followed by Resolve.
func ParseSet(content string) (Set, string) {
	decs, body := Parse(content)
	if decs == nil {
		return Set{}, body
	}
	return Resolve(decs), body
}
