package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// entry is an entry with every field of the model (Entry in the schema).
type entry struct {
	ID                                           string
	LineageID                                    *int64
	Collection                                   *string
	Title, Content                               string
	Keys, SecondaryKeys                          []string
	SelectiveLogic                               string
	Constant, Enabled                            bool
	ScanDepth                                    *int
	Probability, InsertionOrder, Priority        int
	Placement, Role                              string
	CaseSensitive, WholeWords                    *bool
	IgnoreBudget                                 bool
	Group                                        string
	GroupOverride                                bool
	GroupWeight                                  int
	UseGroupScoring                              *bool
	ExcludeRecursion, PreventRecursion           bool
	DelayUntilRecursion, Sticky, Cooldown, Delay int
	ChannelIDs, LegacyChannelTags                []string
	Extensions                                   map[string]any
	CreatedAt, UpdatedAt                         string
	LastActivatedAt                              *string
}

const entryFields = `id lineageId collection title content keys secondaryKeys selectiveLogic constant enabled scanDepth
	probability insertionOrder priority placement role caseSensitive wholeWords ignoreBudget group groupOverride
	groupWeight useGroupScoring excludeRecursion preventRecursion delayUntilRecursion sticky cooldown delay
	channelIds legacyChannelTags extensions createdAt updatedAt lastActivatedAt`

// entryListFields are the fields the entries list shows and searches.
const entryListFields = `id title content keys secondaryKeys enabled constant insertionOrder priority updatedAt`

type entryConn struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   *string
	}
	Edges []struct {
		Cursor string
		Node   entry
	}
}

// entriesPage reads one page of a book's entries with the given fields,
// and the book's settings.
func (d *Dashboard) entriesPage(ctx context.Context, token, sid string, b book, fields string, first int, after *string) (entryConn, bookSettings, error) {
	vars := map[string]any{"s": sid, "a": after, "f": first}
	sel := bookSettingsFields + ` entries(first: $f, after: $a) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ` + fields + ` } } }`
	var book *struct {
		BookSettings bookSettings
		Entries      entryConn
	}
	var q string
	if b.Collection != nil {
		vars["n"] = b.Collection.Name
		q = `query($s: String!, $n: String!, $a: String, $f: Int) { server(discordId: $s) { book: collection(name: $n) { ` + sel + ` } } }`
	} else {
		vars["l"] = b.LineageID
		q = `query($s: String!, $l: Int64!, $a: String, $f: Int) { server(discordId: $s) { book: personaBook(lineageId: $l) { ` + sel + ` } } }`
	}
	var out struct {
		Server *struct {
			Book *struct {
				BookSettings bookSettings
				Entries      entryConn
			}
		}
	}
	if err := d.api.do(ctx, token, q, vars, &out); err != nil {
		return entryConn{}, bookSettings{}, err
	}
	if out.Server == nil || out.Server.Book == nil {
		return entryConn{}, bookSettings{}, errBookGone
	}
	book = out.Server.Book
	return book.Entries, book.BookSettings, nil
}

// bookEntries reads every entry of a book with the list's fields (pages of
// 250, the API's largest) and the book's settings.
func (d *Dashboard) bookEntries(ctx context.Context, token, sid string, b book) ([]entry, bookSettings, error) {
	var all []entry
	var settings bookSettings
	var after *string
	for range 64 { // bounded: 64 pages of 250 is far past any scope limit
		conn, st, err := d.entriesPage(ctx, token, sid, b, entryListFields, 250, after)
		if err != nil {
			return nil, settings, err
		}
		settings = st
		for _, e := range conn.Edges {
			all = append(all, e.Node)
		}
		if !conn.PageInfo.HasNextPage || conn.PageInfo.EndCursor == nil {
			break
		}
		after = conn.PageInfo.EndCursor
	}
	return all, settings, nil
}

// bookEntry reads one entry of a book with every field: it finds the
// entry's position among the ids, then reads the single entry after the
// previous one's cursor. ok is false when the book has no such entry.
func (d *Dashboard) bookEntry(ctx context.Context, token, sid string, b book, id string) (entry, bool, error) {
	var after, prev *string
	for range 64 {
		conn, _, err := d.entriesPage(ctx, token, sid, b, "id", 250, after)
		if err != nil {
			return entry{}, false, err
		}
		for _, e := range conn.Edges {
			if e.Node.ID == id {
				one, _, err := d.entriesPage(ctx, token, sid, b, entryFields, 1, prev)
				if err != nil {
					return entry{}, false, err
				}
				if len(one.Edges) == 1 && one.Edges[0].Node.ID == id {
					return one.Edges[0].Node, true, nil
				}
				return entry{}, false, errBookGone // changed between the two reads
			}
			c := e.Cursor
			prev = &c
		}
		if !conn.PageInfo.HasNextPage || conn.PageInfo.EndCursor == nil {
			return entry{}, false, nil
		}
		after = conn.PageInfo.EndCursor
	}
	return entry{}, false, nil
}

// errBookGone is a book that disappeared between two reads.
var errBookGone = errors.New("the book no longer exists")

// pageSize is the entries listed per page.
const pageSize = 50

// listQuery is the entries list's search, sort and page.
type listQuery struct {
	Q    string
	Sort string
	Desc bool
	Page int
}

// sortKeys are the list's sort orders.
var sortKeys = []string{"order", "title", "updated", "priority"}

func parseListQuery(v url.Values) listQuery {
	q := listQuery{Q: strings.TrimSpace(v.Get("q")), Sort: v.Get("sort"), Desc: v.Get("dir") == "desc"}
	if !slices.Contains(sortKeys, q.Sort) {
		q.Sort = "order"
	}
	q.Page, _ = strconv.Atoi(v.Get("page"))
	q.Page = max(q.Page, 1)
	if len(q.Q) > 200 {
		q.Q = q.Q[:200]
	}
	return q
}

// URL returns the list URL with page p and the same search and sort.
func (q listQuery) URL(p int) string {
	v := url.Values{}
	if q.Q != "" {
		v.Set("q", q.Q)
	}
	if q.Sort != "order" {
		v.Set("sort", q.Sort)
	}
	if q.Desc {
		v.Set("dir", "desc")
	}
	if p > 1 {
		v.Set("page", strconv.Itoa(p))
	}
	if len(v) == 0 {
		return "?"
	}
	return "?" + v.Encode()
}

// filterSort applies the search (title, keys and content, case
// insensitive) and the sort to entries.
func filterSort(entries []entry, q listQuery) []entry {
	out := entries[:0:0]
	needle := strings.ToLower(q.Q)
	for _, e := range entries {
		if needle == "" || strings.Contains(strings.ToLower(e.Title), needle) || strings.Contains(strings.ToLower(e.Content), needle) ||
			slices.ContainsFunc(e.Keys, func(k string) bool { return strings.Contains(strings.ToLower(k), needle) }) ||
			slices.ContainsFunc(e.SecondaryKeys, func(k string) bool { return strings.Contains(strings.ToLower(k), needle) }) {
			out = append(out, e)
		}
	}
	cmp := func(a, b entry) int {
		switch q.Sort {
		case "title":
			return strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
		case "updated":
			return strings.Compare(a.UpdatedAt, b.UpdatedAt)
		case "priority":
			return a.Priority - b.Priority
		}
		return a.InsertionOrder - b.InsertionOrder
	}
	slices.SortStableFunc(out, func(a, b entry) int {
		c := cmp(a, b)
		if q.Desc {
			c = -c
		}
		if c == 0 {
			c = strings.Compare(a.ID, b.ID)
		}
		return c
	})
	return out
}

// bookView is the book page's data.
type bookView struct {
	Book     book
	Scope    scopeCount
	Settings bookSettings
	Entries  []entry
	Total    int
	Matched  int
	Query    listQuery
	Pages    []int
	Page     int
	Prev     string
	Next     string
	Formats  []string
	Errors   map[string]string
}

// exportFormats are ExportFormat's values.
var exportFormats = []string{"ST_WORLD_INFO", "CCV3_LOREBOOK", "CARD_JSON", "CARD_PNG", "CARD_CHARX"}

func (d *Dashboard) serverPage(_ *Dashboard, rq *req) {
	rq.page(d, "server", rq.srv.Name, map[string]any{"Errors": map[string]string{}})
}

func (d *Dashboard) bookFromURL(rq *req) (book, bool) {
	b, ok := rq.srv.findBook(rq.r.PathValue("book"))
	if !ok {
		d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusNotFound, rq.t.S("This book does not exist on this server."))
	}
	return b, ok
}

func (d *Dashboard) bookPage(_ *Dashboard, rq *req) {
	b, ok := d.bookFromURL(rq)
	if !ok {
		return
	}
	entries, settings, err := d.bookEntries(rq.r.Context(), rq.s.Token, rq.sid, b)
	if err != nil {
		d.apiFailed(rq, err)
		return
	}
	d.renderBook(rq, b, entries, settings, nil, http.StatusOK)
}

func (d *Dashboard) renderBook(rq *req, b book, entries []entry, settings bookSettings, errs map[string]string, status int) {
	q := parseListQuery(rq.r.URL.Query())
	matched := filterSort(entries, q)
	pages := max(1, (len(matched)+pageSize-1)/pageSize)
	q.Page = min(q.Page, pages)
	start := (q.Page - 1) * pageSize
	v := bookView{Book: b, Scope: rq.srv.Scope(b), Settings: settings, Total: len(entries), Matched: len(matched),
		Query: q, Page: q.Page, Entries: matched[start:min(start+pageSize, len(matched))], Formats: exportFormats, Errors: errs}
	for p := 1; p <= pages; p++ {
		v.Pages = append(v.Pages, p)
	}
	if q.Page > 1 {
		v.Prev = q.URL(q.Page - 1)
	}
	if q.Page < pages {
		v.Next = q.URL(q.Page + 1)
	}
	d.renderStatus(rq, "book", b.Name, status, v)
}

// bookURL is the book page's path.
func bookURL(sid string, b book) string {
	return fmt.Sprintf("/dashboard/s/%s/b/%s/", sid, b.Ref)
}
