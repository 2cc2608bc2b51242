// Package cli is the one shape of every loregate subcommand: a Func takes a
// context, an Env (the process's standard streams and environment) and the
// arguments after the command name, and returns an error. Status turns that
// error into the exit status and the one line on stderr: nil exits 0, an
// *ExitError exits with its Code (ExitUsage for bad flags or input, ExitFailure
// for work that failed), any other error exits ExitFailure. cmd/loregate
// builds its usage text and its dispatch from one table of Commands.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses of every loregate command.
const (
	// ExitFailure: the work failed (a database, a write, a child process).
	ExitFailure = 1
	// ExitUsage: bad flags, arguments, settings or input files.
	ExitUsage = 2
)

// Env is what a command may touch of its process: the standard streams and
// the environment. Getenv is only called by the configuration loader
// (cmd/loregate/config.go); tests give their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads an environment variable ("" when unset).
	Getenv func(key string) string
}

// OS is the Env of the running process.
func OS() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// FlagSet returns the flag set of command name: it prints its usage and
// parse errors on e.Stderr and returns the error (FlagError maps it).
func (e Env) FlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	return fs
}

// Func is a subcommand: args are the arguments after its name.
type Func func(ctx context.Context, env Env, args []string) error

// Command is one row of the command table.
type Command struct {
	// Name is the word after `loregate`.
	Name string
	// Synopsis shows the arguments ("up | status | down N [--yes]").
	Synopsis string
	// Summary is the one-line description in the usage text.
	Summary string
	// Run runs the command.
	Run Func
	// Prefix starts the error line on stderr ("loregate" when empty).
	Prefix string
}

// ExitError ends a command with Code. Msg, when not empty, is printed on
// stderr as "PREFIX: Msg"; an empty Msg prints nothing (the command has
// printed what it had to, or Code is 0 after --help).
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Usagef is a usage error (exit 2) with a formatted message.
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf(format, args...)}
}

// Failf is a failure (exit 1) with a formatted message.
func Failf(format string, args ...any) error {
	return &ExitError{Code: ExitFailure, Msg: fmt.Sprintf(format, args...)}
}

// Exit is an exit with code and no message.
func Exit(code int) error { return &ExitError{Code: code} }

// FlagError maps a parse error of a flag set made by Env.FlagSet: --help
// (flag.ErrHelp) exits 0, any other error is a usage error (exit 2) with no
// message of its own, since the flag set has printed the error and its usage
// on stderr already (Status printing it again would show it twice).
func FlagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return Exit(0)
	}
	return Exit(ExitUsage)
}

// Status prints err on stderr (one "PREFIX: message" line, none for nil or
// an empty ExitError message) and returns the exit status.
func Status(stderr io.Writer, prefix string, err error) int {
	if err == nil {
		return 0
	}
	if prefix == "" {
		prefix = "loregate"
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	return ExitFailure
}

// maxSynopsis is the widest command column; longer synopses push their
// summary to the right.
const maxSynopsis = 50

// Usage is the usage text of a command table: head, then one line per
// command (name, synopsis, summary; a long synopsis puts its summary on
// the next line), then foot.
func Usage(head string, cmds []Command, foot string) string {
	var b strings.Builder
	b.WriteString(head)
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name)+1+len(c.Synopsis))
	}
	width = min(width, maxSynopsis)
	for _, c := range cmds {
		line := c.Name + " " + c.Synopsis
		if len(line) > width {
			// The summary goes below, in its column.
			fmt.Fprintf(&b, "  loregate %s\n  %-*s           %s\n", line, width, "", c.Summary)
			continue
		}
		fmt.Fprintf(&b, "  loregate %-*s  %s\n", width, line, c.Summary)
	}
	b.WriteString(foot)
	return b.String()
}
