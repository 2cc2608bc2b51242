package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"loregate/lore"
	"loregate/lore/i18n"
)

// executor is what every query runs on: a *pgxpool.Pool or a pgx.Tx. Begin
// on a pool starts a transaction; on a transaction it starts a savepoint, so
// a Store bound to a transaction nests its writes inside it.
type executor interface {
	Begin(ctx context.Context) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Store is the Postgres implementation of [lore.Store]. A Store made by
// [New] is safe for concurrent use; a Store bound to a transaction ([Store.InTx],
// [Store.WithTx]) is not, because a transaction is one connection.
type Store struct {
	db executor
	// lim are the deployment's limits (content length, scope capacity).
	lim lore.Limits
	// onWrite, when set, is called with the server of every lore write
	// this Store made (see WithLoreWriteHook).
	onWrite func(server string)
	// durableTurns makes a recorded turn's commit wait for its WAL flush
	// (see WithDurableTurns).
	durableTurns bool
	// wires are the recorded turns' parameter buffers (turnWire), kept
	// from one commit to the next; shared by the Stores derived from this
	// one.
	wires *sync.Pool
}

var _ lore.Store = (*Store)(nil)

// New returns a Store on pool. The pool's database must have the migrations
// of loregate/migrations applied.
func New(pool *pgxpool.Pool) *Store {
	return &Store{db: poolExec{pool}, lim: lore.DefaultLimits(), wires: newTurnWires()}
}

// WithLimits returns a Store on the same database that enforces lim (zero
// fields: defaults) instead of the contract defaults: entry content is
// validated against lim.ContentChars and every write that adds entries is
// refused past lim.ScopeEntries. The caller validates lim (Limits.Validate).
func (s *Store) WithLimits(lim lore.Limits) *Store {
	c := *s
	c.lim = lim.WithDefaults()
	return &c
}

// Limits returns the limits the store enforces.
func (s *Store) Limits() lore.Limits { return s.lim }

// InTx returns a Store whose operations run inside tx, which the caller owns
// (commits or rolls back). Each write runs in a savepoint of tx, so a failed
// write leaves tx usable and undoes only itself. Use it to make lore writes
// part of a larger transaction, e.g. a River job worker's, or a write plus
// the job it enqueues with River's InsertTx.
func (s *Store) InTx(tx pgx.Tx) *Store {
	c := *s
	c.db = tx
	return &c
}

// WithLoreWriteHook returns a Store that calls fn(server) after each of its
// lore writes (every write that increments servers.lore_version), whether
// or not it succeeded, so an in-process cache can drop that server's
// scopes before the writer is answered. On a pool the call comes after
// the commit; inside [Store.WithTx] also once more after the outer commit;
// on a Store bound by [Store.InTx] only before the caller's commit (the
// commit's Postgres notification covers the rest, docs/operations.md).
// fn must be fast and safe for concurrent use.
func (s *Store) WithLoreWriteHook(fn func(server string)) *Store {
	c := *s
	c.onWrite = fn
	return &c
}

// WithDurableTurns returns a Store whose recorded turns (BeginTurn on a
// pool) commit with the database's synchronous_commit setting, waiting for
// the WAL flush, instead of the default asynchronous commit that answers a
// turn before its state is on disk (docs/turns.md#durability).
func (s *Store) WithDurableTurns() *Store {
	c := *s
	c.durableTurns = true
	return &c
}

// wrote reports a lore write of server to the hook.
func (s *Store) wrote(server string) {
	if s.onWrite != nil {
		s.onWrite(server)
	}
}

// WithTx runs fn in one transaction (a savepoint when s is already bound to
// one) and commits when fn returns nil, rolling back otherwise. fn receives
// the transaction, to pass to other writers such as River's InsertTx, and a
// Store bound to it; everything fn does commits together or not at all. The
// error of fn is returned as is; commit failures wrap lore.ErrUnavailable.
func (s *Store) WithTx(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, st *Store) error) error {
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return wrapErr("begin transaction", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	inner := &Store{db: tx, lim: s.lim, wires: s.wires}
	var written []string
	if s.onWrite != nil {
		inner.onWrite = func(server string) {
			written = append(written, server)
			s.onWrite(server)
		}
	}
	if err := fn(ctx, tx, inner); err != nil {
		return err
	}
	err = wrapErr("commit", tx.Commit(ctx))
	for _, server := range written {
		s.onWrite(server)
	}
	return err
}

// write runs fn as one lore write of server: in a transaction that first
// locks the server row (ErrNotFound for an unknown server) and, when fn
// succeeds, increments the server's lore_version before committing.
func (s *Store) write(ctx context.Context, op, server string, fn func(tx pgx.Tx) error) error {
	if err := checkServerID(server); err != nil {
		return fmt.Errorf("lore/postgres: %s: %w", op, err)
	}
	defer s.wrote(server)
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := lockServerTx(ctx, tx, server, opRevisionKinds[op]); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, serverBumpLoreVersion, server)
		return err
	})
	return wrapErr(op, err)
}

// opRevisionKinds are the revision kinds of the writes that are not a
// plain create, update or delete of an entry (see lockServerTx).
var opRevisionKinds = map[string]lore.RevisionKind{
	"replace persona book":           lore.RevisionImport,
	"import entries":                 lore.RevisionImport,
	"create collection with entries": lore.RevisionImport,
	"replace scopes":                 lore.RevisionImport,
	"import persona card":            lore.RevisionImport,
}

// lockServerTx takes server's row lock (ErrNotFound for an unknown server)
// and sets the transaction's revision settings that the entry revision
// trigger reads (migration 000070): the actor and kind of ctx's
// lore.WriteMeta, else def for the kind. An empty value keeps what an
// enclosing write of the same transaction set.
func lockServerTx(ctx context.Context, tx pgx.Tx, server string, def lore.RevisionKind) error {
	m := lore.WriteMetaFrom(ctx)
	if m.Kind == "" {
		m.Kind = def
	}
	var version int64
	var err error
	if m.Actor == "" && m.Kind == "" {
		err = tx.QueryRow(ctx, serverLock, server).Scan(&version)
	} else {
		var a, k string
		err = tx.QueryRow(ctx, serverLockMeta, server, lore.TruncateRunes(m.Actor, 200), string(m.Kind)).Scan(&version, &a, &k)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound("server", server)
	}
	return err
}

// checkServerID validates a guild snowflake before it reaches SQL (where
// the snowflake domain would reject it with a less precise error).
func checkServerID(server string) error {
	if !lore.ValidSnowflake(server) {
		return lore.Reject("server", i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(server, 40)})
	}
	return nil
}

func checkLineage(l lore.Lineage) error {
	if l < 0 {
		return lore.Reject("lineage", i18n.BadLineage, nil)
	}
	return nil
}

// lineageParam maps the Serverwide sentinel to SQL NULL.
func lineageParam(l lore.Lineage) any {
	if l.IsServerwide() {
		return nil
	}
	return int64(l)
}
