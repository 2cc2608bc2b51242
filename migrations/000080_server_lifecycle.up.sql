-- 000080_server_lifecycle: a server's life cycle (docs/servers.md). left_at is
-- when the bot was removed from the guild (GUILD_DELETE without unavailable,
-- or the guild missing from READY); NULL while it is a member. Rejoining
-- clears it. A server left longer than LOREGATE_SERVER_RETENTION is purged
-- by the server_purge job, in one transaction.
ALTER TABLE servers ADD COLUMN left_at timestamptz;
CREATE INDEX servers_left_at_idx ON servers (left_at) WHERE left_at IS NOT NULL;

-- server_lifecycle_events records each step (left, rejoined, purged,
-- deleted) with who did it and, for removals, the rows removed per table.
-- It is keyed by guild_id, not server_id, on purpose: it outlives the server
-- it records (a purge removes every table with a server_id column).
CREATE TABLE server_lifecycle_events (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    guild_id text        NOT NULL,
    event    text        NOT NULL CHECK (event IN ('left', 'rejoined', 'purged', 'deleted')),
    actor    text        NOT NULL DEFAULT '',
    counts   jsonb       NOT NULL DEFAULT '{}',
    at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX server_lifecycle_events_guild_idx ON server_lifecycle_events (guild_id, id);
