package graph

import (
	"context"
	"sync"

	"loregate/graph/model"
	"loregate/lore"
)

// Per-operation reads of a book's description, tags and categories
// (Collection and PersonaBook, docs/workbench.md#categories): a listing of
// collections reads each book's info once (description and tags share it)
// and the categories of every listed book in one query.

// bookKey addresses a book of a server: a Serverwide collection id, else
// (collection 0) a persona lineage.
type bookKey struct {
	server     string
	lineage    lore.Lineage
	collection int64
}

type bookLoads struct {
	mu   sync.Mutex
	info map[bookKey]*infoLoad
	// catMu is held during a categories read, so one read serves every
	// book listed before it.
	catMu sync.Mutex
	// listed are the books the operation listed whose categories are
	// not read yet, by server; cats the categories read, by book.
	listed map[string][]bookKey
	cats   map[bookKey][]lore.Category
}

type infoLoad struct {
	once sync.Once
	info lore.BookInfo
	err  error
}

func opLoaders(ctx context.Context) *loaders {
	l, _ := ctx.Value(loadersKey{}).(*loaders)
	return l
}

// listedBooks records the books an operation lists (a page of
// collections, a persona book), so that the first categories read of
// their server reads them all.
func listedBooks(ctx context.Context, books ...bookKey) {
	l := opLoaders(ctx)
	if l == nil {
		return
	}
	l.books.catMu.Lock()
	defer l.books.catMu.Unlock()
	if l.books.listed == nil {
		l.books.listed = map[string][]bookKey{}
	}
	for _, b := range books {
		if _, done := l.books.cats[b]; !done {
			l.books.listed[b.server] = append(l.books.listed[b.server], b)
		}
	}
}

// bookInfo reads one book's description and tags once per operation.
func (r *Resolver) bookInfo(ctx context.Context, b bookKey) (lore.BookInfo, error) {
	l := opLoaders(ctx)
	if l == nil {
		return r.Store.GetBookInfo(ctx, b.server, b.lineage, b.collection)
	}
	l.books.mu.Lock()
	if l.books.info == nil {
		l.books.info = map[bookKey]*infoLoad{}
	}
	load := l.books.info[b]
	if load == nil {
		load = &infoLoad{}
		l.books.info[b] = load
	}
	l.books.mu.Unlock()
	load.once.Do(func() {
		load.info, load.err = r.Store.GetBookInfo(ctx, b.server, b.lineage, b.collection)
	})
	return load.info, load.err
}

// bookCategories lists one book's categories as the API's: from the
// operation's one read of every listed book of the server (b included).
func (r *Resolver) bookCategories(ctx context.Context, b bookKey) ([]*model.Category, error) {
	cs, err := r.loadCategories(ctx, b)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Category, len(cs))
	for i, c := range cs {
		out[i] = categoryToModel(c)
	}
	return out, nil
}

func (r *Resolver) loadCategories(ctx context.Context, b bookKey) ([]lore.Category, error) {
	l := opLoaders(ctx)
	if l == nil {
		return r.Store.ListCategories(ctx, b.server, b.lineage, b.collection)
	}
	l.books.catMu.Lock()
	defer l.books.catMu.Unlock()
	if cs, ok := l.books.cats[b]; ok {
		return cs, nil
	}
	if b.collection == 0 && b.lineage <= 0 {
		// A bad address: the store's own error.
		return r.Store.ListCategories(ctx, b.server, b.lineage, b.collection)
	}
	batch := []bookKey{b}
	var colls []int64
	var lins []lore.Lineage
	seen := map[bookKey]bool{}
	for _, k := range append(batch, l.books.listed[b.server]...) {
		if seen[k] || len(seen) == lore.MaxBooksPerCategoryRead {
			continue
		}
		if _, done := l.books.cats[k]; done {
			continue
		}
		seen[k] = true
		if k.collection != 0 {
			colls = append(colls, k.collection)
		} else {
			lins = append(lins, k.lineage)
		}
	}
	cs, err := r.Store.ListBooksCategories(ctx, b.server, colls, lins)
	if err != nil {
		return nil, err
	}
	if l.books.cats == nil {
		l.books.cats = map[bookKey][]lore.Category{}
	}
	for k := range seen {
		l.books.cats[k] = nil
	}
	for _, c := range cs {
		k := bookKey{server: b.server, collection: c.CollectionID}
		if c.CollectionID == 0 {
			k.lineage = c.Lineage
		}
		l.books.cats[k] = append(l.books.cats[k], c)
	}
	if l.books.listed == nil {
		return l.books.cats[b], nil
	}
	rest := l.books.listed[b.server][:0]
	for _, k := range l.books.listed[b.server] {
		if _, done := l.books.cats[k]; !done {
			rest = append(rest, k)
		}
	}
	l.books.listed[b.server] = rest
	return l.books.cats[b], nil
}
