package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph"
	"loregate/graph/auth"
)

// executor runs the adapter's GraphQL operations in-process through
// graph.Executor, with the acting principal in the context: the adapter
// reads and writes through exactly the resolvers, limits and error
// presenter every other client has and never touches SQL.
type executor struct {
	x *graph.Executor
}

// apiError is a GraphQL (not payload) error: FORBIDDEN, NOT_FOUND,
// INTERNAL and the like, with the presenter's extensions.code.
type apiError struct {
	Code    string
	Message string
}

func (e *apiError) Error() string { return "graphql " + e.Code + ": " + e.Message }

// errForbidden is returned for an operation refused with FORBIDDEN.
var errForbidden = errors.New("forbidden")

// do runs query with vars as p and decodes data into out. GraphQL errors
// come back as *apiError (wrapping errForbidden for FORBIDDEN).
func (x *executor) do(ctx context.Context, p *auth.Principal, query string, vars map[string]any, out any) error {
	return x.run(ctx, p, query, vars, nil, out)
}

// upload runs a mutation whose variable input.file is the given file, as
// the multipart transport would hand it to the resolver.
func (x *executor) upload(ctx context.Context, p *auth.Principal, query string, input map[string]any, fileName string, data []byte, out any) error {
	in := maps.Clone(input)
	if in == nil {
		in = map[string]any{}
	}
	in["file"] = nil
	file := graphql.Upload{File: bytes.NewReader(data), Filename: fileName, Size: int64(len(data)), ContentType: "application/octet-stream"}
	return x.run(ctx, p, query, map[string]any{"input": in}, map[string]graphql.Upload{"input.file": file}, out)
}

func (x *executor) run(ctx context.Context, p *auth.Principal, query string, vars map[string]any, files map[string]graphql.Upload, out any) error {
	resp := x.x.Do(auth.WithPrincipal(ctx, p), query, vars, files)
	if len(resp.Errors) > 0 {
		e := resp.Errors[0]
		code, _ := e.Extensions["code"].(string)
		ae := &apiError{Code: code, Message: e.Message}
		if code == graph.CodeForbidden {
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
