package semantic

import (
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"loregate/lore/activation"
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
	ids []int64
	// terms finds a query's terms among the profiles' (termtable.go).
	terms    termTable
	idf      []float32
	postings [][]posting // by term id
	bytes    int
	// The candidate index by id: dense[id-base] (-1: none) when the ids
	// lie close together (they are database ids, mostly written in runs),
	// else pos.
	pos   map[int64]int32
	dense []int32
	base  int64
	// scratch pools the turn's work arrays (*sumScratch, zero when
	// pooled).
	scratch sync.Pool
	// memo holds the query messages' terms (termmemo.go).
	memo termMemo
}

// maxDenseSpread bounds the dense table of the candidate index at this
// many slots per candidate.
const maxDenseSpread = 8

// index is candidate id's position.
func (x *Lexical) index(id int64) (int32, bool) {
	if x.dense != nil {
		if id < x.base || id-x.base >= int64(len(x.dense)) {
			return 0, false
		}
		i := x.dense[id-x.base]
		return i, i >= 0
	}
	i, ok := x.pos[id]
	return i, ok
}

// indexIDs builds the candidate index of x.ids.
func (x *Lexical) indexIDs() {
	if len(x.ids) == 0 {
		return
	}
	lo, hi := slices.Min(x.ids), slices.Max(x.ids)
	if spread := uint64(hi - lo); spread < uint64(maxDenseSpread*len(x.ids)) {
		x.base, x.dense = lo, allocated[int32](int(spread)+1)
		for i := range x.dense {
			x.dense[i] = -1
		}
		for i, id := range x.ids {
			x.dense[id-lo] = int32(i)
		}
		return
	}
	x.pos = make(map[int64]int32, len(x.ids))
	for i, id := range x.ids {
		x.pos[id] = int32(i)
	}
}

// NewLexical indexes docs. A term weighs idf(t) * (1 + ln tf(t, d)), with
// BM25's idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)); a document keeps its
// ProfileTerms heaviest terms, scaled to unit length. The title's terms
// count TitleWeight times. The result depends only on docs and their
// order, never on map order, so two processes score alike.
func NewLexical(docs []Doc) *Lexical {
	x := &Lexical{ids: allocated[int64](len(docs))}
	vocab := map[string]int32{}
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
			id, ok := vocab[t]
			if !ok {
				id = int32(len(df))
				vocab[t] = id
				df = append(df, 0)
			}
			if tf[id] == 0 {
				df[id]++
			}
			tf[id]++
		}
		per[i] = tf
	}
	n := float64(len(docs))
	x.idf = allocated[float32](len(df))
	for t, f := range df {
		x.idf[t] = float32(math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5)))
	}
	x.postings = allocated[[]posting](len(df))
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
	// A query looks up only the terms some profile holds: the others
	// leave the vocabulary (their ids keep their places).
	for t, id := range vocab {
		if len(x.postings[id]) == 0 {
			delete(vocab, t)
		}
	}
	x.terms = newTermTable(vocab, len(df))
	x.indexIDs()
	x.bytes = x.indexBytes() + x.turnBytes()
	return x
}

// Len is the number of candidates.
func (x *Lexical) Len() int { return len(x.ids) }

// Bytes estimates the memory x holds in bytes, for the scope cache's
// budget: what NewLexical keeps (indexBytes: the candidate ids and index,
// the idf weights, the postings, the term table with its own copy of the
// profiles' terms) and what turns add at most (turnBytes: a pooled
// scratch and the term memo at its bound). The process's text tables
// (lore/activation, about 470 KB once per process, built by the first
// text that is not all ASCII) are no index's. TestLexicalBytesMeasured
// compares it with the live heap on corpus books.
func (x *Lexical) Bytes() int { return x.bytes }

// allocated returns n zero elements in an array whose capacity is all
// the allocator gives (append rounds it up to a size class or a whole
// page), so the index's capacities are its memory (indexBytes).
func allocated[E any](n int) []E { return slices.Grow([]E(nil), n)[:n] }

// Sizes of the structures, for indexBytes and turnBytes.
const (
	lexicalSize    = int(unsafe.Sizeof(Lexical{}))
	postingSize    = int(unsafe.Sizeof(posting{}))
	sliceSize      = int(unsafe.Sizeof([]posting(nil)))
	sumScratchSize = int(unsafe.Sizeof(sumScratch{}))
	termCountSize  = int(unsafe.Sizeof(termCount{}))
	termSpanSize   = int(unsafe.Sizeof(termSpan{}))
	// posSlotSize is a slot of the id map (map[int64]int32: key, value,
	// padding); a group holds 8 slots and 8 control bytes.
	posSlotSize = 16
)

// indexBytes is what NewLexical keeps, by the structures' sizes and
// capacities: the Lexical, its ids, idf weights, posting lists (a slice
// header per term of the vocabulary, the postings of the profiles'
// terms), the term table and the candidate index (the dense table, or the
// id map at 7/8 load in groups of 8 slots).
func (x *Lexical) indexBytes() int {
	n := lexicalSize + 8*cap(x.ids) + 4*cap(x.idf) + sliceSize*cap(x.postings) + x.terms.bytes() + 4*cap(x.dense)
	for _, p := range x.postings {
		n += postingSize * cap(p)
	}
	if x.pos != nil {
		slots := 8
		for slots*7 < len(x.pos)*8 {
			slots *= 2
		}
		n += slots/8*(8+8*posSlotSize) + 128 // the groups, the map and table headers
	}
	return n
}

// turnBytes is what turns add at most: a pooled sumScratch (its sums, one
// float32 per candidate, and room for a query of queryTermsRoom terms in
// its three work arrays), the pool's array of 128 bytes per P, and the
// term memo at its bound.
func (x *Lexical) turnBytes() int {
	return sumScratchSize + 4*len(x.ids) + queryTermsRoom*(2*termCountSize+4) + 128*runtime.GOMAXPROCS(0) + termMemoBytes
}

// queryTermsRoom is how many query terms turnBytes counts room for in a
// scratch's work arrays: a turn's query of a few chat messages.
const queryTermsRoom = 24

// Score returns the cosine similarity of query to every candidate sharing
// a term with it, in candidate order; candidates sharing none score
// 0 and are left out. The query's terms weigh as a document's; terms in no
// candidate's profile are left out of its length, so words outside the
// book neither match nor dilute.
func (x *Lexical) Score(query string) []Score {
	acc := make([]float32, len(x.ids))
	qnorm := x.sum(acc, []string{query})
	var out []Score
	for i, a := range acc {
		if a > 0 {
			out = append(out, Score{ID: x.ids[i], Score: min(float64(a)/qnorm, 1)})
		}
	}
	return out
}

// LexicalScores are one query's scores of every candidate of a Lexical
// (Lexical.ScoresOf): activation.Scores without a map built per turn.
// The sums are made when the scores are read: Nonzero (the engine's gate
// plan, once per turn) and ScoresAt (the same with a threshold of 0) sum
// into an array the index pools, so a turn allocates none; Score sums
// once into an array of its own. Safe for concurrent use.
type LexicalScores struct{ q *lexicalQuery }

// lexicalQuery is a LexicalScores' query and, once Score has read it, its
// sums.
type lexicalQuery struct {
	x     *Lexical
	msgs  []string
	once  sync.Once
	acc   []float32 // Score's sums, by candidate position
	qnorm float64
	// kept holds Above's sums until Release (Score reads them), keptNorm
	// the query's length.
	kept     *sumScratch
	keptNorm float64
}

// sums returns the query's sums by candidate position (nil when it shares
// no term with any candidate) and its length.
func (q *lexicalQuery) sums() ([]float32, float64) {
	q.once.Do(func() {
		if len(q.x.ids) == 0 {
			return
		}
		acc := make([]float32, len(q.x.ids))
		if q.qnorm = q.x.sum(acc, q.msgs); q.qnorm > 0 {
			q.acc = acc
		}
	})
	return q.acc, q.qnorm
}

// Score is candidate id's score, 0 when it shares no term with the query;
// ok is false for an id that is no candidate of the index.
func (s LexicalScores) Score(id int64) (float64, bool) {
	i, ok := s.q.x.index(id)
	if !ok {
		return 0, false
	}
	if k := s.q.kept; k != nil {
		if a := k.acc[i]; a > 0 {
			return min(float64(a)/s.q.keptNorm, 1), true
		}
		return 0, true
	}
	acc, qnorm := s.q.sums()
	if acc == nil || acc[i] <= 0 {
		return 0, true
	}
	return min(float64(acc[i])/qnorm, 1), true
}

// CandidateSet is the index the scores are of (activation.CandidateSet):
// the same for every query of one index.
func (s LexicalScores) CandidateSet() any { return s.q.x }

// Index is candidate id's position in the index (activation.CandidateSet).
func (s LexicalScores) Index(id int64) (int32, bool) { return s.q.x.index(id) }

// ScoresAt sets out[k] to the score of the candidate at position idx[k]
// (Score's, as a float32; activation.CandidateSet). It sums the query
// into a pooled array, read and cleared here.
func (s LexicalScores) ScoresAt(idx []int32, out []float32) {
	x := s.q.x
	if len(x.ids) == 0 {
		clear(out[:len(idx)])
		return
	}
	if k := s.q.kept; k != nil {
		for j, i := range idx {
			out[j] = 0
			if a := k.acc[i]; a > 0 {
				out[j] = activation.SumScore(a, s.q.keptNorm)
			}
		}
		return
	}
	sc := x.getScratch()
	acc := sc.acc
	qnorm := x.accumulate(sc, s.q.msgs)
	for k, i := range idx {
		out[k] = 0
		if a := acc[i]; a > 0 {
			out[k] = activation.SumScore(a, qnorm)
		}
	}
	clear(acc)
	x.scratch.Put(sc)
}

// Nonzero appends to at and out the position and score (ScoresAt's) of
// every candidate sharing a term with the query, by position
// (activation.NonzeroScores).
func (s LexicalScores) Nonzero(at []int32, out []float32) ([]int32, []float32) {
	x := s.q.x
	if len(x.ids) == 0 {
		return at, out
	}
	sc := x.getScratch()
	if qnorm := x.accumulate(sc, s.q.msgs); qnorm > 0 {
		for i, a := range sc.acc {
			if a > 0 {
				at, out = append(at, int32(i)), append(out, activation.SumScore(a, qnorm))
				sc.acc[i] = 0
			}
		}
	}
	x.scratch.Put(sc)
	return at, out
}

// Above appends to at and out the position and score (ScoresAt's) of
// every candidate scoring at or above thr > 0, by position
// (activation.AboveScores), and keeps the query's sums: Score reads them
// until Release. Above, Score and Release are then one turn's calls, not
// for concurrent use.
func (s LexicalScores) Above(thr float64, at []int32, out []float32) ([]int32, []float32, []float32, float64) {
	x, q := s.q.x, s.q
	if q.kept == nil {
		sc := x.getScratch()
		q.kept, q.keptNorm = sc, x.accumulate(sc, q.msgs)
	}
	sc, qnorm := q.kept, q.keptNorm
	if qnorm == 0 {
		return at, out, sc.acc, 1
	}
	// A score is monotone in its sum: lim lies a little below the least
	// sum scoring thr, and each sum from it up is checked exactly.
	lim := math.Float32bits(float32(thr * qnorm * (1 - 1e-6)))
	n := len(at)
	at = sumsFrom(sc.acc, max(lim, 1), at)
	for _, i := range at[n:] {
		if v := activation.SumScore(sc.acc[i], qnorm); float64(v) >= thr {
			at[n], out = i, append(out, v)
			n++
		}
	}
	return at[:n], out, sc.acc, qnorm
}

// sumsFrom appends to at the positions of the sums in acc (each >= 0)
// whose bits are lim > 0 or more (the sums from float32 lim up): two sums
// to a word, four words a step, each sum's bit 31 set by an add when it
// is lim or more (no carry crosses from a sum below 1<<31).
func sumsFrom(acc []float32, lim uint32, at []int32) []int32 {
	if len(acc) < 2 || uintptr(unsafe.Pointer(unsafe.SliceData(acc)))%8 != 0 {
		return bitsFrom(acc, lim, 0, at) // no word to read
	}
	k := uint64(1<<31-lim) * (1 | 1<<32)
	const tops = 1<<31 | 1<<63
	words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(acc))), len(acc)/2)
	base := 0
	for ; len(words) >= 4; words, base = words[4:], base+8 {
		w := (*[4]uint64)(words)
		if ((w[0]+k)|(w[1]+k)|(w[2]+k)|(w[3]+k))&tops != 0 {
			at = bitsFrom(acc[base:base+8], lim, base, at)
		}
	}
	return bitsFrom(acc[base:], lim, base, at)
}

// bitsFrom appends to at base plus the position of each sum of acc whose
// bits are lim or more.
//
//go:noinline
func bitsFrom(acc []float32, lim uint32, base int, at []int32) []int32 {
	for j, a := range acc {
		if math.Float32bits(a) >= lim {
			at = append(at, int32(base+j))
		}
	}
	return at
}

// Release gives back the sums Above kept (activation.AboveScores).
func (s LexicalScores) Release() {
	if sc := s.q.kept; sc != nil {
		s.q.kept = nil
		clear(sc.acc)
		s.q.x.scratch.Put(sc)
	}
}

// Scores scores query against every candidate (Score's numbers, those
// sharing no term 0).
func (x *Lexical) Scores(query string) LexicalScores {
	return x.ScoresOf([]string{query})
}

// ScoresOf is Scores of the query made of msgs joined by newlines (the
// turn's query, lore/turn.Query), without joining them: no term spans a
// newline, and each message's matching form is the joined text's part.
// msgs are read when the scores are (LexicalScores): they must not change
// before.
func (x *Lexical) ScoresOf(msgs []string) LexicalScores {
	return x.ScoresIn(new(LexicalQuery), msgs)
}

// LexicalQuery is where a LexicalScores keeps its query (ScoresIn): a
// caller holding one per turn (lore/turn.Turn) scores a turn without an
// allocation. Its zero value is ready for use; do not copy one.
type LexicalQuery struct{ q lexicalQuery }

// ScoresIn is ScoresOf keeping the query in q, which it resets: the
// scores read q, so q must outlive them and serve no other query
// meanwhile.
func (x *Lexical) ScoresIn(q *LexicalQuery, msgs []string) LexicalScores {
	q.q = lexicalQuery{x: x, msgs: msgs}
	return LexicalScores{q: &q.q}
}

// sumScratch is the work arrays of one query's sums (accumulate): acc
// zero between queries, the others work space.
type sumScratch struct {
	acc []float32 // by candidate position
	// merged are the query's terms across its messages (mergeTerms, two
	// arrays in turn), ids a message's term ids as cut.
	merged [2][]termCount
	ids    []int32
}

// getScratch returns a pooled or new sumScratch of x.
func (x *Lexical) getScratch() *sumScratch {
	if sc, ok := x.scratch.Get().(*sumScratch); ok {
		return sc
	}
	return &sumScratch{acc: make([]float32, len(x.ids))}
}

// sum is accumulate into acc (zero, one slot per candidate).
func (x *Lexical) sum(acc []float32, msgs []string) float64 {
	sc := x.getScratch()
	saved := sc.acc
	sc.acc = acc
	qnorm := x.accumulate(sc, msgs)
	sc.acc = saved
	x.scratch.Put(sc)
	return qnorm
}

// accumulate adds to sc.acc the dot products of the query's (msgs joined
// by newlines) unit vector's terms with every candidate's profile and
// returns the query vector's length (0 when it shares no term with any
// profile, sc.acc left zero).
//
// The terms are summed in the order of their ids, so every process gives
// the same scores: each message's terms come in that order, each once
// with its count (textTerms, memoised); the messages but the last are
// merged (mergeTerms), and the last is merged in as the terms are summed.
func (x *Lexical) accumulate(sc *sumScratch, msgs []string) float64 {
	var a, b []termCount
	for k, m := range msgs {
		var tc []termCount
		tc, sc.ids = x.textTerms(m, sc.ids)
		switch {
		case k == len(msgs)-1:
			b = tc
		case k == 0:
			a = tc
		default:
			sc.merged[k%2] = mergeTerms(sc.merged[k%2][:0], a, tc)
			a = sc.merged[k%2]
		}
	}
	acc := sc.acc
	qnorm := 0.0
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var t termCount
		switch {
		case j == len(b) || i < len(a) && a[i].id < b[j].id:
			t, i = a[i], i+1
		case i == len(a) || b[j].id < a[i].id:
			t, j = b[j], j+1
		default:
			t, i, j = termCount{a[i].id, a[i].n + b[j].n}, i+1, j+1
		}
		qw := float64(x.idf[t.id]) * tfWeight(int(t.n))
		qnorm += qw * qw
		for _, p := range x.postings[t.id] {
			acc[p.doc] += float32(qw) * p.weight
		}
	}
	return math.Sqrt(qnorm)
}

// queryTerms appends to ids the term ids of text's terms that some
// profile holds. The vocabulary holds only profiles' terms, filtered
// (appendTerms), so they are looked up unfiltered: a stop word is in no
// profile. ASCII text is cut eight bytes at a time and lowered word by
// word: its terms are the runs of word characters, as cutTerms cuts its
// matching form; each chunk's word bytes (wordBytes) against the same
// shifted by a byte give the places where a word starts or ends (a chunk
// of zeros after the text ends the last word).
func (x *Lexical) queryTerms(text string, ids []int32) []int32 {
	var low [8]uint64
	n0, start := len(ids), -1 // start: the open word's first byte, -1 none
	for i := 0; i < len(text) || start >= 0; i += 8 {
		var v uint64
		if i+8 <= len(text) {
			v = le64(text[i:])
		} else if i < len(text) {
			var c [8]byte // zero bytes: no word bytes
			copy(c[:], text[i:])
			v = binary.LittleEndian.Uint64(c[:])
		}
		if v&highs != 0 {
			return x.queryTermsUnicode(text, ids[:n0])
		}
		word := wordBytes(v)
		prev := word << 8
		if start >= 0 {
			prev |= 0x80 // the chunk before ended inside a word
		}
		for edges := word ^ prev; edges != 0; edges &= edges - 1 {
			k := i + bits.TrailingZeros64(edges)>>3
			if start < 0 {
				start = k
				continue
			}
			var id int32
			ok := false
			switch {
			case k-start > 8*len(low):
				// Longer than any term worth a lookup buffer: lowered whole.
				id, ok = x.terms.lookup(matchingForm(text[start:k]))
			case k > start+1: // a one-character word is no term
				id, ok = x.terms.queryWord(text, start, k, &low)
			}
			if ok {
				ids = append(ids, id)
			}
			start = -1
		}
	}
	return ids
}

// queryTermsUnicode is queryTerms of text that is not all ASCII: cut from
// its matching form.
func (x *Lexical) queryTermsUnicode(text string, ids []int32) []int32 {
	cutTerms(matchingForm(text), func(t string, _ bool) {
		if id, ok := x.terms.lookup(t); ok {
			ids = append(ids, id)
		}
	})
	return ids
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
func tfWeight(f int) float64 {
	if f == 1 {
		return 1 // most terms, and ln is slow
	}
	return 1 + math.Log(float64(f))
}
