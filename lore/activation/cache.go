package activation

import (
	"container/list"
	"context"
	"sync"

	"loregate/lore"
)

// CacheKey identifies the entry set of one scope version: a server, the
// active lineage and the server's lore.Server.LoreVersion, which increases
// on every successful lore write (docs/contract.md#storage: automata cached per
// scope version and invalidated inside every successful write).
type CacheKey struct {
	Server  string
	Lineage lore.Lineage
	Version int64
}

type cacheKey struct {
	CacheKey
	mo MatchOptions
}

type cacheItem struct {
	key cacheKey
	m   *Matcher
}

// Cache keeps compiled Matchers of recent scope versions, least recently
// used evicted first, so a repeated turn does not rebuild its automaton. It
// is safe for concurrent use. The zero value is not usable; call NewCache.
type Cache struct {
	mu     sync.Mutex
	size   int
	lru    *list.List
	items  map[cacheKey]*list.Element
	hits   int64
	builds int64
}

// DefaultCacheSize is the capacity of NewCache(0). A Matcher of a full
// scope (500 entries x 4 keys) takes a few MiB.
const DefaultCacheSize = 64

// NewCache returns a cache holding at most size matchers (DefaultCacheSize
// when size <= 0).
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{size: size, lru: list.New(), items: map[cacheKey]*list.Element{}}
}

// Matcher returns the Matcher of key compiled under mo, compiling
// in.Entries (with in's book settings, see CompileInput) when it is not
// cached or when the cached one was compiled from a different entry list
// (other length or ids: the caller reused a version) or other book case or
// whole-word settings. Compilation happens outside the lock; two
// concurrent misses may both compile and the last one is kept.
func (c *Cache) Matcher(key CacheKey, in *Input, mo MatchOptions) *Matcher {
	k := cacheKey{key, mo}
	books := bookSignature(in)
	c.mu.Lock()
	if el, ok := c.items[k]; ok {
		m := el.Value.(*cacheItem).m
		if m.fits(in.Entries) && m.books == books {
			c.lru.MoveToFront(el)
			c.hits++
			c.mu.Unlock()
			return m
		}
	}
	c.mu.Unlock()

	m := CompileInput(in, mo)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.builds++
	if el, ok := c.items[k]; ok {
		el.Value.(*cacheItem).m = m
		c.lru.MoveToFront(el)
		return m
	}
	c.items[k] = c.lru.PushFront(&cacheItem{key: k, m: m})
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.items, old.Value.(*cacheItem).key)
	}
	return m
}

// Activate runs one turn through the cached Matcher of key.
func (c *Cache) Activate(ctx context.Context, key CacheKey, in Input, opts Options) (Result, error) {
	return c.Matcher(key, &in, opts.MatchOptions()).Activate(ctx, in, opts)
}

// CacheStats counts cache hits and compilations.
type CacheStats struct {
	Hits, Builds int64
	Len          int
}

// Stats returns the counters since NewCache.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Builds: c.builds, Len: c.lru.Len()}
}
