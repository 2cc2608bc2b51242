package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"loregate/lore"
	"loregate/lore/i18n"
)

// SQLSTATE codes interpreted by interpretError (PostgreSQL appendix A).
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgCheckViolation      = "23514"
	pgNotNullViolation    = "23502"
	pgClassDataException  = "22"
	// pgFeatureNotSupported is also "cached plan must not change result
	// type" (a prepared statement outlived a schema change).
	pgFeatureNotSupported = "0A000"
)

// interpretError translates a pgx error into the lore error vocabulary. It is
// the only place that inspects driver errors. Errors that already wrap a lore
// sentinel pass unchanged.
func interpretError(err error) error {
	switch {
	case err == nil:
		return nil
	case isLoreError(err):
		return err
	case errors.Is(err, pgx.ErrNoRows):
		return lore.ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == pgUniqueViolation:
			return fmt.Errorf("%w (%s)", lore.ErrDuplicateName, pgErr.ConstraintName)
		case pgErr.Code == pgForeignKeyViolation:
			return fmt.Errorf("%w: referenced row missing (%s)", lore.ErrNotFound, pgErr.ConstraintName)
		case pgErr.Code == pgCheckViolation || pgErr.Code == pgNotNullViolation:
			field := pgErr.ConstraintName
			if field == "" {
				field = pgErr.ColumnName
			}
			return &lore.InvalidError{Field: field, Reason: "rejected by a database constraint", Key: i18n.RejectedByDatabase}
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == pgClassDataException:
			field := pgErr.ColumnName
			if field == "" {
				field = "input"
			}
			return &lore.InvalidError{Field: field, Reason: "rejected by the database (" + pgErr.Code + ")", Key: i18n.RejectedByDatabase}
		}
	}
	// Connection failures, timeouts, cancellation, deadlocks, anything else:
	// the store is unavailable. The cause stays reachable with errors.Is/As.
	return fmt.Errorf("%w: %w", lore.ErrUnavailable, err)
}

func isLoreError(err error) bool {
	for _, s := range []error{lore.ErrInvalid, lore.ErrScopeFull, lore.ErrNotFound,
		lore.ErrDuplicateName, lore.ErrStaleTarget, lore.ErrUnavailable} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// wrapErr names the operation and interprets err; nil stays nil.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("lore/postgres: %s: %w", op, interpretError(err))
}

// notFound returns a *lore.NotFoundError naming what is missing: kind
// ("server", "collection", "collection name", "entry", "persona",
// "import"...) and the id asked for (nil when there is none).
func notFound(kind string, id any) error {
	return lore.NotFound(kind, id)
}
