// Package postgres implements [lore.Store] on PostgreSQL with pgx/v5. It is
// the only package of loregate that contains lore SQL (docs/contract.md#storage:
// it is the only SQL owner); the schema is
// migrations/000001_lore.up.sql.
//
// # Queries
//
// The SQL is hand-written and kept as constants, one file per table
// (sql_server.go for servers and personas, sql_lorebook.go, sql_entry.go). Every
// method runs its statements on one executor (a pool or a transaction), so
// the same code serves [Store.WithTx] and [Store.InTx].
//
// # Types
//
// Discord snowflakes are TEXT in the domain `snowflake` (17-20 digits, no
// leading zero, as lore.ValidSnowflake), so ids keep their exact string form;
// channel lists are snowflake[] and are cast to text[] on the way in and out.
// A lineage is BIGINT, NULL for Serverwide. Extensions are JSONB: values
// come back semantically equal and compact, but jsonb normalizes object key
// order, whitespace and duplicate keys.
//
// # Locking and versions
//
// Every lore write (entries, collections, settings) runs in one transaction
// that first locks the server row (SELECT ... FOR UPDATE) and, on success,
// increments servers.lore_version in the same transaction. The lock makes
// counting and writing atomic, so concurrent writers never take a scope past
// [lore.MaxEntriesPerScope]; taking it first in every write also gives all
// writers one lock order, so they cannot deadlock on each other. Writes of
// one server are therefore serialized; writes of different servers are not.
//
// # Errors
//
// Database errors are translated once, by interpretError: no rows becomes
// [lore.ErrNotFound], a unique violation [lore.ErrDuplicateName], a missing
// referenced row (foreign key) [lore.ErrNotFound], a check violation an
// *[lore.InvalidError] naming the constraint, and everything else (connection
// loss, timeouts, cancellation) wraps [lore.ErrUnavailable]. Errors never
// carry entry content.
package postgres
