package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"

	"loregate/cmd/internal/cli"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/transfer"
)

const memoriesUsage = `usage:
  loregate migrate-memories --from FILE | --from-db URL --query SQL  (--preview | --apply) [--job]
  loregate migrate-memories --undo ID[,ID...] [--preview]

Migrates a legacy bot's keyword memories into lore (docs/legacy-migration.md).
  --preview   plan every server block and roll it back: nothing is written
  --apply     write, one atomic block per server; memory ids already migrated are skipped
  --job       run as a background job (worked by serve or worker) and follow its progress
  --undo      undo migration blocks by their history ids (from the report or importHistory);
              with --preview, show what each undo removes and keeps, and roll it back
The report is JSON on stdout; progress goes to stderr.`

// runMigrateMemories is `loregate migrate-memories`.
func runMigrateMemories(ctx context.Context, env cli.Env, args []string) error {
	stdout, stderr := env.Stdout, env.Stderr
	fs := env.FlagSet("migrate-memories")
	fs.Usage = func() { fmt.Fprintln(stderr, memoriesUsage) }
	cfg := loadConfig(env.Getenv, fs)
	from := fs.String("from", "", "input file: JSON lines or a workspace backup bundle")
	fromDB := fs.String("from-db", "", "legacy Postgres connection string (read in a read-only transaction)")
	query := fs.String("query", "", "with --from-db: the SQL returning the memory columns")
	preview := fs.Bool("preview", false, "plan without writing")
	apply := fs.Bool("apply", false, "write")
	undo := fs.String("undo", "", "comma-separated history ids to undo")
	asJob := fs.Bool("job", false, "run as a background job and follow its progress")
	actor := fs.String("actor", "cli", "who runs the migration (recorded in the history)")
	if err := fs.Parse(args); err != nil {
		return cli.FlagError(err)
	}
	if fs.NArg() > 0 {
		return cli.Usagef("migrate-memories takes no arguments, got %q\n%s", fs.Arg(0), memoriesUsage)
	}
	modes := 0
	for _, on := range []bool{*preview && *undo == "", *apply, *undo != ""} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return cli.Usagef("migrate-memories needs exactly one of --preview, --apply or --undo\n%s", memoriesUsage)
	}
	if *undo == "" && (*from == "") == (*fromDB == "") {
		return cli.Usagef("migrate-memories needs --from FILE or --from-db URL (not both)")
	}
	if *fromDB != "" && strings.TrimSpace(*query) == "" {
		return cli.Usagef("--from-db needs --query SQL")
	}
	var undoIDs []int64
	for _, s := range strings.Split(*undo, ",") {
		if *undo == "" {
			break
		}
		id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || id <= 0 {
			return cli.Usagef("--undo: %q is not a history id", s)
		}
		undoIDs = append(undoIDs, id)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	// Read the input before touching loregate's database.
	var data []byte
	source := ""
	switch {
	case *from != "":
		var err error
		if data, err = readBounded(*from); err != nil {
			return err
		}
		source = filepath.Base(*from)
	case *fromDB != "":
		var err error
		if data, err = readLegacyDB(ctx, *fromDB, *query); err != nil {
			return err
		}
		source = "query"
	}

	logger := cfg.logger(stderr)
	pool, release, err := openMigratedPool(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer release()
	store := postgres.New(pool).WithLimits(cfg.Limits)
	out := json.NewEncoder(stdout)
	out.SetIndent("", "  ")

	if len(undoIDs) > 0 {
		failed := 0
		for _, id := range undoIDs {
			line := map[string]any{"import_id": id}
			server, err := store.HistoryServer(ctx, id)
			if err == nil && *preview {
				line["server"], line["preview"] = server, true
				err = previewUndo(ctx, store, server, id, *actor, line)
			} else if err == nil {
				line["server"] = server
				var u lore.UndoResult
				if u, err = transfer.Undo(ctx, store, server, id, *actor); err == nil {
					line["restored"], line["removed"], line["missing"], line["undo_id"] = u.Restored, u.Removed, u.Missing, u.Record.ID
				}
			}
			if err != nil {
				line["error"] = err.Error()
				failed++
			}
			if err := out.Encode(line); err != nil {
				return err
			}
		}
		if failed > 0 {
			return &cli.ExitError{Code: 1, Msg: fmt.Sprintf("%d of %d undos failed; nothing of those changed", failed, len(undoIDs))}
		}
		return nil
	}

	var rep transfer.MigrationReport
	if *asJob {
		rep, err = migrateAsJob(ctx, pool, store, cfg.Jobs, postgres.MigrationRun{SourceName: source, SourceSHA256: transfer.Hash(data),
			Apply: *apply, Actor: *actor, Data: data}, logger, stderr)
		if err != nil {
			return err
		}
	} else {
		memories, err := transfer.ParseMemories(data)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		rep, err = transfer.MigrateMemories(ctx, store, memories, transfer.MigrateOptions{Apply: *apply, Actor: *actor,
			SourceName: source, SourceSHA256: transfer.Hash(data),
			Progress: func(done, total int) { fmt.Fprintf(stderr, "server blocks: %d/%d\n", done, total) }})
		if err != nil {
			return err
		}
	}
	if err := out.Encode(rep); err != nil {
		return err
	}
	if rep.Failed > 0 {
		return cli.Failf("%d server blocks were aborted (see their error in the report); the other servers are done", rep.Failed)
	}
	return nil
}

// errUndoPreview rolls back a previewed undo.
var errUndoPreview = errors.New("undo preview")

// previewUndo runs the undo of history record id in a transaction that is
// rolled back, and describes it in line: the entries it would remove
// (removed, with the first titles) and restore, and what stays (kept: the
// server's entries after the undo, collections and settings changed since).
func previewUndo(ctx context.Context, store *postgres.Store, server string, id int64, actor string, line map[string]any) error {
	err := store.WithTx(ctx, func(ctx context.Context, _ pgx.Tx, st *postgres.Store) error {
		before, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		u, err := transfer.Undo(ctx, st, server, id, actor)
		if err != nil {
			return err
		}
		after, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		left := make(map[int64]bool, len(after))
		for _, e := range after {
			left[e.ID] = true
		}
		titles := []string{}
		for _, e := range before {
			if !left[e.ID] && len(titles) < 50 {
				titles = append(titles, e.Title)
			}
		}
		line["removes"], line["removed_titles"], line["restores"], line["missing"] = u.Removed, titles, u.Restored, u.Missing
		line["keeps"] = map[string]any{"entries": len(after), "collections_changed_since": u.CollectionsKept, "book_settings_changed_since": u.BookSettingsKept}
		return errUndoPreview
	})
	if errors.Is(err, errUndoPreview) {
		return nil
	}
	return err
}

// readBounded reads a file of at most transfer.MaxMigrationBytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.Usagef("--from: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, transfer.MaxMigrationBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > transfer.MaxMigrationBytes {
		return nil, cli.Usagef("--from: %s is larger than %d bytes; split it by server", path, transfer.MaxMigrationBytes)
	}
	return data, nil
}

// legacyColumns renames accepted column aliases to the input's fields.
var legacyColumns = map[string]string{"channel_ids": "channel_disc_ids", "lineage_id": "persona_lineage_id"}

// readLegacyDB runs query on the legacy database in a read-only
// transaction and returns its rows as JSON lines (one object per row, keyed
// by column name).
func readLegacyDB(ctx context.Context, url, query string) ([]byte, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect to the legacy database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var out []byte
	err = pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		fields := rows.FieldDescriptions()
		for row := 1; rows.Next(); row++ {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			obj := make(map[string]any, len(vals))
			for i, f := range fields {
				name := f.Name
				if alias, ok := legacyColumns[name]; ok {
					name = alias
				}
				obj[name] = vals[i]
			}
			line, err := json.Marshal(obj)
			if err != nil {
				return fmt.Errorf("row %d: %w", row, err)
			}
			if len(out)+len(line)+1 > transfer.MaxMigrationBytes {
				return fmt.Errorf("the query returns more than %d bytes; narrow it (e.g. by server)", transfer.MaxMigrationBytes)
			}
			out = append(append(out, line...), '\n')
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the legacy memories: %w", err)
	}
	return out, nil
}

// migrateAsJob queues the run and follows its progress until the job
// finishes.
func migrateAsJob(ctx context.Context, pool *pgxpool.Pool, store *postgres.Store, jc jobsConfig, run postgres.MigrationRun, logger *slog.Logger, stderr io.Writer) (transfer.MigrationReport, error) {
	if _, err := transfer.ParseMemories(run.Data); err != nil {
		return transfer.MigrationReport{}, cli.Usagef("%v", err) // refuse a bad input now, not in the job
	}
	client, _, err := startJobs(ctx, pool, jc, false, logger, 0)
	if err != nil {
		return transfer.MigrationReport{}, err
	}
	queue := &jobs.Queue{Store: store, Client: client}
	run, job, err := queue.EnqueueMigration(ctx, run)
	if err != nil {
		return transfer.MigrationReport{}, err
	}
	fmt.Fprintf(stderr, "queued migration run %d as job %d; serve or worker processes work it\n", run.ID, job.ID)
	last := -1
	for {
		r, err := store.GetMigrationRun(ctx, run.ID)
		if err != nil {
			return transfer.MigrationReport{}, err
		}
		if r.Done != last {
			fmt.Fprintf(stderr, "server blocks: %d/%d\n", r.Done, r.Total)
			last = r.Done
		}
		if r.FinishedAt != nil {
			if r.Error != "" {
				return transfer.MigrationReport{}, &cli.ExitError{Code: 1, Msg: "migration run failed: " + r.Error}
			}
			var rep transfer.MigrationReport
			if err := json.Unmarshal(r.Report, &rep); err != nil {
				return rep, fmt.Errorf("decode the run's report: %w", err)
			}
			return rep, nil
		}
		row, err := client.JobGet(ctx, job.ID)
		if err != nil {
			return transfer.MigrationReport{}, fmt.Errorf("read job %d: %w", job.ID, err)
		}
		if row.State == rivertype.JobStateCancelled || row.State == rivertype.JobStateDiscarded {
			msg := string(row.State)
			if n := len(row.Errors); n > 0 {
				msg = row.Errors[n-1].Error
			}
			return transfer.MigrationReport{}, &cli.ExitError{Code: 1, Msg: fmt.Sprintf("migration job %d stopped: %s", job.ID, msg)}
		}
		select {
		case <-ctx.Done():
			return transfer.MigrationReport{}, errors.Join(ctx.Err(), fmt.Errorf("the job %d goes on; follow it with job(id)", job.ID))
		case <-time.After(500 * time.Millisecond):
		}
	}
}
