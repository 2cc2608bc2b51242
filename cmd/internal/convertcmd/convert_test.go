package convertcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"loregate/cmd/internal/cli"
	"loregate/lore/sharedtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const wi = `{"entries":{"0":{"uid":0,"key":["moon"],"content":"Moon lore.","comment":"moon","position":4,"depth":2,"sticky":3,"automationId":"moon-hook"}}}`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "book.json")
	require.NoError(t, os.WriteFile(in, []byte(wi), 0o644))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"hello":1}`), 0o644))

	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHas  string
		stderrHas  string
		stderrLine bool // exactly one line on stderr
	}{
		{"st to stdout", []string{in}, 0, `"depth": 2`, `"collapsed_placements": 0`, false},
		{"ccv3", []string{in, "--to", "ccv3"}, 0, `"spec": "lorebook_v3"`, `"format": "st-worldinfo"`, false},
		{"canonical", []string{"--to=canonical", in}, 0, `"content": "Moon lore."`, `"ignored_settings"`, false},
		{"report only", []string{in, "--report-only"}, 0, `"unsupported_keys": []`, "", false},
		{"novelai", []string{in, "--to", "novelai"}, 0, `"lorebookVersion"`, `"format": "st-worldinfo"`, false},
		{"risu", []string{in, "--to", "risu"}, 0, `"content": "@@depth 2\n@@role system\nMoon lore."`, `"format": "st-worldinfo"`, false},
		{"agnai", []string{in, "--to", "agnai"}, 0, `"kind": "memory"`, `1 entry is not after the character, and Agnai has no position field`, false},
		{"worldbook", []string{in, "--to", "worldbook"}, 0, `"type": "at_depth"`, `"format": "st-worldinfo"`, false},
		{"minimal card", []string{in, "--to", "card"}, 0, `"spec": "chara_card_v3"`, `"format": "st-worldinfo"`, false},
		{"png card", []string{in, "--to", "png"}, 0, "\x89PNG", `"format": "st-worldinfo"`, false},
		{"charx card", []string{in, "--to", "charx"}, 0, "card.json", `"format": "st-worldinfo"`, false},
		{"bad --long-entries", []string{in, "--long-entries", "trim"}, 2, "", `--long-entries "trim"`, true},
		{"missing input", []string{}, 2, "", "missing input file", false},
		{"bad --to", []string{in, "--to", "xml"}, 2, "", `--to "xml"`, true},
		{"unknown format", []string{bad}, 2, "", "unknown lorebook format", true},
		{"absent file", []string{filepath.Join(dir, "nope.json")}, 2, "", "cannot open input", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := cli.Status(&stderr, "convert", Run(context.Background(), cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, tc.args))
			require.Equal(t, tc.code, code, "stderr: %s", stderr.String())
			require.Contains(t, stdout.String(), tc.stdoutHas)
			require.Contains(t, stderr.String(), tc.stderrHas)
			if tc.stderrLine {
				require.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
			}
			if tc.name == "report only" {
				require.Empty(t, stderr.String())
				var rep map[string]any
				require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
				for _, k := range []string{"format", "entries", "skipped", "unsupported_keys", "ignored_settings", "collapsed_placements", "warnings"} {
					require.Contains(t, rep, k)
				}
				require.Equal(t, map[string]any{"automation": float64(1)}, rep["ignored_settings"], "sticky and vectorized have fields now; automationId has none")
			}
		})
	}
}

func TestRunOutputFileAndStdin(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	code := cli.Status(&stderr, "convert", Run(context.Background(), cli.Env{Stdin: strings.NewReader(wi), Stdout: &stdout, Stderr: &stderr}, []string{"-", "-o", out}))
	require.Equal(t, 0, code, stderr.String())
	require.Empty(t, stdout.String())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(got), `"moon"`)
	require.Contains(t, stderr.String(), `"entries": 1`)
}

// TestConvertWholeCorpus: `loregate convert` applies no store limit, so
// every corpus file converts with no entry lost (only empty rows skipped,
// and reported), the 3.5 MB world info and the long entries included.
// (lore/format's TestCorpusSameFormatExport compares the outputs.)
func TestConvertWholeCorpus(t *testing.T) {
	root := sharedtest.Path(t, "corpus")
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus holds files")
	n := 0
	for _, path := range files {
		if filepath.Base(path) == "README.md" || strings.Contains(path, "nobook") {
			continue
		}
		n++
		var stdout, stderr bytes.Buffer
		code := cli.Status(&stderr, "convert", Run(context.Background(), cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, []string{path, "--report-only"}))
		require.Equal(t, 0, code, "%s: %s", path, stderr.String())
		var rep struct {
			Entries int
			Skipped []struct{ Reason string }
			Split   []struct{ Parts int }
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), path)
		for _, s := range rep.Skipped {
			require.Equal(t, "no content", s.Reason, "%s: only empty rows are skipped", path)
		}
		require.Empty(t, rep.Split, "%s: nothing is over the content ceiling", path)
	}
	require.GreaterOrEqual(t, n, 19)
}
