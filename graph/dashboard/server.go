package dashboard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"time"

	"github.com/golang-jwt/jwt/v5"

	"loregate/graph/client"
	"loregate/graph/model"
)

// serverView is a server as the API shows it to the member (OpServer),
// with the books and counts the pages show. Its CanManage is the API's
// canWriteLore (the member writes lore: a manager or a lore editor), which
// the lore pages check; Manages is the API's canManage (Manage Server),
// which the server settings check (docs/workbench.md#lore-editor-role).
type serverView struct {
	client.Server
	Manages bool
}

// loadServer reads the server of the URL; nil when the API does not show
// it to the member (unknown, or not one of the member's servers).
func (d *Dashboard) loadServer(rq *req) (*serverView, error) {
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpServer, map[string]any{"s": rq.sid}, &out); err != nil {
		return nil, err
	}
	if out.Server == nil {
		return nil, nil
	}
	v := &serverView{Server: *out.Server, Manages: out.Server.CanManage}
	v.CanManage = out.Server.CanWriteLore
	return v, nil
}

// book is a collection or a persona lineage's book.
type book struct {
	// Ref is the URL segment: c<collection id> or p<lineage id>.
	Ref        string
	Name       string
	Collection *model.Collection
	LineageID  int64
	Personas   []string
	Count      int
}

// scopeCount is the entries of a scope against the limit.
type scopeCount struct{ Count, Limit int }

// Percent is the scope's fill in percent (0-100).
func (s scopeCount) Percent() int {
	if s.Limit <= 0 {
		return 0
	}
	return min(100, s.Count*100/s.Limit)
}

// serverwideCount is the entries of all collections together.
func (s *serverView) serverwideCount() scopeCount {
	n := 0
	for _, c := range s.EntryCounts {
		if c.LineageID == nil {
			n = c.Count
		}
	}
	return scopeCount{Count: n, Limit: s.Limits.EntriesPerScope}
}

// Collection returns the server's collections as books.
func (s *serverView) CollectionBooks() []book {
	out := make([]book, 0, len(s.Collections.Edges))
	for i := range s.Collections.Edges {
		c := &s.Collections.Edges[i].Node
		out = append(out, book{Ref: "c" + c.ID, Name: c.Name, Collection: c, Count: c.EntryCount})
	}
	return out
}

// PersonaBooks returns one book per lineage that a persona reads or that
// holds lore, by lineage id.
func (s *serverView) PersonaBooks() []book {
	byLineage := map[int64]*book{}
	var order []int64
	get := func(l int64) *book {
		b, ok := byLineage[l]
		if !ok {
			b = &book{Ref: "p" + strconv.FormatInt(l, 10), LineageID: l}
			byLineage[l] = b
			order = append(order, l)
		}
		return b
	}
	for _, p := range s.Personas {
		b := get(p.LineageID)
		name := p.Name
		if p.Removed {
			name += " †"
		}
		b.Personas = append(b.Personas, name)
	}
	for _, c := range s.EntryCounts {
		if c.LineageID != nil {
			get(*c.LineageID).Count = c.Count
		}
	}
	slices.Sort(order)
	out := make([]book, 0, len(order))
	for _, l := range order {
		b := byLineage[l]
		b.Name = strings.Join(b.Personas, ", ")
		if b.Name == "" {
			b.Name = fmt.Sprintf("#%d", l)
		}
		out = append(out, *b)
	}
	return out
}

// PersonaBookNames is the PersonaBooks' names by lineage id, as the pages
// name a persona book.
func (s *serverView) PersonaBookNames() map[int64]string {
	out := map[int64]string{}
	for _, b := range s.PersonaBooks() {
		out[b.LineageID] = b.Name
	}
	return out
}

// Serverwide is the Serverwide scope's count against the limit.
func (s *serverView) Serverwide() scopeCount { return s.serverwideCount() }

// Scope returns the count of a persona book against the limit.
func (s *serverView) Scope(b book) scopeCount {
	if b.Collection != nil {
		return s.serverwideCount()
	}
	return scopeCount{Count: b.Count, Limit: s.Limits.EntriesPerScope}
}

// findBook resolves a book reference of the URL on the server.
func (s *serverView) findBook(ref string) (book, bool) {
	if id, ok := strings.CutPrefix(ref, "c"); ok {
		for _, b := range s.CollectionBooks() {
			if b.Collection.ID == id {
				return b, true
			}
		}
		return book{}, false
	}
	if l, ok := strings.CutPrefix(ref, "p"); ok {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n <= 0 {
			return book{}, false
		}
		for _, b := range s.PersonaBooks() {
			if b.LineageID == n {
				return b, true
			}
		}
	}
	return book{}, false
}

// serverListItem is one of the member's servers.
type serverListItem struct {
	ID, Name string
	// Known is false when loregate has no record of the server (the bot
	// was never added). CanManage: Manage Server; Writes: the member may
	// write its lore (a manager or a lore editor). Decisions: a decision
	// on one of the member's proposals waits to be shown on the server
	// page (docs/workbench.md#decisions).
	Known, CanManage, Writes, Decisions bool
}

// maxListedGuilds bounds the servers listed; viewerPage is the servers
// read per Viewer.servers page (its maximum).
const (
	maxListedGuilds = 200
	viewerPage      = 100
)

// loadServers lists the member's servers: the guilds of the session, each
// known when the API shows it to the member (Viewer.servers: the
// registered servers among the token's guilds, one call per page of
// viewerPage); known servers first, then by name.
func (d *Dashboard) loadServers(rq *req) ([]serverListItem, error) {
	gs := rq.s.Guilds
	if len(gs) > maxListedGuilds {
		gs = gs[:maxListedGuilds]
	}
	if len(gs) == 0 {
		return nil, nil
	}
	known := map[string]client.Server{}
	var after *string
	for range (len(rq.p.Guilds) + viewerPage - 1) / viewerPage {
		var out struct {
			Viewer struct {
				Servers struct {
					Edges    []struct{ Node client.Server }
					PageInfo model.PageInfo
				}
			}
		}
		if err := d.api.Do(rq.ctx(), rq.p, client.OpViewerServers, map[string]any{"first": viewerPage, "after": after}, &out); err != nil {
			return nil, err
		}
		for _, e := range out.Viewer.Servers.Edges {
			known[e.Node.DiscordID] = e.Node
		}
		pi := out.Viewer.Servers.PageInfo
		if !pi.HasNextPage || pi.EndCursor == nil {
			break
		}
		after = pi.EndCursor
	}
	items := make([]serverListItem, 0, len(gs))
	for _, g := range gs {
		it := serverListItem{ID: g.ID, Name: g.Name, CanManage: g.Manage, Writes: g.Manage}
		if srv, ok := known[g.ID]; ok {
			it.Known, it.Name, it.CanManage, it.Writes = true, srv.Name, srv.CanManage, srv.CanWriteLore
			it.Decisions = len(srv.UnseenDecisions) > 0
		}
		if it.Name == "" {
			it.Name = g.ID
		}
		items = append(items, it)
	}
	slices.SortStableFunc(items, func(a, b serverListItem) int {
		if a.Known != b.Known {
			if a.Known {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return items, nil
}

// tokenExpiry reads the exp claim of an already verified token.
func tokenExpiry(token string) (t time.Time, err error) {
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil {
		return t, err
	}
	if c.ExpiresAt == nil {
		return t, fmt.Errorf("no exp claim")
	}
	return c.ExpiresAt.Time, nil
}
