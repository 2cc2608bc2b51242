package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"loregate/lore"
)

// Executor runs GraphQL operations in-process, for clients inside the
// binary (package graph/client, which the Discord adapter and the
// dashboard use): the schema, extensions, limits, error
// presenter and panic recovery of NewServer, without HTTP. The caller puts
// the acting principal in the context (auth.WithPrincipal); nothing
// authenticates it again. It is safe for concurrent use.
type Executor struct {
	exec *executor.Executor
	res  *Resolver
}

// NewExecutor builds an Executor from the same configuration as NewServer.
func NewExecutor(cfg Config) *Executor {
	exec := executor.New(newSchema(cfg))
	configure(exec, cfg)
	return &Executor{exec: exec, res: cfg.Resolver}
}

// Artifact returns the file of artifact id (a job's or an export's) for
// the principal in ctx, by the rule of GET /artifacts/{id}: only a manager
// of the artifact's server, only until it expires. Unknown, expired and
// invisible artifacts are lore.ErrNotFound.
func (x *Executor) Artifact(ctx context.Context, id int64) (lore.Artifact, error) {
	return readArtifact(ctx, x.res.Jobs, id)
}

// Do runs query with vars and returns gqlgen's response: data as JSON and
// errors already through the error presenter (extensions.code set).
//
// vars travel as the HTTP transport carries them: encoded as JSON and
// decoded with numbers kept exact, so Go values (model enum constants,
// integers, slices) reach the resolvers exactly as a remote client's
// variables would. files are set after decoding at their dotted variable
// paths ("input.file"), as the multipart transport sets uploads; each path
// must end in a key of a map variable.
func (x *Executor) Do(ctx context.Context, query string, vars map[string]any, files map[string]graphql.Upload) (resp *graphql.Response) {
	ctx = graphql.StartOperationTrace(ctx)
	defer func() {
		if v := recover(); v != nil {
			err := x.exec.PresentRecoveredError(ctx, v)
			gqlErr, _ := err.(*gqlerror.Error)
			resp = &graphql.Response{Errors: gqlerror.List{gqlErr}}
		}
	}()
	start := graphql.Now()
	params := &graphql.RawParams{Query: query}
	if err := jsonVariables(vars, &params.Variables); err != nil {
		return x.exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("variables: %v", err)})
	}
	for path, f := range files {
		if err := setUpload(params.Variables, path, f); err != nil {
			return x.exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("file %s: %v", path, err)})
		}
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	oc, errs := x.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		return x.exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
	}
	responses, ctx := x.exec.DispatchOperation(ctx, oc)
	return responses(ctx)
}

// jsonVariables decodes vars into out the way the HTTP transport decodes a
// request body (json.Number for numbers).
func jsonVariables(vars map[string]any, out *map[string]any) error {
	b, err := json.Marshal(vars)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(out)
}

// setUpload sets vars at the dotted path to f.
func setUpload(vars map[string]any, path string, f graphql.Upload) error {
	keys := strings.Split(path, ".")
	m := vars
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return fmt.Errorf("%q is not an object variable", k)
		}
		m = next
	}
	m[keys[len(keys)-1]] = f
	return nil
}
