package graph

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// What a dashboard client needs beyond the Discord panel's operations
// (docs/api.md "Viewer", "Entry listings" and "Conflicts"): the caller's
// servers, searched and sorted entry pages, and optimistic concurrency on
// edits.

// expected returns the expectedUpdatedAt of an input; nil when omitted or
// null (no precondition).
func expected(o graphql.Omittable[*time.Time]) *time.Time {
	v, _ := o.ValueOK()
	return v
}

// entryPatchOf maps updateEntry's input to a store patch carrying its
// expectedUpdatedAt.
func entryPatchOf(in *model.UpdateEntryInput) (lore.EntryPatch, error) {
	p, err := patchFromInput(&in.Patch)
	p.ExpectedUpdatedAt = expected(in.ExpectedUpdatedAt)
	return p, err
}

// bookPatchExpecting maps book settings to a patch that expects the book's
// updatedAt (nil: no check).
func bookPatchExpecting(in *model.BookSettingsInput, expect graphql.Omittable[*time.Time]) lore.BookSettingsPatch {
	p := bookPatchFromInput(in)
	p.ExpectedUpdatedAt = expected(expect)
	return p
}

// personaBookUpdatedAt resolves PersonaBook.updatedAt: null while the book
// has no stored settings.
func (r *Resolver) personaBookUpdatedAt(ctx context.Context, obj *model.PersonaBook) (*time.Time, error) {
	at, err := r.Store.PersonaBookUpdatedAt(ctx, obj.ServerID, lore.Lineage(obj.LineageID))
	if err != nil || at.IsZero() {
		return nil, err
	}
	return &at, nil
}

// viewer resolves Query.viewer from the request's principal.
func viewer(ctx context.Context) (*model.Viewer, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return nil, errForbidden
	}
	v := &model.Viewer{Kind: model.PrincipalKindMember, ID: p.UserID}
	if p.Kind == auth.Service {
		v.Kind = model.PrincipalKindService
	}
	return v, nil
}

// serverCursor is the keyset position of Viewer.servers: the last name and
// discordId of the previous page.
type serverCursor struct {
	Name string `json:"n"`
	ID   string `json:"i"`
}

// viewerServers resolves Viewer.servers: the servers the principal may
// read, by name then id, one SQL page at a time.
func (r *Resolver) viewerServers(ctx context.Context, first *int, after *string) (*model.ServerConnection, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return nil, errForbidden
	}
	size, err := pageSize(first, 100)
	if err != nil {
		return nil, err
	}
	q := lore.ServerQuery{All: p.Kind == auth.Service, Limit: max(size, 1)}
	if !q.All {
		for id := range p.Guilds {
			q.IDs = append(q.IDs, id)
		}
	}
	if after != nil && *after != "" {
		var c serverCursor
		if err := decodeKeyset(*after, "s:", &c); err != nil || c.ID == "" {
			return nil, lore.Reject("after", i18n.NotACursor, nil)
		}
		q.AfterName, q.AfterID = c.Name, c.ID
	}
	page, err := r.Store.ListServers(ctx, q)
	if err != nil {
		return nil, err
	}
	conn := &model.ServerConnection{TotalCount: page.Total, Edges: []*model.ServerEdge{}}
	if size == 0 {
		conn.PageInfo.HasNextPage = page.Total > 0 && q.AfterID == ""
		return conn, nil
	}
	ids := make([]string, len(page.Servers))
	for i, s := range page.Servers {
		ids[i] = s.ID
	}
	listedServers(ctx, ids)
	for _, s := range page.Servers {
		cursor := encodeKeyset("s:", serverCursor{Name: s.Name, ID: s.ID})
		conn.Edges = append(conn.Edges, &model.ServerEdge{Cursor: cursor, Node: *serverToModel(s, p.CanManage(s.ID), r.Limits)})
		conn.PageInfo.EndCursor = &cursor
	}
	conn.PageInfo.HasNextPage = page.HasMore
	return conn, nil
}

// entryCursor is the keyset position of a searched or sorted entries
// connection, with the order it belongs to.
type entryCursor struct {
	Order string `json:"o"`
	Key   string `json:"k"`
	ID    int64  `json:"i"`
}

// entryOrderOf maps the API's orderBy (nil: insertion order, ascending).
func entryOrderOf(in *model.EntryOrder) lore.EntryOrder {
	o := lore.EntryOrder{Field: lore.OrderInsertionOrder}
	if in == nil {
		return o
	}
	o.Field = lore.EntryOrderField(strings.ToLower(string(in.Field)))
	o.Desc = in.Direction == model.OrderDirectionDesc
	return o
}

// bookEntries resolves the entries connection of one book (collection ""
// for a persona lineage). Without search and orderBy it pages the whole
// book with offset cursors (Serverwide books from the operation's
// one scope read, loader.go); with either, one SQL page (lore.EntryQuery)
// with keyset cursors tied to the order.
func (r *Resolver) bookEntries(ctx context.Context, server string, lineage lore.Lineage, collection string,
	first *int, after *string, includeDisabled *bool, search *string, orderBy *model.EntryOrder) (*model.EntryConnection, error) {
	if search == nil && orderBy == nil {
		var entries []lore.Entry
		var err error
		if lineage.IsServerwide() {
			entries, err = r.collectionEntries(ctx, server, collection)
		} else {
			entries, err = r.Store.ListScope(ctx, server, lineage, "")
		}
		if err != nil {
			return nil, err
		}
		return entryConnection(entries, first, after, includeDisabled)
	}
	size, err := pageSize(first, 50)
	if err != nil {
		return nil, err
	}
	q := lore.EntryQuery{
		Server: server, Lineage: lineage, Collection: collection,
		EnabledOnly: includeDisabled != nil && !*includeDisabled,
		Order:       entryOrderOf(orderBy),
		Limit:       max(size, 1),
		Count:       selects(ctx, "totalCount"),
	}
	if search != nil {
		q.Search = *search
	}
	if after != nil && *after != "" {
		var c entryCursor
		if err := decodeKeyset(*after, "k:", &c); err != nil || c.ID <= 0 {
			return nil, lore.Reject("after", i18n.NotACursor, nil)
		}
		if c.Order != q.Order.String() {
			return nil, lore.Reject("after", i18n.CursorOtherOrder, lore.Params{"order": c.Order})
		}
		q.After = &lore.EntryPosition{Key: c.Key, ID: c.ID}
	}
	page, err := r.Store.ListEntries(ctx, q)
	if err != nil {
		return nil, err
	}
	conn := &model.EntryConnection{TotalCount: max(page.Total, 0), Edges: []*model.EntryEdge{}}
	if size == 0 {
		conn.PageInfo.HasNextPage = len(page.Entries) > 0
		return conn, nil
	}
	for i, e := range page.Entries {
		pos := page.Positions[i]
		cursor := encodeKeyset("k:", entryCursor{Order: q.Order.String(), Key: pos.Key, ID: pos.ID})
		conn.Edges = append(conn.Edges, &model.EntryEdge{Cursor: cursor, Node: *entryToModel(e)})
		conn.PageInfo.EndCursor = &cursor
	}
	conn.PageInfo.HasNextPage = page.HasMore
	return conn, nil
}

// pageSize returns first (def when nil) after checking it against
// MaxPageSize.
func pageSize(first *int, def int) (int, error) {
	size := def
	if first != nil {
		size = *first
	}
	if size < 0 || size > MaxPageSize {
		return 0, lore.Reject("first", i18n.Between, lore.Params{"min": 0, "max": MaxPageSize})
	}
	return size, nil
}

// maxCursorLen bounds a keyset cursor (a position carries at most a
// lower-cased title).
const maxCursorLen = 4096

func encodeKeyset(prefix string, v any) string {
	b, _ := json.Marshal(v) // plain structs of strings and ints
	return base64.RawURLEncoding.EncodeToString(append([]byte(prefix), b...))
}

// idCursor decodes the optional cursor after of a listing paged by ids
// (keyset prefix "p:" proposals, "r:" revisions, "h:" import history): 0
// when there is none, not_a_cursor when it is not one.
func idCursor(after *string, prefix string) (int64, error) {
	var before int64
	if after == nil || *after == "" {
		return 0, nil
	}
	if err := decodeKeyset(*after, prefix, &before); err != nil || before <= 0 {
		return 0, lore.Reject("after", i18n.NotACursor, nil)
	}
	return before, nil
}

func decodeKeyset(s, prefix string, v any) error {
	if len(s) > maxCursorLen {
		return lore.Reject("after", i18n.NotACursor, nil)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	rest, ok := strings.CutPrefix(string(b), prefix)
	if !ok {
		return lore.Reject("after", i18n.CursorOtherConnection, nil)
	}
	return json.Unmarshal([]byte(rest), v)
}

// expecting runs write as the lore write of an edit that may expect its
// target's updatedAt. With an expectation, current reads the target's
// updatedAt and write runs in one transaction holding the server-row lock
// (HistoryStore.Atomic), so no other writer can change the target between
// the check and the write; a mismatch is a *lore.StaleError and nothing is
// written. Without one, write runs directly on the Store, unchecked.
func (r *Resolver) expecting(ctx context.Context, server string, expect graphql.Omittable[*time.Time], target string,
	current func(ctx context.Context, st lore.HistoryStore) (time.Time, error),
	write func(ctx context.Context, st lore.HistoryStore) error) error {
	at := expected(expect)
	if at == nil {
		return write(ctx, r.Store)
	}
	return r.Store.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		cur, err := current(ctx, st)
		if err != nil {
			return err
		}
		if err := lore.CheckUpdatedAt(target, at, cur); err != nil {
			return err
		}
		return write(ctx, st)
	})
}

// collectionEdit runs write on collection id of server, expecting its
// updatedAt when expect is set (see expecting), and returns what write
// returned.
func (r *Resolver) collectionEdit(ctx context.Context, server string, id int64, expect graphql.Omittable[*time.Time],
	write func(ctx context.Context, st lore.HistoryStore) (lore.Collection, error)) (lore.Collection, error) {
	var c lore.Collection
	err := r.expecting(ctx, server, expect, fmt.Sprintf("collection %d", id),
		func(ctx context.Context, st lore.HistoryStore) (time.Time, error) {
			cur, err := st.GetCollection(ctx, server, id)
			return cur.UpdatedAt, err
		},
		func(ctx context.Context, st lore.HistoryStore) (err error) {
			c, err = write(ctx, st)
			return err
		})
	return c, err
}

// entryEdit runs write on entry id of (server, lineage), expecting its
// updatedAt when expect is set (see expecting).
func (r *Resolver) entryEdit(ctx context.Context, server string, lineage lore.Lineage, id int64, expect graphql.Omittable[*time.Time],
	write func(ctx context.Context, st lore.HistoryStore) error) error {
	return r.expecting(ctx, server, expect, fmt.Sprintf("entry %d", id),
		func(ctx context.Context, st lore.HistoryStore) (time.Time, error) {
			cur, err := st.GetEntry(ctx, server, lineage, id)
			return cur.UpdatedAt, err
		}, write)
}

// serverEntry resolves Server.entry: the entry addressed by (server,
// lineage, id), or null when it is not in that scope (a malformed id or a
// negative lineage included). The server was read through visibleServer,
// so the caller may read it.
func (r *Resolver) serverEntry(ctx context.Context, server string, lineage int64, id string) (*model.Entry, error) {
	eid, err := parseID("entry", id)
	if err != nil || lineage < 0 {
		return nil, nil
	}
	e, err := r.Store.GetEntry(ctx, server, lore.Lineage(lineage), eid)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return entryToModel(e), nil
}
