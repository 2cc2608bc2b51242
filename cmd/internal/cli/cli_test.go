package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStatus(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		err    error
		code   int
		stderr string
	}{
		{"nil", "", nil, 0, ""},
		{"help", "", FlagError(flag.ErrHelp), 0, ""},
		{"usage", "", Usagef("bad %q", "x"), ExitUsage, "loregate: bad \"x\"\n"},
		{"bad flag: the flag set printed it", "", FlagError(errors.New("flag provided but not defined: -q")), ExitUsage, ""},
		{"failure", "activate", Failf("boom"), ExitFailure, "activate: boom\n"},
		{"wrapped usage keeps its context", "convert", fmt.Errorf("book a.json: %w", Usagef("not JSON")), ExitUsage, "convert: book a.json: not JSON\n"},
		{"plain error", "", errors.New("database down"), ExitFailure, "loregate: database down\n"},
		{"silent", "", Exit(7), 7, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.Equal(t, tt.code, Status(&b, tt.prefix, tt.err))
			require.Equal(t, tt.stderr, b.String())
		})
	}
}

func TestUsage(t *testing.T) {
	cmds := []Command{
		{Name: "serve", Synopsis: "[--addr ADDR]", Summary: "run it"},
		{Name: "long", Synopsis: strings.Repeat("x", maxSynopsis+5), Summary: "below"},
	}
	got := Usage("head\n", cmds, "foot\n")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	require.Len(t, lines, 5, got)
	require.Equal(t, "head", lines[0])
	require.Regexp(t, `^  loregate serve \[--addr ADDR\] +run it$`, lines[1])
	require.Equal(t, "  loregate long "+strings.Repeat("x", maxSynopsis+5), lines[2])
	require.Equal(t, strings.Index(lines[1], "run it"), strings.Index(lines[3], "below"), "summaries share one column")
	require.Equal(t, "foot", lines[4])
}
