// Package jobs holds loregate's background jobs on River (docs/operations.md;
// issue 7): one file per job kind with its XxxArgs (a stable
// snake_case Kind and snake_case JSON) and XxxWorker (river.WorkerDefaults,
// its dependencies, a thin Work calling lore), and one [Register] that is
// the only list of kinds.
//
// # Kinds
//
//   - [ImportArgs] ("lorebook_import"): a large lorebook upload stored as a
//     blob is converted and written under the store's locks.
//   - [BackupExportArgs] ("workspace_backup_export"): the All Personas
//     bundle of a server becomes a downloadable, expiring artifact with a
//     SHA-256 checksum.
//   - [BackupImportArgs] ("workspace_backup_import"): a previewed backup
//     replaces its included scopes and converts older keyword memories.
//   - [BackfillArgs] ("channel_name_backfill") and the periodic
//     [BackfillScheduleArgs] ("channel_name_backfill_schedule"): pending
//     legacy #channel names become channel ids through the Discord REST API.
//   - [CleanupArgs] ("job_data_cleanup", periodic): expired blobs and
//     artifacts and old reports are deleted.
//   - [ActivationLogPruneArgs] ("activation_log_prune", periodic): activation
//     log rows past their age or their conversation's row limit are deleted.
//   - [EmbedArgs] ("entry_embed") and the periodic [EmbedSweepArgs]
//     ("entry_embed_sweep"; only with an embeddings provider): the
//     candidates of retrieval by meaning get their vectors from the
//     provider (docs/operations.md#embeddings); [EmbedTrigger] enqueues
//     the job after a lore write of this process.
//
// # Transactions
//
// A write that enqueues a job does both in one transaction (InsertTx with
// lore/postgres Store.WithTx), so a job exists only if its write committed.
// Workers whose effect is a lore write (imports) write, record their report
// (job_reports) and complete the job (river.JobCompleteTx) in one
// transaction: a worker that dies before the commit leaves nothing written
// and the job running, River rescues it (Config.RescueStuckJobsAfter) and a
// retry runs it again; once the commit happened the job is completed and
// never runs again. Each job's effect therefore happens exactly once.
//
// # Errors
//
// Workers sort failures into River outcomes (style anchor 6.13): invalid
// input (a malformed file, a full scope, a stale target, a missing blob) is
// river.JobCancel with the reason, recorded as the job's error and shown by
// the job query; a transient failure (database, Discord 5xx, network) is
// returned for River's retry with backoff; a Discord rate limit (429) is
// river.JobSnooze for the advertised retry-after. File content never enters
// logs or errors.
//
// # Leadership
//
// Periodic jobs (the backfill schedule, the cleanup) are inserted by River's
// elected leader only, so several `loregate serve` or `loregate worker`
// processes on one database schedule each once; every job is worked by one
// client.
package jobs
