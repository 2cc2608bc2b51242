package lore

import (
	"fmt"
	"time"
)

// Optimistic concurrency (docs/api.md "Conflicts"): an edit may carry the
// UpdatedAt of its target as the caller read it. The store compares it with
// the stored value under the same server-row lock the write holds, so of two
// writers that read the same version at most one succeeds; the other gets a
// *StaleError and nothing is written. Stored update times move strictly
// forward on every update (migration 000045), so a time names one version.

// StaleError reports a write whose expected UpdatedAt no longer matches its
// target: someone changed (or, for persona book settings, cleared) it after
// the caller read it. It matches ErrStaleTarget with errors.Is.
type StaleError struct {
	// Target names what was written, e.g. "entry 12", "collection 3",
	// "server settings".
	Target string
	// Expected is the caller's expectedUpdatedAt; Current is the stored
	// UpdatedAt (zero when the target has none, e.g. a persona book
	// without stored settings).
	Expected, Current time.Time
}

func (e *StaleError) Error() string {
	if e.Current.IsZero() {
		return fmt.Sprintf("%s changed after it was read: it has no stored version now (expected updatedAt %s); nothing was written, read it again",
			e.Target, e.Expected.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Sprintf("%s was changed at %s, after the version read (updatedAt %s); nothing was written, read it again",
		e.Target, e.Current.UTC().Format(time.RFC3339Nano), e.Expected.UTC().Format(time.RFC3339Nano))
}

// Is makes errors.Is(err, ErrStaleTarget) true.
func (e *StaleError) Is(target error) bool { return target == ErrStaleTarget }

// UpdatedAtPrecision is the resolution of stored update times (Postgres
// timestamptz): expectations are compared at it.
const UpdatedAtPrecision = time.Microsecond

// CheckUpdatedAt returns a *StaleError for target when expected is set and
// differs from current at UpdatedAtPrecision; nil when expected is nil (no
// precondition) or matches. A zero current (the target has no stored
// version) never matches.
func CheckUpdatedAt(target string, expected *time.Time, current time.Time) error {
	if expected == nil {
		return nil
	}
	if !current.IsZero() && expected.Truncate(UpdatedAtPrecision).Equal(current.Truncate(UpdatedAtPrecision)) {
		return nil
	}
	return &StaleError{Target: target, Expected: *expected, Current: current}
}
