package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// maxServerNameLen bounds a guild name (Discord allows 2-100 characters).
const maxServerNameLen = 100

// selectionDests are the scan destinations of the selection control
// columns (min_activations, min_activations_depth_max, max_entries,
// include_names, in that order).
func selectionDests(s *lore.Selection) []any {
	return []any{&s.MinActivations, &s.MinActivationsDepthMax, &s.MaxEntries, &s.IncludeNames}
}

func scanServer(row pgx.Row) (lore.Server, error) {
	var sv lore.Server
	var unit, tokenizer string
	var limit int32
	err := row.Scan(append([]any{&sv.ID, &sv.Name, &sv.Settings.ChannelScoping, &sv.Settings.MemoryTagging,
		&sv.Settings.RegexKeys, &unit, &limit, &tokenizer, &sv.LoreVersion, &sv.SettingsUpdatedAt, &sv.LeftAt, &sv.Settings.Semantic},
		selectionDests(&sv.Settings.Selection)...)...)
	sv.Settings.BudgetUnit, sv.Settings.BudgetLimit, sv.Settings.Tokenizer = lore.BudgetUnit(unit), int(limit), lore.TokenizerName(tokenizer)
	return sv, err
}

// UpsertServer creates the server with [lore.DefaultServerSettings] or
// renames an existing one, keeping its settings. A server the bot had left
// is restored untouched (LeftAt cleared; the life cycle record gets a
// "rejoined" step). id must be a snowflake; name is at most 100 UTF-16
// code units. Not a lore write: lore_version is unchanged.
func (s *Store) UpsertServer(ctx context.Context, id, name string) (lore.Server, error) {
	if err := checkServerID(id); err != nil {
		return lore.Server{}, wrapErr("upsert server", err)
	}
	if lore.UTF16Len(name) > maxServerNameLen {
		return lore.Server{}, wrapErr("upsert server", lore.Reject("name", i18n.TooLong, lore.Params{"length": lore.UTF16Len(name), "max": maxServerNameLen}))
	}
	if !utf8.ValidString(name) || strings.IndexByte(name, 0) >= 0 {
		return lore.Server{}, wrapErr("upsert server", lore.Reject("name", i18n.InvalidText, nil))
	}
	d := lore.DefaultServerSettings()
	var sv lore.Server
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var left *time.Time
		if err := tx.QueryRow(ctx, serverLeftAtLock, id).Scan(&left); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var err error
		if sv, err = scanServer(tx.QueryRow(ctx, serverUpsert, id, name, d.ChannelScoping, d.MemoryTagging, d.RegexKeys,
			string(d.Unit()), string(d.TokenizerOrDefault()))); err != nil {
			return err
		}
		if left == nil {
			return nil
		}
		return recordLifecycle(ctx, tx, id, lifecycleRejoined, "", nil)
	})
	return sv, wrapErr("upsert server", err)
}

// GetServer returns the server, or ErrNotFound.
func (s *Store) GetServer(ctx context.Context, id string) (lore.Server, error) {
	if err := checkServerID(id); err != nil {
		return lore.Server{}, wrapErr("get server", err)
	}
	sv, err := scanServer(s.db.QueryRow(ctx, serverGet, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return lore.Server{}, wrapErr("get server", notFound("server", id))
	}
	return sv, wrapErr("get server", err)
}

// UpdateServerSettings replaces the server's settings ("" unit and
// tokenizer and a 0 limit mean the defaults), validated with
// lore.ServerSettings.Validate. Settings change how lore is matched, so it
// is a lore write: under the server-row lock, and lore_version increments
// (matcher caches rebuild). ErrNotFound for an unknown server.
func (s *Store) UpdateServerSettings(ctx context.Context, id string, set lore.ServerSettings) (lore.Server, error) {
	return s.writeSettings(ctx, "update server settings", id, nil, func(lore.ServerSettings) lore.ServerSettings { return set })
}

// PatchServerSettings changes the settings p sets (see lore.SettingsPatch
// for the budget rule) under the server-row lock, so concurrent partial
// updates never undo each other, validates the result and increments
// lore_version. ErrNotFound for an unknown server; a *lore.StaleError
// (ErrStaleTarget) when p.ExpectedUpdatedAt is set and differs from
// SettingsUpdatedAt under the lock.
func (s *Store) PatchServerSettings(ctx context.Context, id string, p lore.SettingsPatch) (lore.Server, error) {
	return s.writeSettings(ctx, "patch server settings", id, p.ExpectedUpdatedAt, p.Apply)
}

// writeSettings reads the server's settings under the row lock, checks
// expect against SettingsUpdatedAt (nil: no check), applies change,
// validates and stores the result as one lore write.
func (s *Store) writeSettings(ctx context.Context, op, id string, expect *time.Time, change func(lore.ServerSettings) lore.ServerSettings) (lore.Server, error) {
	var out lore.Server
	err := s.write(ctx, op, id, func(tx pgx.Tx) error {
		cur, err := scanServer(tx.QueryRow(ctx, serverGet, id)) // s.write holds the row lock
		if err != nil {
			return err
		}
		if err := lore.CheckUpdatedAt("server settings", expect, cur.SettingsUpdatedAt); err != nil {
			return err
		}
		next := change(cur.Settings)
		if err := next.Validate(); err != nil {
			return err
		}
		next.BudgetUnit, next.Tokenizer = next.Unit(), next.TokenizerOrDefault()
		var at time.Time
		if err := tx.QueryRow(ctx, serverUpdateSettings, id, next.ChannelScoping, next.MemoryTagging, next.RegexKeys,
			string(next.BudgetUnit), int32(next.BudgetLimit), string(next.Tokenizer), next.Semantic, int32(next.MinActivations),
			int32(next.MinActivationsDepthMax), int32(next.MaxEntries), next.IncludeNames).Scan(&at); err != nil {
			return err
		}
		out = cur
		out.SettingsUpdatedAt = at
		out.Settings = next
		out.LoreVersion = cur.LoreVersion + 1 // write bumps it before commit
		return nil
	})
	if err != nil {
		return lore.Server{}, err
	}
	return out, nil
}

// DeleteServer removes the server; the foreign keys cascade its personas,
// collections, entries and legacy channel tags. ErrNotFound for an unknown
// server.
func (s *Store) DeleteServer(ctx context.Context, id string) error {
	if err := checkServerID(id); err != nil {
		return wrapErr("delete server", err)
	}
	defer s.wrote(id)
	tag, err := s.db.Exec(ctx, serverDelete, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("server", id)
	}
	return wrapErr("delete server", err)
}

func scanPersona(row pgx.Row) (lore.Persona, error) {
	var p lore.Persona
	var lineage int64
	err := row.Scan(&p.Server, &p.ID, &lineage, &p.Name, &p.Removed)
	p.Lineage = lore.Lineage(lineage)
	return p, err
}

// UpsertPersona registers a persona or renames it; re-registering a
// removed persona restores it, under p.Lineage whatever its lineage was.
// A persona that is not removed keeps its lineage: p.Lineage naming
// another one is refused (lore.ErrInvalid on "lineage", reason
// i18n.PersonaOtherLineage with the persona's id and both lineages), since
// it would move the persona away from its book; nothing is written. This
// is the one place that rule is decided (the API and the dashboard go
// through it). p.ID and p.Lineage must be > 0, p.Name valid per
// lore.ValidatePersonaName. ErrNotFound when the server is unknown. Lore
// is keyed by lineage, so it is untouched; the server's lore version moves
// on (cached scopes see the registration).
func (s *Store) UpsertPersona(ctx context.Context, p lore.Persona) (lore.Persona, error) {
	const op = "upsert persona"
	if err := checkServerID(p.Server); err != nil {
		return lore.Persona{}, wrapErr(op, err)
	}
	if p.ID <= 0 {
		return lore.Persona{}, wrapErr(op, lore.Reject("id", i18n.NotPositivePersonaID, nil))
	}
	if p.Lineage <= 0 {
		return lore.Persona{}, wrapErr(op, lore.Reject("lineage", i18n.NotPositiveLineage, nil))
	}
	if err := lore.ValidatePersonaName(p.Name); err != nil {
		return lore.Persona{}, wrapErr(op, err)
	}
	// A lore write (server lock, lore_version bumped): a registration makes
	// its lineage known, which the per-turn read reports
	// (lore.Snapshot.UnknownLineage), so cached scopes must go.
	var out lore.Persona
	err := s.write(ctx, op, p.Server, func(tx pgx.Tx) error {
		var err error
		out, err = scanPersona(tx.QueryRow(ctx, personaUpsert, p.Server, p.ID, int64(p.Lineage), p.Name))
		if errors.Is(err, pgx.ErrNoRows) {
			// The persona is registered, not removed, under another lineage.
			return otherLineage(ctx, tx, p)
		}
		return err
	})
	if err != nil {
		return lore.Persona{}, err
	}
	return out, nil
}

// otherLineage is the refusal of an upsert of p whose persona is
// registered (not removed) under another lineage: it reads that lineage.
func otherLineage(ctx context.Context, tx pgx.Tx, p lore.Persona) error {
	cur, err := scanPersona(tx.QueryRow(ctx, personaGet, p.Server, p.ID))
	if err != nil {
		return fmt.Errorf("read the registered persona: %w", err)
	}
	return lore.Reject("lineage", i18n.PersonaOtherLineage,
		lore.Params{"id": p.ID, "lineage": int64(cur.Lineage), "requested": int64(p.Lineage)})
}

// RemovePersona marks the persona removed. Its lineage's lore stays and is
// still listed and exported. ErrNotFound for an unknown persona. Like
// UpsertPersona a lore write (server lock, lore_version bumped), so cached
// scopes drop the persona's card at once.
func (s *Store) RemovePersona(ctx context.Context, server string, id int64) error {
	const op = "remove persona"
	if err := checkServerID(server); err != nil {
		return wrapErr(op, err)
	}
	return s.write(ctx, op, server, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, personaRemove, server, id)
		if err == nil && tag.RowsAffected() == 0 {
			err = notFound("persona id", id)
		}
		return err
	})
}

// ListPersonas returns the server's personas, removed ones included, by id.
func (s *Store) ListPersonas(ctx context.Context, server string) ([]lore.Persona, error) {
	if err := checkServerID(server); err != nil {
		return nil, wrapErr("list personas", err)
	}
	rows, err := s.db.Query(ctx, personaList, server)
	if err != nil {
		return nil, wrapErr("list personas", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Persona, error) { return scanPersona(r) })
	return out, wrapErr("list personas", err)
}

// LineageKnown reports whether lineage is read by a persona of the server
// (removed or not) or owns lore there. The panel uses it to reject routes
// naming a lineage that is not present on the server. Serverwide is always
// known.
func (s *Store) LineageKnown(ctx context.Context, server string, lineage lore.Lineage) (bool, error) {
	if err := checkServerID(server); err != nil {
		return false, wrapErr("lineage known", err)
	}
	if err := checkLineage(lineage); err != nil {
		return false, wrapErr("lineage known", err)
	}
	if lineage.IsServerwide() {
		return true, nil
	}
	var known bool
	err := s.db.QueryRow(ctx, personaLineageKnown, server, int64(lineage)).Scan(&known)
	return known, wrapErr("lineage known", err)
}
