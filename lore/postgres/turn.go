package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
//
// A turn opened on cached state (TurnStore's BeginCachedTurn) holds no
// transaction: its Commit locks the server and writes in one round trip,
// only where the conversation and the server's lore are as they were
// when the state was kept (docs/turns.md#cached-state).
type Turn struct {
	conv Conversation
	// at is the state's identity: the conversation's row id, state
	// version and row version, and the server's lore_version.
	at turnVersion
	// State is the conversation's stored state (read only: a cached
	// turn's is shared).
	State turnstate.State
	// Recorded is the logged turn with the same turn id, when one exists: a
	// retry. Roll back then.
	Recorded *LoggedTurn

	store *Store
	cache *turnCache    // keeps the state a pool turn commits; nil: none
	conn  *pgxpool.Conn // the pool path: BEGIN and COMMIT are pipelined
	tx    pgx.Tx        // a Store bound to a transaction: a savepoint
	done  bool
	// gen is the kept state's generation a cached turn was opened on
	// (cachedTurn.gen).
	gen uint64
	// held: a DeferredTurnStore's lock-path turn, holding the
	// conversation in cache until it ends (turnCache.hold).
	held bool
	// ids are the hashes of the conversation's logged turn ids, read by a
	// DeferredTurnStore's lock-path turn (nil: not read).
	ids map[uint64]struct{}
}

// turnVersion identifies a conversation's stored state: the row id and
// version of turn_conversations (version counts the state writes of this
// code; xmin changes with any write of the row, an older process's turn
// included) and the server's lore_version (an entry deletion drops state
// rows; a restore may bring the entry back).
type turnVersion struct {
	id, version, lore int64
	xmin              uint32
}

const turnStateColumns = `entry_id, sticky_start, sticky_end, cooldown_start, cooldown_end, cooldown_protected,
    first_count, first_at, last_count, last_at`

const (
	turnLockServer = `SELECT lore_version FROM servers WHERE id = $1::text FOR KEY SHARE`
	// turnLockServerPool is turnLockServer for a turn on a pool connection
	// (its own transaction): it also plans the turn's statements once per
	// connection (plan_cache_mode; every one is a keyed read or write, and
	// a custom plan per turn was a fifth of Postgres' CPU for a turn) and,
	// with $2 'off', sets the turn's COMMIT not to wait for its WAL flush
	// (docs/turns.md#durability; the transaction stays atomic). Both only
	// for the turn's transaction. An unknown server sets nothing: the turn
	// fails.
	turnLockServerPool = `SELECT lore_version, set_config('plan_cache_mode', 'force_generic_plan', true),
    set_config('synchronous_commit', COALESCE($2, current_setting('synchronous_commit')), true)
FROM servers WHERE id = $1::text FOR KEY SHARE`
	// turnLockConversation creates the conversation or locks its row; no
	// row when the server is unknown.
	turnLockConversation = `INSERT INTO turn_conversations (server_id, lineage_id, channel_id)
SELECT id, $2, $3 FROM servers WHERE id = $1::text
ON CONFLICT (server_id, lineage_id, channel_id) DO UPDATE SET last_turn_at = now()
RETURNING id, version, xmin`
	turnConversationID = `(SELECT id FROM turn_conversations WHERE server_id = $1::text AND lineage_id = $2 AND channel_id = $3::text)`
	turnLogColumns     = `turn_id, message_count, input_sha256, admitted, budget_unit, budget_limit, budget_used, response, result, created_at`
	turnFindLog        = `SELECT ` + turnLogColumns + ` FROM activation_log WHERE conversation_id = ` + turnConversationID + ` AND turn_id = $4`
	turnReadState      = `SELECT ` + turnStateColumns + ` FROM turn_entry_state WHERE conversation_id = ` + turnConversationID
	// turnLogIDs reads a conversation's logged turn ids, $4 at most.
	turnLogIDs = `SELECT turn_id FROM activation_log WHERE conversation_id = ` + turnConversationID + ` LIMIT $4`
	// turnCommit and turnCommitDelete write a turn in one statement, only
	// where the conversation's row ($1) is still at version $2 and row
	// version $3 and the server's lore at $4: it bumps the version,
	// upserts the records $5 (turn_state_record[] as text, see
	// stateRecords) of entries that still exist (each looked up by its
	// key: as a semi-join the generic plan read the whole entries table of
	// a small database), inserts the log row ($6...) and, in
	// turnCommitDelete only, deletes the records of the entries $16 (a
	// statement without that part when there are none: each part of a
	// statement is set up again at every execution,
	// docs/benchmarks.md#turn-commit-postgres). It returns one row: the new
	// version and row version and the entries written, or, when the
	// conversation or the server's lore moved on (nothing written), NULLs
	// and the conversation's version now, which only this case reads; no
	// row when the conversation is gone.
	turnCommit       = turnCommitHead + turnCommitTail
	turnCommitDelete = turnCommitHead + `, d AS (
    DELETE FROM turn_entry_state x USING c WHERE x.conversation_id = c.id AND x.entry_id = ANY($16::bigint[])
)` + turnCommitTail
	turnCommitHead = `WITH c AS (
    UPDATE turn_conversations t SET version = t.version + 1, last_turn_at = now()
    FROM servers s
    WHERE t.id = $1 AND t.version = $2 AND t.xmin = $3 AND s.id = t.server_id AND s.lore_version = $4
    RETURNING t.id, t.version, t.xmin
)`
	turnCommitTail = `, u AS (
    INSERT INTO turn_entry_state (conversation_id, ` + turnStateColumns + `)
    SELECT c.id, ` + turnStateColumns + ` FROM c, unnest($5::text::turn_state_record[]) u
    WHERE (SELECT true FROM lorebook_entries e WHERE e.id = u.entry_id)
    ` + turnStateUpsert + `
    RETURNING entry_id
), l AS (
    INSERT INTO activation_log (conversation_id, turn_id, message_count, input_sha256, admitted,
        budget_unit, budget_limit, budget_used, response, result, created_at)
    SELECT c.id, $6::text, $7::int, $8::text, $9::jsonb, $10::text, $11::int, $12::int, $13::jsonb, $14::bytea,
        $15::timestamptz FROM c
)
SELECT c.version, c.xmin, ARRAY(SELECT entry_id FROM u), NULL::bigint FROM c
UNION ALL SELECT NULL, NULL, NULL, t.version FROM turn_conversations t WHERE t.id = $1 AND NOT EXISTS (SELECT FROM c)`
	// turnStateUpsert makes an INSERT of turn_entry_state records
	// replace the ones stored.
	turnStateUpsert = `ON CONFLICT (conversation_id, entry_id) DO UPDATE SET
        sticky_start = EXCLUDED.sticky_start, sticky_end = EXCLUDED.sticky_end,
        cooldown_start = EXCLUDED.cooldown_start, cooldown_end = EXCLUDED.cooldown_end,
        cooldown_protected = EXCLUDED.cooldown_protected,
        first_count = EXCLUDED.first_count, first_at = EXCLUDED.first_at,
        last_count = EXCLUDED.last_count, last_at = EXCLUDED.last_at`
	turnListLog = `SELECT ` + turnLogColumns + ` FROM activation_log WHERE conversation_id = ` + turnConversationID + `
ORDER BY id DESC LIMIT $4`
	// turnResetLock takes the conversation's lock and bumps its version (a
	// process keeping the state sees it changed); turnResetState then
	// clears the state in a statement of its own, whose snapshot is taken
	// after the lock, so it sees what a turn holding the lock committed.
	turnResetLock = `UPDATE turn_conversations SET version = version + 1
WHERE server_id = $1::text AND lineage_id = $2 AND channel_id = $3::text RETURNING id`
	turnResetState = `DELETE FROM turn_entry_state WHERE conversation_id = $1`
	turnPruneAge   = `DELETE FROM activation_log WHERE created_at < $1`
	turnPruneRows  = `DELETE FROM activation_log l USING (
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
	return s.beginTurn(ctx, c, turnID, nil)
}

// beginTurn is BeginTurn keeping the committed state in cache (nil: not).
func (s *Store) beginTurn(ctx context.Context, c Conversation, turnID string, cache *turnCache) (*Turn, error) {
	const op = "begin turn"
	if err := checkConversation(c); err != nil {
		return nil, wrapErr(op, err)
	}
	if err := checkTurnID(turnID); err != nil {
		return nil, wrapErr(op, err)
	}
	t := &Turn{conv: c, store: s}
	var q interface {
		SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
	}
	b := &pgx.Batch{}
	if pool, ok := s.pool(ctx); ok {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		t.conn, t.cache, q = conn, cache, conn
		b.Queue("BEGIN")
		b.Queue(turnLockServerPool, c.Server, s.turnCommitMode())
	} else {
		tx, err := s.db.Begin(ctx)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		t.tx, q = tx, tx
		b.Queue(turnLockServer, c.Server)
	}
	args := []any{c.Server, int64(c.Lineage), c.Channel}
	b.Queue(turnLockConversation, args...)
	b.Queue(turnFindLog, append(args, turnID)...)
	b.Queue(turnReadState, args...)
	readIDs := cache != nil && cache.dq != nil && t.conn != nil
	if readIDs {
		b.Queue(turnLogIDs, append(args, cache.dq.maxIDs()+1)...)
	}
	err := func() (err error) {
		br := q.SendBatch(ctx, b)
		defer func() { err = errors.Join(err, br.Close()) }()
		if t.conn != nil {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		var lockArgs []any // the pool statement also returns the two settings
		if t.conn != nil {
			lockArgs = []any{nil, nil}
		}
		if err := br.QueryRow().Scan(append([]any{&t.at.lore}, lockArgs...)...); errors.Is(err, pgx.ErrNoRows) {
			return notFound("server", c.Server)
		} else if err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&t.at.id, &t.at.version, &t.at.xmin); err != nil {
			return err
		}
		logs, err := scanLog(br.Query())
		if err != nil {
			return err
		}
		if len(logs) > 0 {
			t.Recorded = &logs[0]
		}
		if t.State, err = scanState(br.Query()); err != nil || !readIDs {
			return err
		}
		rows, err := br.Query()
		t.ids, err = scanIDs(cache.dq, rows, err)
		return err
	}()
	if err != nil {
		t.Rollback(ctx)
		return nil, wrapErr(op, err)
	}
	return t, nil
}

// turnCommitMode is turnLockServerPool's $2: "off" for an asynchronous
// commit, nil for the server's setting (WithDurableTurns).
func (s *Store) turnCommitMode() *string {
	if s.durableTurns {
		return nil
	}
	off := "off"
	return &off
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
// conversation (a concurrent retry won) is ErrDuplicateName. A turn opened
// on cached state is turnstate.ErrStale, nothing written, when the
// conversation or the server's lore changed since or the turn id was
// used.
func (t *Turn) Commit(ctx context.Context, next turnstate.State, log LoggedTurn) error {
	const op = "commit turn"
	if t.done {
		return wrapErr(op, errors.New("turn already ended"))
	}
	defer t.Rollback(ctx)
	if t.cached() && t.cache != nil && t.cache.dq != nil {
		if handled, err := t.deferCommit(ctx, next, log); handled {
			return err
		}
	}
	stmt, args, err := t.commitArgs(next, log)
	if err != nil {
		return wrapErr(op, err)
	}
	var conn *pgx.Conn
	var stmts [3]wireStatement
	n := 0
	switch {
	case t.conn != nil:
		conn = t.conn.Conn()
	case t.tx != nil:
		conn = t.tx.Conn()
	default: // cached: one implicit transaction
		pool, ok := t.store.pool(ctx)
		if !ok {
			return turnstate.ErrStale
		}
		pc, err := pool.Acquire(ctx)
		if err != nil {
			return wrapErr(op, err)
		}
		defer pc.Release()
		conn = pc.Conn()
		stmts[n] = wireStatement{turnLockServerPool, []any{t.conv.Server, t.store.turnCommitMode()}}
		n++
	}
	commitAt := n
	stmts[n] = wireStatement{stmt, args}
	n++
	if t.conn != nil {
		stmts[n] = wireStatement{"COMMIT", nil}
		n++
	}
	var c commitRow
	err = t.store.pipe(ctx, conn, stmts[:n], func(i int, values [][]byte) error {
		if i != commitAt {
			return nil
		}
		return c.read(values)
	})
	if err == nil && !c.read1 {
		err = turnstate.ErrStale // the conversation is gone
	}
	if err == nil && c.version == nil {
		err = turnstate.ErrStale
	}
	var at turnVersion
	if err == nil {
		at = turnVersion{id: t.at.id, version: *c.version, xmin: *c.xmin, lore: t.at.lore}
	}
	written, now := c.written, c.now
	if err == nil && t.tx != nil {
		err = t.tx.Commit(ctx)
	}
	if err == nil && t.conn != nil && t.conn.Conn().PgConn().TxStatus() != 'I' {
		err = errors.New("transaction did not commit")
	}
	switch {
	case err == nil:
		if t.cache != nil {
			t.cache.keep(t.conv, at, kept(t.State, next, written), log.TurnID, t.ids)
		}
		return nil
	case t.cached() && isUniqueViolation(err):
		return turnstate.ErrStale // the turn id was used (a retry): the kept state stays
	case t.cached() && errors.Is(err, turnstate.ErrStale):
		// Another turn, a reset or a lore write came first.
		t.cache.stale(t.conv, t.at, now)
		return turnstate.ErrStale
	case errors.Is(err, turnstate.ErrStale):
		return wrapErr(op, errors.New("the conversation changed under its lock"))
	}
	return wrapErr(op, err)
}

// commitRow is the row of turnCommit: the conversation's new version and
// row version and the entries whose records it wrote, or, when nothing
// was written, NULLs and the conversation's version now.
type commitRow struct {
	version, now *int64
	xmin         *uint32
	written      []int64
	read1        bool
}

func (c *commitRow) read(values [][]byte) (err error) {
	if len(values) != 4 || c.read1 {
		return fmt.Errorf("commit statement: %d columns", len(values))
	}
	c.read1 = true
	if c.version, err = wireInt8(values[0]); err != nil {
		return err
	}
	if c.xmin, err = wireXID(values[1]); err != nil {
		return err
	}
	if c.written, err = wireInt8s(values[2]); err != nil {
		return err
	}
	if c.version != nil && c.xmin == nil {
		return errors.New("commit statement: a version without a row version")
	}
	c.now, err = wireInt8(values[3])
	return err
}

// cached reports whether the turn was opened on cached state (no
// transaction until Commit).
func (t *Turn) cached() bool { return t.conn == nil && t.tx == nil }

// commitArgs are the statement that writes the turn's next state and log
// row (turnCommit, or turnCommitDelete when records go) and its
// arguments.
func (t *Turn) commitArgs(next turnstate.State, log LoggedTurn) (string, []any, error) {
	admitted, response, result, createdAt := logColumns(log)
	upsert, del := turnstate.Diff(t.State, next)
	args := []any{t.at.id, t.at.version, t.at.xmin, t.at.lore, stateRecords(upsert),
		log.TurnID, log.MessageCount, log.InputSHA256, admitted,
		log.BudgetUnit, log.BudgetLimit, log.BudgetUsed, response, result, createdAt}
	if len(del) == 0 {
		return turnCommit, args, nil
	}
	return turnCommitDelete, append(args, del), nil
}

// logColumns are log's admitted (JSON), response (jsonb), result
// (bytea, nil: NULL) and created_at columns. A JSON object goes to
// response, any other encoding to result (not parsed), response then '{}'
// (migration 000086); a zero time is now.
func logColumns(log LoggedTurn) (admitted, response, result []byte, createdAt time.Time) {
	admitted = appendLoggedEntries(make([]byte, 0, 16+80*len(log.Admitted)), log.Admitted)
	createdAt = log.CreatedAt
	if createdAt.IsZero() {
		createdAt = time.Now()
	}
	response = log.Response
	if len(response) == 0 || response[0] != '{' {
		response, result = []byte("{}"), log.Response
		if len(result) == 0 {
			result = nil
		}
	}
	return admitted, response, result, createdAt
}

// kept is the state a committed turn left in the store: next without the
// records of entries the commit did not write for being gone (written
// lists those it wrote; records unchanged from old were not rewritten).
func kept(old, next turnstate.State, written []int64) turnstate.State {
	out := make(turnstate.State, len(next))
	for id, r := range next {
		if o, ok := old[id]; ok && o.Equal(r) {
			out[id] = r
		}
	}
	for _, id := range written {
		out[id] = next[id]
	}
	return out
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == pgUniqueViolation
}

// Rollback ends the turn without writing; it is safe to call after Commit
// and more than once.
func (t *Turn) Rollback(ctx context.Context) {
	if t.done {
		return
	}
	t.done = true
	if t.held {
		t.held = false
		t.cache.unhold(t.conv)
	}
	ctx = context.WithoutCancel(ctx)
	if t.tx != nil {
		_ = t.tx.Rollback(ctx)
		return
	}
	if t.cached() {
		return
	}
	if t.conn.Conn().PgConn().TxStatus() != 'I' {
		_, _ = t.conn.Exec(ctx, "ROLLBACK")
	}
	t.conn.Release() // the pool destroys a connection left in a transaction
}

// appendLoggedEntries appends es as the JSON array of a log row's
// admitted column (LoggedEntry's JSON names; [] for none).
func appendLoggedEntries(b []byte, es []LoggedEntry) []byte {
	b = append(b, '[')
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"id":`...), e.ID, 10)
		b = appendJSONString(append(b, `,"group":`...), e.Group)
		b = appendJSONString(append(b, `,"placement":`...), e.Placement)
		b = strconv.AppendInt(append(b, `,"pass":`...), int64(e.Pass), 10)
		b = append(strconv.AppendInt(append(b, `,"cost":`...), int64(e.Cost), 10), '}')
	}
	return append(b, ']')
}

// stateRecords is recs as a turn_state_record[] in Postgres' text form
// (migration 000088), e.g. {"(7,4,8,,,f,4,2026-12-02T03:32:54.589469Z,4,...)"}:
// an empty field is NULL, times are UTC to the microsecond (what
// timestamptz keeps; pgx's binary form truncates the same way). No field
// holds a quote, a backslash, a comma or a parenthesis, so none is quoted.
func stateRecords(recs []turnstate.Record) string {
	b := make([]byte, 0, 2+len(recs)*96)
	b = append(b, '{')
	num := func(n int, ok bool) {
		if ok {
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ',')
	}
	at := func(t time.Time, ok bool) {
		if ok {
			b = appendTimestamp(b, t)
		}
	}
	for i, r := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"(`...)
		b = strconv.AppendInt(b, r.EntryID, 10)
		b = append(b, ',')
		sticky, cooldown := r.Sticky != nil, r.Cooldown != nil
		var s, c turnstate.Window
		if sticky {
			s = *r.Sticky
		}
		if cooldown {
			c = *r.Cooldown
		}
		num(s.Start, sticky)
		num(s.End, sticky)
		num(c.Start, cooldown)
		num(c.End, cooldown)
		b = append(b, "f,"...)
		if c.Protected {
			b[len(b)-2] = 't'
		}
		num(r.FirstCount, r.Activated())
		at(r.FirstAt, r.Activated())
		b = append(b, ',')
		last := !r.LastAt.IsZero()
		num(r.LastCount, last)
		at(r.LastAt, last)
		b = append(b, `)"`...)
	}
	return string(append(b, '}'))
}

// appendTimestamp appends t in UTC to the microsecond as Postgres reads a
// timestamptz, e.g. 2026-12-02T03:32:54.589469Z (a year outside 1-9999
// as time.Time.AppendFormat writes it).
func appendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC().Truncate(time.Microsecond)
	y, mo, d := t.Date()
	if y < 1 || y > 9999 {
		return t.AppendFormat(b, "2006-01-02T15:04:05.999999Z")
	}
	h, mi, sec := t.Clock()
	for _, f := range [...]struct {
		sep   byte
		v, ds int
	}{{0, y, 4}, {'-', int(mo), 2}, {'-', d, 2}, {'T', h, 2}, {':', mi, 2}, {':', sec, 2}, {'.', t.Nanosecond() / 1000, 6}} {
		if f.sep != 0 {
			b = append(b, f.sep)
		}
		for p := pow10[f.ds-1]; p > 0; p /= 10 {
			b = append(b, byte('0'+f.v/p%10))
		}
	}
	return append(b, 'Z')
}

var pow10 = [...]int{1, 10, 100, 1000, 10000, 100000}

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

// scanIDs reads turn ids into their hashes (q.hash); nil when there are
// more than q's DeferredTurns.MaxTurnIDs.
func scanIDs(q *turnQueue, rows pgx.Rows, err error) (map[uint64]struct{}, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[uint64]struct{}{}
	var id string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[q.hash(id)] = struct{}{}
	}
	if len(out) > q.maxIDs() {
		out = nil
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
	var n int64
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, turnResetLock, c.Server, int64(c.Lineage), c.Channel).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // no turn recorded yet: no state
		}
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, turnResetState, id)
		n = tag.RowsAffected()
		return err
	})
	return n, wrapErr(op, err)
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
// lore's interfaces only (the API). It keeps the state of the
// conversations whose turns it records, up to DefaultTurnCacheRecords
// records, and opens their next turns on it (BeginCachedTurn,
// docs/turns.md#cached-state).
func (s *Store) TurnStore() turnstate.Store {
	return turnStore{Store: s, cache: newTurnCache(DefaultTurnCacheRecords)}
}

type turnStore struct {
	*Store
	cache *turnCache
}

var _ turnstate.Turn = (*Turn)(nil)

// BeginTurn is Store.BeginTurn keeping the state the turn commits. On a
// DeferredTurnStore it first waits until c's queued turns are written
// (ctx's error when it ends first), and no turn of c opens on the kept
// state until the turn ends.
func (t turnStore) BeginTurn(ctx context.Context, c Conversation, turnID string) (turnstate.Turn, error) {
	if t.cache.dq != nil {
		t.cache.hold(c)
		if err := t.cache.settle(ctx, c); err != nil {
			t.cache.unhold(c)
			return nil, wrapErr("begin turn", err)
		}
	}
	turn, err := t.Store.beginTurn(ctx, c, turnID, t.cache)
	if err != nil {
		if t.cache.dq != nil {
			t.cache.unhold(c)
		}
		return nil, err
	}
	turn.held = t.cache.dq != nil
	return turn, nil
}

// ResetTurnState is Store.ResetTurnState, forgetting the state kept (on
// a DeferredTurnStore after c's queued turns are written).
func (t turnStore) ResetTurnState(ctx context.Context, c Conversation) (int64, error) {
	if t.cache.dq != nil {
		t.cache.hold(c)
		defer t.cache.unhold(c)
		if err := t.cache.settle(ctx, c); err != nil {
			return 0, wrapErr("reset turn state", err)
		}
	}
	t.cache.drop(c)
	n, err := t.Store.ResetTurnState(ctx, c)
	t.cache.drop(c)
	return n, err
}

// TurnState is Store.TurnState; on a DeferredTurnStore, while turns of c
// are queued, the state the last of them left (read only).
func (t turnStore) TurnState(ctx context.Context, c Conversation) (turnstate.State, error) {
	if t.cache.dq != nil {
		if st := t.cache.queuedState(c); st != nil {
			return st, nil
		}
	}
	return t.Store.TurnState(ctx, c)
}

// ActivationLog is Store.ActivationLog (on a DeferredTurnStore after c's
// queued turns are written).
func (t turnStore) ActivationLog(ctx context.Context, c Conversation, last int) ([]LoggedTurn, error) {
	if t.cache.dq != nil {
		if err := t.cache.settle(ctx, c); err != nil {
			return nil, wrapErr("read activation log", err)
		}
	}
	return t.Store.ActivationLog(ctx, c, last)
}
