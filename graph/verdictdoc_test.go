package graph

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"loregate/lore/activation"
)

// TestTraceVerdictsDocumented: the schema's description of
// TraceItem.verdict (what GraphiQL's docs show) names every verdict the
// engine gives; the retrieval-by-meaning verdicts (semantic_match,
// below_threshold, over_semantic_cap) were once missing from it.
func TestTraceVerdictsDocumented(t *testing.T) {
	b, err := os.ReadFile("activation.graphqls")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)type TraceItem \{.*?"""(.*?)"""\s*verdict: String!`).FindSubmatch(b)
	if m == nil {
		t.Fatal("TraceItem.verdict's description not found in activation.graphqls")
	}
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[a-z_]+`).FindAllString(string(m[1]), -1) {
		words[w] = true
	}
	var missing []string
	for _, v := range activation.Verdicts() {
		if !words[string(v)] {
			missing = append(missing, string(v))
		}
	}
	if len(missing) > 0 {
		t.Errorf("TraceItem.verdict's description does not name %s", strings.Join(missing, ", "))
	}
}
