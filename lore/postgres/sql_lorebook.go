package postgres

// Queries on lorebooks (Serverwide collections).

const lorebookColumns = `b.id, b.server_id::text, b.name, b.enabled, b.channel_ids::text[], b.created_at, b.updated_at`

// lorebookCount is the correlated entry count that listings add.
const lorebookCount = `(SELECT count(*) FROM lorebook_entries e
    WHERE e.server_id = b.server_id AND e.lorebook_name = b.name AND e.lineage_id IS NULL)`

const (
	lorebookInsert = `INSERT INTO lorebooks AS b (server_id, name, enabled, channel_ids)
VALUES ($1, $2, $3, $4::text[])
RETURNING ` + lorebookColumns + `, 0::bigint`

	// lorebookUpsertSettings restores a collection by name with the given
	// settings, keeping its id when it exists (whole-scope replacement).
	lorebookUpsertSettings = `INSERT INTO lorebooks AS b (server_id, name, enabled, channel_ids)
VALUES ($1, $2, $3, $4::text[])
ON CONFLICT (server_id, name) DO UPDATE SET enabled = EXCLUDED.enabled, channel_ids = EXCLUDED.channel_ids`

	lorebookCountForServer = `SELECT count(*) FROM lorebooks WHERE server_id = $1`

	lorebookGet = `SELECT ` + lorebookColumns + `, ` + lorebookCount + `
FROM lorebooks b WHERE b.server_id = $1 AND b.id = $2`

	lorebookGetByName = `SELECT ` + lorebookColumns + `, ` + lorebookCount + `
FROM lorebooks b WHERE b.server_id = $1 AND b.name = $2`

	// lorebookLockByID re-reads the target of an import under the server
	// lock (stale-target detection).
	lorebookLockByID = `SELECT b.name FROM lorebooks b WHERE b.server_id = $1 AND b.id = $2 FOR UPDATE`

	lorebookList = `SELECT ` + lorebookColumns + `, ` + lorebookCount + `
FROM lorebooks b WHERE b.server_id = $1 ORDER BY b.name, b.id`

	lorebookExists = `SELECT EXISTS (SELECT 1 FROM lorebooks WHERE server_id = $1 AND name = $2)`

	// lorebookRename cascades to the entries through the ON UPDATE CASCADE
	// foreign key; a taken name is a unique violation.
	lorebookRename = `UPDATE lorebooks SET name = $3 WHERE server_id = $1 AND id = $2`

	// lorebookDelete cascades to the entries and their legacy tags.
	lorebookDelete = `DELETE FROM lorebooks WHERE server_id = $1 AND id = $2`

	lorebookSetEnabled = `UPDATE lorebooks SET enabled = $3 WHERE server_id = $1 AND id = $2`

	lorebookSetChannels = `UPDATE lorebooks SET channel_ids = $3::text[] WHERE server_id = $1 AND id = $2`

	lorebookDeleteAll = `DELETE FROM lorebooks WHERE server_id = $1`

	lorebookDeleteNotIn = `DELETE FROM lorebooks WHERE server_id = $1 AND NOT (name = ANY ($2::text[]))`
)
