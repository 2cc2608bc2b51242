package lore

import (
	"strings"

	"loregate/lore/i18n"
)

// SemanticRanker selects how candidates of retrieval by meaning are
// scored (docs/contract.md#semantic).
type SemanticRanker string

// The rankers (the GraphQL enum's values); "" means RankerAuto.
const (
	// RankerAuto: embeddings when a provider is configured, else lexical.
	RankerAuto SemanticRanker = "AUTO"
	// RankerEmbeddings: the provider's vectors (lexical when it is slow or
	// down, and for entries whose vectors are pending).
	RankerEmbeddings SemanticRanker = "EMBEDDINGS"
	// RankerLexical: the built-in lexical ranker; lore never leaves the
	// machine.
	RankerLexical SemanticRanker = "LEXICAL"
	// RankerOff: no retrieval by meaning; keys alone.
	RankerOff SemanticRanker = "OFF"
)

// Valid reports whether r is a ranker ("" included: auto).
func (r SemanticRanker) Valid() bool {
	switch r {
	case "", RankerAuto, RankerEmbeddings, RankerLexical, RankerOff:
		return true
	}
	return false
}

// UnmarshalText reads a ranker in any case ("lexical" or "LEXICAL", the
// CLI's --ranker); anything else is an error naming the four.
func (r *SemanticRanker) UnmarshalText(b []byte) error {
	v := SemanticRanker(strings.ToUpper(strings.TrimSpace(string(b))))
	if v == "" || !v.Valid() {
		return Reject("semanticRanker", i18n.NotOneOf, Params{"value": clipForError(string(b)), "allowed": "auto, embeddings, lexical, off"})
	}
	*r = v
	return nil
}

// SendsOut reports whether a server with ranker r may send its lore to
// an embeddings provider: AUTO (the default) and EMBEDDINGS do, LEXICAL
// and OFF never (docs/operations.md#embeddings).
func (r SemanticRanker) SendsOut() bool {
	switch r.OrAuto() {
	case RankerAuto, RankerEmbeddings:
		return true
	}
	return false
}

// OrAuto returns r, RankerAuto for "".
func (r SemanticRanker) OrAuto() SemanticRanker {
	if r == "" {
		return RankerAuto
	}
	return r
}

// Bounds and defaults of the semantic settings (SillyTavern Vector
// Storage's defaults: 5 entries, threshold 0.25, the last 2 messages).
const (
	DefaultSemanticMaxEntries    = 5
	MaxSemanticMaxEntries        = 50
	DefaultSemanticThreshold     = 0.25
	DefaultSemanticQueryMessages = 2
	MaxSemanticQueryMessages     = 20
	// DefaultSemanticBudgetShare is the share of a turn's budget held for
	// its similarity matches (docs/contract.md#semantic-budget).
	DefaultSemanticBudgetShare = 0.25
)

// SemanticSettings are a server's settings of retrieval by meaning
// (docs/contract.md#semantic); a request may override each. Nil and ""
// mean the defaults.
type SemanticSettings struct {
	// Ranker scores the candidates; "" is RankerAuto.
	Ranker SemanticRanker `json:"ranker,omitempty"`
	// AllEntries makes every entry a candidate, not only vectorized ones
	// (SillyTavern's "enabled for all entries"); a book may set its own.
	AllEntries bool `json:"allEntries,omitempty"`
	// MaxEntries is how many candidates similarity admits at most per
	// turn, 0..MaxSemanticMaxEntries (nil: DefaultSemanticMaxEntries).
	MaxEntries *int `json:"maxEntries,omitempty"`
	// Threshold is the least score admitted, 0-1 (nil:
	// DefaultSemanticThreshold).
	Threshold *float64 `json:"threshold,omitempty"`
	// QueryMessages is how many of the newest messages form the query,
	// 1..MaxSemanticQueryMessages (nil: DefaultSemanticQueryMessages).
	QueryMessages *int `json:"queryMessages,omitempty"`
	// BudgetShare is the most of a turn's budget held for its similarity
	// matches, 0-1, as much as they cost; keyword and Always On entries
	// claim the rest (nil: DefaultSemanticBudgetShare; 0 holds nothing;
	// docs/contract.md#semantic-budget).
	BudgetShare *float64 `json:"budgetShare,omitempty"`
}

// Validate checks the ranges; the error is an *InvalidError naming
// semanticRanker, semanticMaxEntries, semanticThreshold,
// semanticQueryMessages or semanticBudgetShare, with every other failing
// one in its Others.
func (s SemanticSettings) Validate() error {
	var fe FieldErrors
	if !s.Ranker.Valid() {
		fe.Add(Reject("semanticRanker", i18n.NotOneOf, Params{"value": clipForError(string(s.Ranker)), "allowed": "auto, embeddings, lexical, off"}))
	}
	if s.MaxEntries != nil && (*s.MaxEntries < 0 || *s.MaxEntries > MaxSemanticMaxEntries) {
		fe.Add(Reject("semanticMaxEntries", i18n.OutOfRange, Params{"value": *s.MaxEntries, "min": 0, "max": MaxSemanticMaxEntries}))
	}
	if s.Threshold != nil && !(*s.Threshold >= 0 && *s.Threshold <= 1) {
		fe.Add(Reject("semanticThreshold", i18n.OutOfRange, Params{"value": *s.Threshold, "min": 0, "max": 1}))
	}
	if s.QueryMessages != nil && (*s.QueryMessages < 1 || *s.QueryMessages > MaxSemanticQueryMessages) {
		fe.Add(Reject("semanticQueryMessages", i18n.OutOfRange, Params{"value": *s.QueryMessages, "min": 1, "max": MaxSemanticQueryMessages}))
	}
	if s.BudgetShare != nil && !(*s.BudgetShare >= 0 && *s.BudgetShare <= 1) {
		fe.Add(Reject("semanticBudgetShare", i18n.OutOfRange, Params{"value": *s.BudgetShare, "min": 0, "max": 1}))
	}
	return fe.Err()
}

// MaxEntriesOrDefault, ThresholdOrDefault and QueryMessagesOrDefault
// return the setting or its default.
func (s SemanticSettings) MaxEntriesOrDefault() int {
	if s.MaxEntries == nil {
		return DefaultSemanticMaxEntries
	}
	return *s.MaxEntries
}

// ThresholdOrDefault: see MaxEntriesOrDefault.
func (s SemanticSettings) ThresholdOrDefault() float64 {
	if s.Threshold == nil {
		return DefaultSemanticThreshold
	}
	return *s.Threshold
}

// QueryMessagesOrDefault: see MaxEntriesOrDefault.
func (s SemanticSettings) QueryMessagesOrDefault() int {
	if s.QueryMessages == nil {
		return DefaultSemanticQueryMessages
	}
	return *s.QueryMessages
}

// BudgetShareOrDefault: see MaxEntriesOrDefault.
func (s SemanticSettings) BudgetShareOrDefault() float64 {
	if s.BudgetShare == nil {
		return DefaultSemanticBudgetShare
	}
	return *s.BudgetShare
}

// SemanticPatch is a partial update of SemanticSettings; nil keeps a
// value, a pointer to nil resets an optional one to its default.
type SemanticPatch struct {
	Ranker        *SemanticRanker
	AllEntries    *bool
	MaxEntries    **int
	Threshold     **float64
	QueryMessages **int
	BudgetShare   **float64
}

// Apply returns s with p applied.
func (p SemanticPatch) Apply(s SemanticSettings) SemanticSettings {
	if p.Ranker != nil {
		s.Ranker = *p.Ranker
	}
	if p.AllEntries != nil {
		s.AllEntries = *p.AllEntries
	}
	patchPtr(&s.MaxEntries, p.MaxEntries)
	patchPtr(&s.Threshold, p.Threshold)
	patchPtr(&s.QueryMessages, p.QueryMessages)
	patchPtr(&s.BudgetShare, p.BudgetShare)
	return s
}

// EmbeddingState is where a candidate's stored vector stands under the
// deployment's embeddings model (docs/operations.md#embeddings).
type EmbeddingState string

// The states (the GraphQL enum's values).
const (
	// EmbeddingPending: no vector yet for the entry's current text and
	// the model; the embed job will compute it (turns rank the entry
	// lexically meanwhile).
	EmbeddingPending EmbeddingState = "PENDING"
	// EmbeddingReady: the vector of the current text under the model is
	// stored.
	EmbeddingReady EmbeddingState = "READY"
	// EmbeddingFailed: the provider refused this text (or kept failing);
	// the job tries again when the text or the model changes, or on
	// reindexEmbeddings.
	EmbeddingFailed EmbeddingState = "FAILED"
)

// EmbeddingsStatus counts a server's candidates by the state of their
// vectors under Model.
type EmbeddingsStatus struct {
	Model                  string
	Ready, Pending, Failed int
}

// EntryVector is a candidate's stored embedding: the provider's vector of
// the text whose semantic.TextHash is Hash.
type EntryVector struct {
	EntryID int64
	Hash    string
	Vector  []float32
}
