package main

import (
	"context"
	"loregate/cmd/internal/cli"
)

// runWorker is `loregate worker`: the background jobs without the HTTP API,
// for deployments that run them in separate processes (set
// LOREGATE_JOB_WORKERS=0 on the `serve` processes then). Any number of
// workers and servers may share the database; River elects one leader for
// the periodic jobs. SIGINT/SIGTERM stop it in order: River soft stop
// (running jobs finish within LOREGATE_SHUTDOWN_TIMEOUT), then cancel, then
// the pool closes.
func runWorker(ctx context.Context, env cli.Env, args []string) error {
	stderr := env.Stderr
	fs := env.FlagSet("worker")
	cfg := loadConfig(env.Getenv, fs)
	if err := fs.Parse(args); err != nil {
		return cli.FlagError(err)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if cfg.Jobs.Workers == 0 {
		return cli.Usagef("LOREGATE_JOB_WORKERS is 0: a worker with no workers would do nothing")
	}
	logger := cfg.logger(stderr)
	logger.Info("loregate worker starting", cfg.workerLogAttrs()...)
	pool, release, err := openMigratedPool(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer release()
	trigger, err := wireEmbeddings(cfg, nil, nil, logger)
	if err != nil {
		return err
	}
	client, stopJobs, err := startJobs(ctx, pool, cfg.Jobs, true, logger, cfg.ShutdownTimeout)
	if err != nil {
		return err
	}
	stopTrigger := runTrigger(ctx, trigger, client)
	logger.Info("loregate worker running")
	<-ctx.Done()
	logger.Info("shutting down")
	stopTrigger()
	stopJobs()
	return nil
}
