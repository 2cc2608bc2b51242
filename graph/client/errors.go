package client

import (
	"errors"
	"fmt"

	"loregate/graph"
	"loregate/graph/model"
)

// Error is the one failure type of the client: what the API reported for
// an operation.
//
//   - A GraphQL error (Payload false): Code is its extensions.code
//     (graph.CodeForbidden, graph.CodeNotFound, graph.CodeBadInput,
//     graph.CodeInternal, QUERY_TOO_DEEP, ...; graph.CodeUnauthenticated
//     from Principal), Message the presented message, which never holds
//     SQL, paths or file content.
//   - A mutation payload's typed error (Payload true, docs/api.md "Results
//     and errors"): Code is a model.ErrorCode value, Field the input field at
//     fault (INVALID_INPUT, STALE_TARGET's expectedUpdatedAt), Limit the
//     scope limit (SCOPE_FULL). Nothing was written.
//
// Both carry the reason key and its params (docs/api.md "Reason keys"),
// for a message in the member's language, and for invalid input every
// failing field (Fields).
type Error struct {
	// Op is the operation that failed ("" for Principal).
	Op      Op
	Code    string
	Message string
	// Field is the input field at fault, e.g. "entry.keys[2]" ("" none).
	Field string
	// Limit is the scope limit of SCOPE_FULL (nil otherwise).
	Limit *int
	// Reason is the stable lower_snake reason key ("" when the API gave
	// none, e.g. for INTERNAL; FORBIDDEN's names the permission the call
	// lacks); Params its params.
	Reason string
	Params map[string]any
	// Fields are every field error of an invalid write, Field's first.
	Fields []*model.FieldError
	// Payload is set for a payload's typed error.
	Payload bool
}

// Sentinels that an *Error matches with errors.Is by its code.
var (
	// ErrForbidden: the caller may not do this (GraphQL code FORBIDDEN:
	// a write without Manage Server, another server's lore).
	ErrForbidden = errors.New("forbidden")
	// ErrUnauthenticated: the token is missing, invalid or expired.
	ErrUnauthenticated = errors.New("unauthenticated")
)

func (e *Error) Error() string {
	what := "graphql"
	if e.Payload {
		what = "payload"
	}
	msg := fmt.Sprintf("%s %s %s: %s", e.Op, what, e.Code, e.Message)
	if e.Field != "" {
		msg += " (field " + e.Field + ")"
	}
	return msg
}

// Unwrap is ErrForbidden or ErrUnauthenticated for a GraphQL error of that
// code, else nil.
func (e *Error) Unwrap() error {
	if e.Payload {
		return nil
	}
	switch e.Code {
	case graph.CodeForbidden:
		return ErrForbidden
	case graph.CodeUnauthenticated:
		return ErrUnauthenticated
	}
	return nil
}

// Is reports whether err holds an *Error with a payload error of code.
func Is(err error, code model.ErrorCode) bool {
	var e *Error
	return errors.As(err, &e) && e.Payload && e.Code == string(code)
}

// requestError is the *Error of a GraphQL error's message and extensions
// (as the error presenter set them: code, reason, params, field, fields).
func requestError(op Op, msg string, ext map[string]any) *Error {
	e := &Error{Op: op, Message: msg}
	e.Code, _ = ext["code"].(string)
	e.Reason, _ = ext["reason"].(string)
	e.Params, _ = ext["params"].(map[string]any)
	e.Field, _ = ext["field"].(string)
	e.Fields, _ = ext["fields"].([]*model.FieldError)
	return e
}

// PayloadError is the *Error of a payload's typed error me, reported by op.
func PayloadError(op Op, me *model.MutationError) *Error {
	e := &Error{Op: op, Code: string(me.Code), Message: me.Message, Limit: me.Limit, Payload: true,
		Reason: me.Reason, Params: me.Params, Fields: me.Fields}
	if me.Field != nil {
		e.Field = *me.Field
	}
	return e
}
