package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"

	"loregate/cmd/internal/pglocal"
)

// runWithPostgres runs a command with TEST_DATABASE_URL and DATABASE_URL
// pointing at a local cluster: a throwaway one in a temporary directory
// (removed afterwards) unless --dir names one. When TEST_DATABASE_URL is
// already set, the command runs against it and no cluster is started. This
// is how `make test` gives the whole test run one Postgres.
func runWithPostgres(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("with-postgres", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "cluster directory to use and keep (default: a temporary one, removed afterwards)")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return usageError("with-postgres needs a command: loregate with-postgres -- go test ./...")
	}
	cfg := &config{LogLevel: "info", LogFormat: "text"}
	logger := cfg.logger(stderr)

	env := os.Environ()
	if os.Getenv("TEST_DATABASE_URL") == "" {
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
		env = append(env, "TEST_DATABASE_URL="+cluster.URL(), "DATABASE_URL="+cluster.URL())
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.ExitCode()}
	}
	return err
}
