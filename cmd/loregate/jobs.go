package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"loregate/cmd/internal/cli"
	"loregate/discord"
	"loregate/graph"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
)

// jobsConfig is the background-job part of the configuration (environment
// only; docs/configuration.md).
type jobsConfig struct {
	// Workers is how many jobs this process works at once
	// (LOREGATE_JOB_WORKERS, default 4); 0 makes `serve` enqueue only,
	// for deployments where `loregate worker` processes work the jobs.
	Workers int
	// InlineImportBytes: larger import uploads become jobs
	// (LOREGATE_INLINE_IMPORT_BYTES, default 1 MiB).
	InlineImportBytes int
	// ArtifactTTL is the lifetime of backup downloads
	// (LOREGATE_ARTIFACT_TTL, default 24h); BlobTTL of uploads waiting for
	// their job or commit (LOREGATE_UPLOAD_TTL, default 24h).
	ArtifactTTL time.Duration
	BlobTTL     time.Duration
	// DiscordToken is the bot token of the channel-name backfill
	// (LOREGATE_DISCORD_TOKEN). Secret. Unset: no backfill.
	DiscordToken string
	// DiscordAPIURL replaces https://discord.com/ for REST calls
	// (LOREGATE_DISCORD_API_URL), e.g. a REST proxy.
	DiscordAPIURL string
	// BackfillInterval is the channel-name backfill period
	// (LOREGATE_BACKFILL_INTERVAL, default 1h; it also runs at start-up).
	BackfillInterval time.Duration
	// LogMaxAge and LogRowsPerConversation bound the activation log
	// (LOREGATE_ACTIVATION_LOG_MAX_AGE, default 720h;
	// LOREGATE_ACTIVATION_LOG_ROWS, default 500 per conversation).
	LogMaxAge              time.Duration
	LogRowsPerConversation int
	// ImportTimeout bounds one attempt of an import job
	// (LOREGATE_IMPORT_JOB_TIMEOUT, default jobs.DefaultImportTimeout);
	// JobTimeout one attempt of every other job (LOREGATE_JOB_TIMEOUT,
	// default jobs.DefaultJobTimeout).
	ImportTimeout time.Duration
	JobTimeout    time.Duration
	// RescueStuckJobsAfter: a job running longer is presumed orphaned by a
	// dead process and retried (LOREGATE_RESCUE_STUCK_JOBS_AFTER, default
	// the longest job timeout plus jobs.RescueMargin: 1m30s). It must be
	// longer than every job timeout.
	RescueStuckJobsAfter time.Duration
	// SnapshotRetention is how long import history snapshots are kept
	// (LOREGATE_HISTORY_SNAPSHOT_RETENTION, default 720h = 30 days).
	SnapshotRetention time.Duration
	// ServerRetention is how long a server the bot left keeps its lore
	// before the purge (LOREGATE_SERVER_RETENTION, a Go duration, default
	// 720h = 30 days; docs/servers.md).
	ServerRetention time.Duration
	// RevisionRetention is how many revisions of each entry are kept
	// (LOREGATE_REVISION_RETENTION, default 100) and RevisionMaxAge how
	// long (LOREGATE_REVISION_MAX_AGE, default 2160h = 90 days).
	RevisionRetention int
	RevisionMaxAge    time.Duration
	// Limits are the deployment's lore limits (config.Limits).
	Limits lore.Limits
	err    error
	// embedder is the embeddings provider of the embed jobs (nil: off);
	// onWrite, when set, is the lore write hook of the workers' store (the
	// embed trigger). Both are set by the command, not the environment.
	embedder jobs.Embedder
	onWrite  func(server string)
	// middleware is River middleware of the workers (the procs tuner's
	// hold while a job runs, procs.go).
	middleware []rivertype.Middleware
}

// logAttrs returns the job settings a worker reads as log attributes, the
// Discord token masked (InlineImportBytes, read by serve's API only, is
// not among them).
func (c jobsConfig) logAttrs() []any {
	token := "unset (channel-name backfill disabled)"
	if c.DiscordToken != "" {
		token = "set (masked)"
	}
	return []any{"job_workers", c.Workers, "artifact_ttl", c.ArtifactTTL.String(),
		"discord_token", token, "backfill_interval", c.BackfillInterval.String(),
		"activation_log_max_age", c.LogMaxAge.String(), "activation_log_rows", c.LogRowsPerConversation,
		"import_job_timeout", c.ImportTimeout.String(), "job_timeout", c.JobTimeout.String(), "rescue_stuck_jobs_after", c.RescueStuckJobsAfter.String(),
		"history_snapshot_retention", c.SnapshotRetention.String(), "server_retention", c.ServerRetention.String(),
		"revision_retention", c.RevisionRetention, "revision_max_age", c.RevisionMaxAge.String()}
}

// startJobs builds and starts the River client. work=false gives an
// insert-only client. stop performs the orderly shutdown: soft stop (jobs in
// flight finish) within timeout, then cancel the rest and wait; call it
// before closing the pool.
func startJobs(ctx context.Context, pool *pgxpool.Pool, jc jobsConfig, work bool, logger *slog.Logger, timeout time.Duration) (*river.Client[pgx.Tx], func(), error) {
	store := postgres.New(pool).WithLimits(jc.Limits)
	if jc.onWrite != nil {
		store = store.WithLoreWriteHook(jc.onWrite)
	}
	cfg := jobs.Config{
		Deps: jobs.Deps{Store: store, Logger: logger, ArtifactTTL: jc.ArtifactTTL, ImportTimeout: jc.ImportTimeout,
			SnapshotRetention: jc.SnapshotRetention, ServerRetention: jc.ServerRetention, LogMaxAge: jc.LogMaxAge, LogRowsPerConversation: jc.LogRowsPerConversation,
			RevisionRetention: jc.RevisionRetention, RevisionMaxAge: jc.RevisionMaxAge, Embeddings: jc.embedder},
		Work: work, MaxWorkers: jc.Workers, BackfillInterval: jc.BackfillInterval,
		RescueStuckJobsAfter: jc.RescueStuckJobsAfter, JobTimeout: jc.JobTimeout,
	}
	if jc.DiscordToken != "" {
		d, err := discord.NewREST(jc.DiscordToken, discord.RESTOptions{APIBase: jc.DiscordAPIURL})
		if err != nil {
			return nil, nil, cli.Usagef("%v", err)
		}
		cfg.Discord = d
	}
	if len(jc.middleware) > 0 {
		cfg.ConfigFunc = func(rc *river.Config) { rc.Middleware = append(rc.Middleware, jc.middleware...) }
	}
	client, err := jobs.NewClient(pool, cfg)
	if err != nil {
		return nil, nil, err
	}
	if !work {
		return client, func() {}, nil
	}
	// Not ctx: its cancellation (SIGTERM) would cancel running jobs at
	// once; stop below does the orderly soft stop first.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, nil, fmt.Errorf("start job workers: %w", err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		if err := client.Stop(sctx); err != nil {
			logger.Warn("jobs did not finish in time: cancelling them (they will be retried)", "err", err)
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
			defer cancel()
			if err := client.StopAndCancel(cctx); err != nil {
				logger.Error("job workers stop", "err", err)
			}
		}
	}
	return client, stop, nil
}

// resolverJobs connects the GraphQL resolver to the job client.
func resolverJobs(pool *pgxpool.Pool, client *river.Client[pgx.Tx], jc jobsConfig) *graph.Jobs {
	queue := &jobs.Queue{Store: postgres.New(pool).WithLimits(jc.Limits), Client: client, BlobTTL: jc.BlobTTL}
	return &graph.Jobs{Queue: queue, InlineImportBytes: jc.InlineImportBytes}
}
