package lore

// BudgetUnit names what the activation budget of a server counts.
type BudgetUnit string

// The two budget units (seed 000: characters; seed 001: tokens).
const (
	// BudgetCharacters counts UTF-16 code units, as JavaScript's
	// String.length does (seed 000 default: 8,000).
	BudgetCharacters BudgetUnit = "characters"
	// BudgetTokens counts tokens of the server's Tokenizer (seed 001:
	// 100-32,000).
	BudgetTokens BudgetUnit = "tokens"
)

// Valid reports whether u is one of the two units.
func (u BudgetUnit) Valid() bool { return u == BudgetCharacters || u == BudgetTokens }

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
// persona lineage's book (seed 001 "Lorebooks"). Every field is optional:
// nil inherits the server layer (or the request's overrides). Layers, least
// specific first: server settings (and one request's overrides) -> book
// settings -> entry fields -> decorator lines at the start of an entry's
// content; the more specific layer wins. All books of a turn are one set;
// among the books that set BudgetLimit the highest wins (seed 001), else the
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
}

// IsZero reports whether no setting is set.
func (b BookSettings) IsZero() bool {
	return b.ScanDepth == nil && b.BudgetLimit == nil && b.Recursive == nil &&
		b.MaxRecursionSteps == nil && b.CaseSensitive == nil && b.WholeWords == nil
}
