package graph

import (
	"context"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
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

// authorizeWrite re-checks, for every write, that the caller manages the
// server and, for persona scope, that the lineage is registered on it (an
// unknown server fails in the write itself) (docs/contract.md#permissions: "every routed write re-resolves the scope,
// rejects a lineage that is not present on the server, and checks the
// permission again"). Permission failures are GraphQL errors; a missing
// server or lineage is a contract error (NOT_FOUND).
func (r *Resolver) authorizeWrite(ctx context.Context, server string, lineage lore.Lineage) error {
	p := auth.FromContext(ctx)
	if !p.CanManage(server) {
		return errForbidden
	}
	if lineage < 0 {
		return lore.Invalid("lineageId", "must be 0 (Serverwide) or a positive lineage id")
	}
	// An unknown server is reported by the write itself (every store write
	// is addressed by server and returns ErrNotFound), so it is not read
	// here first.
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

// writableCollection authorises a Serverwide write and parses the
// collection id.
func (r *Resolver) writableCollection(ctx context.Context, server, collectionID string) (int64, error) {
	if err := r.authorizeWrite(ctx, server, lore.Serverwide); err != nil {
		return 0, err
	}
	return parseID("collection", collectionID)
}

// writableEntry authorises a write to one scope and parses the entry id.
func (r *Resolver) writableEntry(ctx context.Context, server string, lineage lore.Lineage, entryID string) (int64, error) {
	if err := r.authorizeWrite(ctx, server, lineage); err != nil {
		return 0, err
	}
	return parseID("entry", entryID)
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
	return book, nil
}

// actor names the caller for the import history: "user:<discord id>" or
// "service:<label>".
func actor(ctx context.Context) string {
	return auth.FromContext(ctx).Actor()
}
