package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"loregate/graph/auth"
	"loregate/graph/generated"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// IdempotencyStore runs a write once per server and key (implemented by
// *postgres.Store; a Resolver whose Store implements it honours
// idempotencyKey).
type IdempotencyStore interface {
	Idempotent(ctx context.Context, server, key, operation, principal, input string,
		fn func(ctx context.Context) ([]byte, error)) (result []byte, replayed bool, err error)
}

// CodeIdempotencyKeyReused is the error code of a key repeated within its
// 24 hours by another operation or caller, or with other input.
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
	digest, err := inputDigest(ctx, fc)
	if err != nil {
		return nil, err
	}
	var first any
	raw, replayed, err := store.Idempotent(ctx, server, *key, fc.Field.Name, p.UserID, digest, func(ctx context.Context) ([]byte, error) {
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
	case errors.Is(err, lore.ErrIdempotencyInputDiffers):
		return nil, keyReusedError(i18n.IdempotencyInputDiffers)
	case errors.Is(err, lore.ErrIdempotencyKeyReused):
		return nil, keyReusedError(i18n.IdempotencyKeyReused)
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

// keyReusedError is the IDEMPOTENCY_KEY_REUSED error of reason: its
// message is the reason's English text in lore/i18n (docs/api.md "Reason
// keys"), so the two never differ.
func keyReusedError(reason i18n.Key) *gqlerror.Error {
	return &gqlerror.Error{Message: i18n.Text(i18n.EN, reason, nil),
		Extensions: map[string]any{"code": CodeIdempotencyKeyReused, "reason": reason, "params": map[string]any{}}}
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

// inputDigest returns the digest the store compares a repeated key's input
// by (docs/api.md "Idempotency keys"): SHA-256 of the field's arguments as
// received (variables substituted), canonical (object members sorted,
// numbers in one spelling), without input.idempotencyKey; an upload counts
// as its file name and the SHA-256 of its bytes. The file is read once
// more from where the resolver will read it, and put back there: it is
// already buffered (in memory or a temporary file, by the multipart
// transport), and the read stops after MaxUploadBytes+1 bytes.
func inputDigest(ctx context.Context, fc *graphql.FieldContext) (string, error) {
	oc := graphql.GetOperationContext(ctx)
	args := fc.Field.ArgumentMap(oc.Variables)
	if in, ok := args["input"].(map[string]any); ok {
		in = maps.Clone(in)
		delete(in, "idempotencyKey")
		args["input"] = in
	}
	h := sha256.New()
	if err := digestValue(h, args); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// digestValue writes v canonically to h: JSON-like, with map keys sorted,
// numbers in Go's shortest spelling and uploads as {file name, SHA-256}.
func digestValue(h hash.Hash, v any) error {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		h.Write([]byte("{"))
		for _, k := range keys {
			h.Write(strconv.AppendQuote(nil, k))
			h.Write([]byte(":"))
			if err := digestValue(h, v[k]); err != nil {
				return err
			}
			h.Write([]byte(","))
		}
		h.Write([]byte("}"))
	case []any:
		h.Write([]byte("["))
		for _, e := range v {
			if err := digestValue(h, e); err != nil {
				return err
			}
			h.Write([]byte(","))
		}
		h.Write([]byte("]"))
	case graphql.Upload:
		return digestUpload(h, v)
	case *graphql.Upload:
		if v == nil {
			h.Write([]byte("null"))
			return nil
		}
		return digestUpload(h, *v)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			h.Write(strconv.AppendInt(nil, i, 10))
		} else if f, err := v.Float64(); err == nil {
			h.Write(strconv.AppendFloat(nil, f, 'g', -1, 64))
		} else {
			h.Write([]byte(v))
		}
	case int64:
		h.Write(strconv.AppendInt(nil, v, 10))
	case int:
		h.Write(strconv.AppendInt(nil, int64(v), 10))
	case float64:
		h.Write(strconv.AppendFloat(nil, v, 'g', -1, 64))
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("idempotency: input digest: %w", err)
		}
		h.Write(b)
	}
	return nil
}

// digestUpload writes an upload's file name and the SHA-256 of its bytes
// (at most MaxUploadBytes+1 of them: a larger file is refused by the
// resolver anyway), leaving the file where it was.
func digestUpload(h hash.Hash, u graphql.Upload) error {
	if u.File == nil {
		h.Write([]byte("null"))
		return nil
	}
	at, err := u.File.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("idempotency: upload digest: %w", err)
	}
	fh := sha256.New()
	if _, err := io.Copy(fh, io.LimitReader(u.File, MaxUploadBytes+1)); err != nil {
		return fmt.Errorf("idempotency: upload digest: %w", err)
	}
	if _, err := u.File.Seek(at, io.SeekStart); err != nil {
		return fmt.Errorf("idempotency: upload digest: %w", err)
	}
	h.Write([]byte("upload:"))
	h.Write(strconv.AppendQuote(nil, u.Filename))
	h.Write(fh.Sum(nil))
	return nil
}
