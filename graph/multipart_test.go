package graph_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
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
