package main

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"loregate/cmd/internal/cli"
	"loregate/cmd/internal/pglocal"
)

// runWithPostgres runs a command with TEST_DATABASE_URL and DATABASE_URL
// pointing at a local cluster: a throwaway one in a temporary directory
// (removed afterwards) unless --dir names one. When TEST_DATABASE_URL is
// already set, the command runs against it and no cluster is started. This
// is how `make test` gives the whole test run one Postgres.
func runWithPostgres(ctx context.Context, env cli.Env, args []string) error {
	stderr := env.Stderr
	fs := env.FlagSet("with-postgres")
	dir := fs.String("dir", "", "cluster directory to use and keep (default: a temporary one, removed afterwards)")
	if err := fs.Parse(args); err != nil {
		return cli.FlagError(err)
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return cli.Usagef("with-postgres needs a command: loregate with-postgres -- go test ./...")
	}
	cfg := &config{LogLevel: "info", LogFormat: "text"}
	logger := cfg.logger(stderr)

	childEnv := os.Environ()
	if testDatabaseURL(env.Getenv) == "" {
		clusterDir := *dir
		if clusterDir == "" {
			tmp, err := os.MkdirTemp("", "loregate-pg-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			// The cluster may run as another user (when we are root).
			if err := os.Chmod(tmp, 0o755); err != nil {
				return err
			}
			clusterDir = tmp
		}
		cluster, err := pglocal.Start(ctx, pglocal.Options{Dir: clusterDir, Ephemeral: *dir == "", Database: "loregate", Logger: logger})
		if err != nil {
			return err
		}
		defer func() {
			if err := cluster.Stop(context.WithoutCancel(ctx)); err != nil {
				logger.Error("stop test Postgres", "err", err)
			}
		}()
		childEnv = append(childEnv, "TEST_DATABASE_URL="+cluster.URL(), "DATABASE_URL="+cluster.URL())
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = childEnv
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return cli.Exit(ee.ExitCode())
	}
	return err
}
