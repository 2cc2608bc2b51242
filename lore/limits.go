package lore

import (
	"fmt"
)

// Limits are the deployment's limits on stored lore: what one scope holds,
// how long an entry's content may be and how large a JSON upload may be.
// The zero value of a field means its default. An operator raises them
// with LOREGATE_MAX_SCOPE_ENTRIES, LOREGATE_MAX_CONTENT_CHARS and
// LOREGATE_MAX_JSON_BYTES (docs/configuration.md), never above the safety
// ceilings; no setting of a server can exceed them. Offline commands
// (`loregate convert`, `loregate activate`) use the ceilings.
type Limits struct {
	// ScopeEntries is the capacity of one scope (one persona lineage, or
	// all Serverwide collections of a server together), entries.
	// Default MaxEntriesPerScope (250); ceiling CeilingScopeEntries.
	ScopeEntries int `json:"scopeEntries"`
	// ContentChars is the longest entry content, UTF-16 code units.
	// Default MaxContentLen (4,000); ceiling CeilingContentChars.
	ContentChars int `json:"contentChars"`
	// JSONBytes is the largest JSON lorebook upload, bytes. Default
	// DefaultJSONBytes (2 MB); ceiling CeilingJSONBytes.
	JSONBytes int64 `json:"jsonBytes"`
}

// Defaults and safety ceilings of Limits. The defaults are the storage
// contract (docs/api.md "Limits"); the ceilings bound what one request can
// make the service hold or parse (docs/configuration.md "Limits").
const (
	// DefaultJSONBytes is the default JSON upload limit, 2 MB.
	DefaultJSONBytes = 2_000_000
	// CeilingScopeEntries is the most entries a deployment may allow in
	// one scope.
	CeilingScopeEntries = 5000
	// CeilingContentChars is the longest content a deployment may allow,
	// UTF-16 code units.
	CeilingContentChars = 100_000
	// CeilingJSONBytes is the largest JSON upload a deployment may allow,
	// bytes: 16 MiB, the size of any upload (PNG cards included).
	CeilingJSONBytes = 16 << 20
)

// Environment variables that set Limits (docs/configuration.md). Error
// messages about a limit name the variable that raises it.
const (
	EnvMaxScopeEntries = "LOREGATE_MAX_SCOPE_ENTRIES"
	EnvMaxContentChars = "LOREGATE_MAX_CONTENT_CHARS"
	EnvMaxJSONBytes    = "LOREGATE_MAX_JSON_BYTES"
)

// DefaultLimits returns the contract defaults: 250 entries per scope,
// 4,000 characters of content, 2 MB of JSON.
func DefaultLimits() Limits {
	return Limits{ScopeEntries: MaxEntriesPerScope, ContentChars: MaxContentLen, JSONBytes: DefaultJSONBytes}
}

// CeilingLimits returns the safety ceilings, the limits of offline
// conversion.
func CeilingLimits() Limits {
	return Limits{ScopeEntries: CeilingScopeEntries, ContentChars: CeilingContentChars, JSONBytes: CeilingJSONBytes}
}

// WithDefaults returns l with every zero or negative field set to its
// default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.ScopeEntries <= 0 {
		l.ScopeEntries = d.ScopeEntries
	}
	if l.ContentChars <= 0 {
		l.ContentChars = d.ContentChars
	}
	if l.JSONBytes <= 0 {
		l.JSONBytes = d.JSONBytes
	}
	return l
}

// Validate checks l (after WithDefaults) against the ceilings and the
// contract minimums (a deployment may raise a limit, not lower it below
// the contract that clients rely on). The error names the variable.
func (l Limits) Validate() error {
	l = l.WithDefaults()
	check := func(env string, v, lo, hi int64) error {
		if v < lo || v > hi {
			return fmt.Errorf("%s=%d is outside %d-%d", env, v, lo, hi)
		}
		return nil
	}
	if err := check(EnvMaxScopeEntries, int64(l.ScopeEntries), MaxEntriesPerScope, CeilingScopeEntries); err != nil {
		return err
	}
	if err := check(EnvMaxContentChars, int64(l.ContentChars), MaxContentLen, CeilingContentChars); err != nil {
		return err
	}
	return check(EnvMaxJSONBytes, l.JSONBytes, DefaultJSONBytes, CeilingJSONBytes)
}
