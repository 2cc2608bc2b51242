package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"loregate/graph/model"
	"loregate/lore"
)

// Errors are translated once, here. Mutations report the contract's
// failures as a typed MutationError in their payload (clients switch on
// code); permission failures and internal errors are GraphQL errors with an
// extensions.code. Internal errors are logged with the request id and shown
// as a generic message: no SQL, paths or file content reach a client.

// Error codes of GraphQL (not payload) errors.
const (
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeForbidden       = "FORBIDDEN"
	CodeBadInput        = "BAD_USER_INPUT"
	CodeInternal        = "INTERNAL"
	CodeNotFound        = "NOT_FOUND"
)

// errUnknownLineage marks a persona write to a lineage the server does not
// know; it wraps lore.ErrNotFound.
var errUnknownLineage = fmt.Errorf("unknown lineage: %w", lore.ErrNotFound)

// errForbidden is returned by writes the principal may not make.
var errForbidden = errors.New("forbidden: managing this server's lore needs the Manage Server permission")

// mutationError maps a contract error to a payload error. It returns nil
// for errors outside the contract, which the caller returns as internal.
func mutationError(err error) *model.MutationError {
	msg, ok := lore.Explain(err)
	if !ok {
		return nil
	}
	me := &model.MutationError{Message: msg}
	var inv *lore.InvalidError
	var full *lore.ScopeFullError
	var dup *lore.DuplicateNameError
	switch {
	case errors.As(err, &inv):
		me.Code = model.ErrorCodeInvalidInput
		field := apiField(inv.Field)
		me.Field = &field
		me.Message = (&lore.InvalidError{Field: field, Reason: inv.Reason}).Error()
	case errors.Is(err, lore.ErrInvalid):
		me.Code = model.ErrorCodeInvalidInput
	case errors.Is(err, lore.ErrScopeFull):
		me.Code = model.ErrorCodeScopeFull
		limit := lore.MaxEntriesPerScope
		if errors.As(err, &full) {
			limit = full.Limit
		}
		me.Limit = &limit
	case errors.Is(err, lore.ErrNotFound):
		me.Code = model.ErrorCodeNotFound
		if errors.Is(err, errUnknownLineage) {
			me.Message = "this lineage is not registered on the server"
		}
	case errors.Is(err, lore.ErrDuplicateName):
		me.Code = model.ErrorCodeDuplicateName
		if errors.As(err, &dup) {
			field := "name"
			me.Field = &field
		}
	case errors.Is(err, lore.ErrStaleTarget):
		me.Code = model.ErrorCodeStaleTarget
		var stale *lore.StaleError
		if errors.As(err, &stale) {
			field := "expectedUpdatedAt"
			me.Field = &field
		}
	case errors.Is(err, lore.ErrUnavailable):
		me.Code = model.ErrorCodeUnavailable
	}
	return me
}

// classify splits a resolver failure: contract errors become the payload's
// typed error (nil error), everything else (forbidden, internal) is returned
// as a GraphQL error.
func classify(err error) (*model.MutationError, error) {
	if errors.Is(err, errForbidden) {
		return nil, err
	}
	if me := mutationError(err); me != nil {
		return me, nil
	}
	return nil, err
}

// payload is a mutation payload type P: *P records a failure.
type payload[P any] interface {
	*P
	SetError(*model.MutationError)
}

// failure is the one way a resolver reports a failed mutation: a contract
// error becomes the payload's typed error and a nil Go error (nothing was
// written); every other error (forbidden, internal) is returned as a
// GraphQL error beside an empty payload. Use it as
// `return failure[model.ServerPayload](err)`.
func failure[P any, PP payload[P]](err error) (*P, error) {
	me, err := classify(err)
	p := PP(new(P))
	p.SetError(me)
	return p, err
}

// apiField translates a domain field name to the API's input name where
// they differ.
func apiField(f string) string {
	switch f {
	case "server":
		return "serverDiscordId"
	case "lineage":
		return "lineageId"
	}
	return f
}

// presentError is the server's error presenter: it keeps GraphQL
// validation errors, maps forbidden, not-found and invalid-input errors to
// codes, and turns every other error into a generic internal error logged
// with the request id.
func presentError(logger *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		explainOperationChoice(ctx, gqlErr)
		var already *gqlerror.Error
		if errors.As(err, &already) && already.Err == nil {
			return gqlErr // parser, validation and limit errors: safe as they are
		}
		if _, coded := gqlErr.Extensions["code"]; coded && gqlErr.Err == nil {
			return gqlErr
		}
		code := ""
		switch {
		case strings.HasSuffix(err.Error(), "introspection disabled"): // gqlgen's plain error
			code = "INTROSPECTION_DISABLED"
		case errors.Is(err, errForbidden):
			code = CodeForbidden
		case errors.Is(err, lore.ErrNotFound):
			code = CodeNotFound
			gqlErr.Message = "not found: it does not exist or is not visible to you"
		case errors.Is(err, lore.ErrInvalid):
			code = CodeBadInput
			var inv *lore.InvalidError
			if errors.As(err, &inv) {
				gqlErr.Message = (&lore.InvalidError{Field: apiField(inv.Field), Reason: inv.Reason}).Error()
			}
		case errors.Is(err, lore.ErrUnavailable):
			code = "UNAVAILABLE"
			gqlErr.Message = "the lore store is unavailable; try again"
		default:
			logger.ErrorContext(ctx, "internal error", "request_id", RequestID(ctx), "err", err, "path", gqlErr.Path.String())
			gqlErr.Message = "internal error (request " + RequestID(ctx) + ")"
			code = CodeInternal
		}
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		gqlErr.Extensions["code"] = code
		return gqlErr
	}
}

// explainOperationChoice rewrites gqlgen's "operation X not found" (the
// document's operation could not be chosen) into a message that names the
// problem: a document with several operations needs operationName, and an
// operationName must name one of them. It lists the document's operations.
func explainOperationChoice(ctx context.Context, e *gqlerror.Error) {
	if !graphql.HasOperationContext(ctx) {
		return
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Doc == nil || oc.Operation != nil || !strings.HasPrefix(e.Message, "operation ") || !strings.HasSuffix(e.Message, " not found") {
		return
	}
	names := make([]string, 0, len(oc.Doc.Operations))
	for _, op := range oc.Doc.Operations {
		if op.Name == "" {
			names = append(names, "an anonymous "+string(op.Operation))
			continue
		}
		names = append(names, strconv.Quote(op.Name))
	}
	has := "the document has no operation"
	if len(names) > 0 {
		has = fmt.Sprintf("the document has %d operations: %s", len(names), strings.Join(names, ", "))
		if len(names) == 1 {
			has = "the document has 1 operation: " + names[0]
		}
	}
	if oc.OperationName == "" {
		e.Message = "operationName is required when a document has more than one operation: " + has
	} else {
		e.Message = fmt.Sprintf("operationName %q names no operation of the document: %s", oc.OperationName, has)
	}
}
