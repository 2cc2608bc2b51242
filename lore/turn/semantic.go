package turn

import (
	"context"
	"strconv"
	"strings"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/semantic"
)

// Rankers are what a caller gives Rank to score a turn's candidates.
type Rankers struct {
	// Candidates returns the turn's candidates, built with build on first
	// use (the API keeps them per scope version and semanticAllEntries,
	// as the lexical index); nil builds them every turn.
	Candidates func(build func() []semantic.Candidate) []semantic.Candidate
	// Lexical returns the lexical index of cands (the API keeps one per
	// scope version and candidate set); nil builds it every turn.
	Lexical func(cands []semantic.Candidate) *semantic.Lexical
	// Embeddings, when set, is the embeddings provider: it returns the
	// candidates' cosine scores to the query, making at most one provider
	// call within its own deadline. pending > 0 (candidates whose stored
	// vector is missing or stale, no call made) or an error send the turn
	// to the lexical ranker, and the trace says why.
	Embeddings func(ctx context.Context, query string, cands []semantic.Candidate) (scores map[int64]float64, pending int, err error)
}

// Query is the turn's query text: its newest n messages joined by
// newlines (docs/contract.md#semantic).
func Query(msgs []string, n int) string {
	return strings.Join(msgs[max(len(msgs)-n, 0):], "\n")
}

// Rank scores the turn's candidates and sets Input.Semantic, by the
// turn's ranker (Turn.Semantic): OFF ranks nothing; LEXICAL the lexical
// ranker; AUTO and EMBEDDINGS the provider when r has one, else (and when
// it fails, is slow, or vectors are pending) the lexical ranker: a turn
// never fails for its provider. A turn without candidates is left as it
// is: keys alone decide, as without this feature. The ranker used (and
// why, for a fallback) is Input.Semantic.Ranker, shown in the trace's
// details.
func (t *Turn) Rank(ctx context.Context, r Rankers) {
	set := t.Semantic
	ranker := set.Ranker.OrAuto()
	if ranker == lore.RankerOff {
		return
	}
	build := func() []semantic.Candidate {
		return semantic.Candidates(t.Input.Entries, semantic.Which{All: set.AllEntries,
			Book: semantic.ScopeBooks(t.Input.Collections, t.Input.PersonaBook)})
	}
	var cands []semantic.Candidate
	if r.Candidates != nil {
		cands = r.Candidates(build)
	} else {
		cands = build()
	}
	if len(cands) == 0 {
		return
	}
	msgs := t.Input.Messages
	msgs = msgs[max(len(msgs)-set.QueryMessagesOrDefault(), 0):] // the query's (Query)
	rs := new(ranked)
	byID, name := t.embeddingScores(ctx, r, ranker, msgs, cands)
	if byID != nil {
		rs.sem.Scores = activation.ScoreMap(byID)
	} else {
		var x *semantic.Lexical
		if r.Lexical != nil {
			x = r.Lexical(cands)
		} else {
			x = NewLexical(cands)
		}
		rs.sem.Scores = x.ScoresIn(&rs.lexq, msgs)
	}
	rs.sem.Threshold, rs.sem.MaxEntries = set.ThresholdOrDefault(), set.MaxEntriesOrDefault()
	rs.sem.Ranker, rs.sem.BudgetShare = name, set.BudgetShareOrDefault()
	t.Input.Semantic = &rs.sem
}

// ranked is what Rank sets Input.Semantic to and the lexical ranker's
// query, in one allocation.
type ranked struct {
	sem  activation.Semantic
	lexq semantic.LexicalQuery
}

// embeddingScores asks r.Embeddings when the ranker may, with the query
// of msgs (the newest messages); nil scores mean the lexical ranker, and
// name says which ranked and why.
func (t *Turn) embeddingScores(ctx context.Context, r Rankers, ranker lore.SemanticRanker, msgs []string, cands []semantic.Candidate) (map[int64]float64, string) {
	var query string
	if ranker != lore.RankerLexical && r.Embeddings != nil {
		query = Query(msgs, len(msgs))
	}
	switch {
	case ranker == lore.RankerLexical:
		return nil, "lexical"
	case r.Embeddings == nil:
		if ranker == lore.RankerEmbeddings {
			return nil, "lexical: no embeddings provider is configured"
		}
		return nil, "lexical"
	case strings.TrimSpace(query) == "":
		return nil, "lexical: the query is empty"
	}
	s, pending, err := r.Embeddings(ctx, query, cands)
	switch {
	case err != nil:
		return nil, "lexical: the embeddings provider failed (" + lore.ClipBytes(err.Error(), 160) + ")"
	case pending > 0:
		return nil, "lexical: embeddings pending for " + strconv.Itoa(pending) + " of " + strconv.Itoa(len(cands)) + " candidates"
	}
	return s, "embeddings"
}

// NewLexical builds the lexical index of cands: each ranked by its title
// and its text (content without decorator lines).
func NewLexical(cands []semantic.Candidate) *semantic.Lexical {
	docs := make([]semantic.Doc, len(cands))
	for i, c := range cands {
		docs[i] = semantic.Doc{ID: c.ID, Title: c.Title, Text: c.Text}
	}
	return semantic.NewLexical(docs)
}
