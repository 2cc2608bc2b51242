package activatecmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/sharedtest"
)

// positionsOut is the part of the JSON output that says where lore goes.
type positionsOut struct {
	Admitted []struct {
		ID       int64                      `json:"id"`
		Title    string                     `json:"title"`
		Position map[string]json.RawMessage `json:"position"`
	} `json:"admitted"`
	Injections []struct {
		Kind     string  `json:"kind"`
		Depth    *int    `json:"depth"`
		Role     *string `json:"role"`
		Outlet   *string `json:"outlet"`
		Text     string  `json:"text"`
		EntryIDs []int64 `json:"entryIds"`
	} `json:"injections"`
	Passes int `json:"passes"`
	Trace  []struct {
		ID      int64  `json:"id"`
		Title   string `json:"title"`
		Verdict string `json:"verdict"`
		Detail  string `json:"detail"`
	} `json:"trace"`
}

func runPositions(t *testing.T, chat string, args ...string) positionsOut {
	t.Helper()
	code, stdout, stderr := runCmd(t, chat, append(args, "--chat", "-")...)
	require.Equal(t, 0, code, stderr)
	var out positionsOut
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	return out
}

// The SillyTavern default book's entries (untitled) by id: uid 0-3 in
// book order.
const (
	forest     = 1
	shadowfang = 2
	glade      = 3
)

func verdictsByID(out positionsOut) map[int64]string {
	v := map[int64]string{}
	for _, tr := range out.Trace {
		v[tr.ID] = tr.Verdict
	}
	return v
}

// TestActivatePositionsDateALive: a real world info with AT_DEPTH entries
// (depth 0 and 4, role system): each admitted entry's position has its four
// keys, depth and role only for AT_DEPTH; the injections group them per
// depth and role, and the BEFORE_CHAR / AFTER_CHAR entries are not in them.
func TestActivatePositionsDateALive(t *testing.T) {
	book := sharedtest.Path(t, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0.json")
	out := runPositions(t, `["Kurumi loads Zafkiel's Bullets.", "Shido plans a Ratatoskr Date."]`, "--book", book, "--budget", "-1")
	byDepth := map[int][]int64{}
	var zafkiel bool
	for _, a := range out.Admitted {
		require.Len(t, a.Position, 4, "kind, depth, role, outlet: %s", a.Title)
		var kind string
		require.NoError(t, json.Unmarshal(a.Position["kind"], &kind))
		require.Equal(t, "null", string(a.Position["outlet"]))
		if kind != "AT_DEPTH" {
			require.Equal(t, "null", string(a.Position["depth"]), a.Title)
			require.Equal(t, "null", string(a.Position["role"]), a.Title)
			continue
		}
		require.Equal(t, `"system"`, string(a.Position["role"]), "role in lower case: %s", a.Title)
		var d int
		require.NoError(t, json.Unmarshal(a.Position["depth"], &d))
		byDepth[d] = append(byDepth[d], a.ID)
		if a.Title == "Zafkiel's Bullets" {
			zafkiel = true
			require.Equal(t, 0, d, "the file's depth 0")
		}
	}
	require.True(t, zafkiel, "the keyword AT_DEPTH entry fired")
	require.Len(t, out.Injections, 2, "depth 0 and depth 4, both system")
	for i, in := range out.Injections {
		require.Equal(t, "AT_DEPTH", in.Kind)
		require.Equal(t, []int{0, 4}[i], *in.Depth)
		require.Equal(t, "system", *in.Role)
		require.Nil(t, in.Outlet)
		require.Equal(t, byDepth[*in.Depth], in.EntryIDs)
	}
}

// TestActivatePinnedFlags runs the pinned flags on the SillyTavern default
// book: --include-names, --min-activations(-depth-max), --max-entries,
// --generation-type and --context (a copy of the book whose entries set a
// character filter and generation types).
func TestActivatePinnedFlags(t *testing.T) {
	eldoria := eldoriaBook(t)
	// Include names: the speaker's name is scanned.
	chat := `[{"name": "Shadowfang", "content": "hello"}]`
	require.Equal(t, "no_key_match", verdictsByID(runPositions(t, chat, "--book", eldoria))[shadowfang])
	require.Equal(t, "admitted", verdictsByID(runPositions(t, chat, "--book", eldoria, "--include-names"))[shadowfang])

	// Min activations: the glade is 4 messages back (scan depth 2).
	chat = `["the glade", "one", "two", "three"]`
	require.Equal(t, "no_key_match", verdictsByID(runPositions(t, chat, "--book", eldoria))[glade])
	out := runPositions(t, chat, "--book", eldoria, "--min-activations", "1")
	require.Equal(t, "admitted", verdictsByID(out)[glade])
	require.Equal(t, 3, out.Passes)
	out = runPositions(t, chat, "--book", eldoria, "--min-activations", "1", "--min-activations-depth-max", "3")
	require.Equal(t, "no_key_match", verdictsByID(out)[glade], "a depth max of 3 scans 3 messages")

	// Max entries: forest and glade fire, one is kept.
	out = runPositions(t, `["the glade in the forest"]`, "--book", eldoria, "--max-entries", "1")
	require.Len(t, out.Admitted, 1)
	v := verdictsByID(out)
	require.ElementsMatch(t, []string{"admitted", "over_entry_cap"}, []string{v[forest], v[glade]})

	// Filters: the glade for Alice only, the forest on continue only.
	var book map[string]any
	raw, err := os.ReadFile(eldoria)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &book))
	entries := book["entries"].(map[string]any)
	entries["2"].(map[string]any)["characterFilter"] = map[string]any{"isExclude": false, "names": []string{"Alice"}, "tags": []string{}}
	entries["0"].(map[string]any)["triggers"] = []string{"continue"}
	data, err := json.Marshal(book)
	require.NoError(t, err)
	dir := t.TempDir()
	filtered := filepath.Join(dir, "filtered.json")
	require.NoError(t, os.WriteFile(filtered, data, 0o600))
	ctxFile := filepath.Join(dir, "context.json")
	require.NoError(t, os.WriteFile(ctxFile, []byte(`{"character": {"name": "Alice", "tags": ["elf"], "description": "a ranger"}, "persona": {"name": "Ana"}}`), 0o600))
	chat = `["the glade in the forest"]`
	v = verdictsByID(runPositions(t, chat, "--book", filtered))
	require.Equal(t, "filtered_character", v[glade], "no character: an include filter blocks")
	require.Equal(t, "filtered_generation_type", v[forest])
	v = verdictsByID(runPositions(t, chat, "--book", filtered, "--context", ctxFile, "--generation-type", "continue"))
	require.Equal(t, "admitted", v[glade])
	require.Equal(t, "admitted", v[forest])

	// Bad values are exit 2 naming the flag or the file.
	code, _, stderr := runCmd(t, chat, "--book", eldoria, "--chat", "-", "--generation-type", "sideways")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--generation-type")
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"character": {"nickname": "x"}}`), 0o600))
	code, _, stderr = runCmd(t, chat, "--book", eldoria, "--chat", "-", "--context", bad)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "nickname")
	code, _, stderr = runCmd(t, chat, "--book", eldoria, "--chat", "-", "--max-entries", "-1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--max-entries")
}
