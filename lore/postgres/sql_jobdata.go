package postgres

// Queries on the job tables of migrations/000010_jobs.up.sql (job_blobs,
// job_artifacts, job_reports) and the reads and writes the background jobs
// need on lore tables (workspace export, legacy channel-name backfill).

const (
	blobInsert = `INSERT INTO job_blobs (server_id, kind, file_name, size_bytes, sha256, data, expires_at, meta)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING id, created_at`

	blobGet = `SELECT id, server_id::text, kind, file_name, size_bytes, sha256, data, created_at, expires_at, meta
FROM job_blobs WHERE id = $1`

	blobDelete = `DELETE FROM job_blobs WHERE id = $1`

	blobDeleteExpired = `DELETE FROM job_blobs WHERE expires_at <= $1`

	artifactInsert = `INSERT INTO job_artifacts (server_id, job_id, kind, file_name, content_type, size_bytes, sha256, data, expires_at)
VALUES ($1, NULLIF($2::bigint, 0), $3, $4, $5, $6, $7, $8, $9)
RETURNING id, created_at`

	artifactColumns = `id, server_id::text, coalesce(job_id, 0), kind, file_name, content_type, size_bytes, sha256, created_at, expires_at`

	artifactGetByJob = `SELECT ` + artifactColumns + ` FROM job_artifacts WHERE job_id = $1`

	artifactGetData = `SELECT ` + artifactColumns + `, data FROM job_artifacts WHERE id = $1`
	artifactGet     = `SELECT ` + artifactColumns + ` FROM job_artifacts WHERE id = $1`

	artifactDeleteExpired = `DELETE FROM job_artifacts WHERE expires_at <= $1`

	reportInsert = `INSERT INTO job_reports (job_id, server_id, kind, report) VALUES ($1, $2, $3, $4)`

	reportGet = `SELECT job_id, server_id::text, kind, report, created_at FROM job_reports WHERE job_id = $1`

	reportDeleteBefore = `DELETE FROM job_reports WHERE created_at < $1`

	// entryListServer lists every entry of a server, both scopes, grouped by
	// scope (Serverwide first) in insertion order (workspace export).
	entryListServer = `SELECT ` + entryColumns + ` FROM lorebook_entries e
WHERE e.server_id = $1
ORDER BY e.lineage_id NULLS FIRST, e.lorebook_name, e.insertion_order, e.id`

	// tagPendingServers lists servers with pending legacy channel names on
	// persona entries (the backfill's work list).
	tagPendingServers = `SELECT DISTINCT e.server_id::text FROM legacy_channel_scope_tags t
JOIN lorebook_entries e ON e.id = t.entry_id
WHERE e.lineage_id IS NOT NULL
ORDER BY 1`

	tagPendingForServer = `SELECT t.entry_id, e.lineage_id, t.name FROM legacy_channel_scope_tags t
JOIN lorebook_entries e ON e.id = t.entry_id
WHERE e.server_id = $1 AND e.lineage_id IS NOT NULL
ORDER BY t.entry_id, t.name`

	// tagEntryLock locks a persona entry of the server that still carries
	// the pending name, returning its channel ids.
	tagEntryLock = `SELECT e.channel_ids::text[] FROM lorebook_entries e
JOIN legacy_channel_scope_tags t ON t.entry_id = e.id AND t.name = $3
WHERE e.server_id = $1 AND e.id = $2 AND e.lineage_id IS NOT NULL
FOR UPDATE OF e`

	tagEntrySetChannels = `UPDATE lorebook_entries SET channel_ids = $2::text[] WHERE id = $1`

	tagDeleteOne = `DELETE FROM legacy_channel_scope_tags WHERE entry_id = $1 AND name = $2`
)
