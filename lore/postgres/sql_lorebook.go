package postgres

// Queries on lorebooks (Serverwide collections).

const lorebookColumns = `b.id, b.server_id::text, b.name, b.enabled, b.channel_ids::text[], b.created_at, b.updated_at,
    ` + bookSettingsColumns

// bookSettingsColumns are the book settings of a lorebooks (b) row, in
// bookSettingsRow order; persona_books has the same columns.
const bookSettingsColumns = `b.scan_depth, b.budget_limit, b.recursive, b.max_recursion_steps, b.case_sensitive, b.whole_words,
    b.max_budget_share, b.semantic_all_entries`

// lorebookCount is the correlated entry count that listings add.
const lorebookCount = `(SELECT count(*) FROM lorebook_entries e
    WHERE e.server_id = b.server_id AND e.lorebook_name = b.name AND e.lineage_id IS NULL)`

const (
	lorebookInsert = `INSERT INTO lorebooks AS b (server_id, name, enabled, channel_ids,
    scan_depth, budget_limit, recursive, max_recursion_steps, case_sensitive, whole_words, max_budget_share,
    semantic_all_entries)
VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10, $11, $12)
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

	lorebookSetSettings = `UPDATE lorebooks SET scan_depth = $3, budget_limit = $4, recursive = $5,
    max_recursion_steps = $6, case_sensitive = $7, whole_words = $8, max_budget_share = $9,
    semantic_all_entries = $10
WHERE server_id = $1 AND id = $2`

	// lorebookSetSettingsByName stores an import's book settings.
	lorebookSetSettingsByName = `UPDATE lorebooks SET scan_depth = $3, budget_limit = $4, recursive = $5,
    max_recursion_steps = $6, case_sensitive = $7, whole_words = $8, max_budget_share = $9,
    semantic_all_entries = $10
WHERE server_id = $1 AND name = $2`

	personaBookGet = `SELECT ` + bookSettingsColumns + ` FROM persona_books b WHERE b.server_id = $1 AND b.lineage_id = $2`

	// personaBookGetAt is personaBookGet with the row's updated_at.
	personaBookGetAt = `SELECT ` + bookSettingsColumns + `, b.updated_at FROM persona_books b WHERE b.server_id = $1 AND b.lineage_id = $2`

	// personaBookUpsert stores a lineage's settings; a row whose settings
	// are all NULL is deleted instead (personaBookDelete).
	personaBookUpsert = `INSERT INTO persona_books AS b (server_id, lineage_id, scan_depth, budget_limit, recursive,
    max_recursion_steps, case_sensitive, whole_words, max_budget_share, semantic_all_entries)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (server_id, lineage_id) DO UPDATE SET scan_depth = EXCLUDED.scan_depth,
    budget_limit = EXCLUDED.budget_limit, recursive = EXCLUDED.recursive,
    max_recursion_steps = EXCLUDED.max_recursion_steps, case_sensitive = EXCLUDED.case_sensitive,
    whole_words = EXCLUDED.whole_words, max_budget_share = EXCLUDED.max_budget_share,
    semantic_all_entries = EXCLUDED.semantic_all_entries`

	personaBookDelete = `DELETE FROM persona_books WHERE server_id = $1 AND lineage_id = $2`

	personaBookDeleteAll = `DELETE FROM persona_books WHERE server_id = $1`

	lorebookDeleteAll = `DELETE FROM lorebooks WHERE server_id = $1`

	lorebookDeleteNotIn = `DELETE FROM lorebooks WHERE server_id = $1 AND NOT (name = ANY ($2::text[]))`
)
