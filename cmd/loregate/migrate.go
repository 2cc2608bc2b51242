package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"

	"loregate/cmd/internal/cli"
	"loregate/migrations"
)

const migrateUsage = `usage:
  loregate migrate up             apply pending migrations
  loregate migrate status         list migrations and whether they are applied
  loregate migrate down N         preview undoing migration N and every later one (changes nothing)
  loregate migrate down N --yes   undo them, newest first, running their down files; refused when
                                  that would drop or rewrite data (the preview names it)
  loregate migrate down N --force undo them even though data is lost`

// migrateUp applies pending migrations on one pooled connection.
func migrateUp(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect to database: %w", err)
	}
	defer conn.Release()
	done, err := migrations.Up(ctx, conn.Conn())
	if err != nil {
		return err
	}
	for _, m := range done {
		logger.Info("applied migration", "version", m.Version, "name", m.Name)
	}
	return nil
}

func runMigrate(ctx context.Context, env cli.Env, args []string) error {
	stdout, stderr := env.Stdout, env.Stderr
	fs := env.FlagSet("migrate")
	fs.Usage = func() { fmt.Fprintln(stderr, migrateUsage) }
	cfg := loadConfig(env.Getenv, fs)
	yes := fs.Bool("yes", false, "with down: execute instead of previewing (refused when data would be lost)")
	force := fs.Bool("force", false, "with down: execute even when data would be lost")
	if err := fs.Parse(args); err != nil {
		return cli.FlagError(err)
	}
	// Flags may come before, between or after the action and its number
	// ("down 1 --yes" and "--yes down 1" alike).
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return cli.FlagError(err)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if len(rest) == 0 {
		return cli.Usagef("migrate needs up, status or down N\n%s", migrateUsage)
	}
	var target int
	switch rest[0] {
	case "up", "status":
		if len(rest) != 1 {
			return cli.Usagef("migrate %s takes no arguments", rest[0])
		}
	case "down":
		if len(rest) != 2 {
			return cli.Usagef("migrate down needs one migration number, e.g. `loregate migrate down 1`")
		}
		n, err := strconv.Atoi(rest[1])
		if err != nil || n < 1 {
			return cli.Usagef("migration number %q is not a positive integer", rest[1])
		}
		target = n
	default:
		return cli.Usagef("unknown migrate action %q\n%s", rest[0], migrateUsage)
	}

	logger := cfg.logger(stderr)
	dbURL, releaseDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer releaseDB()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("open database pool: %w", err)
	}
	defer pool.Close()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect to database: %w", err)
	}
	defer conn.Release()

	switch rest[0] {
	case "up":
		done, err := migrations.Up(ctx, conn.Conn())
		if err != nil {
			return err
		}
		if len(done) == 0 {
			fmt.Fprintln(stdout, "schema is up to date")
		}
		for _, m := range done {
			fmt.Fprintf(stdout, "applied %06d_%s\n", m.Version, m.Name)
		}
	case "status":
		st, err := migrations.GetStatus(ctx, conn.Conn())
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "VERSION\tNAME\tAPPLIED")
		for _, s := range st {
			at := "pending"
			if s.Applied {
				at = s.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
			}
			fmt.Fprintf(tw, "%06d\t%s\t%s\n", s.Version, s.Name, at)
		}
		return tw.Flush()
	case "down":
		plan, err := migrations.PlanDown(ctx, conn.Conn(), target)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		if len(plan.Migrations) == 0 {
			fmt.Fprintf(stdout, "nothing to undo: no applied migration numbered %d or later\n", target)
			return nil
		}
		lossy := plan.Lossy()
		if !*yes && !*force || lossy && !*force {
			if *yes {
				fmt.Fprintln(stdout, "REFUSED (nothing changed): undoing would lose the data listed below. Export what you need, then run `loregate migrate down", target, "--force`.")
			} else {
				fmt.Fprintln(stdout, "PREVIEW (nothing changed). `loregate migrate down", target, "--yes` would undo, in this order:")
			}
			printDownPlan(stdout, plan)
			if *yes {
				return cli.Exit(cli.ExitUsage)
			}
			return nil
		}
		done, err := migrations.Down(ctx, conn.Conn(), target)
		if err != nil && !errors.Is(err, migrations.ErrNothingToUndo) {
			return err
		}
		for _, m := range done {
			fmt.Fprintf(stdout, "undid %06d_%s\n", m.Version, m.Name)
		}
		fmt.Fprintln(stdout, "note: `loregate serve` re-applies pending migrations at start; run the older binary to stay rolled back")
	}
	return nil
}

// printDownPlan writes the migrations a plan undoes, the tables it drops
// and what it would lose, counted per table, column and rewrite.
func printDownPlan(w io.Writer, plan migrations.DownPlan) {
	for _, m := range plan.Migrations {
		fmt.Fprintf(w, "  %06d_%s\n", m.Version, m.Name)
	}
	fmt.Fprintln(w, "and drop these tables with the rows they hold now:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range plan.Tables {
		fmt.Fprintf(tw, "  %s\t%d rows\n", t.Table, t.Rows)
	}
	_ = tw.Flush()
	if !plan.Lossy() {
		fmt.Fprintln(w, "data lost: none (every dropped table is empty, every dropped column holds its default)")
		return
	}
	fmt.Fprintln(w, "data lost (rows per table, column and rewrite):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range plan.Losses {
		if l.Rows > 0 {
			fmt.Fprintf(tw, "  %06d\t%s\t%d rows\n", l.Version, l, l.Rows)
		}
	}
	_ = tw.Flush()
}

// parseInterleaved parses flags wherever they appear among args and returns
// the positional arguments in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
