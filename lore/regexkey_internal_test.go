package lore

import (
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEstimateProgIsUpperBound: the linear estimate of the bounds is never
// below the program RE2 really compiles, so a key that passes the bound
// costs at most MaxRegexProgram instructions per byte.
func TestEstimateProgIsUpperBound(t *testing.T) {
	for _, src := range []string{`[\s\S]{0,100}[\s\S]{0,100}z1`, `(?i)(a|bc|d){3,7}x+y*z?`, `(?:ab){10}`, `(?i)\bdragons?\b`,
		`x{5,}`, `Description.*(\bfeel\b|\bfeels\b|felt|touch).*:`, `(?s)^a.b$`, `[a-z]{2,4}(?:-[a-z]{2,4}){0,3}`, `((a{2}){3}){4}`, `a|b|c|d|e`, `(?m)^\w+:\s*\d{1,3}$`} {
		tree, err := syntax.Parse(src, syntax.Perl)
		require.NoError(t, err)
		prog, err := syntax.Compile(tree.Simplify())
		require.NoError(t, err)
		t.Log(src, (estimateProg(tree) + 4), len(prog.Inst))
		require.GreaterOrEqual(t, (estimateProg(tree) + 4), len(prog.Inst), src)
		require.LessOrEqual(t, (estimateProg(tree) + 4), 3*len(prog.Inst)+8, "%s: the estimate stays close", src)
	}
}
