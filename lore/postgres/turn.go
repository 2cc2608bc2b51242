package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"loregate/lore"
	"loregate/lore/i18n"
	"loregate/lore/turnstate"
)

// Conversation, LoggedEntry and LoggedTurn are lore/turnstate's types,
// named here too; MaxTurnIDLen is turnstate.MaxTurnIDLen.
type (
	Conversation = turnstate.Conversation
	LoggedEntry  = turnstate.LoggedEntry
	LoggedTurn   = turnstate.LoggedTurn
)

// MaxTurnIDLen bounds a turn id in characters.
const MaxTurnIDLen = turnstate.MaxTurnIDLen

func checkConversation(c Conversation) error {
	if err := checkServerID(c.Server); err != nil {
		return err
	}
	if err := checkLineage(c.Lineage); err != nil {
		return err
	}
	if !lore.ValidSnowflake(c.Channel) {
		return lore.Reject("channel", i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(c.Channel, 40)})
	}
	return nil
}

// Turn is a recorded turn in progress: a transaction that holds the
// conversation's lock (so turns of one conversation run one at a time, on
// every replica) and a shared lock on the server row (so no lore write, an
// entry deletion for one, interleaves). End it with Commit or Rollback.
type Turn struct {
	conv Conversation
	id   int64
	// State is the conversation's stored state.
	State turnstate.State
	// Recorded is the logged turn with the same turn id, when one exists: a
	// retry. Roll back then.
	Recorded *LoggedTurn

	conn *pgxpool.Conn // the pool path: BEGIN and COMMIT are pipelined
	tx   pgx.Tx        // a Store bound to a transaction: a savepoint
	done bool
}

const turnStateColumns = `entry_id, sticky_start, sticky_end, cooldown_start, cooldown_end, cooldown_protected,
    first_count, first_at, last_count, last_at`

const (
	turnLockServer = `SELECT 1 FROM servers WHERE id = $1 FOR KEY SHARE`
	// turnLockServerAsync is turnLockServer that also sets the turn's
	// COMMIT not to wait for its WAL flush (SET LOCAL synchronous_commit =
	// off, one statement fewer; docs/turns.md#durability); the
	// transaction stays atomic. An unknown server sets nothing: the turn
	// fails.
	turnLockServerAsync = `SELECT set_config('synchronous_commit', 'off', true) FROM servers WHERE id = $1 FOR KEY SHARE`
	// turnLockConversation creates the conversation or locks its row; no
	// row when the server is unknown.
	turnLockConversation = `INSERT INTO turn_conversations (server_id, lineage_id, channel_id)
SELECT id, $2, $3 FROM servers WHERE id = $1
ON CONFLICT (server_id, lineage_id, channel_id) DO UPDATE SET last_turn_at = now()
RETURNING id`
	turnConversationID = `(SELECT id FROM turn_conversations WHERE server_id = $1 AND lineage_id = $2 AND channel_id = $3)`
	turnLogColumns     = `turn_id, message_count, input_sha256, admitted, budget_unit, budget_limit, budget_used, response, result, created_at`
	turnFindLog        = `SELECT ` + turnLogColumns + ` FROM activation_log WHERE conversation_id = ` + turnConversationID + ` AND turn_id = $4`
	turnReadState      = `SELECT ` + turnStateColumns + ` FROM turn_entry_state WHERE conversation_id = ` + turnConversationID
	turnDeleteState    = `DELETE FROM turn_entry_state WHERE conversation_id = $1 AND entry_id = ANY($2)`
	// turnUpsertState writes records of entries that still exist (the
	// server lock keeps them from going away meanwhile).
	turnUpsertState = `INSERT INTO turn_entry_state (conversation_id, ` + turnStateColumns + `)
SELECT $1, u.* FROM unnest($2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[], $7::bool[],
    $8::int[], $9::timestamptz[], $10::int[], $11::timestamptz[])
    AS u (entry_id, sticky_start, sticky_end, cooldown_start, cooldown_end, cooldown_protected, first_count, first_at, last_count, last_at)
WHERE EXISTS (SELECT 1 FROM lorebook_entries e WHERE e.id = u.entry_id)
ON CONFLICT (conversation_id, entry_id) DO UPDATE SET
    sticky_start = EXCLUDED.sticky_start, sticky_end = EXCLUDED.sticky_end,
    cooldown_start = EXCLUDED.cooldown_start, cooldown_end = EXCLUDED.cooldown_end,
    cooldown_protected = EXCLUDED.cooldown_protected,
    first_count = EXCLUDED.first_count, first_at = EXCLUDED.first_at,
    last_count = EXCLUDED.last_count, last_at = EXCLUDED.last_at`
	turnInsertLog = `INSERT INTO activation_log (conversation_id, turn_id, message_count, input_sha256, admitted,
    budget_unit, budget_limit, budget_used, response, result, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`
	turnListLog = `SELECT ` + turnLogColumns + ` FROM activation_log WHERE conversation_id = ` + turnConversationID + `
ORDER BY id DESC LIMIT $4`
	// turnReset clears the state under the conversation's lock.
	turnReset = `DELETE FROM turn_entry_state WHERE conversation_id =
    (SELECT id FROM turn_conversations WHERE server_id = $1 AND lineage_id = $2 AND channel_id = $3 FOR UPDATE)`
	turnPruneAge  = `DELETE FROM activation_log WHERE created_at < $1`
	turnPruneRows = `DELETE FROM activation_log l USING (
    SELECT id, row_number() OVER (PARTITION BY conversation_id ORDER BY id DESC) AS n FROM activation_log) r
WHERE l.id = r.id AND r.n > $1`
)

// BeginTurn starts recording turn turnID of conversation c: in one round
// trip it begins a transaction, locks the server row (shared) and the
// conversation (created on its first turn), and reads the conversation's
// state and the log row of turnID if that id was used. On a pool the turn
// commits without waiting for its WAL flush unless the Store was made with
// WithDurableTurns (docs/turns.md#durability); bound to a caller's
// transaction, the caller's commit decides. ErrNotFound for an
// unknown server; ErrInvalid for a bad conversation or turn id.
func (s *Store) BeginTurn(ctx context.Context, c Conversation, turnID string) (*Turn, error) {
	const op = "begin turn"
	if err := checkConversation(c); err != nil {
		return nil, wrapErr(op, err)
	}
	if err := checkTurnID(turnID); err != nil {
		return nil, wrapErr(op, err)
	}
	t := &Turn{conv: c}
	var q interface {
		SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
	}
	b := &pgx.Batch{}
	if pool, ok := s.pool(ctx); ok {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		t.conn, q = conn, conn
		b.Queue("BEGIN")
	} else {
		tx, err := s.db.Begin(ctx)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		t.tx, q = tx, tx
	}
	args := []any{c.Server, int64(c.Lineage), c.Channel}
	if t.conn != nil && !s.durableTurns {
		b.Queue(turnLockServerAsync, c.Server)
	} else {
		b.Queue(turnLockServer, c.Server)
	}
	b.Queue(turnLockConversation, args...)
	b.Queue(turnFindLog, append(args, turnID)...)
	b.Queue(turnReadState, args...)
	err := func() (err error) {
		br := q.SendBatch(ctx, b)
		defer func() { err = errors.Join(err, br.Close()) }()
		if t.conn != nil {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if _, err := br.Exec(); err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&t.id); errors.Is(err, pgx.ErrNoRows) {
			return notFound("server", c.Server)
		} else if err != nil {
			return err
		}
		logs, err := scanLog(br.Query())
		if err != nil {
			return err
		}
		if len(logs) > 0 {
			t.Recorded = &logs[0]
		}
		t.State, err = scanState(br.Query())
		return err
	}()
	if err != nil {
		t.Rollback(ctx)
		return nil, wrapErr(op, err)
	}
	return t, nil
}

func checkTurnID(id string) error {
	if !utf8.ValidString(id) || id == "" || utf8.RuneCountInString(id) > MaxTurnIDLen {
		return lore.Reject("turnId", i18n.TurnIDLengthUTF8, lore.Params{"max": MaxTurnIDLen})
	}
	for _, r := range id {
		if r > ' ' {
			return nil
		}
	}
	return lore.Reject("turnId", i18n.Blank, nil)
}

// Commit writes the new state (only what changed from t.State) and the log
// row, and commits, in one round trip. The turn is over whatever the
// outcome; on error nothing was written. A turn id already logged for the
// conversation (a concurrent retry won) is ErrDuplicateName.
func (t *Turn) Commit(ctx context.Context, next turnstate.State, log LoggedTurn) error {
	const op = "commit turn"
	if t.done {
		return wrapErr(op, errors.New("turn already ended"))
	}
	defer t.Rollback(ctx)
	admitted, err := json.Marshal(nonNilEntries(log.Admitted))
	if err != nil {
		return wrapErr(op, err)
	}
	if log.CreatedAt.IsZero() {
		log.CreatedAt = time.Now()
	}
	// A JSON object goes to response (jsonb), any other encoding to
	// result (bytea, not parsed), response then '{}' (migration 000086).
	response, result := log.Response, []byte(nil)
	if len(response) == 0 || response[0] != '{' {
		response, result = []byte("{}"), log.Response
		if len(result) == 0 {
			result = nil
		}
	}
	upsert, del := turnstate.Diff(t.State, next)
	b := &pgx.Batch{}
	if len(del) > 0 {
		b.Queue(turnDeleteState, t.id, del)
	}
	if len(upsert) > 0 {
		b.Queue(turnUpsertState, stateArgs(t.id, upsert)...)
	}
	b.Queue(turnInsertLog, t.id, log.TurnID, log.MessageCount, log.InputSHA256, admitted,
		log.BudgetUnit, log.BudgetLimit, log.BudgetUsed, response, result, log.CreatedAt)
	var q interface {
		SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
	} = t.tx
	if t.conn != nil {
		b.Queue("COMMIT")
		q = t.conn
	}
	n := b.Len()
	err = func() (err error) {
		br := q.SendBatch(ctx, b)
		defer func() { err = errors.Join(err, br.Close()) }()
		for range n {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return nil
	}()
	if err == nil && t.tx != nil {
		err = t.tx.Commit(ctx)
	}
	if err == nil && t.conn != nil && t.conn.Conn().PgConn().TxStatus() != 'I' {
		err = errors.New("transaction did not commit")
	}
	if err != nil {
		return wrapErr(op, err)
	}
	return nil
}

// Rollback ends the turn without writing; it is safe to call after Commit
// and more than once.
func (t *Turn) Rollback(ctx context.Context) {
	if t.done {
		return
	}
	t.done = true
	ctx = context.WithoutCancel(ctx)
	if t.tx != nil {
		_ = t.tx.Rollback(ctx)
		return
	}
	if t.conn.Conn().PgConn().TxStatus() != 'I' {
		_, _ = t.conn.Exec(ctx, "ROLLBACK")
	}
	t.conn.Release() // the pool destroys a connection left in a transaction
}

func nonNilEntries(e []LoggedEntry) []LoggedEntry {
	if e == nil {
		return []LoggedEntry{}
	}
	return e
}

func stateArgs(conv int64, recs []turnstate.Record) []any {
	n := len(recs)
	ids := make([]int64, n)
	ss, se, cs, ce := make([]*int, n), make([]*int, n), make([]*int, n), make([]*int, n)
	prot := make([]bool, n)
	fc, lc := make([]*int, n), make([]*int, n)
	fa, la := make([]*time.Time, n), make([]*time.Time, n)
	for i, r := range recs {
		ids[i] = r.EntryID
		if r.Sticky != nil {
			ss[i], se[i] = &r.Sticky.Start, &r.Sticky.End
		}
		if r.Cooldown != nil {
			cs[i], ce[i], prot[i] = &r.Cooldown.Start, &r.Cooldown.End, r.Cooldown.Protected
		}
		if r.Activated() {
			fc[i], fa[i] = &r.FirstCount, &r.FirstAt
		}
		if !r.LastAt.IsZero() {
			lc[i], la[i] = &r.LastCount, &r.LastAt
		}
	}
	return []any{conv, ids, ss, se, cs, ce, prot, fc, fa, lc, la}
}

func scanState(rows pgx.Rows, err error) (turnstate.State, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := turnstate.State{}
	for rows.Next() {
		var r turnstate.Record
		var ss, se, cs, ce, fc, lc *int
		var prot bool
		var fa, la *time.Time
		if err := rows.Scan(&r.EntryID, &ss, &se, &cs, &ce, &prot, &fc, &fa, &lc, &la); err != nil {
			return nil, err
		}
		if ss != nil && se != nil {
			r.Sticky = &turnstate.Window{Start: *ss, End: *se}
		}
		if cs != nil && ce != nil {
			r.Cooldown = &turnstate.Window{Start: *cs, End: *ce, Protected: prot}
		}
		if fc != nil && fa != nil {
			r.FirstCount, r.FirstAt = *fc, *fa
		}
		if lc != nil && la != nil {
			r.LastCount, r.LastAt = *lc, *la
		}
		out[r.EntryID] = r
	}
	return out, rows.Err()
}

func scanLog(rows pgx.Rows, err error) ([]LoggedTurn, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LoggedTurn
	for rows.Next() {
		var l LoggedTurn
		var admitted, response, result []byte
		if err := rows.Scan(&l.TurnID, &l.MessageCount, &l.InputSHA256, &admitted, &l.BudgetUnit,
			&l.BudgetLimit, &l.BudgetUsed, &response, &result, &l.CreatedAt); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(admitted, &l.Admitted); err != nil {
			return nil, fmt.Errorf("activation log admitted: %w", err)
		}
		l.Response = response
		if result != nil { // written since migration 000086
			l.Response = result
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// TurnState reads the stored state of conversation c without locking (a
// dry run's read): one query. An unknown conversation has an empty state.
func (s *Store) TurnState(ctx context.Context, c Conversation) (turnstate.State, error) {
	const op = "read turn state"
	if err := checkConversation(c); err != nil {
		return nil, wrapErr(op, err)
	}
	st, err := scanState(s.db.Query(ctx, turnReadState, c.Server, int64(c.Lineage), c.Channel))
	return st, wrapErr(op, err)
}

// MaxLogRows bounds the rows one ActivationLog call returns.
const MaxLogRows = 200

// ActivationLog returns the last (1..MaxLogRows) logged turns of c, newest
// first; an unknown conversation has none.
func (s *Store) ActivationLog(ctx context.Context, c Conversation, last int) ([]LoggedTurn, error) {
	const op = "read activation log"
	if err := checkConversation(c); err != nil {
		return nil, wrapErr(op, err)
	}
	if last < 1 || last > MaxLogRows {
		return nil, wrapErr(op, lore.Reject("last", i18n.Between, lore.Params{"min": 1, "max": MaxLogRows}))
	}
	logs, err := scanLog(s.db.Query(ctx, turnListLog, c.Server, int64(c.Lineage), c.Channel, last))
	return logs, wrapErr(op, err)
}

// ResetTurnState deletes the state of conversation c (timed-effect windows
// and activation history; the log stays) under its lock and returns how
// many entries had state.
func (s *Store) ResetTurnState(ctx context.Context, c Conversation) (int64, error) {
	const op = "reset turn state"
	if err := checkConversation(c); err != nil {
		return 0, wrapErr(op, err)
	}
	tag, err := s.db.Exec(ctx, turnReset, c.Server, int64(c.Lineage), c.Channel)
	if err != nil {
		return 0, wrapErr(op, err)
	}
	return tag.RowsAffected(), nil
}

// PruneActivationLog deletes log rows created before olderThan and, per
// conversation, all but the newest keep rows (keep <= 0: no row limit). It
// returns the number of rows deleted.
func (s *Store) PruneActivationLog(ctx context.Context, olderThan time.Time, keep int) (int64, error) {
	const op = "prune activation log"
	tag, err := s.db.Exec(ctx, turnPruneAge, olderThan)
	if err != nil {
		return 0, wrapErr(op, err)
	}
	n := tag.RowsAffected()
	if keep > 0 {
		tag, err = s.db.Exec(ctx, turnPruneRows, keep)
		if err != nil {
			return n, wrapErr(op, err)
		}
		n += tag.RowsAffected()
	}
	return n, nil
}

// turnLastActivations: the latest activation over every conversation of
// each entry in the scope (server and lineage) of entry $1.
const turnLastActivations = `SELECT e.id, max(st.last_at)
FROM lorebook_entries x
JOIN lorebook_entries e ON e.server_id = x.server_id AND e.lineage_id IS NOT DISTINCT FROM x.lineage_id
LEFT JOIN turn_entry_state st ON st.entry_id = e.id
WHERE x.id = $1
GROUP BY e.id`

// LastActivations returns, for every entry of the scope that holds entry
// id (at most a scope's entries), the time of its latest activation in a
// recorded turn over all conversations; entries never activated map to
// nil. An unknown id gives an empty map. Callers authorise the scope.
func (s *Store) LastActivations(ctx context.Context, id int64) (map[int64]*time.Time, error) {
	rows, err := s.db.Query(ctx, turnLastActivations, id)
	if err != nil {
		return nil, wrapErr("read last activations", err)
	}
	out := map[int64]*time.Time{}
	for rows.Next() {
		var eid int64
		var at *time.Time
		if err := rows.Scan(&eid, &at); err != nil {
			rows.Close()
			return nil, wrapErr("read last activations", err)
		}
		out[eid] = at
	}
	return out, wrapErr("read last activations", rows.Err())
}

// Stored is the conversation's stored state (turnstate.Turn).
func (t *Turn) Stored() turnstate.State { return t.State }

// Retry is the logged turn with the same turn id, or nil (turnstate.Turn).
func (t *Turn) Retry() *LoggedTurn { return t.Recorded }

// TurnStore returns s as a turnstate.Store, for callers that depend on
// lore's interfaces only (the API).
func (s *Store) TurnStore() turnstate.Store { return turnStore{s} }

type turnStore struct{ *Store }

var _ turnstate.Turn = (*Turn)(nil)

func (t turnStore) BeginTurn(ctx context.Context, c Conversation, turnID string) (turnstate.Turn, error) {
	turn, err := t.Store.BeginTurn(ctx, c, turnID)
	if err != nil {
		return nil, err
	}
	return turn, nil
}
