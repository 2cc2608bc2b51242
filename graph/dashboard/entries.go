package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// entriesPage reads one page of a book's entries, searched and sorted by
// lq, with the book's settings and version.
func (d *Dashboard) entriesPage(rq *req, b book, after *string, lq listQuery) (*client.Book, error) {
	dir := "ASC"
	if lq.Desc {
		dir = "DESC"
	}
	vars := map[string]any{"s": rq.sid, "a": after, "f": pageSize, "q": nil,
		"o": map[string]any{"field": sortFields[lq.Sort], "direction": dir}}
	if lq.Q != "" {
		vars["q"] = lq.Q
	}
	op := client.OpPersonaEntriesPage
	if b.Collection != nil {
		op, vars["n"] = client.OpCollectionEntriesPage, b.Collection.Name
	} else {
		vars["l"] = b.LineageID
	}
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, op, vars, &out); err != nil {
		return nil, err
	}
	if out.Server == nil || out.Server.Book == nil {
		return nil, errBookGone
	}
	return out.Server.Book, nil
}

// bookEntry reads one entry of a book with every field (Server.entry);
// nil when the book has no such entry (another scope's or another
// collection's id included).
func (d *Dashboard) bookEntry(rq *req, b book, id string) (*model.Entry, error) {
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpEntry, map[string]any{"s": rq.sid, "l": b.LineageID, "id": id}, &out); err != nil {
		return nil, err
	}
	if out.Server == nil || out.Server.Entry == nil {
		return nil, nil
	}
	got := out.Server.Entry
	if b.Collection != nil && (got.Collection == nil || *got.Collection != b.Collection.Name) {
		return nil, nil
	}
	return got, nil
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
	Book  book
	Scope scopeCount
	// Settings are the book's settings and version.
	Settings *client.Book
	Entries  []model.Entry
	// Matched is the entries the search keeps, Total the book's.
	Matched, Total int
	// Retrieval shows the column of retrieval by meaning: an entry of
	// the page is vectorized or has an embedding state.
	Retrieval   bool
	Query       listQuery
	Page, Pages int
	First       string
	Prev        string
	Next        string
	Formats     []string
	Errors      map[string]string
	// Channels name the collection's channels (managers' picker);
	// ChannelValues are the picker's checked ids (a refused change's
	// as sent).
	Channels      *channelList
	ChannelValues []string
	// Form is a refused settings form as sent (nil: show the stored
	// settings).
	Form url.Values
	// Groups are the page's entries grouped by category (one group of
	// them all when the book has no categories).
	Groups []categoryGroup
	// Categories name the book's categories by id.
	Categories map[string]string
}

// exportFormats are ExportFormat's values.
var exportFormats = []string{"ST_WORLD_INFO", "CCV3_LOREBOOK", "CARD_JSON", "CARD_PNG", "CARD_CHARX", "WORLDBOOK"}

func (d *Dashboard) serverPage(rq *req) error {
	decisions := d.loadDecisions(rq)
	d.renderServerWith(rq, http.StatusOK, nil, decisions)
	d.markDecisionsSeen(rq, decisions)
	return nil
}

// renderServer shows the server page with the field errors of a refused
// form (nil: none); a refused form's values stay in it (rq's form).
func (d *Dashboard) renderServer(rq *req, status int, errs map[string]string) {
	d.renderServerWith(rq, status, errs, nil)
}

// renderServerWith is renderServer showing the member the decisions on
// their proposals (nil: none).
func (d *Dashboard) renderServerWith(rq *req, status int, errs map[string]string, decisions *decisionsView) {
	if errs == nil {
		errs = map[string]string{}
	}
	data := map[string]any{"Errors": errs, "Channels": d.loadChannels(rq), "Filter": d.tagFilter(rq), "Decisions": decisions}
	var form url.Values
	if rq.r.Method == http.MethodPost && strings.HasSuffix(rq.r.URL.Path, "/settings") {
		form = rq.r.PostForm
	}
	data["Form"] = form
	d.render(rq, "server", rq.srv.Name, status, data)
}

// bookFromURL is the book the URL names, or the 404 page's error.
func bookFromURL(rq *req) (book, error) {
	b, ok := rq.srv.findBook(rq.r.PathValue("book"))
	if !ok {
		return b, fail(http.StatusNotFound, rq.t.S("This book does not exist on this server."))
	}
	return b, nil
}

func (d *Dashboard) bookPage(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	return d.renderBook(rq, b, nil, http.StatusOK)
}

// renderBook shows one page of the book's entries, searched and sorted by
// the API.
func (d *Dashboard) renderBook(rq *req, b book, errs map[string]string, status int) error {
	q := parseListQuery(rq.r.URL.Query())
	var after *string
	if q.After != "" {
		after = &q.After
	}
	bk, err := d.entriesPage(rq, b, after, q)
	if err != nil {
		var ce *client.Error
		if after == nil || !errors.As(err, &ce) {
			return err
		}
		// A cursor from an older page (the book changed): start over.
		q.After, q.Trail = "", nil
		if bk, err = d.entriesPage(rq, b, nil, q); err != nil {
			return err
		}
	}
	conn := bk.Entries
	v := bookView{Book: b, Scope: rq.srv.Scope(b), Settings: bk, Total: b.Count, Matched: conn.TotalCount,
		Query: q, Page: q.Page(), Pages: max(1, (conn.TotalCount+pageSize-1)/pageSize), Formats: exportFormats, Errors: errs}
	if rq.r.Method == http.MethodPost && strings.HasSuffix(rq.r.URL.Path, "/settings") {
		v.Form = rq.r.PostForm
	}
	if b.Collection != nil && rq.srv.CanManage {
		v.Channels, v.ChannelValues = d.loadChannels(rq), b.Collection.ChannelIds
		if rq.r.Method == http.MethodPost && rq.r.PostForm.Get("action") == "channels" {
			v.ChannelValues = formLines(rq.r.PostForm, "channelIds")
		}
	}
	for _, e := range conn.Edges {
		v.Entries = append(v.Entries, e.Node)
		v.Retrieval = v.Retrieval || e.Node.Vectorized || e.Node.EmbeddingState != nil
	}
	v.Groups = groupByCategory(v.Entries, bk.Categories)
	v.Categories = map[string]string{}
	for _, c := range bk.Categories {
		v.Categories[c.ID] = c.Name
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
	d.render(rq, "book", b.Name, status, v)
	return nil
}

// bookURL is the book page's path.
func bookURL(sid string, b book) string {
	return fmt.Sprintf("/dashboard/s/%s/b/%s/", sid, b.Ref)
}
