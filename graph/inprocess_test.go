package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
)

// TestExecutorDo: the in-process executor answers like the HTTP server
// (data as JSON, presented errors with a code, the same document limits)
// and places files at their variable paths. No store is read.
func TestExecutorDo(t *testing.T) {
	x := NewExecutor(Config{Resolver: &Resolver{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	file := map[string]graphql.Upload{"input.file": {File: bytes.NewReader([]byte("{}")), Filename: "a.json", Size: 2}}
	for _, tc := range []struct {
		name     string
		query    string
		vars     map[string]any
		files    map[string]graphql.Upload
		wantData string
		wantErr  string
	}{
		{name: "data", query: `{ __typename }`, wantData: `{"__typename":"Query"}`},
		{name: "validation error", query: `{ nope }`, wantErr: `Cannot query field "nope" on type "Query".`},
		{name: "depth limit", query: "{ __schema { types { fields { type " + strings.Repeat("{ ofType ", 12) + "{ name }" + strings.Repeat(" }", 16), wantErr: "levels deep"},
		{name: "no principal: no server", query: `query($s: String!) { server(discordId: $s) { name } }`, vars: map[string]any{"s": "1"}, wantData: `{"server":null}`},
		{name: "file under a missing object", query: `{ __typename }`, files: file, wantErr: `file input.file: "input" is not an object variable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := x.Do(context.Background(), tc.query, tc.vars, tc.files)
			if tc.wantErr != "" {
				require.NotEmpty(t, resp.Errors)
				require.Contains(t, resp.Errors[0].Message, tc.wantErr)
				return
			}
			require.Empty(t, resp.Errors)
			require.JSONEq(t, tc.wantData, string(resp.Data))
		})
	}
}

// TestJSONVariables: variables reach the validator as the HTTP transport
// decodes them: numbers as json.Number, typed strings (model enums) as
// strings, and a file set at its path.
func TestJSONVariables(t *testing.T) {
	type mode string
	var got map[string]any
	require.NoError(t, jsonVariables(map[string]any{"input": map[string]any{"n": int64(1) << 60, "mode": mode("APPEND"), "file": nil}}, &got))
	in := got["input"].(map[string]any)
	require.Equal(t, json.Number("1152921504606846976"), in["n"])
	require.Equal(t, "APPEND", in["mode"])
	up := graphql.Upload{Filename: "a.json"}
	require.NoError(t, setUpload(got, "input.file", up))
	require.Equal(t, up, in["file"])
}
