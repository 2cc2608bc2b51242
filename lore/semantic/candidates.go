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

// Which says which entries are candidates besides vectorized ones: All
// (the server's or the request's semanticAllEntries) makes every entry
// one, Book (nil: none) those whose book has its own semanticAllEntries on
// (lore.BookSettings.SemanticAllEntries).
type Which struct {
	All  bool
	Book func(e *lore.Entry) bool
}

// ScopeBooks is the Book of Which for one scope: a Serverwide entry's
// collection (by name in collections) or a persona entry's book settings
// (persona) with SemanticAllEntries on. Nil when no book has it on.
func ScopeBooks(collections map[string]lore.Collection, persona lore.BookSettings) func(*lore.Entry) bool {
	on := func(s lore.BookSettings) bool { return s.SemanticAllEntries != nil && *s.SemanticAllEntries }
	some := on(persona)
	for _, c := range collections {
		some = some || on(c.Settings)
	}
	if !some {
		return nil
	}
	return func(e *lore.Entry) bool {
		if e.Lineage == lore.Serverwide {
			return on(collections[e.Collection].Settings)
		}
		return on(persona)
	}
}

// IsCandidate reports whether e may be admitted by similarity: enabled,
// not Always On (constants need no admission), and vectorized or made a
// candidate by w (docs/contract.md#semantic).
func IsCandidate(e *lore.Entry, w Which) bool {
	return e.Enabled && !e.Constant && (e.Vectorized || w.All || (w.Book != nil && w.Book(e)))
}

// Candidates returns the candidates among entries, in their order, split
// groups joined first (lore.JoinSplit).
func Candidates(entries []lore.Entry, w Which) []Candidate {
	// A joined entry has its first part's fields: when no entry is a
	// candidate, none is joined (the common turn: nothing vectorized).
	none := true
	for i := range entries {
		if IsCandidate(&entries[i], w) {
			none = false
			break
		}
	}
	if none {
		return nil
	}
	var out []Candidate
	for _, e := range lore.JoinSplit(entries) {
		if !IsCandidate(&e, w) {
			continue
		}
		text := EmbedText(e.Content)
		out = append(out, Candidate{ID: e.ID, Title: e.Title, Text: text, Hash: TextHash(text)})
	}
	return out
}
