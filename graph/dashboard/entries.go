package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"loregate/lore"
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
func (d *Dashboard) entriesPage(ctx context.Context, token, sid string, b book, fields string, first int, after *string, lq *listQuery) (entryConn, bookSettings, error) {
	vars := map[string]any{"s": sid, "a": after, "f": first, "q": nil, "o": nil}
	if lq != nil {
		if lq.Q != "" {
			vars["q"] = lq.Q
		}
		dir := "ASC"
		if lq.Desc {
			dir = "DESC"
		}
		vars["o"] = map[string]any{"field": sortFields[lq.Sort], "direction": dir}
	}
	sel := `updatedAt ` + bookSettingsFields + ` entries(first: $f, after: $a, search: $q, orderBy: $o) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ` + fields + ` } } }`
	var q string
	if b.Collection != nil {
		vars["n"] = b.Collection.Name
		q = `query($s: String!, $n: String!, $a: String, $f: Int, $q: String, $o: EntryOrder) { server(discordId: $s) { book: collection(name: $n) { ` + sel + ` } } }`
	} else {
		vars["l"] = b.LineageID
		q = `query($s: String!, $l: Int64!, $a: String, $f: Int, $q: String, $o: EntryOrder) { server(discordId: $s) { book: personaBook(lineageId: $l) { ` + sel + ` } } }`
	}
	var out struct {
		Server *struct {
			Book *struct {
				UpdatedAt    *string
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
	book := out.Server.Book
	settings := book.BookSettings
	settings.UpdatedAt = book.UpdatedAt
	return book.Entries, settings, nil
}

// bookEntry reads one entry of a book with every field (Server.entry);
// found is false when the book has no such entry (another scope's or
// another collection's id included).
func (d *Dashboard) bookEntry(ctx context.Context, token, sid string, b book, id string) (e entry, found bool, err error) {
	var out struct{ Server *struct{ Entry *entry } }
	q := `query($s: String!, $l: Int64!, $id: ID!) { server(discordId: $s) { entry(lineageId: $l, id: $id) { ` + entryFields + ` } } }`
	if err := d.api.do(ctx, token, q, map[string]any{"s": sid, "l": b.LineageID, "id": id}, &out); err != nil {
		return entry{}, false, err
	}
	if out.Server == nil || out.Server.Entry == nil {
		return entry{}, false, nil
	}
	got := out.Server.Entry
	if b.Collection != nil && (got.Collection == nil || *got.Collection != b.Collection.Name) {
		return entry{}, false, nil
	}
	return *got, true, nil
}

// errBookGone is a book that disappeared between two reads.
var errBookGone = errors.New("the book no longer exists")

// pageSize is the entries listed per page.
const pageSize = 50

// listQuery is the entries list's search, sort and position: After is
// the API cursor the page starts after, Trail the cursors of the pages
// before it ("-" for the first), so that Previous can go back.
type listQuery struct {
	Q     string
	Sort  string
	Desc  bool
	After string
	Trail []string
}

// sortFields maps the list's sort orders to EntryOrderField.
var sortFields = map[string]string{"order": "INSERTION_ORDER", "title": "TITLE", "updated": "UPDATED_AT", "priority": "PRIORITY"}

// maxTrail bounds the pages remembered for Previous.
const maxTrail = 100

func parseListQuery(v url.Values) listQuery {
	q := listQuery{Q: strings.TrimSpace(v.Get("q")), Sort: v.Get("sort"), Desc: v.Get("dir") == "desc", After: v.Get("after")}
	if _, ok := sortFields[q.Sort]; !ok {
		q.Sort = "order"
	}
	if t := v.Get("trail"); t != "" && q.After != "" {
		q.Trail = strings.Split(t, " ")
		if len(q.Trail) > maxTrail {
			q.Trail = q.Trail[len(q.Trail)-maxTrail:]
		}
	}
	q.Q = lore.TruncateRunes(q.Q, 200)
	return q
}

// Page is the 1-based number of the page.
func (q listQuery) Page() int {
	if q.After == "" {
		return 1
	}
	return len(q.Trail) + 1
}

// url returns the list URL starting after the cursor, with the trail.
func (q listQuery) url(after string, trail []string) string {
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
	if after != "" && after != "-" {
		v.Set("after", after)
		if len(trail) > 0 {
			v.Set("trail", strings.Join(trail, " "))
		}
	}
	if len(v) == 0 {
		return "?"
	}
	return "?" + v.Encode()
}

// bookView is the book page's data.
type bookView struct {
	Book     book
	Scope    scopeCount
	Settings bookSettings
	Entries  []entry
	// Matched is the entries the search keeps, Total the book's.
	Matched, Total int
	Query          listQuery
	Page, Pages    int
	First          string
	Prev           string
	Next           string
	Formats        []string
	Errors         map[string]string
}

// exportFormats are ExportFormat's values.
var exportFormats = []string{"ST_WORLD_INFO", "CCV3_LOREBOOK", "CARD_JSON", "CARD_PNG", "CARD_CHARX", "WORLDBOOK"}

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
	d.renderBook(rq, b, nil, http.StatusOK)
}

// renderBook shows one page of the book's entries, searched and sorted by
// the API.
func (d *Dashboard) renderBook(rq *req, b book, errs map[string]string, status int) {
	q := parseListQuery(rq.r.URL.Query())
	var after *string
	if q.After != "" {
		after = &q.After
	}
	conn, settings, err := d.entriesPage(rq.r.Context(), rq.s.Token, rq.sid, b, entryListFields, pageSize, after, &q)
	if err != nil {
		var ae *apiError
		if after == nil || !errors.As(err, &ae) {
			d.apiFailed(rq, err)
			return
		}
		// A cursor from an older page (the book changed): start over.
		q.After, q.Trail = "", nil
		if conn, settings, err = d.entriesPage(rq.r.Context(), rq.s.Token, rq.sid, b, entryListFields, pageSize, nil, &q); err != nil {
			d.apiFailed(rq, err)
			return
		}
	}
	v := bookView{Book: b, Scope: rq.srv.Scope(b), Settings: settings, Total: b.Count, Matched: conn.TotalCount,
		Query: q, Page: q.Page(), Pages: max(1, (conn.TotalCount+pageSize-1)/pageSize), Formats: exportFormats, Errors: errs}
	for _, e := range conn.Edges {
		v.Entries = append(v.Entries, e.Node)
	}
	if v.Page > 1 {
		v.First = q.url("", nil)
		prev := q.Trail[len(q.Trail)-1]
		v.Prev = q.url(prev, q.Trail[:len(q.Trail)-1])
	}
	if conn.PageInfo.HasNextPage && conn.PageInfo.EndCursor != nil {
		cur := q.After
		if cur == "" {
			cur = "-"
		}
		v.Next = q.url(*conn.PageInfo.EndCursor, append(q.Trail[:len(q.Trail):len(q.Trail)], cur))
	}
	d.renderStatus(rq, "book", b.Name, status, v)
}

// bookURL is the book page's path.
func bookURL(sid string, b book) string {
	return fmt.Sprintf("/dashboard/s/%s/b/%s/", sid, b.Ref)
}
