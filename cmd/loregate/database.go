package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"loregate/cmd/internal/pglocal"
)

// openDatabase returns the database URL to use and a function that releases
// it: DATABASE_URL as is, or a local cluster started in cfg.DataDir and
// stopped by the release function.
func openDatabase(ctx context.Context, cfg *config, logger *slog.Logger) (string, func(), error) {
	if cfg.DatabaseURL != "" {
		return cfg.DatabaseURL, func() {}, nil
	}
	cluster, err := pglocal.Start(ctx, pglocal.Options{Dir: cfg.DataDir, Logger: logger})
	if err != nil {
		return "", nil, fmt.Errorf("local Postgres: %w", err)
	}
	release := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cluster.Stop(ctx); err != nil {
			logger.Error("stopping local Postgres", "err", err)
		}
	}
	return cluster.URL(), release, nil
}
