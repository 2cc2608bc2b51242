package convertcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/cli"
	"loregate/graph/generated"
)

// TestReportNamesAreTheAPIs: every field of the GraphQL ConversionReport is
// a key of the CLI report, with the same JSON kind; the keys of earlier
// releases stay.
func TestReportNamesAreTheAPIs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), cli.Env{Stdin: strings.NewReader(wi), Stdout: &stdout, Stderr: &stderr}, []string{"-", "--report-only"})
	require.NoError(t, err, stderr.String())
	var rep map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	def := generated.NewExecutableSchema(generated.Config{}).Schema().Types["ConversionReport"]
	require.NotNil(t, def)
	for _, f := range def.Fields {
		v, ok := rep[f.Name]
		require.True(t, ok, "CLI report lacks the API's %q", f.Name)
		switch {
		case f.Type.Elem != nil:
			require.IsType(t, []any{}, v, f.Name)
		case f.Type.Name() == "Int":
			require.IsType(t, float64(0), v, f.Name)
		case f.Type.Name() == "String":
			require.IsType(t, "", v, f.Name)
		}
	}
	for _, old := range []string{"unsupported_keys", "ignored_settings", "collapsed_placements"} {
		require.Contains(t, rep, old, "earlier key kept")
	}
	require.Equal(t, []any{map[string]any{"name": "automation", "count": float64(1)}}, rep["ignoredSettings"])
}
