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
	"loregate/lore/i18n"
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

// errForbidden is returned by lore writes the principal may not make.
var errForbidden error = forbidden(i18n.ForbiddenLoreWrite)

// errForbiddenSettings is returned by writes of a server's settings (and
// of its persona registry, backups and wipes) to a principal that does
// not manage the server: a lore editor writes lore only
// (docs/workbench.md#lore-editor-role).
// It is errForbidden to errors.Is (code FORBIDDEN) with its own message.
var errForbiddenSettings error = forbidden(i18n.ForbiddenSettings)

// errForbiddenService is returned by the server life cycle mutations
// (docs/servers.md) to any principal but a service key: a manager has the
// permission errForbidden names and is still refused.
var errForbiddenService error = forbidden(i18n.ForbiddenService)

// errForbiddenExport is returned by exports to a principal that may not
// write the server's lore: exporting is a write-level action
// (docs/contract.md#permissions).
var errForbiddenExport error = forbidden(i18n.ForbiddenExport)

// errForbiddenManage is returned by what only a manager or a service
// key may do that is neither a lore write nor a server setting
// (activateTurn, upsertServer): the lore editor role does not grant it.
var errForbiddenManage error = forbidden(i18n.ForbiddenManage)

// forbiddenError is a permission failure (code FORBIDDEN) with its own
// English message and the reason key of the permission the call lacks
// (extensions.reason, docs/api.md "Reason keys"); errors.Is matches every
// one to errForbidden.
type forbiddenError struct {
	msg    string
	reason i18n.Key
}

// forbidden is the forbiddenError of reason: its message is "forbidden: "
// and the reason's English text in the catalog (lore/i18n), so the two
// never differ.
func forbidden(reason i18n.Key) *forbiddenError {
	return &forbiddenError{msg: "forbidden: " + i18n.Text(i18n.EN, reason, nil), reason: reason}
}

func (e *forbiddenError) Error() string { return e.msg }

// Is makes every forbiddenError an errForbidden.
func (e *forbiddenError) Is(target error) bool { return target == errForbidden }

// mutationError maps a contract error to a payload error with its reason
// key and params (docs/api.md "Reason keys"). It returns nil for errors
// outside the contract, which the caller returns as internal.
func mutationError(err error) *model.MutationError {
	msg, ok := lore.Explain(err)
	if !ok {
		return nil
	}
	me := &model.MutationError{Message: msg, Params: map[string]any{}}
	var inv *lore.InvalidError
	var full *lore.ScopeFullError
	var dup *lore.DuplicateNameError
	var stale *lore.StaleError
	switch {
	case errors.As(err, &inv):
		me.Code = model.ErrorCodeInvalidInput
		inv = inv.WithField(apiField)
		me.Field = &inv.Field
		me.Message = inv.Error()
		me.Fields = fieldErrors(inv)
		me.Reason, me.Params = me.Fields[0].Reason, me.Fields[0].Params
	case errors.Is(err, lore.ErrInvalid):
		me.Code, me.Reason, me.Params = model.ErrorCodeInvalidInput, i18n.Invalid, map[string]any{"detail": msg}
	case errors.Is(err, lore.ErrScopeFull):
		me.Code, me.Reason = model.ErrorCodeScopeFull, i18n.ScopeFull
		limit := lore.MaxEntriesPerScope
		total := 0
		if errors.As(err, &full) {
			limit, total = full.Limit, full.Existing+full.Adding
		}
		me.Limit = &limit
		me.Params = map[string]any{"limit": limit, "total": total, "over": max(total-limit, 0)}
	case errors.Is(err, lore.ErrNotFound):
		me.Code = model.ErrorCodeNotFound
		notFoundReason(err, me)
	case errors.Is(err, lore.ErrDuplicateName):
		me.Code, me.Reason = model.ErrorCodeDuplicateName, i18n.DuplicateName
		if errors.As(err, &dup) {
			field := "name"
			me.Field = &field
			me.Params["name"] = dup.Name
		}
	case errors.As(err, &stale):
		me.Code, me.Reason = model.ErrorCodeStaleTarget, i18n.StaleVersion
		field := "expectedUpdatedAt"
		me.Field = &field
		me.Params["target"] = stale.Target
	case errors.Is(err, lore.ErrStaleTarget):
		me.Code, me.Reason = model.ErrorCodeStaleTarget, i18n.StaleTarget
	case errors.Is(err, errNoEmbeddings):
		me.Code, me.Reason = model.ErrorCodeUnavailable, i18n.EmbeddingsNotConfigured
		me.Message = i18n.Text(i18n.EN, me.Reason, nil)
	case errors.Is(err, lore.ErrUnavailable):
		me.Code, me.Reason = model.ErrorCodeUnavailable, i18n.Unavailable
	}
	return me
}

// fieldErrors lists every field error of inv (its own and its Others).
func fieldErrors(inv *lore.InvalidError) []*model.FieldError {
	all := inv.All()
	out := make([]*model.FieldError, len(all))
	for i, e := range all {
		key, params := e.ReasonKey()
		if params == nil {
			params = lore.Params{}
		}
		out[i] = &model.FieldError{Field: e.Field, Reason: key, Message: e.Error(), Params: params}
	}
	return out
}

// notFoundArgs maps the kind of a *lore.NotFoundError to the API argument
// that names it (the inputs spell them alike, but for the persona registry's
// inputs, whose persona is id: "persona id").
var notFoundArgs = map[string]string{
	"server": "serverDiscordId", "collection": "collectionId", "collection name": "collection",
	"entry": "entryId", "persona": "personaId", "persona id": "id", "lineage": "lineageId", "import": "importId",
	"previewId": "previewId", "artifact of job": "jobId", "report of job": "jobId", "job": "jobId",
}

// notFoundReason fills a NOT_FOUND payload error: field names the argument
// that did not resolve, the message and reason say which value.
func notFoundReason(err error, me *model.MutationError) {
	var nf *lore.NotFoundError
	if !errors.As(err, &nf) {
		me.Reason = i18n.NotFound
		me.Params = map[string]any{"argument": "an id", "id": ""}
		return
	}
	arg := notFoundArgs[nf.Kind]
	if arg == "" {
		arg = nf.Kind
	}
	me.Field = &arg
	me.Params = map[string]any{"argument": arg, "id": nf.ID}
	me.Reason = i18n.NotFound
	if nf.Kind == "lineage" {
		me.Reason = i18n.UnknownLineage
		me.Params = map[string]any{"id": nf.ID}
	}
	me.Message = i18n.Text(i18n.EN, me.Reason, me.Params)
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
// codes with their reason keys, and turns every other error into a
// generic internal error logged with the request id.
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
		var forbidden *forbiddenError
		switch {
		case strings.HasSuffix(err.Error(), "introspection disabled"): // gqlgen's plain error
			code = "INTROSPECTION_DISABLED"
		case errors.As(err, &forbidden):
			code = CodeForbidden
			gqlErr.Extensions = withReason(gqlErr.Extensions, forbidden.reason, map[string]any{})
		case errors.Is(err, lore.ErrNotFound):
			code = CodeNotFound
			gqlErr.Message = "not found: it does not exist or is not visible to you"
			me := &model.MutationError{}
			notFoundReason(err, me)
			if me.Field != nil {
				gqlErr.Message = "not found: " + *me.Field + " " + me.Params["id"].(string) + " does not exist or is not visible to you"
				gqlErr.Extensions = map[string]any{"argument": *me.Field}
			}
			gqlErr.Extensions = withReason(gqlErr.Extensions, me.Reason, me.Params)
		case errors.Is(err, lore.ErrInvalid):
			code = CodeBadInput
			var inv *lore.InvalidError
			if errors.As(err, &inv) {
				inv = inv.WithField(apiField)
				gqlErr.Message = inv.Error()
				fields := fieldErrors(inv)
				gqlErr.Extensions = withReason(gqlErr.Extensions, fields[0].Reason, fields[0].Params)
				gqlErr.Extensions["field"] = inv.Field
				gqlErr.Extensions["fields"] = fields
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

// withReason adds a reason key and its params to a GraphQL error's
// extensions (docs/api.md "Reason keys").
func withReason(ext map[string]any, reason string, params map[string]any) map[string]any {
	if ext == nil {
		ext = map[string]any{}
	}
	ext["reason"] = reason
	ext["params"] = params
	return ext
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
