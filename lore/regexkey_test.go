package lore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestCompileRegexKey(t *testing.T) {
	tests := []struct {
		key     string
		ok      bool
		over    bool
		problem string
	}{
		{`/\bdragons?\b/i`, true, false, ""},
		{`/Description.*(\bfeel\b|\bfeels\b|felt|touch).*:/`, true, false, ""},
		{`/a{100}/`, true, false, ""},
		{`/[\s\S]{0,1000}z/`, false, true, "repeats 1000 times, at most 100 allowed"},
		{`/(a{10}){11}/`, false, true, "repeats 110 times"},
		{`/[\s\S]{0,100}[\s\S]{0,100}[\s\S]{0,100}z/`, false, true, "instructions, at most 500 allowed"},
		{"/" + strings.Repeat("a", lore.MaxRegexLen+1) + "/", false, true, "longer than 400 bytes"},
		{`/a(?=b)/`, false, false, "does not compile"},
		{`/a{1001}/`, false, false, "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			src, n, isRegex := lore.RegexKeySource(tt.key)
			require.True(t, isRegex)
			re, size, problem, over := lore.CompileRegexKey(src, n)
			require.Equal(t, tt.ok, re != nil, problem)
			require.Equal(t, tt.over, over)
			require.Contains(t, problem, tt.problem)
			if tt.ok {
				require.Positive(t, size)
				require.LessOrEqual(t, size, lore.MaxRegexProgram)
			}
		})
	}
}

func TestValidateRegexKeys(t *testing.T) {
	require.NoError(t, lore.ValidateRegexKeys("keys", []string{"dragon", `/\bdragons?\b/i`, "/a(?=b)/", "[x]{0,5000}"}))
	err := lore.ValidateRegexKeys("secondaryKeys", []string{"ok", `/[\s\S]{0,1000}z/`})
	require.True(t, errors.Is(err, lore.ErrInvalid))
	msg, _ := lore.Explain(err)
	require.Contains(t, msg, "secondaryKeys[1]")
	require.Contains(t, msg, "repeats 1000 times, at most 100 allowed")
}
