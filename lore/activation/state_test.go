package activation

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVerdictCodes: every verdict of the engine has a code that gives it
// back, and the codes list nothing else.
func TestVerdictCodes(t *testing.T) {
	for _, v := range Verdicts() {
		require.Equal(t, v, codeOf(v).verdict())
	}
	require.Len(t, verdictNames, len(Verdicts())+1) // and vNone
	require.Equal(t, vNone, codeOf(""))
	require.Panics(t, func() { codeOf("no_such_verdict") })
}
