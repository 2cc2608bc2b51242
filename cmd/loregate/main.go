// Command loregate is the lorebook service for Discord roleplay bots.
//
// Usage:
//
//	loregate serve     [--addr ADDR] [--data-dir DIR]   run the HTTP service
//	loregate worker    [--data-dir DIR]                 run only the background jobs
//	loregate migrate   up | status | down N [--yes | --force]  manage the schema
//	loregate activate  --book PATH --chat PATH ...      offline activation
//	loregate convert   IN [-o OUT] [--to FORMAT]        convert a lorebook file
//	loregate migrate-memories --from FILE --apply      migrate legacy keyword memories
//	loregate with-postgres [--dir DIR] -- CMD [ARGS]    run CMD against a throwaway Postgres
//	loregate token --user ID --guild GUILD[:manage]     mint a development member token
//
// Configuration comes from the environment (see docs/configuration.md) and
// flags; flags win. main is wiring only: every subcommand is a cli.Func
// (cmd/internal/cli) listed in one command table, builds its dependencies
// from the config and runs until its context ends.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"loregate/cmd/internal/cli"
	"loregate/cmd/internal/convertcmd"
)

// commands is the command table: the usage text and the dispatch come from
// it.
var commands = []cli.Command{
	{Name: "serve", Synopsis: "[--addr ADDR] [--data-dir DIR]", Summary: "run the HTTP service", Run: runServe},
	{Name: "worker", Synopsis: "[--data-dir DIR]", Summary: "run only the background jobs", Run: runWorker},
	{Name: "migrate", Synopsis: "up | status | down N [--yes | --force]", Summary: "manage the database schema", Run: runMigrate},
	{Name: "activate", Synopsis: "--book PATH --chat PATH [flags]", Summary: "run the activation engine offline",
		Run: runActivate, Prefix: "activate"},
	{Name: "convert", Synopsis: "IN [-o OUT] [--to st|ccv3|card|png|charx|novelai|risu|agnai|worldbook|canonical] [--report-only]",
		Summary: "convert a lorebook file", Run: convertcmd.Run, Prefix: "convert"},
	{Name: "migrate-memories", Synopsis: "--from FILE | --from-db URL --query SQL (--preview | --apply) [--job] | --undo ID[,ID...]",
		Summary: "migrate legacy keyword memories into lore, or undo it", Run: runMigrateMemories},
	{Name: "with-postgres", Synopsis: "[--dir DIR] -- CMD [ARGS...]", Summary: "run CMD with a throwaway local Postgres", Run: runWithPostgres},
	{Name: "token", Synopsis: "--user ID --guild GUILD[:manage]", Summary: "mint a development member token (LOREGATE_JWT_SECRET)", Run: runToken},
}

// usage is the top-level usage text.
func usage() string {
	return cli.Usage("loregate: lorebook service for Discord roleplay bots\n\nUsage:\n", commands,
		"\nRun 'loregate COMMAND --help' for a command's flags.\n")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, cli.OS(), os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches args to the command table and returns the exit status.
// Help asked for (loregate --help, loregate COMMAND --help) goes to stdout,
// so it pages and greps; usage errors go to stderr.
func run(ctx context.Context, env cli.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage())
		return cli.ExitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.Stdout, usage())
		return 0
	}
	for _, c := range commands {
		if c.Name == args[0] {
			if asksHelp(args[1:]) {
				env.Stderr = env.Stdout
			}
			return cli.Status(env.Stderr, c.Prefix, c.Run(ctx, env, args[1:]))
		}
	}
	fmt.Fprintf(env.Stderr, "loregate: unknown command %q\n\n%s", args[0], usage())
	return cli.ExitUsage
}

// asksHelp reports whether a command's args ask for its help (-h, -help or
// --help before a "--"): the command then prints only its usage, which
// belongs on stdout.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
