package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"loregate/lore"
	"loregate/lore/i18n"
)

// IdempotencyTTL is how long an idempotency key is remembered.
const IdempotencyTTL = 24 * time.Hour

// MaxIdempotencyKeyLen is the longest idempotency key, in bytes.
const MaxIdempotencyKeyLen = 200

// ErrIdempotencyKeyReused: the key was used within IdempotencyTTL by
// another operation or another caller on the same server.
var ErrIdempotencyKeyReused = lore.ErrIdempotencyKeyReused

// ErrIdempotencyInputDiffers: the key was used within IdempotencyTTL by
// the same operation and caller with other input (it is also
// ErrIdempotencyKeyReused to errors.Is).
var ErrIdempotencyInputDiffers = lore.ErrIdempotencyInputDiffers

const (
	idemExpire = `DELETE FROM idempotency_keys WHERE server_id = $1 AND key = $2 AND created_at < now() - $3::interval`
	idemClaim  = `INSERT INTO idempotency_keys (server_id, key, operation, principal) VALUES ($1, $2, $3, $4)
ON CONFLICT (server_id, key) DO NOTHING`
	idemRead = `SELECT operation, principal, result, COALESCE(input_digest, '') FROM idempotency_keys WHERE server_id = $1 AND key = $2`
	// idemStore keeps the result and the digest of the input it ran with
	// (migration 000090: a column, so that an older process still replays
	// the result as it reads it).
	idemStore  = `UPDATE idempotency_keys SET result = $3, input_digest = NULLIF($4, '') WHERE server_id = $1 AND key = $2`
	idemDelete = `DELETE FROM idempotency_keys WHERE created_at < $1`
)

// Idempotent runs fn at most once per (server, key) within IdempotencyTTL
// (docs/api.md "Idempotency keys"). The key is claimed, fn runs and its
// result is stored in ONE transaction, and every query of this Store (and
// of any Store made by New) that runs on fn's context joins it, so the
// write and the key commit together: a failure after the commit leaves a
// key that replays, a failure before it leaves neither. A repeat of the
// key by the same operation and caller returns the stored result with
// replayed true and runs nothing; a concurrent repeat waits for the first
// to commit or roll back. A repeat by another operation or caller is
// ErrIdempotencyKeyReused, and a repeat by the same operation and caller
// whose input digest differs from the stored one is
// ErrIdempotencyInputDiffers (an empty digest, given or stored, matches
// any). When fn fails, nothing is kept and its error is returned.
func (s *Store) Idempotent(ctx context.Context, server, key, operation, principal, input string,
	fn func(ctx context.Context) ([]byte, error)) (result []byte, replayed bool, err error) {
	if key == "" || len(key) > MaxIdempotencyKeyLen {
		return nil, false, lore.Reject("idempotencyKey", i18n.ByteLength, lore.Params{"max": MaxIdempotencyKeyLen})
	}
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return nil, false, wrapErr("idempotency: begin", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, idemExpire, server, key, IdempotencyTTL.String()); err != nil {
		return nil, false, wrapErr("idempotency: expire", err)
	}
	tag, err := tx.Exec(ctx, idemClaim, server, key, operation, principal)
	if err != nil {
		return nil, false, wrapErr("idempotency: claim", err)
	}
	if tag.RowsAffected() == 0 {
		var op, who, first string
		if err := tx.QueryRow(ctx, idemRead, server, key).Scan(&op, &who, &result, &first); err != nil {
			return nil, false, wrapErr("idempotency: read", err)
		}
		if op != operation || who != principal {
			return nil, false, ErrIdempotencyKeyReused
		}
		if first != "" && input != "" && first != input {
			return nil, false, ErrIdempotencyInputDiffers
		}
		return result, true, nil
	}
	result, err = fn(withTx(ctx, tx))
	if err != nil {
		return nil, false, err
	}
	if _, err := tx.Exec(ctx, idemStore, server, key, result, input); err != nil {
		return nil, false, wrapErr("idempotency: store result", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, false, wrapErr("idempotency: commit", err)
	}
	return result, false, nil
}

// DeleteExpiredIdempotencyKeys deletes keys created before before.
func (s *Store) DeleteExpiredIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, idemDelete, before)
	if err != nil {
		return 0, wrapErr("delete expired idempotency keys", err)
	}
	return tag.RowsAffected(), nil
}

type txKey struct{}

// withTx returns ctx carrying tx: queries of pool-backed Stores on that
// context run inside tx (Store.Idempotent).
func withTx(ctx context.Context, tx pgx.Tx) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// poolExec is the executor of a Store made by New: the pool, or the
// transaction the context carries (withTx). A transaction is one
// connection: code given such a context must not query concurrently.
type poolExec struct{ pool *pgxpool.Pool }

// pool returns the Store's pool when its queries on ctx run on it (a Store
// made by New, outside a context transaction).
func (s *Store) pool(ctx context.Context) (*pgxpool.Pool, bool) {
	if p, ok := s.db.(poolExec); ok {
		if _, inTx := ctx.Value(txKey{}).(pgx.Tx); !inTx {
			return p.pool, true
		}
	}
	return nil, false
}

func (p poolExec) on(ctx context.Context) executor {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return p.pool
}

func (p poolExec) Begin(ctx context.Context) (pgx.Tx, error) { return p.on(ctx).Begin(ctx) }

// BeginTx starts a transaction with opts on the pool, or a savepoint of the
// context's transaction (whose options then apply).
func (p poolExec) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx.Begin(ctx)
	}
	return p.pool.BeginTx(ctx, opts)
}
func (p poolExec) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return p.on(ctx).Exec(ctx, sql, args...)
}
func (p poolExec) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return p.on(ctx).Query(ctx, sql, args...)
}
func (p poolExec) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return p.on(ctx).QueryRow(ctx, sql, args...)
}
func (p poolExec) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return p.on(ctx).SendBatch(ctx, b)
}
