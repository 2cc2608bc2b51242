package conv

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"loregate/lore"
	"loregate/lore/i18n"
)

// STCtx carries what the SillyTavern field codecs need from sibling fields
// and what they found. Decoders fill Probs, Collapsed, MissingEnabled and
// Warnings; callers move them into the report.
type STCtx struct {
	// Selective is the entry's selective flag (nil = absent, ST default true).
	Selective *bool
	// UseProbability is the entry's useProbability (nil = absent, default true).
	UseProbability *bool

	Probs     []KeyProblem
	Collapsed bool
	// Ignored names settings of the entry with no canonical destination
	// (counted in the report's ignored settings).
	Ignored        []string
	MissingEnabled bool
	// Notices are the entry's warnings; AddEntry adds the entry's index
	// to their params ("index").
	Notices []Notice
	// KeepKeySpaces: the entry carries KeyKeepSpaces, so its keys keep
	// their surrounding spaces (a NovelAI key's leading space means
	// something) instead of being trimmed as SillyTavern trims them.
	KeepKeySpaces bool
	// ContentNotText is NotText of the source content ("a number", ...),
	// "" when the content was text or absent: the skip reason then says
	// "not text" rather than "no content".
	ContentNotText string
}

// Note records a notice of the entry (its index is added by AddEntry).
func (c *STCtx) Note(reason i18n.Key, params map[string]any) {
	c.Notices = append(c.Notices, Notice{Reason: reason, Params: params})
}

// STField decodes and encodes one canonical field in its SillyTavern world
// info spelling (docs/formats.md).
type STField struct {
	// Name is the world info field name.
	Name string
	// Dec sets the canonical field from raw (nil raw = field absent).
	Dec func(e *lore.Entry, raw json.RawMessage, c *STCtx)
	// Enc returns the world info value of the canonical field.
	Enc func(e *lore.Entry) any
	// Eq reports whether a and b agree on the canonical field.
	Eq func(a, b *lore.Entry) bool
}

// KeyKeepSpaces is the world info entry member loregate writes (true) on
// an entry with a key that has surrounding spaces (from NovelAI, where a
// leading space is meaningful): reading the file back keeps them rather
// than trimming as SillyTavern does (docs/formats.md "Keys").
const KeyKeepSpaces = "loregateKeepKeySpaces"

// STFields are the SillyTavern fields with a canonical destination, in the
// order ST writes them.
var STFields = [...]STField{
	{"key", decKeys(func(e *lore.Entry) *[]string { return &e.Keys }),
		func(e *lore.Entry) any { return NonNil(e.Keys) },
		func(a, b *lore.Entry) bool { return slices.Equal(a.Keys, b.Keys) }},
	{"keysecondary", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		decKeys(func(e *lore.Entry) *[]string { return &e.SecondaryKeys })(e, raw, c)
		if c.Selective != nil && !*c.Selective {
			// ST ignores secondary keys of non-selective entries (docs/formats.md).
			e.SecondaryKeys = nil
		}
	},
		func(e *lore.Entry) any { return NonNil(e.SecondaryKeys) },
		func(a, b *lore.Entry) bool { return slices.Equal(a.SecondaryKeys, b.SecondaryKeys) }},
	{"comment", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		s, _ := String(raw)
		e.Title, _ = Title(s)
	}, func(e *lore.Entry) any { return e.Title },
		func(a, b *lore.Entry) bool { return a.Title == b.Title }},
	{"content", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		e.Content, _ = String(raw)
		c.ContentNotText = NotText(raw)
	},
		func(e *lore.Entry) any { return e.Content },
		func(a, b *lore.Entry) bool { return a.Content == b.Content }},
	{"constant", func(e *lore.Entry, raw json.RawMessage, c *STCtx) { e.Constant, _ = Bool(raw) },
		func(e *lore.Entry) any { return e.Constant },
		func(a, b *lore.Entry) bool { return a.Constant == b.Constant }},
	{"selectiveLogic", DecSTLogic,
		func(e *lore.Entry) any { return STLogicInt(e.Logic) },
		func(a, b *lore.Entry) bool { return normLogic(a.Logic) == normLogic(b.Logic) }},
	{"order", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		e.Order = 100
		if n, ok := Int(raw); ok {
			e.Order = n
		}
	}, func(e *lore.Entry) any { return e.Order },
		func(a, b *lore.Entry) bool { return a.Order == b.Order }},
	{"position", DecSTPosition,
		func(e *lore.Entry) any { return e.PositionKindOrDerived().ST() },
		func(a, b *lore.Entry) bool { return a.PositionKindOrDerived() == b.PositionKindOrDerived() }},
	{"depth", DecSTDepth,
		func(e *lore.Entry) any { return e.Depth },
		func(a, b *lore.Entry) bool { return a.Depth == b.Depth }},
	{"outletName", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		e.Outlet, _ = String(raw)
		if lore.UTF16Len(e.Outlet) > lore.MaxOutletLen {
			c.Note(i18n.ReportOutletCut, map[string]any{"max": lore.MaxOutletLen})
			e.Outlet = lore.TruncateUTF16(e.Outlet, lore.MaxOutletLen)
		}
	}, func(e *lore.Entry) any { return e.Outlet },
		func(a, b *lore.Entry) bool { return a.Outlet == b.Outlet }},
	{"disable", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		d, ok := Bool(raw)
		if !ok {
			c.MissingEnabled = true
		}
		e.Enabled = !d
	}, func(e *lore.Entry) any { return !e.Enabled },
		func(a, b *lore.Entry) bool { return a.Enabled == b.Enabled }},
	{"probability", DecSTProbability,
		func(e *lore.Entry) any { return e.Probability },
		func(a, b *lore.Entry) bool { return a.Probability == b.Probability }},
	{"scanDepth", DecSTScanDepth,
		func(e *lore.Entry) any { return e.ScanDepth },
		func(a, b *lore.Entry) bool { return eqPtr(a.ScanDepth, b.ScanDepth) }},
	{"caseSensitive", decBoolPtr(func(e *lore.Entry) **bool { return &e.CaseSensitive }),
		func(e *lore.Entry) any { return e.CaseSensitive },
		func(a, b *lore.Entry) bool { return eqPtr(a.CaseSensitive, b.CaseSensitive) }},
	{"matchWholeWords", decBoolPtr(func(e *lore.Entry) **bool { return &e.WholeWords }),
		func(e *lore.Entry) any { return e.WholeWords },
		func(a, b *lore.Entry) bool { return eqPtr(a.WholeWords, b.WholeWords) }},
	{"role", DecSTRole,
		func(e *lore.Entry) any { return STRoleInt(e.Role) },
		func(a, b *lore.Entry) bool { return normRole(a.Role) == normRole(b.Role) }},
	{"ignoreBudget", func(e *lore.Entry, raw json.RawMessage, c *STCtx) { e.IgnoreBudget, _ = Bool(raw) },
		func(e *lore.Entry) any { return e.IgnoreBudget },
		func(a, b *lore.Entry) bool { return a.IgnoreBudget == b.IgnoreBudget }},
	{"vectorized", func(e *lore.Entry, raw json.RawMessage, c *STCtx) { e.Vectorized, _ = Bool(raw) },
		func(e *lore.Entry) any { return e.Vectorized },
		func(a, b *lore.Entry) bool { return a.Vectorized == b.Vectorized }},
	// Inclusion groups, recursion flags and timed effects (docs/formats.md
	// "Entry fields").
	{"group", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		e.Group, _ = String(raw)
		if lore.UTF16Len(e.Group) > lore.MaxGroupLen {
			c.Note(i18n.ReportGroupCut, map[string]any{"max": lore.MaxGroupLen})
			e.Group = lore.TruncateUTF16(e.Group, lore.MaxGroupLen)
		}
	}, func(e *lore.Entry) any { return e.Group },
		func(a, b *lore.Entry) bool { return a.Group == b.Group }},
	{"groupOverride", func(e *lore.Entry, raw json.RawMessage, c *STCtx) { e.GroupOverride, _ = Bool(raw) },
		func(e *lore.Entry) any { return e.GroupOverride },
		func(a, b *lore.Entry) bool { return a.GroupOverride == b.GroupOverride }},
	{"groupWeight", func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		e.GroupWeight = lore.DefaultGroupWeight
		if n, ok := Int(raw); ok {
			e.GroupWeight = clampInt(c, "groupWeight", n, 0, lore.MaxGroupWeight)
		}
	}, func(e *lore.Entry) any { return e.GroupWeight },
		func(a, b *lore.Entry) bool { return a.GroupWeight == b.GroupWeight }},
	{"useGroupScoring", decBoolPtr(func(e *lore.Entry) **bool { return &e.UseGroupScoring }),
		func(e *lore.Entry) any { return e.UseGroupScoring },
		func(a, b *lore.Entry) bool { return eqPtr(a.UseGroupScoring, b.UseGroupScoring) }},
	{"excludeRecursion", func(e *lore.Entry, raw json.RawMessage, c *STCtx) { e.ExcludeRecursion, _ = Bool(raw) },
		func(e *lore.Entry) any { return e.ExcludeRecursion },
		func(a, b *lore.Entry) bool { return a.ExcludeRecursion == b.ExcludeRecursion }},
	{"preventRecursion", func(e *lore.Entry, raw json.RawMessage, c *STCtx) { e.PreventRecursion, _ = Bool(raw) },
		func(e *lore.Entry) any { return e.PreventRecursion },
		func(a, b *lore.Entry) bool { return a.PreventRecursion == b.PreventRecursion }},
	{"delayUntilRecursion", DecSTDelayUntilRecursion,
		func(e *lore.Entry) any {
			// Older SillyTavern knows only the flag: level 1 is true.
			switch e.DelayUntilRecursion {
			case 0:
				return false
			case 1:
				return true
			}
			return e.DelayUntilRecursion
		},
		func(a, b *lore.Entry) bool { return a.DelayUntilRecursion == b.DelayUntilRecursion }},
	{"sticky", decTimed("sticky", func(e *lore.Entry) *int { return &e.Sticky }),
		func(e *lore.Entry) any { return timedValue(e.Sticky) },
		func(a, b *lore.Entry) bool { return a.Sticky == b.Sticky }},
	{"cooldown", decTimed("cooldown", func(e *lore.Entry) *int { return &e.Cooldown }),
		func(e *lore.Entry) any { return timedValue(e.Cooldown) },
		func(a, b *lore.Entry) bool { return a.Cooldown == b.Cooldown }},
	{"delay", decTimed("delay", func(e *lore.Entry) *int { return &e.Delay }),
		func(e *lore.Entry) any { return timedValue(e.Delay) },
		func(a, b *lore.Entry) bool { return a.Delay == b.Delay }},
	// Context sources, generation types and the character filter
	// (docs/authoring.md "Context sources", "Filters").
	matchField("matchPersonaDescription", func(m *lore.MatchSources) *bool { return &m.PersonaDescription }),
	matchField("matchCharacterDescription", func(m *lore.MatchSources) *bool { return &m.CharacterDescription }),
	matchField("matchCharacterPersonality", func(m *lore.MatchSources) *bool { return &m.CharacterPersonality }),
	matchField("matchCharacterDepthPrompt", func(m *lore.MatchSources) *bool { return &m.CharacterDepthPrompt }),
	matchField("matchScenario", func(m *lore.MatchSources) *bool { return &m.Scenario }),
	matchField("matchCreatorNotes", func(m *lore.MatchSources) *bool { return &m.CreatorNotes }),
	{"triggers", DecSTTriggers,
		func(e *lore.Entry) any {
			out := make([]string, len(e.GenerationTypes))
			for i, g := range e.GenerationTypes {
				out[i] = string(g)
			}
			return out
		},
		func(a, b *lore.Entry) bool { return slices.Equal(a.GenerationTypes, b.GenerationTypes) }},
	{"characterFilter", DecSTCharacterFilter, EncSTCharacterFilter,
		func(a, b *lore.Entry) bool {
			return a.CharacterFilter.Exclude == b.CharacterFilter.Exclude && slices.Equal(a.CharacterFilter.Names, b.CharacterFilter.Names) &&
				slices.Equal(a.CharacterFilter.Tags, b.CharacterFilter.Tags)
		}},
}

// OmitST reports whether the world info encoder leaves out field name of e
// when no source value is kept: SillyTavern writes no characterFilter
// until one is set.
func OmitST(name string, e *lore.Entry) bool {
	return name == "characterFilter" && e.CharacterFilter.IsZero() && !e.CharacterFilter.Exclude
}

func matchField(name string, field func(*lore.MatchSources) *bool) STField {
	return STField{name, func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		*field(&e.Match), _ = Bool(raw)
	}, func(e *lore.Entry) any { return *field(&e.Match) },
		func(a, b *lore.Entry) bool { return *field(&a.Match) == *field(&b.Match) }}
}

// DecSTDepth reads an injection depth: absent or null = lore.DefaultDepth,
// clamped to 0..lore.MaxDepth with a warning.
func DecSTDepth(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.Depth = lore.DefaultDepth
	if n, ok := Int(raw); ok {
		e.Depth = clampInt(c, "depth", n, 0, lore.MaxDepth)
	}
}

// DecSTTriggers reads triggers, the generation types (SillyTavern's six
// names); other values are dropped with a warning (the source array is
// kept for the same-format export).
func DecSTTriggers(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.GenerationTypes = nil
	list, _ := Strings(raw)
	for _, s := range list {
		g := lore.GenerationType(strings.ToLower(strings.TrimSpace(s)))
		switch {
		case !g.Valid():
			c.Note(i18n.ReportTriggerUnknown, map[string]any{"trigger": Snippet(s)})
		case !slices.Contains(e.GenerationTypes, g):
			e.GenerationTypes = append(e.GenerationTypes, g)
		}
	}
}

// stCharacterFilter is SillyTavern's characterFilter object.
type stCharacterFilter struct {
	IsExclude bool     `json:"isExclude"`
	Names     []string `json:"names"`
	Tags      []string `json:"tags"`
}

// DecSTCharacterFilter reads characterFilter {isExclude, names, tags};
// blank items are dropped, lists cut to lore.MaxFilterItems with a warning.
func DecSTCharacterFilter(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.CharacterFilter = lore.CharacterFilter{}
	var f stCharacterFilter
	if raw == nil || IsNull(raw) || json.Unmarshal(raw, &f) != nil {
		return
	}
	clean := func(key i18n.Key, in []string) []string {
		var out []string
		for _, s := range in {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, lore.TruncateUTF16(s, lore.MaxFilterItemLen))
			}
		}
		if len(out) > lore.MaxFilterItems {
			c.Note(key, map[string]any{"count": len(out), "max": lore.MaxFilterItems})
			out = out[:lore.MaxFilterItems]
		}
		return out
	}
	e.CharacterFilter = lore.CharacterFilter{Names: clean(i18n.ReportFilterNamesCut, f.Names), Tags: clean(i18n.ReportFilterTagsCut, f.Tags), Exclude: f.IsExclude}
}

// EncSTCharacterFilter writes characterFilter as SillyTavern does; nil
// (null) for no filter, which the world info encoder leaves out (OmitST)
// unless the source had the field.
func EncSTCharacterFilter(e *lore.Entry) any {
	if e.CharacterFilter.IsZero() && !e.CharacterFilter.Exclude {
		return nil
	}
	return stCharacterFilter{IsExclude: e.CharacterFilter.Exclude, Names: NonNil(e.CharacterFilter.Names), Tags: NonNil(e.CharacterFilter.Tags)}
}

// DecSTDelayUntilRecursion reads delayUntilRecursion: false or absent = 0,
// true = level 1, a number = that recursion level (docs/formats.md),
// clamped to 0..lore.MaxDelayUntilRecursion with a warning.
func DecSTDelayUntilRecursion(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.DelayUntilRecursion = 0
	if b, ok := Bool(raw); ok {
		if b {
			e.DelayUntilRecursion = 1
		}
		return
	}
	if n, ok := Int(raw); ok {
		e.DelayUntilRecursion = clampInt(c, "delayUntilRecursion", n, 0, lore.MaxDelayUntilRecursion)
	}
}

// decTimed reads a timed effect in messages: null or absent = 0 (none),
// clamped to 0..lore.MaxTimedEffect with a warning.
func decTimed(name string, field func(*lore.Entry) *int) func(*lore.Entry, json.RawMessage, *STCtx) {
	return func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		*field(e) = 0
		if n, ok := Int(raw); ok {
			*field(e) = clampInt(c, name, n, 0, lore.MaxTimedEffect)
		}
	}
}

// timedValue is the world info value of a timed effect: null for none, as
// SillyTavern writes it.
func timedValue(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// clampInt returns n moved into lo..hi, with a notice naming field (as
// world info spells it) when it was outside.
func clampInt(c *STCtx, field string, n, lo, hi int) int {
	if n < lo || n > hi {
		c.Note(i18n.ReportValueClamped, map[string]any{"field": field, "value": n, "min": lo, "max": hi})
		return min(max(n, lo), hi)
	}
	return n
}

// STFieldByName returns the codec of a canonical world info field.
func STFieldByName(name string) (STField, bool) {
	for _, f := range STFields {
		if f.Name == name {
			return f, true
		}
	}
	return STField{}, false
}

// NonNil returns s, or an empty non-nil slice for nil (so JSON writes []).
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func decKeys(field func(*lore.Entry) *[]string) func(*lore.Entry, json.RawMessage, *STCtx) {
	return func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		keys, ok := Strings(raw)
		if !ok {
			if s, isStr := String(raw); isStr {
				keys = SplitKeyString(s)
			} else if kind := NotText(raw); kind != "" {
				// A number or an object where the key list belongs: not
				// read as a key, and the report says so (BUG-62).
				c.Probs = append(c.Probs, KeyProblem{string(bytes.TrimSpace(raw)), "keys are not text (" + kind + ")"})
			}
		}
		// SillyTavern trims keys before matching (docs/formats.md),
		// so surrounding spaces carry no meaning in world info or
		// card books: the canonical keys are trimmed, and the raw array is
		// kept as a shadow for the same-format export.
		for i := range keys {
			if !c.KeepKeySpaces {
				keys[i] = strings.TrimSpace(keys[i])
			}
		}
		kept, probs := CleanKeys(keys)
		*field(e) = kept
		c.Probs = append(c.Probs, probs...)
	}
}

func decBoolPtr(field func(*lore.Entry) **bool) func(*lore.Entry, json.RawMessage, *STCtx) {
	return func(e *lore.Entry, raw json.RawMessage, c *STCtx) {
		*field(e) = nil
		if v, ok := Bool(raw); ok {
			*field(e) = &v
		}
	}
}

// DecSTLogic reads selectiveLogic 0-3 (AND_ANY, NOT_ALL, NOT_ANY, AND_ALL);
// other values become AND_ANY with a warning.
func DecSTLogic(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.Logic = lore.AndAny
	if IsNull(raw) {
		return
	}
	n, ok := Int(raw)
	switch {
	case ok && n == 0:
	case ok && n == 1:
		e.Logic = lore.NotAll
	case ok && n == 2:
		e.Logic = lore.NotAny
	case ok && n == 3:
		e.Logic = lore.AndAll
	default:
		c.Note(i18n.ReportLogicUnknown, map[string]any{"value": Snippet(string(raw))})
	}
}

// STLogicInt is the selectiveLogic number of l.
func STLogicInt(l lore.SelectiveLogic) int {
	switch l {
	case lore.NotAll:
		return 1
	case lore.NotAny:
		return 2
	case lore.AndAll:
		return 3
	}
	return 0
}

func normLogic(l lore.SelectiveLogic) lore.SelectiveLogic {
	if l == "" {
		return lore.AndAny
	}
	return l
}

// DecSTPosition reads a world info position 0-7 into the position kind
// (docs/formats.md "Positions") and its derived placement; absent or null
// = 0 (ST default). Other values become AFTER_CHAR with a warning.
func DecSTPosition(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.Position, e.Placement = lore.PositionBeforeChar, lore.Before
	if IsNull(raw) {
		return
	}
	n, ok := Int(raw)
	if k, valid := lore.PositionFromST(n); ok && valid {
		e.Position, e.Placement = k, k.Placement()
		return
	}
	e.Position, e.Placement = lore.PositionAfterChar, lore.After
	c.Note(i18n.ReportPositionUnknown, map[string]any{"value": Snippet(string(raw))})
}

// DecSTProbability reads probability: absent or null = 100, explicit 0
// stays 0 (docs/formats.md), clamped to 0-100; when
// useProbability is false ST never rolls, so the chance is 100.
func DecSTProbability(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.Probability = 100
	if c.UseProbability != nil && !*c.UseProbability {
		return
	}
	if n, ok := Int(raw); ok {
		e.Probability = min(max(n, 0), 100)
	}
}

// DecSTScanDepth reads a per-entry scan depth: null = inherit; values are
// clamped to lore.MinScanDepth..lore.MaxScanDepth with a warning.
func DecSTScanDepth(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.ScanDepth = nil
	n, ok := Int(raw)
	if !ok {
		return
	}
	if n < lore.MinScanDepth || n > lore.MaxScanDepth {
		c.Note(i18n.ReportScanDepthClamped, map[string]any{"value": n, "min": lore.MinScanDepth, "max": lore.MaxScanDepth})
		n = min(max(n, lore.MinScanDepth), lore.MaxScanDepth)
	}
	e.ScanDepth = &n
}

// DecSTRole reads role 0 system, 1 user, 2 assistant; null or other values
// are system (docs/formats.md).
func DecSTRole(e *lore.Entry, raw json.RawMessage, c *STCtx) {
	e.Role = lore.RoleSystem
	switch n, _ := Int(raw); n {
	case 1:
		e.Role = lore.RoleUser
	case 2:
		e.Role = lore.RoleAssistant
	}
}

// STRoleInt is the ST role number of r.
func STRoleInt(r lore.Role) int { return r.ST() }

func normRole(r lore.Role) lore.Role {
	if r == "" {
		return lore.RoleSystem
	}
	return r
}

// Shadow stores raw under key in ext when it differs from the encoding of
// the canonical value, so the export can write the source value back.
func Shadow(ext map[string]json.RawMessage, key string, raw json.RawMessage, canonical any) {
	if raw == nil {
		return
	}
	switch c := canonical.(type) {
	case string:
		if s, ok := String(raw); ok && s == c {
			return // fast path: a JSON string that decodes to the same text
		}
	case []string:
		if c != nil && stringArrayEqual(raw, c) {
			return // fast path: an array of strings that decode to the same keys
		}
	}
	enc := marshalNoEscape(canonical)
	if bytes.Equal(bytes.TrimSpace(raw), enc) {
		return // fast path: same text
	}
	if !Equal(raw, enc) {
		ext[key] = raw
	}
}

// marshalNoEscape is json.Marshal without HTML escaping, so that source
// text with <, > or & compares byte-equal.
func marshalNoEscape(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return MustMarshal(v)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
