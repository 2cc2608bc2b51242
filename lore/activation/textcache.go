package activation

import (
	"container/list"
	"slices"
	"sync"
)

// TextCache keeps the matching form (normalised and edge-marked bytes) of
// recent non-ASCII messages, so the messages a chat repeats from one turn to
// the next (99 of 100 in a long conversation) are normalised once. Entries
// are keyed by the exact message text and the folding mode and evicted least
// recently used first when the cached text and marked bytes exceed the byte
// budget. ASCII messages never enter it: their fused scan path needs no
// normalised copy. It is safe for concurrent use; pass one to every turn
// through [Options.Texts]. The zero value is not usable; call NewTextCache.
type TextCache struct {
	// reference makes turns normalise and mark every non-ASCII message
	// with the reference functions and cache nothing: the text path
	// before the class tables, kept as a benchmark baseline.
	reference bool

	mu       sync.Mutex
	maxBytes int
	bytes    int
	lru      *list.List
	items    map[textKey]*list.Element
	hits     int64
	misses   int64
}

type textKey struct {
	text string
	fold bool
}

type textItem struct {
	key    textKey
	marked []byte
}

// textItemOverhead approximates the bookkeeping bytes of one cached message
// (list element, map slot, item).
const textItemOverhead = 160

// DefaultTextCacheBytes is the budget of NewTextCache(0): 16 MiB, a few
// thousand long CJK messages.
const DefaultTextCacheBytes = 16 << 20

// NewTextCache returns a cache holding at most maxBytes of message text
// plus marked bytes (DefaultTextCacheBytes when maxBytes <= 0). A message
// larger than a sixteenth of the budget is never cached.
func NewTextCache(maxBytes int) *TextCache {
	if maxBytes <= 0 {
		maxBytes = DefaultTextCacheBytes
	}
	return &TextCache{maxBytes: maxBytes, lru: list.New(), items: map[textKey]*list.Element{}}
}

// get returns the cached marked form of text, or nil. The slice is shared
// and must not be modified.
func (c *TextCache) get(text string, fold bool) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[textKey{text, fold}]
	if !ok {
		c.misses++
		return nil
	}
	c.hits++
	c.lru.MoveToFront(el)
	return el.Value.(*textItem).marked
}

// put caches marked (which the cache takes ownership of) as the form of
// text.
func (c *TextCache) put(text string, fold bool, marked []byte) {
	size := len(text) + len(marked) + textItemOverhead
	if size > c.maxBytes/16 {
		return
	}
	k := textKey{text, fold}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.lru.PushFront(&textItem{key: k, marked: marked})
	c.bytes += size
	for c.bytes > c.maxBytes {
		old := c.lru.Back()
		it := old.Value.(*textItem)
		c.lru.Remove(old)
		delete(c.items, it.key)
		c.bytes -= len(it.key.text) + len(it.marked) + textItemOverhead
	}
}

// markedText returns the normalised, edge-marked form of a non-ASCII
// message and the scratch buffer to keep: from texts when cached there,
// else computed into buf with the class tables (and copied into texts when
// set).
func markedText(buf []byte, nz *normalizer, texts *TextCache, msg string, fold bool) (marked, kept []byte) {
	if texts != nil && texts.reference {
		buf = mark(buf[:0], nz.normalize(msg, fold), true)
		return buf, buf
	}
	if texts != nil {
		if b := texts.get(msg, fold); b != nil {
			return b, buf
		}
	}
	t := classes()
	buf = t.markFast(buf[:0], t.normalizeFast(nz, msg, fold), true)
	if texts != nil {
		texts.put(msg, fold, slices.Clone(buf))
	}
	return buf, buf
}

// TextCacheStats are a TextCache's counters since NewTextCache.
type TextCacheStats struct {
	// Hits and Misses count look-ups of non-ASCII messages.
	Hits, Misses int64
	// Len is the number of cached messages, Bytes their accounted size.
	Len, Bytes int
}

// Stats returns the cache's counters.
func (c *TextCache) Stats() TextCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return TextCacheStats{Hits: c.hits, Misses: c.misses, Len: c.lru.Len(), Bytes: c.bytes}
}
