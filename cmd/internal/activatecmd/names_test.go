package activatecmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/generated"
)

// TestJSONNamesAreTheAPIs: the activate JSON has the GraphQL Activation's
// field names at every level (storeUnavailable and notices aside: the CLI
// reads no store, so no persona registry either), and no other.
func TestJSONNamesAreTheAPIs(t *testing.T) {
	book := filepath.Join(t.TempDir(), "book.json")
	require.NoError(t, os.WriteFile(book, []byte(`{"entries": {"0": {"uid": 0, "key": ["glade"], "content": "A glade.", "comment": "Glade"}}}`), 0o600))
	code, stdout, stderr := runCmd(t, `["the glade"]`, "--book", book, "--chat", "-")
	require.Equal(t, 0, code, stderr)
	var out map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	types := generated.NewExecutableSchema(generated.Config{}).Schema().Types
	names := func(typ string) []string {
		var n []string
		for _, f := range types[typ].Fields {
			if f.Name != "storeUnavailable" && f.Name != "notices" {
				n = append(n, f.Name)
			}
		}
		return n
	}
	firstOf := func(raw json.RawMessage) map[string]json.RawMessage {
		var list []map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &list))
		require.NotEmpty(t, list)
		return list[0]
	}
	var budget map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out["budget"], &budget))
	for _, c := range []struct {
		typ string
		obj map[string]json.RawMessage
	}{
		{"Activation", out},
		{"AdmittedEntry", firstOf(out["admitted"])},
		{"PromptBlock", firstOf(out["blocks"])},
		{"Budget", budget},
		{"TraceItem", firstOf(out["trace"])},
	} {
		require.ElementsMatch(t, names(c.typ), keys(c.obj), c.typ)
	}
}
