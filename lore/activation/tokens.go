package activation

import (
	"reflect"
	"sync"
	"sync/atomic"
)

// maxNamedCounts bounds the sets of names whose token counts a Matcher
// keeps; past it the named counts are dropped and rebuilt.
const maxNamedCounts = 64

// tokenCache keeps the token count of each entry's admitted content per
// tokenizer, so a token budget costs a turn no more than a character budget
// once the scope is warm. Content without identity macros is counted once
// per tokenizer; content with them once per tokenizer and set of names.
type tokenCache struct {
	mu     sync.Mutex
	static map[Tokenizer][]atomic.Int32
	named  map[namedKey][]atomic.Int32
}

type namedKey struct {
	tok             Tokenizer
	user, char, bot string
}

// count returns the tokens of content, the identity-resolved body of entry
// i of n. A Tokenizer whose dynamic type is not comparable is not cached.
func (c *tokenCache) count(tok Tokenizer, i, n int, content string, named bool, opts *Options) int {
	if !reflect.TypeOf(tok).Comparable() {
		return tok.CountTokens(content)
	}
	counts := c.slot(tok, n, named, opts)
	if v := counts[i].Load(); v > 0 {
		return int(v - 1)
	}
	k := tok.CountTokens(content)
	counts[i].Store(int32(k) + 1)
	return k
}

// slot returns the counts of tok (and the names when named), one per
// entry of n.
func (c *tokenCache) slot(tok Tokenizer, n int, named bool, opts *Options) []atomic.Int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !named {
		return counts(&c.static, tok, n)
	}
	k := namedKey{tok, opts.UserName, opts.CharName, opts.BotName}
	if len(c.named) >= maxNamedCounts && c.named[k] == nil {
		c.named = nil
	}
	return counts(&c.named, k, n)
}

// counts returns (*m)[k], made with n counters when missing.
func counts[K comparable](m *map[K][]atomic.Int32, k K, n int) []atomic.Int32 {
	if *m == nil {
		*m = map[K][]atomic.Int32{}
	}
	s := (*m)[k]
	if s == nil {
		s = make([]atomic.Int32, n)
		(*m)[k] = s
	}
	return s
}
