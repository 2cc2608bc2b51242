package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"

	"loregate/graph/auth"
)

// executor runs GraphQL operations in-process against the handler built by
// graph.NewServer, with the acting principal in the request context: the
// adapter reads and writes through exactly the resolvers every other client
// uses and never touches SQL.
type executor struct {
	h http.Handler
}

// apiError is a GraphQL (not payload) error: FORBIDDEN, NOT_FOUND,
// INTERNAL and the like, with gqlgen's extensions.code.
type apiError struct {
	Code    string
	Message string
}

func (e *apiError) Error() string { return "graphql " + e.Code + ": " + e.Message }

// errForbidden is returned for an operation refused with FORBIDDEN.
var errForbidden = errors.New("forbidden")

// mutationError is a mutation payload's typed error.
type mutationError struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Field   *string `json:"field"`
	Limit   *int    `json:"limit"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// do runs query with vars as p and decodes data into out. GraphQL errors
// come back as *apiError (wrapping errForbidden for FORBIDDEN).
func (x *executor) do(ctx context.Context, p *auth.Principal, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("encode graphql request: %w", err)
	}
	req, err := http.NewRequestWithContext(auth.WithPrincipal(ctx, p), http.MethodPost, "/graphql", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("graphql request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	return x.serve(req, out)
}

// upload runs a mutation whose variable input.file is the given file, sent
// with the GraphQL multipart request specification like any remote client.
func (x *executor) upload(ctx context.Context, p *auth.Principal, query string, input map[string]any, fileName string, data []byte, out any) error {
	in := make(map[string]any, len(input)+1)
	for k, v := range input {
		in[k] = v
	}
	in["file"] = nil
	ops, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"input": in}})
	if err != nil {
		return fmt.Errorf("encode graphql request: %w", err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.input.file"]}`)
	fw, err := mw.CreateFormFile("0", fileName)
	if err != nil {
		return fmt.Errorf("multipart: %w", err)
	}
	if _, err := fw.Write(data); err != nil {
		return fmt.Errorf("multipart: %w", err)
	}
	if err := mw.Close(); err != nil {
		return fmt.Errorf("multipart: %w", err)
	}
	req, err := http.NewRequestWithContext(auth.WithPrincipal(ctx, p), http.MethodPost, "/graphql", &buf)
	if err != nil {
		return fmt.Errorf("graphql request: %w", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return x.serve(req, out)
}

func (x *executor) serve(req *http.Request, out any) error {
	rec := httptest.NewRecorder()
	x.h.ServeHTTP(rec, req)
	var resp gqlResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		return fmt.Errorf("graphql status %d: decode: %w", rec.Code, err)
	}
	if len(resp.Errors) > 0 {
		e := resp.Errors[0]
		code, _ := e.Extensions["code"].(string)
		ae := &apiError{Code: code, Message: e.Message}
		if code == "FORBIDDEN" {
			return fmt.Errorf("%w: %w", errForbidden, ae)
		}
		return ae
	}
	if out != nil && len(resp.Data) > 0 {
		if err := json.Unmarshal(resp.Data, out); err != nil {
			return fmt.Errorf("decode graphql data: %w", err)
		}
	}
	return nil
}
