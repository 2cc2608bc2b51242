package semantic

import (
	"math"
	"slices"
)

// ProfileTerms is how many of a candidate's heaviest terms its vector
// keeps (its profile). A long entry mentions many things in passing; its
// profile holds what it is about (names, places, its own vocabulary), so a
// chat that names them scores high and a word said in passing does not.
const ProfileTerms = 24

// Doc is one candidate of a ranker: an entry id and the text it is ranked
// by (the entry's content without decorator lines, EmbedText).
type Doc struct {
	ID int64
	// Title is the entry's title: the lexical ranker counts its terms
	// TitleWeight times (a title names what the entry is about); embeddings
	// never see it.
	Title string
	Text  string
}

// TitleWeight is how many times the lexical ranker counts a title's terms.
const TitleWeight = 4

// Score is a candidate's similarity to a query, 0-1.
type Score struct {
	ID    int64
	Score float64
}

// posting is one candidate's weight for a term (unit-length document
// vectors, so a dot product with a unit query is the cosine).
type posting struct {
	doc    int32
	weight float32
}

// Lexical is the built-in lexical ranker over one scope's candidates: the
// cosine similarity of TF-IDF term vectors (Terms), 0-1, so
// the same threshold and cap apply as to embeddings
// (docs/contract.md#semantic). Build it once per scope version
// (NewLexical); it is read-only afterwards and safe for concurrent use.
type Lexical struct {
	ids      []int64
	vocab    map[string]int32
	idf      []float32
	postings [][]posting // by term id
	bytes    int
}

// NewLexical indexes docs. A term weighs idf(t) * (1 + ln tf(t, d)), with
// BM25's idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)); a document keeps its
// ProfileTerms heaviest terms, scaled to unit length. The title's terms
// count TitleWeight times. The result depends only on docs and their
// order, never on map order, so two processes score alike.
func NewLexical(docs []Doc) *Lexical {
	x := &Lexical{ids: make([]int64, len(docs)), vocab: map[string]int32{}}
	per := make([]map[int32]int, len(docs)) // term frequencies
	var df []int
	var buf []string
	for i, d := range docs {
		x.ids[i] = d.ID
		buf = appendTerms(buf[:0], matchingForm(d.Text))
		if d.Title != "" {
			n := len(buf)
			buf = appendTerms(buf, matchingForm(d.Title))
			for range TitleWeight - 1 {
				buf = append(buf, buf[n:]...)
			}
		}
		tf := make(map[int32]int, len(buf)/2+1)
		for _, t := range buf {
			id, ok := x.vocab[t]
			if !ok {
				id = int32(len(df))
				x.vocab[t] = id
				df = append(df, 0)
				x.bytes += len(t) + 48
			}
			if tf[id] == 0 {
				df[id]++
			}
			tf[id]++
		}
		per[i] = tf
	}
	n := float64(len(docs))
	x.idf = make([]float32, len(df))
	for t, f := range df {
		x.idf[t] = float32(math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5)))
	}
	x.postings = make([][]posting, len(df))
	type tw struct {
		t int32
		w float64
	}
	var ws []tw
	for i, tf := range per {
		ws = ws[:0]
		for t, f := range tf {
			ws = append(ws, tw{t, float64(x.idf[t]) * tfWeight(f)})
		}
		// The profile: the ProfileTerms heaviest terms (ties by term id).
		slices.SortFunc(ws, func(a, b tw) int {
			if a.w != b.w {
				if a.w > b.w {
					return -1
				}
				return 1
			}
			return int(a.t - b.t)
		})
		ws = ws[:min(len(ws), ProfileTerms)]
		norm := 0.0
		for _, v := range ws {
			norm += v.w * v.w
		}
		norm = math.Sqrt(norm)
		for _, v := range ws {
			x.postings[v.t] = append(x.postings[v.t], posting{doc: int32(i), weight: float32(v.w / norm)})
		}
	}
	for t := range x.postings {
		x.bytes += 24 + 8*len(x.postings[t])
	}
	x.bytes += 12*len(docs) + 4*len(df)
	return x
}

// Len is the number of candidates.
func (x *Lexical) Len() int { return len(x.ids) }

// Bytes estimates the index's memory in bytes (for the scope cache's
// budget).
func (x *Lexical) Bytes() int { return x.bytes }

// Score returns the cosine similarity of query to every candidate sharing
// a term with it, in candidate order; candidates sharing none score
// 0 and are left out. The query's terms weigh as a document's; terms in no
// candidate's profile are left out of its length, so words outside the
// book neither match nor dilute.
func (x *Lexical) Score(query string) []Score {
	terms := appendTerms(nil, matchingForm(query))
	if len(terms) == 0 || len(x.ids) == 0 {
		return nil
	}
	ids := make([]int32, 0, len(terms))
	for _, t := range terms {
		if id, ok := x.vocab[t]; ok && len(x.postings[id]) > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids) // a fixed summing order: the same scores everywhere
	acc := make([]float32, len(x.ids))
	qnorm := 0.0
	for i := 0; i < len(ids); {
		t, f := ids[i], 1
		for i+f < len(ids) && ids[i+f] == t {
			f++
		}
		i += f
		qw := float64(x.idf[t]) * tfWeight(f)
		qnorm += qw * qw
		for _, p := range x.postings[t] {
			acc[p.doc] += float32(qw) * p.weight
		}
	}
	qnorm = math.Sqrt(qnorm)
	var out []Score
	for i, a := range acc {
		if a > 0 {
			out = append(out, Score{ID: x.ids[i], Score: min(float64(a)/qnorm, 1)})
		}
	}
	return out
}

// SortScores orders s by score, highest first, ties by id.
func SortScores(s []Score) {
	slices.SortFunc(s, func(a, b Score) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

// tfWeight is the sublinear term frequency of a term seen f > 0 times:
// 1 + ln f, so a name repeated ten times weighs about three times a word
// said once.
func tfWeight(f int) float64 { return 1 + math.Log(float64(f)) }
