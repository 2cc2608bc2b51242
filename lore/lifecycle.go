package lore

import (
	"context"
	"time"
)

// DefaultServerRetention is how long a server the bot left keeps its lore
// before the purge job removes it (LOREGATE_SERVER_RETENTION; docs/servers.md).
const DefaultServerRetention = 30 * 24 * time.Hour

// TableRows is a table and the number of its rows that belong to a server
// (a purge's preview and record).
type TableRows struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
}

// PurgeRule says which server PurgeServer may remove. With Force the server
// goes whatever its state (deleteServer with confirm); otherwise only a
// server marked left at or before LeftBefore (the retention job), so a
// server that rejoined in the meantime is kept. Actor is recorded.
type PurgeRule struct {
	Force      bool
	LeftBefore time.Time
	Actor      string
}

// LifecycleStore is a server's life cycle (docs/servers.md): the bot left
// the guild (LeftAt set), rejoined it (LeftAt cleared by UpsertServer,
// lore untouched), the retention passed (purged), or an operator deleted it.
// Every step is recorded in the server life cycle record, which outlives the
// server.
type LifecycleStore interface {
	// MarkServerLeft sets the server's LeftAt to at unless it is already
	// set; it reports whether it changed anything (false for an unknown
	// server or one already left).
	MarkServerLeft(ctx context.Context, server string, at time.Time, actor string) (bool, error)
	// MarkServersLeftExcept marks left, at at, every server not in present
	// that is not left yet; with shards > 1 only the servers of shard
	// (Discord's (guild_id >> 22) % shards). It returns the servers it
	// marked.
	MarkServersLeftExcept(ctx context.Context, present []string, shard, shards int, at time.Time, actor string) ([]string, error)
	// ServerFootprint counts the server's rows per table (every table with
	// a server_id column, and the server row itself). ErrNotFound for an
	// unknown server.
	ServerFootprint(ctx context.Context, server string) ([]TableRows, error)
	// PurgeServer removes the server and every row keyed by it in one
	// transaction that holds the server row lock, records it, and returns
	// the rows removed per table. ErrNotFound for an unknown server;
	// ErrStaleTarget when rule does not allow it (not left, or left after
	// rule.LeftBefore).
	PurgeServer(ctx context.Context, server string, rule PurgeRule) ([]TableRows, error)
	// LeftServers lists the servers marked left at or before leftBefore,
	// oldest first, at most limit.
	LeftServers(ctx context.Context, leftBefore time.Time, limit int) ([]string, error)
}
