package dashboard

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"time"

	"github.com/golang-jwt/jwt/v5"
)

// serverInfo is a server as the API shows it to the member.
type serverInfo struct {
	DiscordID string
	Name      string
	CanManage bool
	Settings  struct {
		ChannelScoping, MemoryTagging, RegexKeys bool
		BudgetUnit                               string
		BudgetLimit                              int
		Tokenizer                                string
		// UpdatedAt is the settings' version (updateServerSettings'
		// expectedUpdatedAt).
		UpdatedAt string
	}
	Limits struct {
		EntriesPerScope, ContentLength, TitleLength, KeysPerEntry, KeyLength int
		CollectionNameLength, ChannelIDs, ScanDepthMin, ScanDepthMax         int
		JSONUploadBytes                                                      int
	}
	Personas []struct {
		ID, LineageID int64
		Name          string
		Removed       bool
	}
	EntryCounts []struct {
		LineageID *int64
		Count     int
	}
	Collections struct {
		TotalCount int
		Edges      []struct{ Node collection }
	}
}

type collection struct {
	ID           string
	Name         string
	Enabled      bool
	ChannelIDs   []string
	EntryCount   int
	BookSettings bookSettings
	UpdatedAt    string
}

// bookSettings mirrors BookSettings: nil inherits.
type bookSettings struct {
	ScanDepth, BudgetLimit, MaxRecursionSteps *int
	Recursive, CaseSensitive, WholeWords      *bool
	// UpdatedAt is the book's version, the expectedUpdatedAt of a
	// settings change (Collection.updatedAt, PersonaBook.updatedAt: nil
	// while a persona book has no stored settings).
	UpdatedAt *string `json:"-"`
}

const bookSettingsFields = `bookSettings { scanDepth budgetLimit recursive maxRecursionSteps caseSensitive wholeWords }`

const qServer = `query($s: String!) { server(discordId: $s) { discordId name canManage
	settings { channelScoping memoryTagging regexKeys budgetUnit budgetLimit tokenizer updatedAt }
	limits { entriesPerScope contentLength titleLength keysPerEntry keyLength collectionNameLength channelIds scanDepthMin scanDepthMax jsonUploadBytes }
	personas { id lineageId name removed }
	entryCounts { lineageId count }
	collections(first: 250) { totalCount edges { node { id name enabled channelIds entryCount updatedAt ` + bookSettingsFields + ` } } } } }`

// loadServer reads the server; nil when the API does not show it to the
// member (unknown, or not one of the member's servers).
func (d *Dashboard) loadServer(ctx context.Context, token, sid string) (*serverInfo, error) {
	var out struct{ Server *serverInfo }
	if err := d.api.do(ctx, token, qServer, map[string]any{"s": sid}, &out); err != nil {
		return nil, err
	}
	return out.Server, nil
}

// book is a collection or a persona lineage's book.
type book struct {
	// Ref is the URL segment: c<collection id> or p<lineage id>.
	Ref        string
	Name       string
	Collection *collection
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
func (s *serverInfo) serverwideCount() scopeCount {
	n := 0
	for _, c := range s.EntryCounts {
		if c.LineageID == nil {
			n = c.Count
		}
	}
	return scopeCount{Count: n, Limit: s.Limits.EntriesPerScope}
}

// Collection returns the server's collections as books.
func (s *serverInfo) CollectionBooks() []book {
	out := make([]book, 0, len(s.Collections.Edges))
	for i := range s.Collections.Edges {
		c := &s.Collections.Edges[i].Node
		out = append(out, book{Ref: "c" + c.ID, Name: c.Name, Collection: c, Count: c.EntryCount})
	}
	return out
}

// PersonaBooks returns one book per lineage that a persona reads or that
// holds lore, by lineage id.
func (s *serverInfo) PersonaBooks() []book {
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

// Serverwide is the Serverwide scope's count against the limit.
func (s *serverInfo) Serverwide() scopeCount { return s.serverwideCount() }

// Scope returns the count of a persona book against the limit.
func (s *serverInfo) Scope(b book) scopeCount {
	if b.Collection != nil {
		return s.serverwideCount()
	}
	return scopeCount{Count: b.Count, Limit: s.Limits.EntriesPerScope}
}

// findBook resolves a book reference of the URL on the server.
func (s *serverInfo) findBook(ref string) (book, bool) {
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
	// was never added).
	Known, CanManage bool
}

// maxListedGuilds bounds the servers looked up for the list.
const maxListedGuilds = 200

// loadServers looks up the member's servers in one API call (one aliased
// server field per guild); known servers first, then by name.
func (d *Dashboard) loadServers(ctx context.Context, s *session) ([]serverListItem, error) {
	gs := s.Guilds
	if len(gs) > maxListedGuilds {
		gs = gs[:maxListedGuilds]
	}
	if len(gs) == 0 {
		return nil, nil
	}
	var q strings.Builder
	vars := map[string]any{}
	q.WriteString("query(")
	for i := range gs {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "$g%d: String!", i)
		vars[fmt.Sprintf("g%d", i)] = gs[i].ID
	}
	q.WriteString(") {")
	for i := range gs {
		fmt.Fprintf(&q, " g%d: server(discordId: $g%d) { discordId name canManage }", i, i)
	}
	q.WriteString(" }")
	var out map[string]*struct {
		DiscordID, Name string
		CanManage       bool
	}
	if err := d.api.do(ctx, s.Token, q.String(), vars, &out); err != nil {
		return nil, err
	}
	items := make([]serverListItem, 0, len(gs))
	for i, g := range gs {
		it := serverListItem{ID: g.ID, Name: g.Name, CanManage: g.Manage}
		if srv := out[fmt.Sprintf("g%d", i)]; srv != nil {
			it.Known, it.Name, it.CanManage = true, srv.Name, srv.CanManage
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
