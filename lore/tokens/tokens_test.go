package tokens_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/tokens"
)

var _ activation.Tokenizer = (*tokens.Counter)(nil)

func TestCounts(t *testing.T) {
	var set tokens.Set
	o200, err := set.Get("")
	require.NoError(t, err)
	require.Equal(t, lore.TokenizerO200k, o200.Name())
	cl100, err := set.Get(lore.TokenizerCL100k)
	require.NoError(t, err)
	again, err := set.Get(lore.TokenizerO200k)
	require.NoError(t, err)
	require.Same(t, o200, again, "a Set shares its counters")

	// Reference encodings of OpenAI's tiktoken (the vectors the library's
	// own tests pin), which tell the two vocabularies apart.
	tests := []struct {
		text        string
		o200, cl100 int
	}{
		{"", 0, 0},
		{"hello world", 2, 2},
		{"hello   world", 3, 3},
		{"'RE", 2, 1},
		{"supercalifragilistic", 6, 7},
		{"We know what we are, but know not what we may be.", 14, 14},
	}
	for _, tt := range tests {
		require.Equal(t, tt.o200, o200.CountTokens(tt.text), "o200k_base %q", tt.text)
		require.Equal(t, tt.cl100, cl100.CountTokens(tt.text), "cl100k_base %q", tt.text)
	}
	require.Positive(t, o200.CountTokens("bad \xff utf-8"))

	_, err = set.Get("gpt2")
	require.True(t, errors.Is(err, lore.ErrInvalid), "%v", err)
}

func TestConcurrentUse(t *testing.T) {
	c, err := tokens.New(lore.TokenizerCL100k)
	require.NoError(t, err)
	want := c.CountTokens("The lighthouse keeper counts the ships.")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := c.CountTokens("The lighthouse keeper counts the ships."); got != want {
					t.Errorf("got %d, want %d", got, want)
				}
			}
		})
	}
	wg.Wait()
}

func ExampleCounter() {
	c, err := tokens.New(lore.TokenizerO200k)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.CountTokens("hello world"))
	// Output: 2
}
