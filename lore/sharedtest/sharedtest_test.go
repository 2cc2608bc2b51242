package sharedtest

import (
	"strings"
	"testing"
)

// TestPathFindsCorpus runs where the shared checkout is present (always
// under CI, where a missing one fails instead).
func TestPathFindsCorpus(t *testing.T) {
	p := Path(t, "corpus")
	if !strings.HasSuffix(p, "corpus") {
		t.Fatalf("Path = %q", p)
	}
	if len(Read(t, "cases", "activation-cases.json")) == 0 {
		t.Fatal("activation-cases.json is empty")
	}
}
