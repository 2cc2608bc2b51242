package lore

import (
	"time"

	"loregate/lore/i18n"
)

// BudgetUnit names what the activation budget of a server counts.
type BudgetUnit string

// The two budget units (docs/contract.md#budget: characters or tokens).
const (
	// BudgetCharacters counts UTF-16 code units, as JavaScript's
	// String.length does (default 8,000, docs/contract.md#budget).
	BudgetCharacters BudgetUnit = "characters"
	// BudgetTokens counts tokens of the server's Tokenizer
	// (100-32,000, docs/contract.md#budget).
	BudgetTokens BudgetUnit = "tokens"
)

// Valid reports whether u is one of the two units.
func (u BudgetUnit) Valid() bool { return u == BudgetCharacters || u == BudgetTokens }

// Budget limits per unit. Characters: the contract's default of 8,000, at most
// 2,000,000 (what two full default scopes hold; far beyond any prompt).
// Tokens: 100-32,000 (docs/contract.md#budget); the default, 2,048 (about 8,000
// characters of English), is the engine's (activation.DefaultTokenBudget).
const (
	DefaultBudgetCharacters = 8000
	MinBudgetCharacters     = 1
	MaxBudgetCharacters     = 2_000_000
	DefaultBudgetTokens     = 2048
	MinBudgetTokens         = 100
	MaxBudgetTokens         = 32_000
)

// MaxRecursionSteps bounds BookSettings.MaxRecursionSteps: the engine's
// hard cap on passes, which 0 ("no limit") also means.
const MaxRecursionSteps = 10

// DefaultLimit returns the unit's default budget (DefaultBudgetCharacters
// for "" and characters).
func (u BudgetUnit) DefaultLimit() int {
	if u == BudgetTokens {
		return DefaultBudgetTokens
	}
	return DefaultBudgetCharacters
}

// LimitRange returns the inclusive range of a budget limit in the unit
// (characters for "").
func (u BudgetUnit) LimitRange() (lo, hi int) {
	if u == BudgetTokens {
		return MinBudgetTokens, MaxBudgetTokens
	}
	return MinBudgetCharacters, MaxBudgetCharacters
}

// CheckLimit returns an *InvalidError naming field when n is outside the
// unit's LimitRange.
func (u BudgetUnit) CheckLimit(field string, n int) error {
	lo, hi := u.LimitRange()
	if n < lo || n > hi {
		key := i18n.OutOfRangeCharacters
		if u == BudgetTokens {
			key = i18n.OutOfRangeTokens
		}
		return Reject(field, key, Params{"value": n, "min": lo, "max": hi})
	}
	return nil
}

// ClampLimit returns n moved into the unit's LimitRange. A book limit set
// under the other unit (before the server changed unit) is used clamped.
func (u BudgetUnit) ClampLimit(n int) int {
	lo, hi := u.LimitRange()
	return min(max(n, lo), hi)
}

// TokenizerName names an offline tokenizer for token budgets.
type TokenizerName string

// The supported tokenizers; TokenizerO200k is the default.
const (
	TokenizerO200k  TokenizerName = "o200k_base"
	TokenizerCL100k TokenizerName = "cl100k_base"
)

// Valid reports whether t is a supported tokenizer.
func (t TokenizerName) Valid() bool { return t == TokenizerO200k || t == TokenizerCL100k }

// BookSettings are the settings of one book: a Serverwide collection or a
// persona lineage's book (docs/contract.md#settings-layers). Every field is optional:
// nil inherits the server layer (or the request's overrides). Layers, least
// specific first: server settings (and one request's overrides) -> book
// settings -> entry fields -> decorator lines at the start of an entry's
// content; the more specific layer wins. All books of a turn are one set;
// among the books that set BudgetLimit the highest wins (docs/contract.md#settings-layers), else the
// server's.
type BookSettings struct {
	// ScanDepth is the default scan depth of the book's entries without
	// their own, 0..MaxScanDepth; 0 scans no chat message.
	ScanDepth *int `json:"scanDepth,omitempty"`
	// BudgetLimit is the book's budget in the server's BudgetUnit (> 0).
	BudgetLimit *int `json:"budgetLimit,omitempty"`
	// Recursive turns recursive scanning on or off for the book's entries.
	Recursive *bool `json:"recursive,omitempty"`
	// MaxRecursionSteps counts every pass including the first (1 = no
	// recursion, 0 = no limit but the engine's hard cap).
	MaxRecursionSteps *int `json:"maxRecursionSteps,omitempty"`
	// CaseSensitive and WholeWords are the book's defaults for entries
	// whose own override is nil.
	CaseSensitive *bool `json:"caseSensitive,omitempty"`
	WholeWords    *bool `json:"wholeWords,omitempty"`
	// MaxBudgetShare caps the book's entries at that percent (1-100) of
	// the turn's shared budget, inside it (docs/authoring.md "Selection
	// controls"); nil = no cap of its own.
	MaxBudgetShare *int `json:"maxBudgetShare,omitempty"`
	// SemanticAllEntries, when true, makes every entry of the book a
	// candidate of retrieval by meaning, not only its vectorized ones
	// (docs/contract.md#semantic); nil or false leaves it to the server
	// and request setting.
	SemanticAllEntries *bool `json:"semanticAllEntries,omitempty"`
}

// Validate checks the ranges: ScanDepth MinScanDepth..MaxScanDepth,
// BudgetLimit in unit's LimitRange (the server's unit: a book limit counts
// what the server counts), MaxRecursionSteps 0..MaxRecursionSteps. The
// error is an *InvalidError naming the field (scanDepth, budgetLimit,
// maxRecursionSteps), with every other failing one in its Others.
func (b BookSettings) Validate(unit BudgetUnit) error {
	var fe FieldErrors
	if b.ScanDepth != nil && (*b.ScanDepth < MinScanDepth || *b.ScanDepth > MaxScanDepth) {
		fe.Add(outOfRange("scanDepth", *b.ScanDepth, MinScanDepth, MaxScanDepth))
	}
	if b.BudgetLimit != nil {
		fe.Add(unit.CheckLimit("budgetLimit", *b.BudgetLimit))
	}
	if b.MaxRecursionSteps != nil && (*b.MaxRecursionSteps < 0 || *b.MaxRecursionSteps > MaxRecursionSteps) {
		fe.Add(outOfRange("maxRecursionSteps", *b.MaxRecursionSteps, 0, MaxRecursionSteps))
	}
	if b.MaxBudgetShare != nil && (*b.MaxBudgetShare < 1 || *b.MaxBudgetShare > 100) {
		fe.Add(outOfRange("maxBudgetShare", *b.MaxBudgetShare, 1, 100))
	}
	return fe.Err()
}

// Clone returns a deep copy of b.
func (b BookSettings) Clone() BookSettings {
	return BookSettings{
		ScanDepth: clonePtr(b.ScanDepth), BudgetLimit: clonePtr(b.BudgetLimit),
		Recursive: clonePtr(b.Recursive), MaxRecursionSteps: clonePtr(b.MaxRecursionSteps),
		CaseSensitive: clonePtr(b.CaseSensitive), WholeWords: clonePtr(b.WholeWords),
		MaxBudgetShare: clonePtr(b.MaxBudgetShare), SemanticAllEntries: clonePtr(b.SemanticAllEntries),
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// BookSettingsPatch is a partial book settings update: a nil field keeps
// the stored value, a non-nil pointer to nil clears it (inherit), a
// pointer to a value sets it.
type BookSettingsPatch struct {
	ScanDepth, BudgetLimit, MaxRecursionSteps, MaxBudgetShare **int
	Recursive, CaseSensitive, WholeWords, SemanticAllEntries  **bool
	// ExpectedUpdatedAt, when set, is the book's UpdatedAt as the caller
	// read it (the collection's, or the persona book settings'): a
	// different stored value fails the write with a *StaleError
	// (CheckUpdatedAt). Apply ignores it.
	ExpectedUpdatedAt *time.Time
}

// Apply returns a copy of b with p applied.
func (p BookSettingsPatch) Apply(b BookSettings) BookSettings {
	out := b.Clone()
	patchPtr(&out.ScanDepth, p.ScanDepth)
	patchPtr(&out.BudgetLimit, p.BudgetLimit)
	patchPtr(&out.MaxRecursionSteps, p.MaxRecursionSteps)
	patchPtr(&out.Recursive, p.Recursive)
	patchPtr(&out.CaseSensitive, p.CaseSensitive)
	patchPtr(&out.WholeWords, p.WholeWords)
	patchPtr(&out.MaxBudgetShare, p.MaxBudgetShare)
	patchPtr(&out.SemanticAllEntries, p.SemanticAllEntries)
	return out
}

func patchPtr[T any](dst **T, v **T) {
	if v != nil {
		*dst = clonePtr(*v)
	}
}

// IsZero reports whether no setting is set.
func (b BookSettings) IsZero() bool {
	return b.ScanDepth == nil && b.BudgetLimit == nil && b.Recursive == nil &&
		b.MaxRecursionSteps == nil && b.CaseSensitive == nil && b.WholeWords == nil && b.MaxBudgetShare == nil &&
		b.SemanticAllEntries == nil
}

// Equal reports whether b and o hold the same settings (values, not
// pointers).
func (b BookSettings) Equal(o BookSettings) bool {
	return eqPtr(b.ScanDepth, o.ScanDepth) && eqPtr(b.BudgetLimit, o.BudgetLimit) && eqPtr(b.Recursive, o.Recursive) &&
		eqPtr(b.MaxRecursionSteps, o.MaxRecursionSteps) && eqPtr(b.CaseSensitive, o.CaseSensitive) && eqPtr(b.WholeWords, o.WholeWords) &&
		eqPtr(b.MaxBudgetShare, o.MaxBudgetShare) && eqPtr(b.SemanticAllEntries, o.SemanticAllEntries)
}

func eqPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
