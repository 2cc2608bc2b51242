package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// bookSettingsRow receives bookSettingsColumns, in order.
type bookSettingsRow struct {
	scanDepth, budgetLimit, maxSteps, share           *int32
	recursive, caseSensitive, wholeWords, semanticAll *bool
}

func (r *bookSettingsRow) dests() []any {
	return []any{&r.scanDepth, &r.budgetLimit, &r.recursive, &r.maxSteps, &r.caseSensitive, &r.wholeWords, &r.share, &r.semanticAll}
}

func (r *bookSettingsRow) settings() lore.BookSettings {
	return lore.BookSettings{
		ScanDepth: intPtr(r.scanDepth), BudgetLimit: intPtr(r.budgetLimit), Recursive: r.recursive,
		MaxRecursionSteps: intPtr(r.maxSteps), CaseSensitive: r.caseSensitive, WholeWords: r.wholeWords,
		MaxBudgetShare: intPtr(r.share), SemanticAllEntries: r.semanticAll,
	}
}

func intPtr(v *int32) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}

func int32Ptr(v *int) *int32 {
	if v == nil {
		return nil
	}
	n := int32(*v)
	return &n
}

// bookSettingsArgs returns the settings as query parameters in
// bookSettingsColumns order.
func bookSettingsArgs(b lore.BookSettings) []any {
	return []any{int32Ptr(b.ScanDepth), int32Ptr(b.BudgetLimit), b.Recursive, int32Ptr(b.MaxRecursionSteps),
		b.CaseSensitive, b.WholeWords, int32Ptr(b.MaxBudgetShare), b.SemanticAllEntries}
}

// serverUnitTx returns the server's budget unit; book budget limits are
// validated in it.
func serverUnitTx(ctx context.Context, tx pgx.Tx, server string) (lore.BudgetUnit, error) {
	sv, err := scanServer(tx.QueryRow(ctx, serverGet, server))
	return sv.Settings.Unit(), err
}

// checkBookSettingsTx validates b against the server's budget unit; the
// caller holds the server lock, so the unit cannot change meanwhile.
func checkBookSettingsTx(ctx context.Context, tx pgx.Tx, server string, b lore.BookSettings) error {
	unit, err := serverUnitTx(ctx, tx, server)
	if err != nil {
		return err
	}
	return lore.WithFieldPrefix("settings", b.Validate(unit))
}

// UpdateCollectionSettings applies p to the book settings of the
// collection addressed by (server, id), as a lore write: under the
// server-row lock, the result validated with lore.BookSettings.Validate in
// the server's budget unit (ErrInvalid naming "settings.<field>"), and
// lore_version increments. ErrNotFound for an unknown server or collection;
// a *lore.StaleError (ErrStaleTarget) when p.ExpectedUpdatedAt is set and
// differs from the collection's UpdatedAt under the lock.
func (s *Store) UpdateCollectionSettings(ctx context.Context, server string, id int64, p lore.BookSettingsPatch) (lore.Collection, error) {
	var out lore.Collection
	err := s.write(ctx, "update collection settings", server, func(tx pgx.Tx) error {
		cur, err := scanCollection(tx.QueryRow(ctx, lorebookGet, server, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("collection", id)
		}
		if err != nil {
			return err
		}
		if err := lore.CheckUpdatedAt(fmt.Sprintf("collection %d", id), p.ExpectedUpdatedAt, cur.UpdatedAt); err != nil {
			return err
		}
		next := p.Apply(cur.Settings)
		if err := checkBookSettingsTx(ctx, tx, server, next); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, lorebookSetSettings, append([]any{server, id}, bookSettingsArgs(next)...)...); err != nil {
			return err
		}
		out, err = scanCollection(tx.QueryRow(ctx, lorebookGet, server, id))
		return err
	})
	return out, err
}

// PersonaBookSettings returns the book settings of a persona lineage (> 0)
// on the server; zero settings when none are stored (also for an unknown
// server or lineage: settings have no existence of their own).
func (s *Store) PersonaBookSettings(ctx context.Context, server string, lineage lore.Lineage) (lore.BookSettings, error) {
	const op = "persona book settings"
	if err := checkServerID(server); err != nil {
		return lore.BookSettings{}, wrapErr(op, err)
	}
	if lineage <= 0 {
		return lore.BookSettings{}, wrapErr(op, lore.Reject("lineage", i18n.NotPersonaLineage, nil))
	}
	var r bookSettingsRow
	err := s.db.QueryRow(ctx, personaBookGet, server, int64(lineage)).Scan(r.dests()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return lore.BookSettings{}, nil
	}
	if err != nil {
		return lore.BookSettings{}, wrapErr(op, err)
	}
	return r.settings(), nil
}

// PersonaBookUpdatedAt returns when a persona lineage's book settings were
// last written; zero when none are stored.
func (s *Store) PersonaBookUpdatedAt(ctx context.Context, server string, lineage lore.Lineage) (time.Time, error) {
	const op = "persona book updated at"
	if err := checkServerID(server); err != nil {
		return time.Time{}, wrapErr(op, err)
	}
	var r bookSettingsRow
	var at time.Time
	err := s.db.QueryRow(ctx, personaBookGetAt, server, int64(lineage)).Scan(append(r.dests(), &at)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	return at, wrapErr(op, err)
}

// UpdatePersonaBookSettings applies p to the book settings of a persona
// lineage (> 0), as a lore write: under the server-row lock, the result
// validated like UpdateCollectionSettings, and lore_version increments.
// Settings that end all unset delete the stored row. The lineage need not
// be registered (lore is keyed by lineage). Returns the stored settings.
// ErrNotFound for an unknown server; a *lore.StaleError (ErrStaleTarget)
// when p.ExpectedUpdatedAt is set and differs from the stored settings'
// time under the lock (no stored settings never match).
func (s *Store) UpdatePersonaBookSettings(ctx context.Context, server string, lineage lore.Lineage, p lore.BookSettingsPatch) (lore.BookSettings, error) {
	const op = "update persona book settings"
	if lineage <= 0 {
		return lore.BookSettings{}, wrapErr(op, lore.Reject("lineage", i18n.NotPersonaLineage, nil))
	}
	var out lore.BookSettings
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		var r bookSettingsRow
		var at time.Time
		err := tx.QueryRow(ctx, personaBookGetAt, server, int64(lineage)).Scan(append(r.dests(), &at)...)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err := lore.CheckUpdatedAt(fmt.Sprintf("persona book %d", int64(lineage)), p.ExpectedUpdatedAt, at); err != nil {
			return err
		}
		out = p.Apply(r.settings())
		return setPersonaBookTx(ctx, tx, server, lineage, out)
	})
	if err != nil {
		return lore.BookSettings{}, err
	}
	return out, nil
}

// setPersonaBookTx validates and stores a lineage's settings under the
// server lock the caller holds.
func setPersonaBookTx(ctx context.Context, tx pgx.Tx, server string, lineage lore.Lineage, b lore.BookSettings) error {
	if err := checkBookSettingsTx(ctx, tx, server, b); err != nil {
		return err
	}
	if b.IsZero() {
		_, err := tx.Exec(ctx, personaBookDelete, server, int64(lineage))
		return err
	}
	_, err := tx.Exec(ctx, personaBookUpsert, append([]any{server, int64(lineage)}, bookSettingsArgs(b)...)...)
	return err
}

// setCollectionBookTx stores an import's settings on the collection named
// name, under the server lock the caller holds.
func setCollectionBookTx(ctx context.Context, tx pgx.Tx, server, name string, b lore.BookSettings) error {
	if err := checkBookSettingsTx(ctx, tx, server, b); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, lorebookSetSettingsByName, append([]any{server, name}, bookSettingsArgs(b)...)...)
	return err
}
