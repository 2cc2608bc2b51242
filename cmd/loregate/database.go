package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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

// openPool opens a pgx pool whose TCP connections read and write with raw
// system calls (rawIODial); when observe is set, every query's latency is
// reported to it by statement kind (the first SQL keyword).
func openPool(ctx context.Context, url string, observe func(statement string, d time.Duration)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	cfg.ConnConfig.DialFunc = rawIODial(cfg.ConnConfig.DialFunc)
	if observe != nil {
		cfg.ConnConfig.Tracer = &queryTimer{observe: observe}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	return pool, nil
}

type queryStartKey struct{}

type queryStart struct {
	at   time.Time
	kind string
}

// queryTimer is a pgx.QueryTracer feeding the store latency histogram.
type queryTimer struct {
	observe func(string, time.Duration)
}

func (q *queryTimer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, queryStartKey{}, queryStart{at: time.Now(), kind: statementKind(data.SQL)})
}

func (q *queryTimer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	if s, ok := ctx.Value(queryStartKey{}).(queryStart); ok {
		q.observe(s.kind, time.Since(s.at))
	}
}

// statementKind returns the first keyword of a SQL statement, lower-cased,
// skipping comments and a WITH clause's name; a bounded label set.
func statementKind(sql string) string {
	for _, f := range strings.Fields(sql) {
		if strings.HasPrefix(f, "--") {
			continue
		}
		switch k := strings.ToLower(strings.Trim(f, "(")); k {
		case "select", "insert", "update", "delete", "with", "lock", "begin", "commit", "rollback":
			return k
		default:
			return "other"
		}
	}
	return "other"
}

// openMigratedPool opens the database (openDatabase), a pool on it and
// applies pending migrations; release closes the pool and releases the
// database.
func openMigratedPool(ctx context.Context, cfg *config, logger *slog.Logger) (pool *pgxpool.Pool, release func(), err error) {
	dbURL, releaseDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return nil, nil, err
	}
	if pool, err = openPool(ctx, dbURL, nil); err != nil {
		releaseDB()
		return nil, nil, err
	}
	release = func() {
		pool.Close()
		releaseDB()
	}
	if err := migrateUp(ctx, pool, logger); err != nil {
		release()
		return nil, nil, err
	}
	return pool, release, nil
}
