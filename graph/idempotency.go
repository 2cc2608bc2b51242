package graph

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"loregate/graph/auth"
	"loregate/graph/generated"
	"loregate/graph/model"
	"loregate/lore"
)

// IdempotencyStore runs a write once per server and key (implemented by
// *postgres.Store; a Resolver whose Store implements it honours
// idempotencyKey).
type IdempotencyStore interface {
	Idempotent(ctx context.Context, server, key, operation, principal string,
		fn func(ctx context.Context) ([]byte, error)) (result []byte, replayed bool, err error)
}

// CodeIdempotencyKeyReused is the error code of a key repeated by another
// operation or caller within its 24 hours.
const CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"

// mutationResults maps a Mutation field name, lower-cased, to its
// resolver's result type (a pointer to a payload struct), from the
// generated MutationResolver interface, so that a stored result decodes
// into what the generated code expects.
var mutationResults = func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	t := reflect.TypeFor[generated.MutationResolver]()
	for i := range t.NumMethod() {
		m := t.Method(i)
		out[strings.ToLower(m.Name)] = m.Type.Out(0)
	}
	return out
}()

// errTransient rolls an idempotent write back when its payload reports a
// failure worth retrying (UNAVAILABLE): the key must not replay it.
var errTransient = errors.New("transient failure")

// idempotent is the field middleware of idempotencyKey (docs/api.md
// "Idempotency keys"): a Mutation field whose input carries a key runs in
// the store's Idempotent transaction, and a repeat returns the stored
// payload without running the resolver. Child fields of the payload
// resolve as usual on the returned value.
func (r *Resolver) idempotent(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Object != "Mutation" {
		return next(ctx)
	}
	store, ok := r.Store.(IdempotencyStore)
	if !ok {
		return next(ctx)
	}
	key, server := idempotencyInput(fc.Args["input"])
	if key == nil {
		return next(ctx)
	}
	resType, ok := mutationResults[strings.ToLower(fc.Field.Name)]
	p := auth.FromContext(ctx)
	if !ok || p == nil {
		return next(ctx)
	}
	var first any
	raw, replayed, err := store.Idempotent(ctx, server, *key, fc.Field.Name, p.UserID, func(ctx context.Context) ([]byte, error) {
		res, err := next(ctx)
		if err != nil {
			return nil, err
		}
		first = res
		if payloadCode(res) == model.ErrorCodeUnavailable {
			return nil, errTransient
		}
		return json.Marshal(res)
	})
	switch {
	case errors.Is(err, errTransient):
		return first, nil
	case errors.Is(err, lore.ErrIdempotencyKeyReused):
		return nil, &gqlerror.Error{
			Message:    "idempotencyKey was already used on this server by another operation or caller in the last 24 hours",
			Extensions: map[string]any{"code": CodeIdempotencyKeyReused},
		}
	case errors.Is(err, lore.ErrInvalid):
		return nil, &gqlerror.Error{Message: lore.ClipBytes(err.Error(), 200), Extensions: map[string]any{"code": CodeBadInput}}
	case err != nil:
		return nil, err
	case !replayed:
		return first, nil
	}
	v := reflect.New(resType.Elem())
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// idempotencyInput returns the input's idempotencyKey (nil when absent)
// and its server (serverDiscordId, or discordId for upsertServer).
func idempotencyInput(input any) (key *string, server string) {
	v := reflect.ValueOf(input)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, ""
	}
	f := v.FieldByName("IdempotencyKey")
	if !f.IsValid() {
		return nil, ""
	}
	o, ok := f.Interface().(graphql.Omittable[*string])
	if !ok || o.Value() == nil {
		return nil, ""
	}
	for _, name := range []string{"ServerDiscordID", "DiscordID"} {
		if s := v.FieldByName(name); s.IsValid() && s.Kind() == reflect.String {
			return o.Value(), s.String()
		}
	}
	return nil, ""
}

// payloadCode returns the code of a payload's Error field ("" when none).
func payloadCode(res any) model.ErrorCode {
	v := reflect.ValueOf(res)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	f := v.FieldByName("Error")
	if !f.IsValid() {
		return ""
	}
	if me, ok := f.Interface().(*model.MutationError); ok && me != nil {
		return me.Code
	}
	return ""
}
