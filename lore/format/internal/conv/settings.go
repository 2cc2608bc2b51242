package conv

import (
	"encoding/json"
	"fmt"

	"loregate/lore"
	"loregate/lore/i18n"
)

// SettingsKey is the member under which loregate keeps a book's settings
// that the format has no field for: in the book-level extensions object of
// card books and SillyTavern world info, at the top level of RisuAI and
// Agnai books (docs/formats.md "Book settings").
const SettingsKey = "loregate_settings"

// settingsJSON is the SettingsKey object.
type settingsJSON struct {
	ScanDepth   *int            `json:"scanDepth,omitempty"`
	BudgetLimit *int            `json:"budgetLimit,omitempty"`
	BudgetUnit  lore.BudgetUnit `json:"budgetUnit,omitempty"`
	Recursive   *bool           `json:"recursive,omitempty"`
	// MaxRecursionSteps, CaseSensitive and WholeWords have no native
	// field in any format.
	MaxRecursionSteps *int  `json:"maxRecursionSteps,omitempty"`
	CaseSensitive     *bool `json:"caseSensitive,omitempty"`
	WholeWords        *bool `json:"wholeWords,omitempty"`
	// SemanticAllEntries has no native field either (SillyTavern's
	// "enabled for all entries" is a setting of its Vector Storage
	// extension, not of the book).
	SemanticAllEntries *bool `json:"semanticAllEntries,omitempty"`
	// MaxBudgetShare has no native field in any format (an ST extension
	// and Marinara have their own per-book budgets, not this share).
	MaxBudgetShare *int `json:"maxBudgetShare,omitempty"`
}

// NativeSettings names a format's own book-level members; "" = none.
type NativeSettings struct {
	ScanDepth, TokenBudget, Recursive string
}

// The native book settings of the formats that have them.
var (
	// CardSettings: character_book scan_depth, token_budget,
	// recursive_scanning (docs/formats.md; also the Chub hybrid).
	CardSettings = NativeSettings{"scan_depth", "token_budget", "recursive_scanning"}
	// AgnaiSettings: the memory book's scanDepth, tokenBudget,
	// recursiveScanning (docs/formats.md).
	AgnaiSettings = NativeSettings{"scanDepth", "tokenBudget", "recursiveScanning"}
)

// BookSettingValue reads one native book-level setting into the book's
// Settings: a scan depth of 0-100, a positive token budget (clamped to
// lore's token range with a warning; the book's BudgetUnit becomes tokens),
// a recursion flag. It reports whether name is one of the names of n.
// Values of the wrong type or range are reported as ignored settings.
func (b *Builder) BookSettingValue(n NativeSettings, name string, value json.RawMessage) bool {
	s := &b.Book.Settings
	switch name {
	case "":
		return false
	case n.ScanDepth:
		if d, ok := Int(value); ok && d >= lore.MinScanDepth && d <= lore.MaxScanDepth {
			s.ScanDepth = &d
		} else if !IsNull(value) {
			b.Report.Ignore("book scan depth")
		}
	case n.TokenBudget:
		if t, ok := Int(value); ok && t > 0 {
			if c := lore.BudgetTokens.ClampLimit(t); c != t {
				b.Report.Notef(i18n.ReportTokenBudgetClamped, map[string]any{"budget": t, "min": lore.MinBudgetTokens, "max": lore.MaxBudgetTokens, "clamped": c})
				t = c
			}
			s.BudgetLimit, b.Book.BudgetUnit = &t, lore.BudgetTokens
		} else if ok && t < 0 {
			b.Report.Ignore("token budget")
		}
	case n.Recursive:
		if r, ok := Bool(value); ok {
			s.Recursive = &r
		}
	default:
		return false
	}
	return true
}

// SettingsExtension records the SettingsKey object of a book (found in
// its extensions or top level); Finish applies the settings the native
// members did not set. A malformed object is reported as ignored.
func (b *Builder) SettingsExtension(raw json.RawMessage) {
	var sj settingsJSON
	if err := json.Unmarshal(raw, &sj); err != nil {
		b.Report.Ignore(SettingsKey)
		return
	}
	b.settingsExt = &sj
}

// SettingsInExtensions calls SettingsExtension with the SettingsKey member
// of an extensions object, when it has one.
func (b *Builder) SettingsInExtensions(ext json.RawMessage) {
	if o, err := ParseObject(ext); err == nil {
		if v, ok := o.Get(SettingsKey); ok {
			b.SettingsExtension(v)
		}
	}
}

// applySettingsExt fills the settings native members left unset from the
// SettingsKey object, then checks the whole with lore's ranges: a value
// out of range is dropped with a warning (the book's entries are imported
// either way).
func (b *Builder) applySettingsExt() {
	s := &b.Book.Settings
	if x := b.settingsExt; x != nil {
		fill(&s.ScanDepth, x.ScanDepth)
		fill(&s.Recursive, x.Recursive)
		fill(&s.MaxRecursionSteps, x.MaxRecursionSteps)
		fill(&s.CaseSensitive, x.CaseSensitive)
		fill(&s.WholeWords, x.WholeWords)
		fill(&s.SemanticAllEntries, x.SemanticAllEntries)
		fill(&s.MaxBudgetShare, x.MaxBudgetShare)
		if s.BudgetLimit == nil && x.BudgetLimit != nil {
			s.BudgetLimit, b.Book.BudgetUnit = x.BudgetLimit, x.BudgetUnit
			if b.Book.BudgetUnit == "" {
				b.Book.BudgetUnit = lore.BudgetTokens
			}
		}
	}
	if s.BudgetLimit != nil && !b.Book.BudgetUnit.Valid() {
		b.Report.Notef(i18n.ReportBudgetUnitUnknown, map[string]any{"unit": Snippet(string(b.Book.BudgetUnit)), "budget": *s.BudgetLimit})
		s.BudgetLimit, b.Book.BudgetUnit = nil, ""
	}
	for _, fix := range []struct {
		field string
		drop  func()
	}{
		{"scanDepth", func() { s.ScanDepth = nil }},
		{"budgetLimit", func() { s.BudgetLimit, b.Book.BudgetUnit = nil, "" }},
		{"maxRecursionSteps", func() { s.MaxRecursionSteps = nil }},
	} {
		var inv *lore.InvalidError
		if err := s.Validate(b.Book.BudgetUnit); err != nil && asInvalid(err, &inv) && inv.Field == fix.field {
			b.Report.Notef(i18n.ReportBookSettingDropped, map[string]any{"field": inv.Field,
				"value": inv.Params["value"], "min": inv.Params["min"], "max": inv.Params["max"]})
			fix.drop()
		}
	}
}

func asInvalid(err error, out **lore.InvalidError) bool {
	ie, ok := err.(*lore.InvalidError)
	*out = ie
	return ok
}

func fill[T any](dst **T, v *T) {
	if *dst == nil && v != nil {
		c := *v
		*dst = &c
	}
}

// EncodeSettings writes book's settings onto o, the format's book-level
// object: each setting the format has a native member for (n) is set there
// (a token budget only when the budget counts tokens), replacing a kept
// source value; the rest is returned as the SettingsKey object for the
// format's extensions place, nil when nothing is left.
func EncodeSettings(o *Object, book Book, n NativeSettings) json.RawMessage {
	s := book.Settings
	rest := settingsJSON{MaxRecursionSteps: s.MaxRecursionSteps, CaseSensitive: s.CaseSensitive, WholeWords: s.WholeWords,
		SemanticAllEntries: s.SemanticAllEntries, MaxBudgetShare: s.MaxBudgetShare}
	if s.ScanDepth != nil {
		if n.ScanDepth != "" {
			o.SetValue(n.ScanDepth, *s.ScanDepth)
		} else {
			rest.ScanDepth = s.ScanDepth
		}
	}
	if s.BudgetLimit != nil {
		unit := book.BudgetUnit
		if unit == "" {
			unit = lore.BudgetTokens
		}
		if n.TokenBudget != "" && unit == lore.BudgetTokens {
			// A kept source value that was clamped to this budget on
			// import is written back as the source had it.
			if v, ok := o.Get(n.TokenBudget); !ok || !sameClamped(v, *s.BudgetLimit) {
				o.SetValue(n.TokenBudget, *s.BudgetLimit)
			}
		} else {
			rest.BudgetLimit, rest.BudgetUnit = s.BudgetLimit, unit
			if n.TokenBudget != "" && o.Has(n.TokenBudget) {
				// A kept source token budget no longer says what the
				// book's budget is.
				o.Set(n.TokenBudget, json.RawMessage(`null`))
			}
		}
	}
	if s.Recursive != nil {
		if n.Recursive != "" {
			o.SetValue(n.Recursive, *s.Recursive)
		} else {
			rest.Recursive = s.Recursive
		}
	}
	if rest == (settingsJSON{}) {
		return nil
	}
	return MustMarshal(rest)
}

// sameClamped reports whether the token budget raw, clamped to lore's
// token range, is limit.
func sameClamped(raw json.RawMessage, limit int) bool {
	t, ok := Int(raw)
	return ok && t > 0 && lore.BudgetTokens.ClampLimit(t) == limit
}

// SetSettingsMember sets member SettingsKey of the object o to rest, or
// removes it when rest is nil (a stale copy from the source file).
func SetSettingsMember(o *Object, rest json.RawMessage) *Object {
	if rest != nil {
		o.Set(SettingsKey, rest)
		return o
	}
	if !o.Has(SettingsKey) {
		return o
	}
	out := NewObject()
	for _, f := range o.Fields {
		if f.Name != SettingsKey {
			out.Set(f.Name, f.Value)
		}
	}
	return out
}

// WithSettingsMember returns the JSON object obj (nil or not an object =
// {}) with SetSettingsMember applied, and whether the result has members.
func WithSettingsMember(obj json.RawMessage, rest json.RawMessage) (json.RawMessage, bool) {
	o, err := ParseObject(obj)
	if err != nil {
		o = NewObject()
	}
	o = SetSettingsMember(o, rest)
	out, _ := o.MarshalJSON()
	return out, o.Len() > 0
}

// DescribeSettings lists the set settings of s for a report line.
func DescribeSettings(s lore.BookSettings, unit lore.BudgetUnit) string {
	out := ""
	add := func(format string, args ...any) {
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf(format, args...)
	}
	if s.ScanDepth != nil {
		add("scan depth %d", *s.ScanDepth)
	}
	if s.BudgetLimit != nil {
		add("budget %d %s", *s.BudgetLimit, unit)
	}
	if s.Recursive != nil {
		add("recursive %t", *s.Recursive)
	}
	if s.MaxRecursionSteps != nil {
		add("max recursion steps %d", *s.MaxRecursionSteps)
	}
	if s.CaseSensitive != nil {
		add("case sensitive %t", *s.CaseSensitive)
	}
	if s.WholeWords != nil {
		add("whole words %t", *s.WholeWords)
	}
	if s.SemanticAllEntries != nil {
		add("semantic all entries %t", *s.SemanticAllEntries)
	}
	if s.MaxBudgetShare != nil {
		add("max budget share %d%%", *s.MaxBudgetShare)
	}
	return out
}
