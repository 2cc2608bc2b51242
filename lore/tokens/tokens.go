// Package tokens counts tokens for token budgets with the offline BPE
// tokenizers of github.com/tiktoken-go/tokenizer (vocabularies compiled
// into the binary: nothing is downloaded at run time). A Counter implements
// activation.Tokenizer; the activation engine caches its counts per entry
// with the compiled scope.
package tokens

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Counter counts tokens with one tokenizer. It is safe for concurrent use.
type Counter struct {
	name  lore.TokenizerName
	codec tokenizer.Codec
}

// New returns the Counter of name: lore.TokenizerO200k (also for "") or
// lore.TokenizerCL100k. Loading a vocabulary takes tens of milliseconds and
// tens of MiB the first time; keep Counters (see Set). Another name is an
// error wrapping lore.ErrInvalid.
func New(name lore.TokenizerName) (*Counter, error) {
	if name == "" {
		name = lore.TokenizerO200k
	}
	var enc tokenizer.Encoding
	switch name {
	case lore.TokenizerO200k:
		enc = tokenizer.O200kBase
	case lore.TokenizerCL100k:
		enc = tokenizer.Cl100kBase
	default:
		return nil, fmt.Errorf("tokens: %w", lore.Reject("tokenizer", i18n.NotOneOf, lore.Params{"value": lore.ClipBytes(string(name), 40), "allowed": []string{string(lore.TokenizerO200k), string(lore.TokenizerCL100k)}}))
	}
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("tokens: loading %s: %w", name, err)
	}
	// Invalid UTF-8 counts as U+FFFD, as tiktoken's default does.
	codec.SetErrorMode(tokenizer.ErrorModeReplace)
	return &Counter{name: name, codec: codec}, nil
}

// Name is the tokenizer's name.
func (c *Counter) Name() lore.TokenizerName { return c.name }

// CountTokens returns the number of tokens of s (activation.Tokenizer).
// Special-token text such as "<|endoftext|>" counts as one token.
func (c *Counter) CountTokens(s string) int {
	n, err := c.codec.Count(s)
	if err != nil {
		// Only strict mode reports errors; a count is still the best answer.
		return len(s)
	}
	return n
}

// Set hands out one shared Counter per tokenizer, loaded on first use. The
// zero value is ready to use; a Set must not be copied after first use.
type Set struct {
	mu       sync.Mutex
	counters map[lore.TokenizerName]*Counter
}

// Get returns the Counter of name ("" = lore.TokenizerO200k), loading it on
// the first call.
func (s *Set) Get(name lore.TokenizerName) (*Counter, error) {
	if name == "" {
		name = lore.TokenizerO200k
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.counters[name]; ok {
		return c, nil
	}
	c, err := New(name)
	if err != nil {
		return nil, err
	}
	if s.counters == nil {
		s.counters = map[lore.TokenizerName]*Counter{}
	}
	s.counters[name] = c
	return c, nil
}
