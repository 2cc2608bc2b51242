package activatecmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStateFile records offline turns in a --state file: a match decorator
// reads what earlier turns recorded, a dry run reads without writing, and a
// used turn id is refused.
func TestStateFile(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "book.json")
	require.NoError(t, os.WriteFile(book, []byte(`{"entries": {
		"0": {"uid": 0, "key": ["dragon"], "content": "@@dont_activate_after_match\nOnce lore.", "comment": "Once"},
		"1": {"uid": 1, "key": ["dragon"], "content": "@@keep_activate_after_match\nKept lore.", "comment": "Keep"}}}`), 0o600))
	state := filepath.Join(dir, "state.json")
	verdicts := func(args ...string) map[string]string {
		t.Helper()
		code, stdout, stderr := runCmd(t, "", append([]string{"--book", book, "--state", state}, args...)...)
		require.Equal(t, 0, code, stderr)
		var out output
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		v := map[string]string{}
		for _, tr := range out.Trace {
			v[tr.Title] = tr.Verdict
		}
		return v
	}
	first := writeChat(t, `["a dragon"]`)
	later := writeChat(t, `["a dragon", "reply", "nothing here"]`)

	require.Equal(t, map[string]string{"Once": "admitted", "Keep": "admitted"}, verdicts("--chat", first, "--turn-id", "t1"))
	written, err := os.ReadFile(state)
	require.NoError(t, err)
	require.Contains(t, string(written), `"t1"`)

	// A dry run at count 3 sees the match of turn t1 and writes nothing.
	require.Equal(t, map[string]string{"Once": "decorator_blocked", "Keep": "admitted"}, verdicts("--chat", later))
	again, err := os.ReadFile(state)
	require.NoError(t, err)
	require.Equal(t, written, again)

	require.Equal(t, map[string]string{"Once": "decorator_blocked", "Keep": "admitted"}, verdicts("--chat", later, "--turn-id", "t2"))
	code, _, stderr := runCmd(t, "", "--book", book, "--state", state, "--chat", later, "--turn-id", "t2")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "already recorded")
	code, _, stderr = runCmd(t, "", "--book", book, "--chat", later, "--turn-id", "t3")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "needs --state")
	require.NoError(t, os.WriteFile(state, []byte("{oops"), 0o600))
	code, _, stderr = runCmd(t, "", "--book", book, "--chat", later, "--state", state)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "not a state file")
}
