package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
)

// client calls the public GraphQL API in-process: every call is an
// ordinary HTTP request to /graphql on the service's own handler (the same
// routing, authentication middleware, limits and resolvers as any remote
// caller), carrying the signed-in member's bearer token. The dashboard has
// no other way to lore.
type client struct {
	api http.Handler
}

// gqlError is one entry of a GraphQL response's errors.
type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

// apiError is a request-level failure (HTTP status other than 200, or
// GraphQL errors).
type apiError struct {
	Status int
	Errors []gqlError
}

func (e *apiError) Error() string {
	msgs := make([]string, 0, len(e.Errors))
	for _, g := range e.Errors {
		msgs = append(msgs, g.Message)
	}
	return fmt.Sprintf("API answered %d: %s", e.Status, strings.Join(msgs, "; "))
}

// errUnauthenticated is returned when the API refuses the member token
// (expired or revoked): the session is over.
var errUnauthenticated = errors.New("the API refused the session's token")

// recorder is a minimal in-memory http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// do runs one operation with vars and decodes data into out (a pointer to
// a struct shaped like the selection).
func (c *client) do(ctx context.Context, token, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/graphql", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	return c.send(req, token, out)
}

// upload runs one operation whose variable input.file is the file, sent as
// a GraphQL multipart request (the same transport as any client's upload).
func (c *client) upload(ctx context.Context, token, query string, input map[string]any, fileName string, data []byte, out any) error {
	input["file"] = nil
	ops, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"input": input}})
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.input.file"]}`)
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="0"; filename=%q`, fileName))
	h.Set("Content-Type", "application/octet-stream")
	fw, err := mw.CreatePart(h)
	if err != nil {
		return fmt.Errorf("encode upload: %w", err)
	}
	_, _ = fw.Write(data)
	if err := mw.Close(); err != nil {
		return fmt.Errorf("encode upload: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/graphql", &buf)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.ContentLength = int64(buf.Len())
	return c.send(req, token, out)
}

func (c *client) send(req *http.Request, token string, out any) error {
	req.Header.Set("Authorization", "Bearer "+token)
	rec := &recorder{header: http.Header{}}
	c.api.ServeHTTP(rec, req)
	if rec.status == http.StatusUnauthorized {
		return errUnauthenticated
	}
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &resp); err != nil {
		return &apiError{Status: rec.status, Errors: []gqlError{{Message: "unreadable answer: " + err.Error()}}}
	}
	if rec.status != http.StatusOK || len(resp.Errors) > 0 {
		return &apiError{Status: rec.status, Errors: resp.Errors}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// download fetches an artifact (GET /artifacts/{id}) with the member's
// token and copies it to w with its headers.
func (c *client) download(ctx context.Context, token, path string, w http.ResponseWriter) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	rec := &recorder{header: http.Header{}}
	c.api.ServeHTTP(rec, req)
	if rec.status != http.StatusOK {
		return fmt.Errorf("download answered %d", rec.status)
	}
	for _, k := range []string{"Content-Type", "Content-Disposition", "Content-Length"} {
		if v := rec.header.Get(k); v != "" {
			w.Header().Set(k, v)
		}
	}
	_, err = io.Copy(w, &rec.body)
	return err
}
