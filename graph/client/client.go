// Package client is the typed client of the GraphQL API for callers inside
// the binary: the Discord adapter (package discord) and the web dashboard
// (package graph/dashboard). Both reach lore through it only.
//
// A call runs one named operation of the documents in operations/*.graphql
// in-process on graph.Executor: the same schema, resolvers, document and
// complexity limits, error presenter and panic recovery as /graphql, with
// the acting principal in the context and the API's request timeout
// (graph.RequestTimeout), but no HTTP round trip and no JSON request body.
// Data decodes into graph/model types (or the few wrappers of types.go for
// fields the models leave to resolvers), and every failure the API reports
// is one *Error: a GraphQL error with its extensions.code, or a mutation
// payload's typed MutationError (Error.Payload).
//
// Every operation is validated against the schema by a test
// (TestOperationsValidate), which also renames, one at a time, every field
// an operation selects and checks that validation then fails: a schema
// rename breaks the build's tests, not a member's click.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
)

// Client runs the operations of this package in-process. It is safe for
// concurrent use.
type Client struct {
	x    *graph.Executor
	auth *auth.Authenticator
	docs map[Op]string
}

// New returns a client running its operations on x. auth checks member
// tokens for Principal (nil: Principal refuses every token, for callers
// such as the Discord adapter that make their principals themselves).
func New(x *graph.Executor, a *auth.Authenticator) (*Client, error) {
	if x == nil {
		return nil, errors.New("client: an executor is required")
	}
	docs, err := documents()
	if err != nil {
		return nil, err
	}
	return &Client{x: x, auth: a, docs: docs}, nil
}

// Principal returns the principal a bearer token stands for, checked
// exactly as the API's HTTP middleware checks it (auth.Authenticator): a
// missing, expired or unknown token is an *Error with code
// UNAUTHENTICATED (errors.Is ErrUnauthenticated).
func (c *Client) Principal(token string) (*auth.Principal, error) {
	if c.auth == nil {
		return nil, &Error{Code: graph.CodeUnauthenticated, Message: "no authenticator configured"}
	}
	p, err := c.auth.Authenticate(token)
	if err != nil {
		return nil, &Error{Code: graph.CodeUnauthenticated, Message: err.Error()}
	}
	return p, nil
}

// Do runs op with vars as p and decodes the data into out (nil: not
// decoded). A GraphQL error is returned as *Error; a payload's typed
// error is left in out (Mutate returns it as an error).
func (c *Client) Do(ctx context.Context, p *auth.Principal, op Op, vars map[string]any, out any) error {
	data, err := c.run(ctx, p, op, vars, nil)
	if err != nil {
		return err
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s: decode data: %w", op, err)
		}
	}
	return nil
}

// Mutate runs op, an operation with one root field and input variable
// $in, and decodes that field's payload into out (nil: not decoded). When
// the payload carries a typed error (nothing was written) out still gets
// the payload and the error is returned as *Error with Payload set.
func (c *Client) Mutate(ctx context.Context, p *auth.Principal, op Op, in any, out any) error {
	data, err := c.run(ctx, p, op, map[string]any{"in": in}, nil)
	if err != nil {
		return err
	}
	return decodePayload(op, data, out)
}

// File is an upload: a lorebook, a card or a workspace backup.
type File struct {
	Name string
	Data []byte
}

// Upload is Mutate for an operation whose input carries the file at
// in.file, handed to the resolver as the multipart transport hands it
// (the resolvers bound its size: graph.MaxUploadBytes).
func (c *Client) Upload(ctx context.Context, p *auth.Principal, op Op, in map[string]any, f File, out any) error {
	input := maps.Clone(in)
	if input == nil {
		input = map[string]any{}
	}
	input["file"] = nil
	up := graphql.Upload{File: bytes.NewReader(f.Data), Filename: f.Name, Size: int64(len(f.Data)), ContentType: "application/octet-stream"}
	data, err := c.run(ctx, p, op, map[string]any{"in": input}, map[string]graphql.Upload{"in.file": up})
	if err != nil {
		return err
	}
	return decodePayload(op, data, out)
}

// Artifact returns the file of artifact id (Artifact.id, Job.artifact,
// ExportPayload.download) as p, by the rule of the API's download route
// GET /artifacts/{id}: managers of its server only, until it expires.
// Unknown, expired and invisible artifacts are lore.ErrNotFound.
func (c *Client) Artifact(ctx context.Context, p *auth.Principal, id string) (lore.Artifact, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return lore.Artifact{}, lore.ErrNotFound
	}
	ctx, cancel := context.WithTimeout(callContext(ctx, p), graph.RequestTimeout)
	defer cancel()
	return c.x.Artifact(ctx, n)
}

// run executes op and returns its data, or the first GraphQL error.
func (c *Client) run(ctx context.Context, p *auth.Principal, op Op, vars map[string]any, files map[string]graphql.Upload) (json.RawMessage, error) {
	doc, ok := c.docs[op]
	if !ok {
		return nil, fmt.Errorf("client: no operation %q in operations/*.graphql", string(op))
	}
	ctx, cancel := context.WithTimeout(callContext(ctx, p), graph.RequestTimeout)
	defer cancel()
	resp := c.x.Do(ctx, doc, vars, files)
	if len(resp.Errors) > 0 {
		return nil, requestError(op, resp.Errors[0].Message, resp.Errors[0].Extensions)
	}
	return resp.Data, nil
}

// callContext is ctx as p with a request id (the caller's, else a new one:
// internal errors name it, as they name an HTTP request's).
func callContext(ctx context.Context, p *auth.Principal) context.Context {
	if graph.RequestID(ctx) == "-" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		ctx = graph.WithRequestID(ctx, hex.EncodeToString(b))
	}
	return auth.WithPrincipal(ctx, p)
}

// decodePayload decodes the one root field of data into out and returns
// its typed error, if any, as *Error.
func decodePayload(op Op, data json.RawMessage, out any) error {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(data, &root); err != nil {
		return fmt.Errorf("%s: decode data: %w", op, err)
	}
	if len(root) != 1 {
		return fmt.Errorf("%s: %d root fields, a payload operation has one", op, len(root))
	}
	var field json.RawMessage
	for _, v := range root {
		field = v
	}
	var payload struct {
		Error *model.MutationError `json:"error"`
	}
	if err := json.Unmarshal(field, &payload); err != nil {
		return fmt.Errorf("%s: decode payload: %w", op, err)
	}
	if out != nil {
		if err := json.Unmarshal(field, out); err != nil {
			return fmt.Errorf("%s: decode payload: %w", op, err)
		}
	}
	if payload.Error != nil {
		return PayloadError(op, payload.Error)
	}
	return nil
}
