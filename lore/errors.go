package lore

import (
	"errors"
	"fmt"

	"loregate/lore/i18n"
)

// Sentinel errors. Every error returned by a [Store] or a validator wraps
// exactly one of them (or is an internal failure), so callers switch with
// errors.Is.
var (
	// ErrInvalid reports input that breaks a validation rule. The concrete
	// error is an *InvalidError naming the field.
	ErrInvalid = errors.New("invalid input")
	// ErrScopeFull reports a write that would take a scope past
	// MaxEntriesPerScope. The concrete error is a *ScopeFullError.
	ErrScopeFull = errors.New("scope full")
	// ErrNotFound reports a server, persona, collection or entry that does
	// not exist in the addressed scope. An id that exists in another server
	// or scope is also "not found", never a leak.
	ErrNotFound = errors.New("not found")
	// ErrDuplicateName reports a collection name already used on the server.
	ErrDuplicateName = errors.New("duplicate name")
	// ErrStaleTarget reports a write prepared against a collection that was
	// renamed or removed before the write took its lock (docs/contract.md#locks),
	// or an edit whose expected UpdatedAt no longer matches its target (a
	// *StaleError, docs/api.md "Conflicts").
	ErrStaleTarget = errors.New("stale target")
	// ErrIdempotencyKeyReused reports an idempotency key used within its
	// lifetime by another operation or caller (docs/api.md "Idempotency
	// keys"; lore/postgres).
	ErrIdempotencyKeyReused = errors.New("idempotency key already used for another operation or by another caller")
	// ErrUnavailable reports that the store could not be read or written
	// (database down, row failed validation). Panel reads surface it as
	// "unavailable" instead of an empty scope.
	ErrUnavailable = errors.New("unavailable")
)

// ErrIdempotencyInputDiffers reports an idempotency key repeated within
// its lifetime by the same operation and caller with other input (other
// arguments, another uploaded file): the repeat is refused, not replayed
// (docs/api.md "Idempotency keys"). It is ErrIdempotencyKeyReused to
// errors.Is.
var ErrIdempotencyInputDiffers error = idempotencyInputError{}

type idempotencyInputError struct{}

func (idempotencyInputError) Error() string {
	return "idempotency key already used by this operation and caller with other input"
}

// Is makes the error ErrIdempotencyKeyReused too.
func (idempotencyInputError) Is(target error) bool { return target == ErrIdempotencyKeyReused }

// InvalidError names the field that failed validation and why. It matches
// ErrInvalid with errors.Is. A write that breaks several rules returns one
// InvalidError for its first failing field with the others in Others, so
// the API reports them all at once (MutationError.fields).
type InvalidError struct {
	// Field is the input field, in the canonical spelling ("content",
	// "keys[3]", "entries[12].title", "channelIds[0]").
	Field string
	// Reason says what is wrong, in lower case, without the field name, in
	// English.
	Reason string
	// Key is the reason key of lore/i18n (docs/api.md "Reason keys") and
	// Params its params; "" (as from Invalid) is i18n.Invalid with the
	// English Reason as its detail.
	Key    i18n.Key
	Params Params
	// Others are the further failures of the same write, in field order
	// (at most MaxFieldErrors in all); their own Others are empty.
	Others []*InvalidError
}

// Params are the params of a reason key: a JSON object whose values are
// strings, numbers or lists of strings.
type Params = map[string]any

// MaxFieldErrors bounds the field errors one write reports.
const MaxFieldErrors = 50

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// Invalid returns an *InvalidError for field with a formatted English
// reason and the generic reason key i18n.Invalid, which clients cannot
// render in the member's language. Tests only: code raises Reject with a
// reason key (the lint check TestNoGenericReason of cmd/internal/doccheck
// refuses Invalid outside tests).
func Invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Reject returns an *InvalidError for field with a reason key of
// lore/i18n (add new keys there, in reasons.go) and its params; the
// English Reason is the key's English text.
func Reject(field string, key i18n.Key, params Params) error {
	return &InvalidError{Field: field, Reason: i18n.Text(i18n.EN, key, params), Key: key, Params: params}
}

// ReasonKey returns the reason key and params of e: i18n.Invalid with the
// English reason as detail when e has no key.
func (e *InvalidError) ReasonKey() (i18n.Key, Params) {
	if e.Key == "" {
		return i18n.Invalid, Params{"detail": e.Reason}
	}
	return e.Key, e.Params
}

// All returns e and its Others: every field error of the write.
func (e *InvalidError) All() []*InvalidError {
	out := make([]*InvalidError, 0, 1+len(e.Others))
	out = append(out, e)
	return append(out, e.Others...)
}

// WithField returns a copy of e (and of its Others) whose fields are
// renamed by f.
func (e *InvalidError) WithField(f func(string) string) *InvalidError {
	c := *e
	c.Field = f(e.Field)
	c.Others = nil
	for _, o := range e.Others {
		c.Others = append(c.Others, o.WithField(f))
	}
	return &c
}

// WithFieldPrefix returns err with prefix prepended to the field of the
// *InvalidError it carries ("entries[3]" + "title" = "entries[3].title"),
// and to the fields of its Others. Other errors are returned unchanged.
func WithFieldPrefix(prefix string, err error) error {
	var ie *InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	return ie.WithField(func(f string) string { return prefix + "." + f })
}

// FieldErrors collects the field errors of one write, so that a validator
// reports every failing field at once. The zero value is ready.
type FieldErrors struct{ list []*InvalidError }

// Add records err: an *InvalidError (with its Others) is collected up to
// MaxFieldErrors; nil is ignored. It reports whether err was an
// *InvalidError or nil; any other error is not collected and the caller
// returns it.
func (f *FieldErrors) Add(err error) bool {
	if err == nil {
		return true
	}
	var ie *InvalidError
	if !errors.As(err, &ie) {
		return false
	}
	for _, e := range ie.All() {
		if len(f.list) < MaxFieldErrors {
			c := *e
			c.Others = nil
			f.list = append(f.list, &c)
		}
	}
	return true
}

// Err returns nil when nothing was collected, else the first error with
// the rest as its Others.
func (f *FieldErrors) Err() error {
	if len(f.list) == 0 {
		return nil
	}
	first := *f.list[0]
	first.Others = f.list[1:]
	return &first
}

// NotFoundError names what a write or read did not find: Kind is the
// domain name ("server", "collection", "entry", "persona", "lineage",
// "import", ...) and ID the value asked for. It matches ErrNotFound with
// errors.Is; the API names the argument that did not resolve from Kind.
type NotFoundError struct {
	Kind string
	ID   string
}

func (e *NotFoundError) Error() string {
	if e.ID == "" {
		return e.Kind + ": not found"
	}
	return e.Kind + " " + e.ID + ": not found"
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// NotFound returns a *NotFoundError for kind and id (formatted with %v).
func NotFound(kind string, id any) error {
	s := ""
	if id != nil {
		s = ClipBytes(fmt.Sprint(id), 40)
	}
	return &NotFoundError{Kind: kind, ID: s}
}

// DuplicateNameError names the collection name a write found taken. It
// matches ErrDuplicateName with errors.Is.
type DuplicateNameError struct {
	// Name is the collection name that is already used on the server.
	Name string
	// Err is the underlying error (the store's unique violation), if any.
	Err error
}

func (e *DuplicateNameError) Error() string {
	return fmt.Sprintf("a collection named %q already exists on this server", e.Name)
}

// Is makes errors.Is(err, ErrDuplicateName) true.
func (e *DuplicateNameError) Is(target error) bool { return target == ErrDuplicateName }

// Unwrap returns the underlying error.
func (e *DuplicateNameError) Unwrap() error { return e.Err }

// ScopeFullError reports how a write would overflow a scope. It matches
// ErrScopeFull with errors.Is.
type ScopeFullError struct {
	Server  string
	Lineage Lineage
	// Limit is the scope's capacity (Limits.ScopeEntries, by default
	// MaxEntriesPerScope).
	Limit int
	// Existing is the number of entries the write keeps in the scope (0 for
	// a replacement of the whole scope).
	Existing int
	// Adding is the number of entries the write tried to add.
	Adding int
}

func (e *ScopeFullError) Error() string {
	return fmt.Sprintf("scope full: %s would hold %d entries (%d kept + %d added), %d over the limit of %d (an operator raises it with %s)",
		e.Lineage.scopeName(), e.Existing+e.Adding, e.Existing, e.Adding, e.Existing+e.Adding-e.Limit, e.Limit, EnvMaxScopeEntries)
}

// Is makes errors.Is(err, ErrScopeFull) true.
func (e *ScopeFullError) Is(target error) bool { return target == ErrScopeFull }

// Explain returns a message about a contract error that is safe to show a
// user: the field and reason of an *InvalidError, the counts of a
// *ScopeFullError, the name of a *DuplicateNameError, a fixed sentence for
// the other sentinels. It never
// includes the layers an error passed through (package names, SQL). ok is
// false for errors outside the contract, which callers treat as internal.
func Explain(err error) (msg string, ok bool) {
	var inv *InvalidError
	var full *ScopeFullError
	var dup *DuplicateNameError
	var stale *StaleError
	switch {
	case errors.As(err, &inv):
		return inv.Error(), true
	case errors.As(err, &stale):
		return stale.Error(), true
	case errors.As(err, &full):
		return full.Error(), true
	case errors.As(err, &dup):
		return dup.Error(), true
	case errors.Is(err, ErrInvalid):
		return "invalid input", true
	case errors.Is(err, ErrScopeFull):
		return fmt.Sprintf("scope full: the limit is %d entries", MaxEntriesPerScope), true
	case errors.Is(err, ErrNotFound):
		return "not found in this scope: it does not exist, was deleted, or belongs to another server or scope", true
	case errors.Is(err, ErrDuplicateName):
		return "a collection with this name already exists on this server", true
	case errors.Is(err, ErrStaleTarget):
		return "the collection was renamed or deleted after this write was prepared; nothing was written", true
	case errors.Is(err, ErrUnavailable):
		return "the lore store is unavailable; nothing was written, try again", true
	}
	return "", false
}
