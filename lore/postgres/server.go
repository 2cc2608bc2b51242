package postgres

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
)

// maxServerNameLen bounds a guild name (Discord allows 2-100 characters).
const maxServerNameLen = 100

func scanServer(row pgx.Row) (lore.Server, error) {
	var sv lore.Server
	err := row.Scan(&sv.ID, &sv.Name, &sv.Settings.ChannelScoping, &sv.Settings.MemoryTagging,
		&sv.Settings.RegexKeys, &sv.LoreVersion)
	return sv, err
}

// UpsertServer creates the server with [lore.DefaultServerSettings] or
// renames an existing one, keeping its settings. id must be a snowflake;
// name is at most 100 UTF-16 code units. Not a lore write: lore_version is
// unchanged.
func (s *Store) UpsertServer(ctx context.Context, id, name string) (lore.Server, error) {
	if err := checkServerID(id); err != nil {
		return lore.Server{}, wrapErr("upsert server", err)
	}
	if lore.UTF16Len(name) > maxServerNameLen {
		return lore.Server{}, wrapErr("upsert server", lore.Invalid("name", "at most %d characters allowed", maxServerNameLen))
	}
	if !utf8.ValidString(name) || strings.IndexByte(name, 0) >= 0 {
		return lore.Server{}, wrapErr("upsert server", lore.Invalid("name", "must be valid UTF-8 without NUL characters"))
	}
	d := lore.DefaultServerSettings()
	sv, err := scanServer(s.db.QueryRow(ctx, serverUpsert, id, name, d.ChannelScoping, d.MemoryTagging, d.RegexKeys))
	return sv, wrapErr("upsert server", err)
}

// GetServer returns the server, or ErrNotFound.
func (s *Store) GetServer(ctx context.Context, id string) (lore.Server, error) {
	if err := checkServerID(id); err != nil {
		return lore.Server{}, wrapErr("get server", err)
	}
	sv, err := scanServer(s.db.QueryRow(ctx, serverGet, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return lore.Server{}, wrapErr("get server", notFound("server %s", id))
	}
	return sv, wrapErr("get server", err)
}

// UpdateServerSettings replaces the server's settings. Settings change how
// lore is matched, so it also increments lore_version (matcher caches
// rebuild). ErrNotFound for an unknown server.
func (s *Store) UpdateServerSettings(ctx context.Context, id string, set lore.ServerSettings) (lore.Server, error) {
	if err := checkServerID(id); err != nil {
		return lore.Server{}, wrapErr("update server settings", err)
	}
	sv, err := scanServer(s.db.QueryRow(ctx, serverUpdateSettings, id, set.ChannelScoping, set.MemoryTagging, set.RegexKeys))
	if errors.Is(err, pgx.ErrNoRows) {
		return lore.Server{}, wrapErr("update server settings", notFound("server %s", id))
	}
	return sv, wrapErr("update server settings", err)
}

// PatchServerSettings changes the settings p sets in one statement and
// increments lore_version. ErrNotFound for an unknown server.
func (s *Store) PatchServerSettings(ctx context.Context, id string, p lore.SettingsPatch) (lore.Server, error) {
	if err := checkServerID(id); err != nil {
		return lore.Server{}, wrapErr("patch server settings", err)
	}
	sv, err := scanServer(s.db.QueryRow(ctx, serverPatchSettings, id, p.ChannelScoping, p.MemoryTagging, p.RegexKeys))
	if errors.Is(err, pgx.ErrNoRows) {
		return lore.Server{}, wrapErr("patch server settings", notFound("server %s", id))
	}
	return sv, wrapErr("patch server settings", err)
}

// DeleteServer removes the server; the foreign keys cascade its personas,
// collections, entries and legacy channel tags. ErrNotFound for an unknown
// server.
func (s *Store) DeleteServer(ctx context.Context, id string) error {
	if err := checkServerID(id); err != nil {
		return wrapErr("delete server", err)
	}
	tag, err := s.db.Exec(ctx, serverDelete, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("server %s", id)
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

// UpsertPersona registers a persona or renames it (and may move it to
// another lineage); re-registering a removed persona restores it. p.ID and
// p.Lineage must be > 0, p.Name valid per lore.ValidatePersonaName.
// ErrNotFound when the server is unknown. Lore is keyed by lineage, so it
// is untouched.
func (s *Store) UpsertPersona(ctx context.Context, p lore.Persona) (lore.Persona, error) {
	const op = "upsert persona"
	if err := checkServerID(p.Server); err != nil {
		return lore.Persona{}, wrapErr(op, err)
	}
	if p.ID <= 0 {
		return lore.Persona{}, wrapErr(op, lore.Invalid("id", "must be a positive persona id"))
	}
	if p.Lineage <= 0 {
		return lore.Persona{}, wrapErr(op, lore.Invalid("lineage", "must be a positive lineage id"))
	}
	if err := lore.ValidatePersonaName(p.Name); err != nil {
		return lore.Persona{}, wrapErr(op, err)
	}
	out, err := scanPersona(s.db.QueryRow(ctx, personaUpsert, p.Server, p.ID, int64(p.Lineage), p.Name))
	return out, wrapErr(op, err)
}

// RemovePersona marks the persona removed. Its lineage's lore stays and is
// still listed and exported. ErrNotFound for an unknown persona.
func (s *Store) RemovePersona(ctx context.Context, server string, id int64) error {
	if err := checkServerID(server); err != nil {
		return wrapErr("remove persona", err)
	}
	tag, err := s.db.Exec(ctx, personaRemove, server, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("persona %d", id)
	}
	return wrapErr("remove persona", err)
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
