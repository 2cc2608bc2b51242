package graph_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/graphtest"
)

// TestMultipartErrorsSayWhatToSend: a malformed upload request gets an
// error naming the form field at fault and how an upload is sent.
func TestMultipartErrorsSayWhatToSend(t *testing.T) {
	a := wrap(t, graphtest.New(t, graphtest.Options{NoStore: true}))
	const ops = `{"query":"mutation($file: Upload!) { importLorebook(input: {serverDiscordId: \"1\", lineageId: 0, file: $file}) { added } }","variables":{"file":null}}`
	type field struct{ name, value string }
	for _, tc := range []struct {
		name   string
		fields []field
		want   string
	}{
		{"map missing", []field{{"operations", ops}, {"0", "{}"}}, `the second form field must be "map"`},
		{"operations first", []field{{"map", `{"0":["variables.file"]}`}, {"operations", ops}}, `the first form field must be "operations"`},
		{"map not JSON", []field{{"operations", ops}, {"map", "0=variables.file"}}, `"map" is not a JSON object`},
		{"file not mapped", []field{{"operations", ops}, {"map", `{"1":["variables.file"]}`}, {"0", "{}"}}, `the form field "0" is not named in "map"`},
		{"mapped file missing", []field{{"operations", ops}, {"map", `{"0":["variables.file"]}`}}, `"map" names the form field "0", but no file was sent in it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			for _, f := range tc.fields {
				if f.name == "0" {
					fw, err := mw.CreateFormFile(f.name, "book.json")
					require.NoError(t, err)
					_, err = fw.Write([]byte(f.value))
					require.NoError(t, err)
					continue
				}
				require.NoError(t, mw.WriteField(f.name, f.value))
			}
			require.NoError(t, mw.Close())
			req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", &body)
			require.NoError(t, err)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("Authorization", "Bearer "+serviceKey)
			r := a.send(req)
			require.Len(t, r.Errors, 1)
			require.Contains(t, r.Errors[0].Message, "multipart upload: ")
			require.Contains(t, r.Errors[0].Message, tc.want)
			require.Contains(t, r.Errors[0].Message, "docs/api.md#uploads")
			require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"])
			require.Equal(t, http.StatusUnprocessableEntity, r.status)
		})
	}
}

// TestMultipartNullVariableSaysMap: a "map" whose path names another
// variable (variables.fil for variables.file) leaves the Upload! variable
// null; the error says to map the file to it (it said only "cannot be
// null"), keeping its code and path. A JSON request is answered as before.
func TestMultipartNullVariableSaysMap(t *testing.T) {
	a := wrap(t, graphtest.New(t, graphtest.Options{NoStore: true}))
	const query = `mutation($file: Upload!) { importLorebook(input: {serverDiscordId: "1", lineageId: 0, file: $file}) { added } }`
	upload := func(mapping string) gqlResponse {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		require.NoError(t, mw.WriteField("operations", `{"query":`+strconv.Quote(query)+`,"variables":{"file":null}}`))
		require.NoError(t, mw.WriteField("map", mapping))
		fw, err := mw.CreateFormFile("0", "book.json")
		require.NoError(t, err)
		_, err = fw.Write([]byte(`{"entries":{}}`))
		require.NoError(t, err)
		require.NoError(t, mw.Close())
		req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/graphql", &body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+serviceKey)
		return a.send(req)
	}
	for _, tc := range []struct {
		name string
		send func() gqlResponse
		want string
	}{
		{"map names another variable", func() gqlResponse { return upload(`{"0":["variables.fil"]}`) },
			`multipart upload: variable "file" is null; if it is the file, "map" must name "variables.file" for the form field that holds it`},
		{"json request", func() gqlResponse { return a.do(serviceKey, query, map[string]any{"file": nil}) }, "cannot be null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.send()
			require.Len(t, r.Errors, 1)
			require.True(t, strings.HasPrefix(r.Errors[0].Message, tc.want), r.Errors[0].Message)
			require.Equal(t, "GRAPHQL_VALIDATION_FAILED", r.Errors[0].Extensions["code"])
		})
	}
}
