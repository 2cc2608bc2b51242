package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"loregate/lore"
	"loregate/lore/postgres"
)

// Defaults of Config.
const (
	// DefaultArtifactTTL is how long a backup download stays available.
	DefaultArtifactTTL = 24 * time.Hour
	// DefaultBlobTTL is how long an upload waits for its job (or a backup
	// preview for its commit).
	DefaultBlobTTL = 24 * time.Hour
	// DefaultBackfillInterval is the period of the channel-name backfill.
	DefaultBackfillInterval = time.Hour
	// DefaultCleanupInterval is the period of the blob and artifact cleanup.
	DefaultCleanupInterval = time.Hour
	// DefaultReportRetention is how long job reports are kept.
	DefaultReportRetention = 7 * 24 * time.Hour
	// DefaultSnapshotRetention is how long import history snapshots are
	// kept (an import older than that can no longer be undone if it
	// replaced or removed entries).
	DefaultSnapshotRetention = 30 * 24 * time.Hour
	// DefaultMaxWorkers is the number of jobs one client works at once.
	DefaultMaxWorkers = 4
	// DefaultImportTimeout bounds one attempt of an import job (lorebook
	// imports, workspace backup imports and exports, legacy memory
	// migrations); the largest allowed book imports in seconds. Today it
	// equals DefaultJobTimeout; it is its own setting so either can change.
	DefaultImportTimeout = time.Minute
	// DefaultJobTimeout bounds one attempt of every other job (River's
	// default).
	DefaultJobTimeout = time.Minute
	// RescueMargin is how much longer than the longest job timeout a job
	// must have been running before River presumes its process dead and
	// retries it (the default of Config.RescueStuckJobsAfter follows the
	// timeouts: 1m30s). A job killed with its process is then retried
	// within about two minutes (the rescuer looks every 30 seconds).
	RescueMargin = 30 * time.Second
)

// RescueAfter returns the default rescue delay for the given timeouts
// (zero: their defaults): the longer one plus RescueMargin.
func RescueAfter(importTimeout, jobTimeout time.Duration) time.Duration {
	return max(cmp.Or(importTimeout, DefaultImportTimeout), cmp.Or(jobTimeout, DefaultJobTimeout)) + RescueMargin
}

// Deps are the workers' dependencies.
type Deps struct {
	// Store is the lore store (required): workers write through
	// Store.WithTx so that their write, report and completion commit
	// together.
	Store *postgres.Store
	// Logger receives one line per job outcome (never file content).
	Logger *slog.Logger
	// Discord lists guild channels for the backfill; nil disables the
	// backfill (its jobs are cancelled with a clear error and the periodic
	// schedule is not registered).
	Discord ChannelLister
	// ArtifactTTL is the lifetime of backup downloads (default
	// DefaultArtifactTTL).
	ArtifactTTL time.Duration
	// ImportTimeout bounds one attempt of an import job (default
	// DefaultImportTimeout).
	ImportTimeout time.Duration
	// ReportRetention is how long job reports are kept (default
	// DefaultReportRetention).
	ReportRetention time.Duration
	// LogMaxAge and LogRowsPerConversation bound the activation log
	// (defaults DefaultLogMaxAge, DefaultLogRowsPerConversation).
	LogMaxAge              time.Duration
	LogRowsPerConversation int
	// SnapshotRetention is how long import history snapshots are kept
	// (default DefaultSnapshotRetention).
	SnapshotRetention time.Duration
	// ServerRetention is how long a server the bot left keeps its lore
	// before the server_purge job removes it (default
	// DefaultServerRetention).
	ServerRetention time.Duration
	// RevisionRetention is how many revisions of each entry are kept and
	// RevisionMaxAge how long (defaults lore.DefaultRevisionRetention,
	// lore.DefaultRevisionMaxAge).
	RevisionRetention int
	RevisionMaxAge    time.Duration
	// Embeddings computes the vectors of retrieval by meaning
	// (lore/embeddings.Client); nil: no provider, embed jobs are
	// cancelled and the sweep is not scheduled.
	Embeddings Embedder
	// NowFunc returns the current time (default time.Now).
	NowFunc func() time.Time
}

// WithDefaults returns a copy of d with every zero field set to its
// default (the field docs name them); Store is left as is.
func (d Deps) WithDefaults() Deps {
	out := d
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	if out.ArtifactTTL <= 0 {
		out.ArtifactTTL = DefaultArtifactTTL
	}
	if out.ImportTimeout <= 0 {
		out.ImportTimeout = DefaultImportTimeout
	}
	if out.ReportRetention <= 0 {
		out.ReportRetention = DefaultReportRetention
	}
	if out.LogMaxAge <= 0 {
		out.LogMaxAge = DefaultLogMaxAge
	}
	if out.LogRowsPerConversation <= 0 {
		out.LogRowsPerConversation = DefaultLogRowsPerConversation
	}
	if out.SnapshotRetention <= 0 {
		out.SnapshotRetention = DefaultSnapshotRetention
	}
	if out.ServerRetention <= 0 {
		out.ServerRetention = DefaultServerRetention
	}
	if out.RevisionRetention <= 0 {
		out.RevisionRetention = lore.DefaultRevisionRetention
	}
	if out.RevisionMaxAge <= 0 {
		out.RevisionMaxAge = lore.DefaultRevisionMaxAge
	}
	if out.NowFunc == nil {
		out.NowFunc = time.Now
	}
	return out
}

// Register adds every worker to workers. It is the only list of job kinds.
// deps.Store is required.
func Register(workers *river.Workers, deps Deps) error {
	if deps.Store == nil {
		return errors.New("jobs: Deps.Store is required")
	}
	d := deps.WithDefaults()
	for _, add := range []func() error{
		func() error { return river.AddWorkerSafely(workers, &ImportWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &BackupExportWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &BackupImportWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &BackfillWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &BackfillScheduleWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &CleanupWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &ActivationLogPruneWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &RevisionPruneWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &MigrationWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &ServerPurgeWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &EmbedWorker{Deps: d}) },
		func() error { return river.AddWorkerSafely(workers, &EmbedSweepWorker{Deps: d}) },
	} {
		if err := add(); err != nil {
			return fmt.Errorf("jobs: register: %w", err)
		}
	}
	return nil
}

// Config configures a River client built by NewClient.
type Config struct {
	Deps
	// Work makes the client work jobs and run periodic jobs; false gives an
	// insert-only client (enqueueing from a process that does not work).
	Work bool
	// MaxWorkers bounds concurrent jobs (default DefaultMaxWorkers).
	MaxWorkers int
	// BackfillInterval and CleanupInterval are the periods of the periodic
	// jobs (defaults DefaultBackfillInterval, DefaultCleanupInterval). Both
	// also run once when a client becomes leader.
	BackfillInterval time.Duration
	CleanupInterval  time.Duration
	// EmbedSweepInterval is the period of the embed sweep, scheduled only
	// with Deps.Embeddings (default DefaultEmbedSweepInterval).
	EmbedSweepInterval time.Duration
	// RescueStuckJobsAfter is how long a job may stay running before River
	// rescues it for a retry (a worker process that died); when 0,
	// RescueAfter of the timeouts. It must not be shorter than any job
	// timeout, or a job still running would run twice (the service's
	// configuration asks for more: longer). JobTimeout bounds
	// one attempt of jobs other than imports (Deps.ImportTimeout);
	// DefaultJobTimeout when 0.
	RescueStuckJobsAfter time.Duration
	JobTimeout           time.Duration
	// ID names the client in River's tables (default: River's).
	ID string
	// ConfigFunc, when set, may adjust the River config last (tests).
	ConfigFunc func(*river.Config)
}

// WithDefaults returns a copy of c with every zero field set to its default
// (the field docs name them; Deps by Deps.WithDefaults). A zero
// RescueStuckJobsAfter becomes RescueAfter of the two timeouts.
func (c Config) WithDefaults() Config {
	c.Deps = c.Deps.WithDefaults()
	if c.MaxWorkers <= 0 {
		c.MaxWorkers = DefaultMaxWorkers
	}
	if c.BackfillInterval <= 0 {
		c.BackfillInterval = DefaultBackfillInterval
	}
	if c.CleanupInterval <= 0 {
		c.CleanupInterval = DefaultCleanupInterval
	}
	if c.EmbedSweepInterval <= 0 {
		c.EmbedSweepInterval = DefaultEmbedSweepInterval
	}
	c.JobTimeout = cmp.Or(c.JobTimeout, DefaultJobTimeout)
	c.RescueStuckJobsAfter = cmp.Or(c.RescueStuckJobsAfter, RescueAfter(c.ImportTimeout, c.JobTimeout))
	return c
}

// NewClient builds a River client on pool with every worker registered and,
// when cfg.Work, the periodic jobs (backfill schedule when cfg.Discord is
// set, cleanup). The caller starts it (Start) and stops it (Stop, then
// StopAndCancel) before closing the pool.
func NewClient(pool *pgxpool.Pool, cfg Config) (*river.Client[pgx.Tx], error) {
	if cfg.Store == nil {
		cfg.Store = postgres.New(pool)
	}
	cfg = cfg.WithDefaults()
	if longest := max(cfg.ImportTimeout, cfg.JobTimeout); cfg.RescueStuckJobsAfter < longest {
		return nil, fmt.Errorf("jobs: the rescue delay %v must not be shorter than the longest job timeout %v, or a job still running would run twice", cfg.RescueStuckJobsAfter, longest)
	}
	rc := &river.Config{
		Logger:               cfg.Logger,
		ID:                   cfg.ID,
		RescueStuckJobsAfter: cfg.RescueStuckJobsAfter,
		JobTimeout:           cfg.JobTimeout,
	}
	if cfg.Work {
		workers := river.NewWorkers()
		if err := Register(workers, cfg.Deps); err != nil {
			return nil, err
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.MaxWorkers}}
		rc.PeriodicJobs = PeriodicJobs(cfg)
	}
	if cfg.ConfigFunc != nil {
		cfg.ConfigFunc(rc)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		return nil, fmt.Errorf("jobs: new River client: %w", err)
	}
	return client, nil
}

// PeriodicJobs returns the periodic jobs: the channel-name backfill schedule
// (only when cfg.Discord is set), the cleanup, the activation-log
// pruning and the purge of servers left past their retention (on the
// cleanup's interval), each also run when a
// client becomes leader (the start-up run). River inserts periodic jobs
// from the elected leader only.
func PeriodicJobs(cfg Config) []*river.PeriodicJob {
	cfg = cfg.WithDefaults()
	backfill, cleanup := cfg.BackfillInterval, cfg.CleanupInterval
	var out []*river.PeriodicJob
	if cfg.Discord != nil {
		out = append(out, river.NewPeriodicJob(river.PeriodicInterval(backfill),
			func() (river.JobArgs, *river.InsertOpts) { return BackfillScheduleArgs{}, nil },
			&river.PeriodicJobOpts{ID: BackfillScheduleArgs{}.Kind(), RunOnStart: true}))
	}
	out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cleanup),
		func() (river.JobArgs, *river.InsertOpts) { return CleanupArgs{}, nil },
		&river.PeriodicJobOpts{ID: CleanupArgs{}.Kind(), RunOnStart: true}))
	out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cleanup),
		func() (river.JobArgs, *river.InsertOpts) { return ActivationLogPruneArgs{}, nil },
		&river.PeriodicJobOpts{ID: ActivationLogPruneArgs{}.Kind(), RunOnStart: true}))
	out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cleanup),
		func() (river.JobArgs, *river.InsertOpts) { return ServerPurgeArgs{}, nil },
		&river.PeriodicJobOpts{ID: ServerPurgeArgs{}.Kind(), RunOnStart: true}))
	out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cleanup),
		func() (river.JobArgs, *river.InsertOpts) { return RevisionPruneArgs{}, nil },
		&river.PeriodicJobOpts{ID: RevisionPruneArgs{}.Kind(), RunOnStart: true}))
	if cfg.Embeddings != nil {
		out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cfg.EmbedSweepInterval),
			func() (river.JobArgs, *river.InsertOpts) { return EmbedSweepArgs{}, nil },
			&river.PeriodicJobOpts{ID: EmbedSweepArgs{}.Kind(), RunOnStart: true}))
	}
	return out
}

// outcome maps a failure to River's outcomes: contract errors of lore
// (invalid input, full scope, missing target, stale target, duplicate
// name) cancel the job with the reason; anything else is transient and
// returned for a retry.
func outcome(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, lore.ErrInvalid), errors.Is(err, lore.ErrScopeFull), errors.Is(err, lore.ErrNotFound),
		errors.Is(err, lore.ErrStaleTarget), errors.Is(err, lore.ErrDuplicateName):
		// The job's error is shown to users by query job(id): keep only
		// the user-facing explanation, not the layers it passed through.
		msg, _ := lore.Explain(err)
		return river.JobCancel(errors.New(msg))
	default:
		return err
	}
}

// completeTx marks job completed inside tx (river.JobCompleteTx), so the
// completion commits with the job's write.
func completeTx[T river.JobArgs](ctx context.Context, tx pgx.Tx, job *river.Job[T]) error {
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		return fmt.Errorf("complete job %d: %w", job.ID, err)
	}
	return nil
}
