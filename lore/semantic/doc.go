// Package semantic ranks entries by meaning rather than keys: the built-in
// lexical ranker (TF-IDF cosine over the matcher's normalised words, no
// network) and exact cosine scoring of embeddings that a provider computed
// (docs/contract.md#semantic). It does no I/O: the embeddings client lives
// in lore/embeddings, the stored vectors in lore/postgres.
//
// Scores of both rankers are cosine similarities in 0-1, so one threshold
// (default 0.25) and one cap (default 5 entries) apply to either.
package semantic

// Defaults of semantic admission (SillyTavern Vector Storage's defaults;
// docs/contract.md#semantic).
const (
	// DefaultThreshold is the least score admitted.
	DefaultThreshold = 0.25
	// DefaultMaxEntries is how many candidates similarity admits at most.
	DefaultMaxEntries = 5
	// DefaultQueryMessages is how many of the newest messages form the
	// query.
	DefaultQueryMessages = 2
)
