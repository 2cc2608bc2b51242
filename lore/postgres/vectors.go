package postgres

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/semantic"
)

// MaxEmbeddingCandidates bounds how many candidates of one server a read
// of EmbeddingCandidates returns (the embed job works them in that many at
// most per run and runs again for the rest).
const MaxEmbeddingCandidates = 20000

// EmbeddingCandidate is a server's candidate of retrieval by meaning with
// the state of its stored vector under a model.
type EmbeddingCandidate struct {
	semantic.Candidate
	State lore.EmbeddingState
}

// candidateColumns are read by candidateRows, in order, from the
// entries e joined with their vectors v and candidateBooks.
const candidateColumns = `e.id, COALESCE(e.lineage_id, 0), COALESCE(e.lorebook_name, ''), e.title, e.content,
    e.enabled, e.constant, e.vectorized, e.extensions->'` + lore.KeySplit + `',
    v.model, v.content_hash, v.vector IS NOT NULL, ` + bookAll

// candidateBooks joins an entry e's book: its collection b (Serverwide)
// or its persona book pb.
const candidateBooks = `LEFT JOIN lorebooks b ON b.server_id = e.server_id AND b.name = e.lorebook_name AND e.lineage_id IS NULL
LEFT JOIN persona_books pb ON pb.server_id = e.server_id AND pb.lineage_id = e.lineage_id`

// bookAll is whether e's book (candidateBooks) has its own
// semanticAllEntries on.
const bookAll = `COALESCE(b.semantic_all_entries, pb.semantic_all_entries, false)`

const (
	// embeddingCandidatesSQL: $1 server, $2 every entry a candidate, $3
	// the row limit.
	embeddingCandidatesSQL = `SELECT ` + candidateColumns + `
FROM lorebook_entries e LEFT JOIN entry_vectors v ON v.entry_id = e.id
` + candidateBooks + `
WHERE e.server_id = $1 AND e.enabled AND NOT e.constant AND (e.vectorized OR $2 OR ` + bookAll + `)
ORDER BY e.id LIMIT $3`
	// scopeCandidateSQL reads every entry of entry $1's scope (its
	// server's Serverwide entries, or its lineage's), and its server's
	// semantic settings.
	scopeCandidateSQL = `WITH me AS (
    SELECT x.server_id, x.lineage_id, s.semantic
    FROM lorebook_entries x JOIN servers s ON s.id = x.server_id WHERE x.id = $1)
SELECT ` + candidateColumns + `, me.semantic
FROM me, lorebook_entries e LEFT JOIN entry_vectors v ON v.entry_id = e.id
` + candidateBooks + `
WHERE e.server_id = me.server_id AND e.lineage_id IS NOT DISTINCT FROM me.lineage_id
ORDER BY e.id`
	// entryCandidateSQL reads entry $1 and, when it is a part of a split
	// entry, the other parts of its group (same scope and book), and its
	// server's semantic settings: what its state needs, not its scope.
	entryCandidateSQL = `WITH me AS (
    SELECT x.server_id, x.lineage_id, x.lorebook_name, x.extensions->'` + lore.KeySplit + `'->>'group' AS grp, s.semantic
    FROM lorebook_entries x JOIN servers s ON s.id = x.server_id WHERE x.id = $1)
SELECT ` + candidateColumns + `, me.semantic
FROM me, lorebook_entries e LEFT JOIN entry_vectors v ON v.entry_id = e.id
` + candidateBooks + `
WHERE e.server_id = me.server_id AND (e.id = $1 OR (me.grp IS NOT NULL
    AND e.lineage_id IS NOT DISTINCT FROM me.lineage_id AND e.lorebook_name IS NOT DISTINCT FROM me.lorebook_name
    AND e.extensions->'` + lore.KeySplit + `'->>'group' = me.grp))
ORDER BY e.id`
	// putVectorSQL stores a vector ($5 bytes, $6 NULL) or an error ($5
	// NULL, $6 text) of entry $1 of server $2, if the entry still exists.
	putVectorSQL = `INSERT INTO entry_vectors (entry_id, server_id, model, content_hash, dims, vector, error)
SELECT e.id, e.server_id, $3, $4, $7, $5, $6 FROM lorebook_entries e WHERE e.id = $1 AND e.server_id = $2
ON CONFLICT (entry_id) DO UPDATE SET model = EXCLUDED.model, content_hash = EXCLUDED.content_hash,
    dims = EXCLUDED.dims, vector = EXCLUDED.vector, error = EXCLUDED.error, updated_at = now()`
	// scopeVectorsSQL: the vectors of server $1's Serverwide entries and
	// lineage $2's (0: none) under model $3.
	scopeVectorsSQL = `SELECT v.entry_id, v.content_hash, v.vector FROM entry_vectors v JOIN lorebook_entries e ON e.id = v.entry_id
WHERE v.server_id = $1 AND v.model = $3 AND v.vector IS NOT NULL
    AND (e.lineage_id IS NULL OR e.lineage_id = NULLIF($2, 0))`
)

// vectorRow is the stored vector state of one entry, and whether its
// book makes every entry a candidate.
type vectorRow struct {
	model, hash    *string
	ready, bookAll bool
}

// which is the Which of rows read with candidateRows: set's
// semanticAllEntries and each entry's book's.
func which(set lore.SemanticSettings, vecs map[int64]vectorRow) semantic.Which {
	return semantic.Which{All: set.AllEntries, Book: func(e *lore.Entry) bool { return vecs[e.ID].bookAll }}
}

// candidateRows scans rows of candidateColumns (and more, into extra,
// from the first row) into entries (only the fields a candidate needs)
// and their vector rows by entry id.
func candidateRows(rows pgx.Rows, extra ...any) ([]lore.Entry, map[int64]vectorRow, error) {
	defer rows.Close()
	var entries []lore.Entry
	vecs := map[int64]vectorRow{}
	for rows.Next() {
		var (
			e     lore.Entry
			lin   int64
			split []byte
			v     vectorRow
		)
		dest := []any{&e.ID, &lin, &e.Collection, &e.Title, &e.Content, &e.Enabled, &e.Constant, &e.Vectorized,
			&split, &v.model, &v.hash, &v.ready, &v.bookAll}
		if err := rows.Scan(append(dest, extra...)...); err != nil {
			return nil, nil, err
		}
		e.Lineage = lore.Lineage(lin)
		if split != nil {
			e.Extensions = map[string]json.RawMessage{lore.KeySplit: split}
		}
		entries = append(entries, e)
		vecs[e.ID] = v
	}
	return entries, vecs, rows.Err()
}

// stateOf is a candidate's state under model.
func stateOf(c semantic.Candidate, v vectorRow, model string) lore.EmbeddingState {
	if v.model == nil || *v.model != model || *v.hash != c.Hash {
		return lore.EmbeddingPending
	}
	if v.ready {
		return lore.EmbeddingReady
	}
	return lore.EmbeddingFailed
}

// EmbeddingCandidates returns server's candidates of retrieval by meaning
// (semantic.Candidates: enabled, not Always On, vectorized or every entry
// with the server's or its book's semanticAllEntries), at most MaxEmbeddingCandidates
// rows read, each with its state under model, and the server's semantic
// settings. ErrNotFound for an unknown server.
func (s *Store) EmbeddingCandidates(ctx context.Context, server, model string) ([]EmbeddingCandidate, lore.SemanticSettings, error) {
	var set lore.SemanticSettings
	if err := s.db.QueryRow(ctx, `SELECT semantic FROM servers WHERE id = $1`, server).Scan(&set); err != nil {
		return nil, set, wrapErr("read semantic settings", err)
	}
	rows, err := s.db.Query(ctx, embeddingCandidatesSQL, server, set.AllEntries, MaxEmbeddingCandidates)
	if err != nil {
		return nil, set, wrapErr("read embedding candidates", err)
	}
	entries, vecs, err := candidateRows(rows)
	if err != nil {
		return nil, set, wrapErr("read embedding candidates", err)
	}
	cands := semantic.Candidates(entries, which(set, vecs))
	out := make([]EmbeddingCandidate, len(cands))
	for i, c := range cands {
		out[i] = EmbeddingCandidate{Candidate: c, State: stateOf(c, vecs[c.ID], model)}
	}
	return out, set, nil
}

// EmbeddingsStatus counts server's candidates by state under model.
func (s *Store) EmbeddingsStatus(ctx context.Context, server, model string) (lore.EmbeddingsStatus, error) {
	cands, _, err := s.EmbeddingCandidates(ctx, server, model)
	st := lore.EmbeddingsStatus{Model: model}
	for _, c := range cands {
		switch c.State {
		case lore.EmbeddingReady:
			st.Ready++
		case lore.EmbeddingFailed:
			st.Failed++
		default:
			st.Pending++
		}
	}
	return st, err
}

// EntryEmbeddingState is the state of entry id under model; ok is false
// when the entry is unknown or not a candidate (disabled, Always On, not
// vectorized without its server's semanticAllEntries) or its server's
// ranker is LEXICAL or OFF (nothing is sent out for it). It reads the
// entry alone (with the other parts of a split entry, whose joined text is
// its candidate), not its scope. The caller has checked that the entry is
// visible.
func (s *Store) EntryEmbeddingState(ctx context.Context, id int64, model string) (state lore.EmbeddingState, ok bool, err error) {
	states, err := s.embeddingStates(ctx, entryCandidateSQL, id, model)
	state = states[id]
	return state, state != "", err
}

// ScopeEmbeddingStates reads in one query the states under model of every
// entry of entry id's scope (its server's Serverwide entries, or its
// lineage's), by entry id: "" for an entry that is not a candidate (see
// EntryEmbeddingState), every part of a split entry its joined text's
// state; every state is "" when its server's ranker is LEXICAL or OFF,
// and the map empty when id is unknown. The Entry.embeddingState loader
// reads a listed book with it.
func (s *Store) ScopeEmbeddingStates(ctx context.Context, id int64, model string) (map[int64]lore.EmbeddingState, error) {
	return s.embeddingStates(ctx, scopeCandidateSQL, id, model)
}

// embeddingStates reads the states under model of the entries query
// (scopeCandidateSQL or entryCandidateSQL) returns for entry id.
func (s *Store) embeddingStates(ctx context.Context, query string, id int64, model string) (map[int64]lore.EmbeddingState, error) {
	rows, err := s.db.Query(ctx, query, id)
	if err != nil {
		return nil, wrapErr("read embedding states", err)
	}
	var set lore.SemanticSettings
	entries, vecs, err := candidateRows(rows, &set)
	if err != nil {
		return nil, wrapErr("read embedding states", err)
	}
	out := make(map[int64]lore.EmbeddingState, len(entries))
	for _, e := range entries {
		out[e.ID] = ""
	}
	if !set.Ranker.SendsOut() {
		return out, nil
	}
	for _, c := range semantic.Candidates(entries, which(set, vecs)) {
		out[c.ID] = stateOf(c, vecs[c.ID], model)
	}
	// A joined candidate has its first part's id: its other parts share
	// its state.
	type gkey struct {
		collection, group string
	}
	groups := map[gkey]lore.EmbeddingState{}
	for _, e := range entries {
		if r, ok := e.Split(); ok && out[e.ID] != "" {
			groups[gkey{e.Collection, r.Group}] = out[e.ID]
		}
	}
	for _, e := range entries {
		if r, ok := e.Split(); ok {
			out[e.ID] = groups[gkey{e.Collection, r.Group}]
		}
	}
	return out, nil
}

// PutEntryVectors stores vectors of server's entries under model,
// replacing what each entry had; an entry deleted meanwhile is skipped.
// Each vector is checked (semantic.CheckVector) before anything is
// written.
func (s *Store) PutEntryVectors(ctx context.Context, server, model string, vs []lore.EntryVector) error {
	b := &pgx.Batch{}
	for _, v := range vs {
		if err := semantic.CheckVector(v.Vector, 0); err != nil {
			return fmt.Errorf("lore/postgres: store vector of entry %d: %w", v.EntryID, err)
		}
		b.Queue(putVectorSQL, v.EntryID, server, model, v.Hash, encodeVector(v.Vector), nil, len(v.Vector))
	}
	return wrapErr("store entry vectors", s.db.SendBatch(ctx, b).Close())
}

// PutEntryVectorError records that the provider refused the text of
// server's entry id (hash) under model: the entry is FAILED until its text
// or the model changes. msg is the provider's error (never the text),
// clipped to 500 bytes.
func (s *Store) PutEntryVectorError(ctx context.Context, server, model string, id int64, hash, msg string) error {
	_, err := s.db.Exec(ctx, putVectorSQL, id, server, model, hash, nil, lore.ClipBytes(msg, 500), 0)
	return wrapErr("store entry vector error", err)
}

// ScopeVectors returns the stored vectors under model of server's
// Serverwide entries and of lineage's (0: Serverwide only), with the hash
// of the text each was computed from, by entry id.
func (s *Store) ScopeVectors(ctx context.Context, server string, lineage lore.Lineage, model string) (map[int64]lore.EntryVector, error) {
	rows, err := s.db.Query(ctx, scopeVectorsSQL, server, int64(lineage), model)
	if err != nil {
		return nil, wrapErr("read scope vectors", err)
	}
	defer rows.Close()
	out := map[int64]lore.EntryVector{}
	for rows.Next() {
		var (
			v   lore.EntryVector
			raw []byte
		)
		if err := rows.Scan(&v.EntryID, &v.Hash, &raw); err != nil {
			return nil, wrapErr("read scope vectors", err)
		}
		if v.Vector = decodeVector(raw); v.Vector != nil {
			out[v.EntryID] = v
		}
	}
	return out, wrapErr("read scope vectors", rows.Err())
}

// encodeVector is v as little-endian float32.
func encodeVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// decodeVector reads encodeVector's bytes; nil for a length that is not a
// multiple of 4.
func decodeVector(b []byte) []float32 {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// embeddingServersSQL lists servers (not left) whose ranker may use a
// provider (AUTO or EMBEDDINGS) and that hold a candidate: an enabled
// vectorized entry, or any entry with the server's or its book's
// semanticAllEntries; $1 the limit.
const embeddingServersSQL = `SELECT s.id::text FROM servers s
WHERE s.left_at IS NULL AND COALESCE(s.semantic->>'ranker', 'AUTO') IN ('AUTO', 'EMBEDDINGS')
    AND EXISTS (SELECT 1 FROM lorebook_entries e ` + candidateBooks + `
        WHERE e.server_id = s.id AND e.enabled AND NOT e.constant
        AND (e.vectorized OR COALESCE((s.semantic->>'allEntries')::boolean, false) OR ` + bookAll + `))
ORDER BY s.id LIMIT $1`

// EmbeddingServers lists at most limit servers that may need embeddings:
// not left, ranker AUTO or EMBEDDINGS, holding at least one candidate.
func (s *Store) EmbeddingServers(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, embeddingServersSQL, limit)
	if err != nil {
		return nil, wrapErr("list embedding servers", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, wrapErr("list embedding servers", err)
}
