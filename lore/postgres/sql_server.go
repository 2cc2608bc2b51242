package postgres

// Queries on servers and personas. Snowflake columns are cast to text on
// output so pgx never sees the domain types.

const serverColumns = `id::text, name, channel_memory_enabled, memory_tagging_enabled, regex_keys_enabled,
    budget_unit, COALESCE(budget_limit, 0), tokenizer, lore_version, settings_updated_at, left_at, semantic,
    min_activations, min_activations_depth_max, max_entries, include_names`

const (
	// serverUpsert creates a server with the given settings or renames an
	// existing one, keeping its settings; a server the bot had left is a
	// member again (left_at cleared, docs/servers.md).
	serverUpsert = `INSERT INTO servers (id, name, channel_memory_enabled, memory_tagging_enabled, regex_keys_enabled,
    budget_unit, tokenizer)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, left_at = NULL
RETURNING ` + serverColumns

	// serverLeftAtLock reads left_at under the row lock (no row: a new server).
	serverLeftAtLock = `SELECT left_at FROM servers WHERE id = $1 FOR UPDATE`

	serverGet = `SELECT ` + serverColumns + ` FROM servers WHERE id = $1`

	// serverUpdateSettings writes every setting; a budget_limit of 0 is
	// stored as NULL (the unit's default). settings_updated_at moves
	// strictly forward, like every updated_at (migration 000045). Callers
	// hold the row lock.
	serverUpdateSettings = `UPDATE servers
SET channel_memory_enabled = $2, memory_tagging_enabled = $3, regex_keys_enabled = $4,
    budget_unit = $5, budget_limit = NULLIF($6, 0), tokenizer = $7, semantic = $8,
    min_activations = $9, min_activations_depth_max = $10, max_entries = $11, include_names = $12,
    settings_updated_at = GREATEST(clock_timestamp(), settings_updated_at + interval '1 microsecond')
WHERE id = $1
RETURNING settings_updated_at`

	serverDelete = `DELETE FROM servers WHERE id = $1`

	// serverLock takes the row lock every lore write starts with.
	serverLock = `SELECT lore_version FROM servers WHERE id = $1 FOR UPDATE`

	// serverLockMeta is serverLock that also sets the revision actor ($2)
	// and kind ($3) for the transaction; '' keeps the value already set
	// (migration 000070).
	serverLockMeta = `SELECT lore_version,
    set_config('loregate.revision_actor', COALESCE(NULLIF($2, ''), current_setting('loregate.revision_actor', true), ''), true),
    set_config('loregate.revision_kind', COALESCE(NULLIF($3, ''), current_setting('loregate.revision_kind', true), ''), true)
FROM servers WHERE id = $1 FOR UPDATE`

	// serverBumpLoreVersion ends every successful lore write.
	serverBumpLoreVersion = `UPDATE servers SET lore_version = lore_version + 1 WHERE id = $1`
)

const personaColumns = `server_id::text, id, lineage_id, display_name, removed`

const (
	// personaUpsert registers or renames a persona; re-registering a
	// removed persona restores it, under any lineage. A persona that is
	// not removed keeps its lineage: with another one the statement
	// changes nothing and returns no row (UpsertPersona then names the
	// persona's lineage, docs/api.md "Personas").
	personaUpsert = `INSERT INTO personas (server_id, id, lineage_id, display_name)
VALUES ($1, $2, $3, $4)
ON CONFLICT (server_id, id) DO UPDATE
SET lineage_id = EXCLUDED.lineage_id, display_name = EXCLUDED.display_name, removed = false
WHERE personas.removed OR personas.lineage_id = EXCLUDED.lineage_id
RETURNING ` + personaColumns

	personaRemove = `UPDATE personas SET removed = true WHERE server_id = $1 AND id = $2`

	personaList = `SELECT ` + personaColumns + ` FROM personas WHERE server_id = $1 ORDER BY id`

	// personaLineageKnown: a lineage is known when a persona (removed or
	// not) reads it or when it owns lore on the server.
	personaLineageKnown = `SELECT ` + lineageKnownExpr

	// lineageKnownExpr is personaLineageKnown's expression (server $1,
	// lineage $2).
	lineageKnownExpr = `EXISTS (SELECT 1 FROM personas WHERE server_id = $1 AND lineage_id = $2)
    OR EXISTS (SELECT 1 FROM lorebook_entries WHERE server_id = $1 AND lineage_id = $2)`
)
