package graph_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/lore"
	"loregate/lore/postgres"
)

const (
	qCreateCategory = `mutation($in: CreateCategoryInput!) { createCategory(input: $in) { category { id name sortOrder enabled } error { code message field } } }`
	qUpdateCategory = `mutation($in: UpdateCategoryInput!) { updateCategory(input: $in) { category { id enabled } error { code message } } }`
	qBookInfo       = `mutation($in: UpdateBookInfoInput!) { updateBookInfo(input: $in) { description tags updatedAt error { code message field } } }`
	qCategorized    = `mutation($s: String!, $c: ID!, $cat: ID, $n: String) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c,
		entry: {title: "Lisbon", content: "Lisbon sits on seven hills.", keys: ["lisbon"], categoryId: $cat, note: $n}}) {
		entry { id categoryId note } error { code message field } } }`
	qBookOrganisation = `query($s: String!, $l: Int64!) { server(discordId: $s) {
		collections { edges { node { name description tags categories { name enabled } entries { edges { node { title categoryId note } } } } } }
		personaBook(lineageId: $l) { description tags categories { name } } } }`
	qCollectionsOrganisation = `query($s: String!) { server(discordId: $s) {
		collections { edges { node { name description tags categories { name } } } } } }`
	qActivateLisbon = `query($s: String!) { activate(input: {serverDiscordId: $s, messages: [{content: "lisbon at dawn"}]}) { admitted { title } } }`
)

// TestCategoriesAPI: categories, an entry's category and note, a book's
// description and tags through the API; lore writers only; a disabled
// category keeps its entries out of a turn (docs/workbench.md#categories);
// listing collections reads each book's info once and the categories of
// all listed books in one query.
func TestCategoriesAPI(t *testing.T) {
	o := graphtest.Options{ScopeCache: true}
	res, store, pool := graphtest.NewResolver(t, o)
	counted := &countingBooks{Store: store}
	res.Store = counted
	a := wrap(t, graphtest.Serve(t, res, o, store, pool))
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 4, "n": "Mira"}, "upsertPersona", &pp)
	manager := a.member("900000000000000031", map[string]auth.Membership{serverA: {Manage: true}})
	member := a.member("900000000000000032", map[string]auth.Membership{serverA: {}})
	var coll struct {
		Collection struct{ ID string }
	}
	a.must(manager, qCreateCollection, map[string]any{"s": serverA, "n": "Places"}, "createCollection", &coll)

	type catPayload struct {
		Category *struct {
			ID, Name  string
			SortOrder int
			Enabled   bool
		}
		Error *mutationError
	}
	var cat catPayload
	in := map[string]any{"serverDiscordId": serverA, "collectionId": coll.Collection.ID, "name": "Cities"}
	require.NotEmpty(t, a.do(member, qCreateCategory, map[string]any{"in": in}).Errors, "a member cannot write")
	a.must(manager, qCreateCategory, map[string]any{"in": in}, "createCategory", &cat)
	require.Nil(t, cat.Error)
	require.True(t, cat.Category.Enabled)
	cities := cat.Category.ID
	a.must(manager, qCreateCategory, map[string]any{"in": in}, "createCategory", &cat)
	require.Equal(t, "INVALID_INPUT", cat.Error.Code)
	require.Contains(t, cat.Error.Message, `a category named "Cities" already exists in this book`)
	a.must(manager, qCreateCategory, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 4, "name": "Allies"}}, "createCategory", &cat)
	require.Nil(t, cat.Error)
	allies := cat.Category.ID

	type entryOut struct {
		Entry *struct {
			ID, Note   string
			CategoryID *string
		}
		Error *mutationError
	}
	var e entryOut
	a.must(manager, qCategorized, map[string]any{"s": serverA, "c": coll.Collection.ID, "cat": allies}, "createEntry", &e)
	require.Equal(t, "INVALID_INPUT", e.Error.Code, "a category of another book")
	require.Equal(t, "categoryId", *e.Error.Field)
	a.must(manager, qCategorized, map[string]any{"s": serverA, "c": coll.Collection.ID, "cat": cities, "n": "check the hill count"}, "createEntry", &e)
	require.Nil(t, e.Error)
	require.Equal(t, cities, *e.Entry.CategoryID)
	require.Equal(t, "check the hill count", e.Entry.Note)

	var info struct {
		Description *string
		Tags        []string
		Error       *mutationError
	}
	a.must(manager, qBookInfo, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "collectionId": coll.Collection.ID,
		"description": "Towns of the coast.", "tags": []string{"coast", "Coast"}}}, "updateBookInfo", &info)
	require.Equal(t, "INVALID_INPUT", info.Error.Code)
	require.Equal(t, "tags[1]", *info.Error.Field)
	a.must(manager, qBookInfo, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "collectionId": coll.Collection.ID,
		"description": "Towns of the coast.", "tags": []string{"coast", "cities"}}}, "updateBookInfo", &info)
	require.Nil(t, info.Error)
	a.must(manager, qBookInfo, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 4, "tags": []string{"diary"}}}, "updateBookInfo", &info)
	require.Nil(t, info.Error)

	var srv struct {
		Collections struct {
			Edges []struct {
				Node struct {
					Name, Description string
					Tags              []string
					Categories        []struct {
						Name    string
						Enabled bool
					}
					Entries struct {
						Edges []struct {
							Node struct{ Title, Note string }
						}
					}
				}
			}
		}
		PersonaBook struct {
			Description string
			Tags        []string
			Categories  []struct{ Name string }
		}
	}
	a.must(member, qBookOrganisation, map[string]any{"s": serverA, "l": 4}, "server", &srv)
	var places *struct {
		Name, Description string
		Tags              []string
		Categories        []struct {
			Name    string
			Enabled bool
		}
		Entries struct {
			Edges []struct {
				Node struct{ Title, Note string }
			}
		}
	}
	for i := range srv.Collections.Edges {
		if srv.Collections.Edges[i].Node.Name == "Places" {
			places = &srv.Collections.Edges[i].Node
		}
	}
	require.NotNil(t, places)
	require.Equal(t, "Towns of the coast.", places.Description)
	require.Equal(t, []string{"coast", "cities"}, places.Tags)
	require.Equal(t, "Cities", places.Categories[0].Name)
	require.Equal(t, "check the hill count", places.Entries.Edges[0].Node.Note)
	require.Equal(t, []string{"diary"}, srv.PersonaBook.Tags)
	require.Equal(t, "Allies", srv.PersonaBook.Categories[0].Name)

	// Listing several collections: their own description, tags and
	// categories each, from one info read per book and one categories read.
	var more struct {
		Collection struct{ ID string }
	}
	a.must(manager, qCreateCollection, map[string]any{"s": serverA, "n": "Rivers"}, "createCollection", &more)
	for i, n := range []string{"Ports", "Bridges"} {
		a.must(manager, qCreateCategory, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "collectionId": more.Collection.ID,
			"name": n, "sortOrder": 2 - i}}, "createCategory", &cat)
		require.Nil(t, cat.Error)
	}
	a.must(manager, qCreateCollection, map[string]any{"s": serverA, "n": "Coasts"}, "createCollection", &more)
	a.must(manager, qBookInfo, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "collectionId": more.Collection.ID,
		"description": "Cliffs and coves.", "tags": []string{"sea"}}}, "updateBookInfo", &info)
	require.Nil(t, info.Error)
	counted.reset()
	var list struct {
		Collections struct {
			Edges []struct {
				Node struct {
					Name, Description string
					Tags              []string
					Categories        []struct{ Name string }
				}
			}
		}
	}
	a.must(member, qCollectionsOrganisation, map[string]any{"s": serverA}, "server", &list)
	type book struct {
		Description string
		Tags        []string
		Categories  []string
	}
	books := map[string]book{}
	for _, e := range list.Collections.Edges {
		b := book{Description: e.Node.Description, Tags: e.Node.Tags, Categories: []string{}}
		for _, c := range e.Node.Categories {
			b.Categories = append(b.Categories, c.Name)
		}
		books[e.Node.Name] = b
	}
	require.Equal(t, map[string]book{
		"Places": {Description: "Towns of the coast.", Tags: []string{"coast", "cities"}, Categories: []string{"Cities"}},
		"Rivers": {Tags: []string{}, Categories: []string{"Bridges", "Ports"}},
		"Coasts": {Description: "Cliffs and coves.", Tags: []string{"sea"}, Categories: []string{}},
	}, books)
	require.EqualValues(t, len(list.Collections.Edges), counted.info.Load(), "one info read per book for description and tags")
	require.EqualValues(t, 1, counted.batch.Load(), "one categories read for the listed books")
	require.Zero(t, counted.single.Load())

	// Books filtered by tag, ignoring case: collections and personas.
	var tagged struct {
		Personas    []struct{ Name string }
		Collections struct {
			TotalCount int
			Edges      []struct{ Node struct{ Name string } }
		}
	}
	a.must(member, `query($s: String!) { server(discordId: $s) { personas(tag: "DIARY") { name }
		collections(tag: "Coast") { totalCount edges { node { name } } } } }`, map[string]any{"s": serverA}, "server", &tagged)
	require.Len(t, tagged.Personas, 1)
	require.Equal(t, "Mira", tagged.Personas[0].Name)
	require.Equal(t, 1, tagged.Collections.TotalCount)
	require.Equal(t, "Places", tagged.Collections.Edges[0].Node.Name)
	a.must(member, `query($s: String!) { server(discordId: $s) { personas(tag: "none") { name }
		collections(tag: "none") { totalCount edges { node { name } } } } }`, map[string]any{"s": serverA}, "server", &tagged)
	require.Empty(t, tagged.Personas)
	require.Zero(t, tagged.Collections.TotalCount)

	// Exports write the written description where the format has one.
	for _, f := range []string{"CCV3_LOREBOOK", "CARD_JSON"} {
		var ex struct {
			JSON  *string
			Error *mutationError
		}
		a.must(manager, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`,
			map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": coll.Collection.ID, "format": f}}, "exportLorebook", &ex)
		require.Nil(t, ex.Error)
		require.Contains(t, *ex.JSON, `"description": "Towns of the coast."`, f)
	}

	// A disabled category keeps its entry out of the turn.
	var act struct{ Admitted []struct{ Title string } }
	a.must(member, qActivateLisbon, map[string]any{"s": serverA}, "activate", &act)
	require.Len(t, act.Admitted, 1)
	var upd catPayload
	a.must(manager, qUpdateCategory, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "categoryId": cities, "enabled": false}}, "updateCategory", &upd)
	require.Nil(t, upd.Error)
	a.must(member, qActivateLisbon, map[string]any{"s": serverA}, "activate", &act)
	require.Empty(t, act.Admitted, "the category is disabled")

	// A preview trace still lists the entry, and says why it is out.
	var prev struct {
		Trace []struct {
			Title, Verdict, Reason string
			Params                 map[string]any
		}
	}
	a.must(member, `query($s: String!) { activate(input: {serverDiscordId: $s, messages: [{content: "lisbon at dawn"}]}) { trace { title verdict reason params } } }`,
		map[string]any{"s": serverA}, "activate", &prev)
	require.Len(t, prev.Trace, 1, "every entry of the scope: %+v", prev.Trace)
	require.Equal(t, "Lisbon", prev.Trace[0].Title)
	require.Equal(t, "gated_category", prev.Trace[0].Verdict)
	require.Equal(t, "Cities", prev.Trace[0].Params["category"])
}

// countingBooks is the real store, counting reads of book info and
// categories.
type countingBooks struct {
	*postgres.Store
	info, single, batch atomic.Int32
}

func (s *countingBooks) reset() {
	s.info.Store(0)
	s.single.Store(0)
	s.batch.Store(0)
}

func (s *countingBooks) GetBookInfo(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (lore.BookInfo, error) {
	s.info.Add(1)
	return s.Store.GetBookInfo(ctx, server, lineage, collectionID)
}

func (s *countingBooks) ListCategories(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) ([]lore.Category, error) {
	s.single.Add(1)
	return s.Store.ListCategories(ctx, server, lineage, collectionID)
}

func (s *countingBooks) ListBooksCategories(ctx context.Context, server string, collectionIDs []int64, lineages []lore.Lineage) ([]lore.Category, error) {
	s.batch.Add(1)
	return s.Store.ListBooksCategories(ctx, server, collectionIDs, lineages)
}

// TestCategoriesWrittenBackToExports: a category renamed or disabled in
// loregate goes into the RisuAI and NovelAI exports (folder rows, the
// NovelAI categories list), so importing the export again gives the book
// its categories as they are now (docs/workbench.md#categories).
func TestCategoriesWrittenBackToExports(t *testing.T) {
	o := graphtest.Options{}
	res, store, pool := graphtest.NewResolver(t, o)
	a := wrap(t, graphtest.Serve(t, res, o, store, pool))
	setupServer(t, a, serverA)
	for i, l := range []int64{5, 6, 7, 8} {
		var pp struct{ Error *mutationError }
		a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": i + 1, "l": l, "n": fmt.Sprint("P", l)}, "upsertPersona", &pp)
		require.Nil(t, pp.Error)
	}
	ctx := context.Background()
	risu := []byte(`{"type": "risu", "ver": 1, "data": [
		{"key": "\uf000folder:f1", "comment": "Places", "content": "", "mode": "folder", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false},
		{"key": "lisbon", "comment": "Lisbon", "content": "Seven hills.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "folder": "\uf000folder:f1"}]}`)
	for _, c := range []struct {
		format, file     string
		data             []byte
		from, to         lore.Lineage
		rename, renamed  string
		disable, enabled bool
	}{
		{"RISU", "places.json", risu, 5, 6, "Places", "Cities", false, true},
		{"NOVELAI_LOREBOOK", "descriptor.lorebook", corpus(t, "novelai/travelingrobot__the_descriptor_v1_2.lorebook"), 7, 8, "Prose Enhancer", "Prose", true, false},
	} {
		p := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": int64(c.from)}, c.file, c.data)
		require.Nil(t, p.Error)
		cats, err := store.ListCategories(ctx, serverA, c.from, 0)
		require.NoError(t, err)
		require.Len(t, cats, 1)
		require.Equal(t, c.rename, cats[0].Name)
		name, enabled := c.renamed, !c.disable
		_, err = store.UpdateCategory(ctx, serverA, cats[0].ID, lore.CategoryPatch{Name: &name, Enabled: &enabled})
		require.NoError(t, err)

		var ex struct {
			JSON  *string
			Error *mutationError
		}
		a.must(serviceKey, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { json error { code message } } }`,
			map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": int64(c.from), "format": c.format}}, "exportLorebook", &ex)
		require.Nil(t, ex.Error)
		require.NotContains(t, *ex.JSON, `"`+c.rename+`"`, "%s: the old name is gone", c.format)
		p = a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": int64(c.to)}, c.file, []byte(*ex.JSON))
		require.Nil(t, p.Error)
		cats, err = store.ListCategories(ctx, serverA, c.to, 0)
		require.NoError(t, err)
		require.Len(t, cats, 1, c.format)
		require.Equal(t, c.renamed, cats[0].Name, c.format)
		require.Equal(t, c.enabled, cats[0].Enabled, c.format)
		es, err := store.ListScope(ctx, serverA, c.to, "")
		require.NoError(t, err)
		require.NotEmpty(t, es)
		for _, e := range es {
			require.Equal(t, cats[0].ID, e.CategoryID, "%s: %s is filed again", c.format, e.Title)
		}
	}
}

// TestCategoriesCreatedInLoregateExported: categories created in loregate,
// one of them disabled, and the entries filed in them travel through every
// export format (new RisuAI folder rows in RisuAI and card exports,
// loregate's member in world info and worldbook exports, new NovelAI
// categories) so that importing each export again gives the book the same
// categories and membership; an entry taken out of an imported RisuAI
// folder leaves it, and one filed into a new category moves to its folder
// (docs/workbench.md#categories).
func TestCategoriesCreatedInLoregateExported(t *testing.T) {
	a, store := newJobsAPI(t, 64<<20)
	setupServer(t, a, serverA)
	ctx := context.Background()
	src := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Eldoria"},
		"Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
	require.Nil(t, src.Error)
	risu := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Lisbon"}, "places.json",
		[]byte(`{"type": "risu", "ver": 1, "data": [
		{"key": "\uf000folder:f1", "comment": "Places", "content": "", "mode": "folder", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false},
		{"key": "lisbon", "comment": "Lisbon", "content": "Seven hills.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "folder": "\uf000folder:f1"},
		{"key": "porto", "comment": "Porto", "content": "The bridge.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "folder": "\uf000folder:f1"},
		{"key": "faro", "comment": "Faro", "content": "The south.", "mode": "normal", "insertorder": 100, "alwaysActive": false, "secondkey": "", "selective": false, "folder": "\uf000folder:f1"}]}`))
	require.Nil(t, risu.Error)

	// membership reads a book's entries as entryName -> "category name/enabled"
	// ("" for none).
	membership := func(collection string) map[string]string {
		t.Helper()
		id, err := strconv.ParseInt(collection, 10, 64)
		require.NoError(t, err)
		cats, err := store.ListCategories(ctx, serverA, lore.Serverwide, id)
		require.NoError(t, err)
		named := map[int64]string{}
		for _, c := range cats {
			named[c.ID] = fmt.Sprintf("%s/%v", c.Name, c.Enabled)
		}
		c, err := store.GetCollection(ctx, serverA, id)
		require.NoError(t, err)
		es, err := store.ListScope(ctx, serverA, lore.Serverwide, c.Name)
		require.NoError(t, err)
		out := map[string]string{}
		for _, e := range es {
			out[entryName(e)] = named[e.CategoryID]
		}
		return out
	}
	create := func(collection, name string, sortOrder int) int64 {
		t.Helper()
		var p struct {
			Category *struct{ ID string }
			Error    *mutationError
		}
		a.must(serviceKey, qCreateCategory, map[string]any{"in": map[string]any{"serverDiscordId": serverA,
			"collectionId": collection, "name": name, "sortOrder": sortOrder}}, "createCategory", &p)
		require.Nil(t, p.Error)
		id, err := strconv.ParseInt(p.Category.ID, 10, 64)
		require.NoError(t, err)
		return id
	}
	file := func(collection string, byTitle map[string]int64) {
		t.Helper()
		id, _ := strconv.ParseInt(collection, 10, 64)
		c, err := store.GetCollection(ctx, serverA, id)
		require.NoError(t, err)
		es, err := store.ListScope(ctx, serverA, lore.Serverwide, c.Name)
		require.NoError(t, err)
		for _, e := range es {
			if cat, ok := byTitle[entryName(e)]; ok {
				_, err := store.UpdateEntry(ctx, serverA, lore.Serverwide, e.ID, lore.EntryPatch{CategoryID: &cat})
				require.NoError(t, err)
			}
		}
	}
	eldoria := membership(src.Collection.ID)
	require.Len(t, eldoria, 4)
	titles := make([]string, 0, 4)
	for title := range eldoria {
		titles = append(titles, title)
	}
	slices.Sort(titles)
	places, secrets := create(src.Collection.ID, "Places", 0), create(src.Collection.ID, "Secrets", 1)
	disabled := false
	_, err := store.UpdateCategory(ctx, serverA, secrets, lore.CategoryPatch{Enabled: &disabled})
	require.NoError(t, err)
	file(src.Collection.ID, map[string]int64{titles[0]: places, titles[1]: places, titles[2]: secrets})
	want := map[string]string{titles[0]: "Places/true", titles[1]: "Places/true", titles[2]: "Secrets/false", titles[3]: ""}
	require.Equal(t, want, membership(src.Collection.ID))

	// The RisuAI book: Porto into a new category, Faro out of its folder.
	harbours := create(risu.Collection.ID, "Harbours", 1)
	var none int64
	file(risu.Collection.ID, map[string]int64{"Porto": harbours, "Faro": none})
	wantRisu := map[string]string{"Lisbon": "Places/true", "Porto": "Harbours/true", "Faro": ""}
	require.Equal(t, wantRisu, membership(risu.Collection.ID))

	for i, f := range []string{"ST_WORLD_INFO", "CCV3_LOREBOOK", "CARD_JSON", "CARD_PNG", "CARD_CHARX", "WORLDBOOK", "NOVELAI_LOREBOOK", "RISU"} {
		for j, book := range []struct {
			collection string
			want       map[string]string
		}{{src.Collection.ID, want}, {risu.Collection.ID, wantRisu}} {
			name, data := exportBytes(t, a, book.collection, f)
			p := a.importFile(serviceKey, map[string]any{"serverDiscordId": serverA, "lineageId": 0,
				"name": fmt.Sprintf("again %d %d", i, j)}, name, data)
			require.Nil(t, p.Error, f)
			require.Equal(t, book.want, membership(p.Collection.ID), "%s: the categories come back with their entries", f)
		}
	}
}

// entryName names e by its title, else its first key (Eldoria's entries
// have no title).
func entryName(e lore.Entry) string {
	if e.Title == "" && len(e.Keys) > 0 {
		return e.Keys[0]
	}
	return e.Title
}

// exportBytes exports collection of serverA in format f and returns the
// file's name and bytes (a download for CARD_PNG and CARD_CHARX).
func exportBytes(t *testing.T, a *api, collection, f string) (string, []byte) {
	t.Helper()
	var p struct {
		FileName string
		JSON     *string
		Download *struct{ URL string }
		Error    *mutationError
	}
	a.must(serviceKey, `query($input: ExportLorebookInput!) { exportLorebook(input: $input) { fileName json download { url } error { code message } } }`,
		map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": collection, "format": f}}, "exportLorebook", &p)
	require.Nil(t, p.Error, f)
	if p.JSON != nil {
		return p.FileName, []byte(*p.JSON)
	}
	require.NotNil(t, p.Download, f)
	req, err := http.NewRequest(http.MethodGet, a.srv.URL+p.Download.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+serviceKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, f)
	return p.FileName, body
}
