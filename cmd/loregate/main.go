// Command loregate is the lorebook service for Discord roleplay bots.
//
// Usage:
//
//	loregate serve     [--addr ADDR] [--data-dir DIR]   run the HTTP service
//	loregate worker    [--data-dir DIR]                 run only the background jobs
//	loregate migrate   up | status | down N [--yes]     manage the schema
//	loregate activate  --book PATH --chat PATH ...      offline activation
//	loregate convert   IN [-o OUT] [--to FORMAT]        convert a lorebook file
//	loregate migrate-memories --from FILE --apply      migrate legacy keyword memories
//	loregate with-postgres [--dir DIR] -- CMD [ARGS]    run CMD against a throwaway Postgres
//	loregate token --user ID --guild GUILD[:manage]     mint a development member token
//
// Configuration comes from the environment (see docs/configuration.md) and
// flags; flags win. main is wiring only: each subcommand builds its
// dependencies from the config and runs until its context ends.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"loregate/cmd/internal/activatecmd"
	"loregate/cmd/internal/convertcmd"
)

const usage = `loregate: lorebook service for Discord roleplay bots

Usage:
  loregate serve [--addr ADDR] [--data-dir DIR]        run the HTTP service
  loregate worker [--data-dir DIR]                     run only the background jobs
  loregate migrate up | status | down N [--yes]        manage the database schema
  loregate activate --book PATH --chat PATH [flags]    run the activation engine offline
  loregate convert IN [-o OUT] [--to st|ccv3|novelai|risu|agnai|canonical] [--report-only]
  loregate migrate-memories --from FILE | --from-db URL --query SQL (--preview | --apply) [--job]
  loregate migrate-memories --undo ID[,ID...]          migrate legacy keyword memories into lore, or undo it
  loregate with-postgres [--dir DIR] -- CMD [ARGS...]  run CMD with a throwaway local Postgres
  loregate token --user ID --guild GUILD[:manage]      mint a development member token (LOREGATE_JWT_SECRET)

Run 'loregate COMMAND --help' for a command's flags.
`

// exitUsage is the exit status for bad input (flags, files).
const exitUsage = 2

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return exitUsage
		}
		return 0
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "serve":
		err = runServe(ctx, rest, stderr)
	case "worker":
		err = runWorker(ctx, rest, stderr)
	case "migrate":
		err = runMigrate(ctx, rest, stdout, stderr)
	case "migrate-memories":
		err = runMigrateMemories(ctx, rest, stdout, stderr)
	case "with-postgres":
		err = runWithPostgres(ctx, rest, stderr)
	case "token":
		err = runToken(rest, stdout, stderr)
	case "activate":
		return activatecmd.Run(ctx, rest, stdin, stdout, stderr)
	case "convert":
		return convertcmd.Run(ctx, rest, stdin, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "loregate: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(stderr, "loregate:", ee.msg)
		}
		return ee.code
	default:
		fmt.Fprintln(stderr, "loregate:", err)
		return 1
	}
}

// exitError carries a specific exit status (2 for usage errors, or a child
// process's status for with-postgres).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// flagError is the result of a flag set's parse error: --help (flag.ErrHelp,
// the flag set has printed its usage) exits 0, any other error is a usage
// error (exit 2).
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return &exitError{code: 0}
	}
	return usageError("%v", err)
}

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}
