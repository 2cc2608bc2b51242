package semantic

import "loregate/lore"

// Candidate is an entry retrieval by meaning may admit, with the text it
// is ranked and embedded by (EmbedText of its content; a split entry's
// parts joined, under its first part's id) and that text's hash
// (TextHash), the key its stored vector is kept under.
type Candidate struct {
	ID    int64
	Title string
	Text  string
	Hash  string
}

// IsCandidate reports whether e may be admitted by similarity: enabled,
// not Always On (constants need no admission), and vectorized or, with
// all (semanticAllEntries), any entry (docs/contract.md#semantic).
func IsCandidate(e lore.Entry, all bool) bool {
	return e.Enabled && !e.Constant && (all || e.Vectorized)
}

// Candidates returns the candidates among entries, in their order, split
// groups joined first (lore.JoinSplit). all is semanticAllEntries.
func Candidates(entries []lore.Entry, all bool) []Candidate {
	// A joined entry has its first part's fields: when no entry is a
	// candidate, none is joined (the common turn: nothing vectorized).
	none := true
	for i := range entries {
		if e := &entries[i]; e.Enabled && !e.Constant && (all || e.Vectorized) {
			none = false
			break
		}
	}
	if none {
		return nil
	}
	var out []Candidate
	for _, e := range lore.JoinSplit(entries) {
		if !IsCandidate(e, all) {
			continue
		}
		text := EmbedText(e.Content)
		out = append(out, Candidate{ID: e.ID, Title: e.Title, Text: text, Hash: TextHash(text)})
	}
	return out
}
