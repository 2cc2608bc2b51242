package graph

import (
	"context"
	"strconv"
	"strings"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
)

// revisionToModel converts a revision; its Entry is the state.
func revisionToModel(rev lore.Revision) *model.EntryRevision {
	return &model.EntryRevision{
		Entry:         *entryToModel(rev.Entry),
		ID:            strconv.FormatInt(rev.ID, 10),
		EntryID:       strconv.FormatInt(rev.EntryID, 10),
		Kind:          model.RevisionKind(strings.ToUpper(string(rev.Kind))),
		At:            rev.At,
		By:            rev.Actor,
		Deleted:       rev.Deleted,
		ChangedFields: nonNil(rev.Changed),
	}
}

// revisionPage reads one page of revisions with list, from the cursor
// after ("r:" keysets of revision ids), into a connection.
func revisionPage(first *int, def int, after *string,
	list func(n int, before int64) ([]lore.Revision, bool, error)) (*model.EntryRevisionConnection, error) {
	n, err := pageSize(first, def)
	if err != nil {
		return nil, err
	}
	before, err := idCursor(after, "r:")
	if err != nil {
		return nil, err
	}
	conn := &model.EntryRevisionConnection{Edges: []*model.EntryRevisionEdge{}}
	if n == 0 {
		return conn, nil
	}
	revs, more, err := list(n, before)
	if err != nil {
		return nil, err
	}
	for _, rev := range revs {
		cursor := encodeKeyset("r:", rev.ID)
		conn.Edges = append(conn.Edges, &model.EntryRevisionEdge{Cursor: cursor, Node: *revisionToModel(rev)})
		conn.PageInfo.EndCursor = &cursor
	}
	conn.PageInfo.HasNextPage = more
	return conn, nil
}

// entryRevisions resolves Entry.revisions. The entry was read by a caller
// who may read its server; the revisions are read by entry id and shown
// only when the caller may read the server they belong to.
func (r *Resolver) entryRevisions(ctx context.Context, obj *model.Entry, first *int, after *string) (*model.EntryRevisionConnection, error) {
	id, err := strconv.ParseInt(obj.ID, 10, 64)
	if err != nil || id <= 0 {
		return &model.EntryRevisionConnection{Edges: []*model.EntryRevisionEdge{}}, nil
	}
	p := auth.FromContext(ctx)
	return revisionPage(first, 10, after, func(n int, before int64) ([]lore.Revision, bool, error) {
		revs, more, err := r.Store.EntryRevisions(ctx, "", id, n, before)
		if err != nil || len(revs) == 0 || !p.CanRead(revs[0].Server) {
			return nil, false, err
		}
		return revs, more, nil
	})
}

// deletedEntries resolves Server.deletedEntries (the server was read
// through visibleServer, so the caller may read it).
func (r *Resolver) deletedEntries(ctx context.Context, obj *model.Server, first *int, after *string) (*model.EntryRevisionConnection, error) {
	return revisionPage(first, 20, after, func(n int, before int64) ([]lore.Revision, bool, error) {
		return r.Store.DeletedEntries(ctx, obj.DiscordID, n, before)
	})
}

// restoreEntryRevision answers restoreEntryRevision: lore writers only;
// a revision of another server is NOT_FOUND.
func (r *Resolver) restoreEntryRevision(ctx context.Context, in model.RestoreEntryRevisionInput) (*model.EntryPayload, error) {
	if err := r.authorizeWrite(ctx, in.ServerDiscordID, lore.Serverwide); err != nil {
		return entryPayload(lore.Entry{}, err)
	}
	id, err := parseID("revision", in.RevisionID)
	if err != nil {
		return entryPayload(lore.Entry{}, err)
	}
	e, err := r.Store.RestoreRevision(ctx, in.ServerDiscordID, id, expected(in.ExpectedUpdatedAt))
	return entryPayload(e, err)
}
