package activatecmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"loregate/lore/sharedtest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/activatecmd"
	"loregate/cmd/internal/cli"
)

// knownImporterFaults are turn2 runs that still fail because of an
// importer fault outside the engine and this command, with the fault. The
// test asserts that each still fails, so the fix makes the test fail until
// its line is removed here.
var knownImporterFaults = map[string]string{}

// TestTurn2Cases runs every "run:" line of every cases/turn2/BUG-*/expect.txt
// through this command (the real importers and engine), as run_cases.py
// does: `activate --book book.json --chat <chat> <flags> --format json`,
// then the admitted titles (as a set, or in order with "ordered"),
// "lacks=<text>" and "content:<title>=<text>" checks.
func TestTurn2Cases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(sharedtest.Path(t, "cases", "turn2"), "BUG-*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "cases/turn2 holds cases")
	runs := 0
	for _, dir := range dirs {
		expect, err := os.ReadFile(filepath.Join(dir, "expect.txt"))
		require.NoError(t, err)
		for line := range strings.SplitSeq(string(expect), "\n") {
			spec, ok := strings.CutPrefix(line, "run:")
			if !ok {
				continue
			}
			runs++
			parts := strings.Split(spec, "|")
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			require.GreaterOrEqual(t, len(parts), 3, "%s: %q", dir, line)
			name := filepath.Base(dir) + "/" + parts[0]
			t.Run(name+"/"+parts[1], func(t *testing.T) {
				why := runTurn2(t, dir, parts)
				if fault, ok := knownImporterFaults[name]; ok {
					require.NotEmpty(t, why, "%s passes now: remove it from knownImporterFaults (%s)", name, fault)
					return
				}
				require.Empty(t, why)
			})
		}
	}
	require.NotZero(t, runs)
}

// runTurn2 runs one run: line (parts: chat file, flags, titles, checks) and
// returns why it fails (nil when it passes).
func runTurn2(t *testing.T, dir string, parts []string) []string {
	args := append([]string{"--book", filepath.Join(dir, "book.json"), "--chat", filepath.Join(dir, parts[0])}, splitFlags(t, parts[1])...)
	var stdout, stderr bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}
	if code := cli.Status(&stderr, "activate", activatecmd.Run(context.Background(), env, append(args, "--format", "json"))); code != 0 {
		return []string{fmt.Sprintf("exit %d: %s", code, stderr.String())}
	}
	var out output
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	got := []string{}
	for _, a := range out.Admitted {
		got = append(got, a.Title)
	}
	want := []string{}
	for w := range strings.SplitSeq(parts[2], ",") {
		if w = strings.TrimSpace(w); w != "" {
			want = append(want, w)
		}
	}
	var checks []string
	if len(parts) > 3 && parts[3] != "" {
		checks = strings.Split(parts[3], ";")
	}
	var why []string
	if slices.Contains(checks, "ordered") {
		if !slices.Equal(got, want) {
			why = append(why, fmt.Sprintf("order: got %q, want %q", got, want))
		}
	} else if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		why = append(why, fmt.Sprintf("set: got %q, want %q", got, want))
	}
	for _, c := range checks {
		if text, ok := strings.CutPrefix(c, "lacks="); ok {
			for _, a := range out.Admitted {
				if strings.Contains(a.Content, text) {
					why = append(why, fmt.Sprintf("content of %s contains %q", a.Title, text))
				}
			}
		}
		if spec, ok := strings.CutPrefix(c, "content:"); ok {
			title, text, _ := strings.Cut(spec, "=")
			text = strings.ReplaceAll(text, `\n`, "\n")
			var contents []string
			for _, a := range out.Admitted {
				if a.Title == title {
					contents = append(contents, a.Content)
				}
			}
			if !slices.Equal(contents, []string{text}) {
				why = append(why, fmt.Sprintf("content of %s is %q, want %q", title, contents, text))
			}
		}
	}
	if why != nil {
		why = append(why, fmt.Sprintf("trace: %+v", out.Trace))
	}
	return why
}

// splitFlags splits a shell-quoted flag string (double or single quotes,
// no escapes), as run_cases.py's shlex.split does for these lines.
func splitFlags(t *testing.T, s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	require.Zero(t, quote, "unterminated quote in %q", s)
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
