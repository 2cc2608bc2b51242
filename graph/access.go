package graph

import (
	"context"
	"errors"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// visibleServer returns the server when the caller may read it. A server
// the caller cannot see is reported as not found, like an unknown one.
func (r *Resolver) visibleServer(ctx context.Context, id string) (lore.Server, *auth.Principal, error) {
	p := auth.FromContext(ctx)
	if !p.CanRead(id) {
		return lore.Server{}, p, lore.NotFound("server", id)
	}
	s, err := r.Store.GetServer(ctx, id)
	return s, p, err
}

// authorizeWrite re-checks, for every lore write, that the caller may
// write the server's lore (canWriteLore: a manager, a service or a lore
// editor) and, for persona scope, that the lineage is registered on it
// (an unknown server fails in the write itself) (docs/contract.md#permissions: "every routed write re-resolves the scope,
// rejects a lineage that is not present on the server, and checks the
// permission again"). Permission failures are GraphQL errors; a missing
// server or lineage is a contract error (NOT_FOUND).
func (r *Resolver) authorizeWrite(ctx context.Context, server string, lineage lore.Lineage) error {
	ok, err := r.canWriteLore(ctx, server)
	if err != nil {
		return err
	}
	if !ok {
		return errForbidden
	}
	// An unknown server is reported by the write itself (every store write
	// is addressed by server and returns ErrNotFound), so it is not read
	// here first.
	return r.knownLineage(ctx, server, lineage)
}

// authorizeMember checks a member's request to the lore writers (a
// proposal, docs/workbench.md#proposals): the caller is a member (or a
// service key) who can read the server, which exists, and lineage is known
// on it. A server the caller cannot see is ErrNotFound, like an unknown one.
func (r *Resolver) authorizeMember(ctx context.Context, server string, lineage lore.Lineage) error {
	_, p, err := r.visibleServer(ctx, server)
	if err != nil {
		return err
	}
	if p.Kind != auth.Member && p.Kind != auth.Service {
		return errForbidden
	}
	return r.knownLineage(ctx, server, lineage)
}

// authorizeService checks a server life cycle mutation (docs/servers.md):
// the caller is a service key and server a Discord snowflake.
func authorizeService(ctx context.Context, server string) error {
	if err := serviceOnly(ctx); err != nil {
		return err
	}
	if !lore.ValidSnowflake(server) {
		return lore.Reject("serverDiscordId", i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(server, 40)})
	}
	return nil
}

// serviceOnly refuses every principal but a service key: the server life
// cycle is the bot's and the operators' (docs/servers.md).
func serviceOnly(ctx context.Context) error {
	if p := auth.FromContext(ctx); p == nil || p.Kind != auth.Service {
		return errForbiddenService
	}
	return nil
}

// knownLineage accepts Serverwide (0) and a positive lineage registered on
// server: a negative one is ErrInvalid (field "lineageId"), an unknown one
// ErrNotFound.
func (r *Resolver) knownLineage(ctx context.Context, server string, lineage lore.Lineage) error {
	if lineage < 0 {
		return lore.Reject("lineageId", i18n.BadLineage, nil)
	}
	if lineage.IsServerwide() {
		return nil
	}
	ok, err := r.Store.LineageKnown(ctx, server, lineage)
	if err != nil {
		return err
	}
	if !ok {
		return lore.NotFound("lineage", int64(lineage))
	}
	return nil
}

// writableID authorises a write to one scope (authorizeWrite) and parses
// the id of the kind named what ("entry", "collection", "proposal").
func (r *Resolver) writableID(ctx context.Context, server string, lineage lore.Lineage, what, id string) (int64, error) {
	if err := r.authorizeWrite(ctx, server, lineage); err != nil {
		return 0, err
	}
	return parseID(what, id)
}

// visibleID checks that the caller can read the server (visibleServer)
// and parses the id of the kind named what.
func (r *Resolver) visibleID(ctx context.Context, server, what, id string) (int64, error) {
	if _, _, err := r.visibleServer(ctx, server); err != nil {
		return 0, err
	}
	return parseID(what, id)
}

// canWriteLore reports whether the caller may write the server's lore:
// it manages the server, or it is a member holding the server's lore
// editor role as the server's settings name it now (read on every call,
// so a role a manager unsets or changes stops granting at once;
// docs/workbench.md#lore-editor-role).
func (r *Resolver) canWriteLore(ctx context.Context, server string) (bool, error) {
	p := auth.FromContext(ctx)
	if p.CanManage(server) {
		return true, nil
	}
	if !p.HasRoles(server) {
		return false, nil
	}
	w, err := r.Store.GetWorkbenchSettings(ctx, server)
	if errors.Is(err, lore.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return p.HasRole(server, w.LoreEditorRoleID), nil
}

// authorizeSettings re-checks, for a write of the server's settings (and
// of what only managers do: personas, workspace backups, wipes), that the
// caller manages the server; a lore editor is refused.
func (r *Resolver) authorizeSettings(ctx context.Context, server string) error {
	if !auth.FromContext(ctx).CanManage(server) {
		return errForbiddenSettings
	}
	return nil
}

// writableCollection authorises a Serverwide write and parses the
// collection id.
func (r *Resolver) writableCollection(ctx context.Context, server, collectionID string) (int64, error) {
	return r.writableID(ctx, server, lore.Serverwide, "collection", collectionID)
}

// writableEntry authorises a write to one scope and parses the entry id.
func (r *Resolver) writableEntry(ctx context.Context, server string, lineage lore.Lineage, entryID string) (int64, error) {
	return r.writableID(ctx, server, lineage, "entry", entryID)
}

func collectionPayload(c lore.Collection, err error) (*model.CollectionPayload, error) {
	if err != nil {
		return failure[model.CollectionPayload](err)
	}
	m := collectionToModel(c)
	return &model.CollectionPayload{Collection: &m}, nil
}

func entryPayload(e lore.Entry, err error) (*model.EntryPayload, error) {
	if err != nil {
		return failure[model.EntryPayload](err)
	}
	return &model.EntryPayload{Entry: entryToModel(e)}, nil
}

func deletePayload(err error) (*model.DeletePayload, error) {
	if err != nil {
		return failure[model.DeletePayload](err)
	}
	return &model.DeletePayload{Ok: true}, nil
}

// personaBook builds the PersonaBook of a known lineage: its personas and
// entry count (settings and entries are resolved on demand).
func (r *Resolver) personaBook(ctx context.Context, server string, lineage lore.Lineage) (*model.PersonaBook, error) {
	ps, err := r.Store.ListPersonas(ctx, server)
	if err != nil {
		return nil, err
	}
	counts, err := r.Store.CountByScope(ctx, server)
	if err != nil {
		return nil, err
	}
	book := &model.PersonaBook{ServerID: server, LineageID: int64(lineage), Personas: []*model.Persona{}, EntryCount: counts[lineage]}
	for _, p := range ps {
		if p.Lineage == lineage {
			book.Personas = append(book.Personas, personaToModel(p))
		}
	}
	listedBooks(ctx, personaBookKey(book))
	return book, nil
}

// actor names the caller for the import history: "user:<discord id>" or
// "service:<label>".
func actor(ctx context.Context) string {
	return auth.FromContext(ctx).Actor()
}
