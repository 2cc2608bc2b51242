// Package lore holds loregate's domain: lorebook entries, Serverwide
// collections, personas and servers, the limits and validation rules of the
// storage contract, the typed errors every layer switches on, and the [Store]
// interface that lore/postgres implements.
//
// # Scopes
//
// Lore belongs to a Discord server. Inside a server an entry lives in exactly
// one scope: Serverwide (lineage [Serverwide], stored as NULL), where it also
// belongs to a named [Collection], or Persona scope, keyed by a persona
// lineage id greater than zero. A lineage has no foreign key to the persona
// registry, so persona lore survives persona removal and re-registration
// (docs/contract.md#storage).
//
// # Limits
//
// A scope holds at most [MaxEntriesPerScope] entries; all Serverwide
// collections of a server together form one scope. Text lengths are counted
// in UTF-16 code units, as the seed's JavaScript counts them (see
// [UTF16Len]). The other bounds are the Max* constants of this package.
//
// # Errors
//
// Operations return errors that wrap one of the sentinels [ErrInvalid],
// [ErrScopeFull], [ErrNotFound], [ErrDuplicateName], [ErrStaleTarget] and
// [ErrUnavailable]; [InvalidError], [ScopeFullError] and
// [DuplicateNameError] carry details for errors.As, and [Explain] words
// them for users. Anything else is an internal failure.
//
// This package imports no database, GraphQL, job queue or Discord code.
package lore
