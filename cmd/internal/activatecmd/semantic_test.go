package activatecmd_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/sharedtest"
)

// rankerOf reads the ranker from a scored entry's trace detail
// ("similarity 0.412 at or above threshold 0.25 (embeddings)").
var rankerOf = regexp.MustCompile(`threshold [0-9.]+ \((.*)\)$`)

// semanticRun runs activate on the corpus's vectorized Date a Live book
// with chat (one message) and returns the titles admitted by similarity,
// sorted, and the ranker named in the trace.
func semanticRun(t *testing.T, chat string, args ...string) (titles []string, ranker string) {
	t.Helper()
	book := sharedtest.Path(t, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0_Vectorized.json")
	msgs, err := json.Marshal([]string{chat})
	require.NoError(t, err)
	code, stdout, stderr := runCmd(t, string(msgs), append([]string{"--book", book, "--chat", "-", "--budget", "40000"}, args...)...)
	require.Equal(t, 0, code, stderr)
	var out struct {
		Trace []struct {
			Title, Verdict, Detail string
			Score                  *float64
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	for _, tr := range out.Trace {
		if tr.Score == nil {
			continue
		}
		if tr.Verdict == "semantic_match" {
			titles = append(titles, tr.Title)
		}
		if m := rankerOf.FindStringSubmatch(tr.Detail); m != nil && ranker == "" {
			ranker = m[1]
		}
	}
	slices.Sort(titles)
	return titles, ranker
}

// TestSemanticRankers: on the corpus's vectorized Date a Live book (106 of
// its 107 entries keyless), --ranker lexical admits the relevant keyless
// entries offline and greetings nothing; --embeddings-url and
// --embeddings-model rank with the fake OpenAI-compatible provider (its
// vectors are deterministic), sending the candidates and the query in
// batches of at most 64; a malformed answer leaves the turn to the lexical
// ranker with the reason in the trace; half a provider is refused.
func TestSemanticRankers(t *testing.T) {
	fake := embeddingstest.New(256)
	defer fake.Close()
	provider := []string{"--embeddings-url", fake.URL, "--embeddings-model", "fake-embed"}
	for _, tc := range []struct {
		chat            string
		lexical, embeds []string
	}{
		{"Kotori, why do you always have a lollipop in your mouth?", []string{"Lollipop"}, []string{"Lollipop"}},
		{"The spacequake alarm is ringing across Tengu City.", []string{"Spacequake Alarm"}, []string{"Spacequake Alarm"}},
		{"Hello! How are you today?", nil, nil},
		{"The weather was pleasant and we walked along the river.", nil, nil},
	} {
		t.Run(tc.chat, func(t *testing.T) {
			got, ranker := semanticRun(t, tc.chat, "--ranker", "lexical")
			require.Equal(t, "lexical", ranker)
			require.Equal(t, tc.lexical, got)
			calls, inputs := fake.Calls(), fake.Inputs()
			got, ranker = semanticRun(t, tc.chat, provider...)
			require.Equal(t, "embeddings", ranker)
			require.Equal(t, tc.embeds, got)
			sent := fake.Inputs() - inputs
			require.Greater(t, sent, 80, "the candidates and the query")
			require.Equal(t, (sent+63)/64, fake.Calls()-calls, "batches of at most 64")
		})
	}

	lexical, _ := semanticRun(t, "Kotori, tell me about your lollipop.", "--ranker", "lexical")
	fake.SetMode(embeddingstest.Malformed)
	got, ranker := semanticRun(t, "Kotori, tell me about your lollipop.", provider...)
	require.Equal(t, "lexical: the embeddings provider failed (malformed answer)", ranker)
	require.Equal(t, lexical, got)

	for _, args := range [][]string{{"--embeddings-url", fake.URL}, {"--embeddings-model", "m"}, {"--embeddings-url", "localhost:11434", "--embeddings-model", "m"}} {
		code, _, stderr := runCmd(t, `["hi"]`, append([]string{"--book", eldoriaBook(t), "--chat", "-"}, args...)...)
		require.Equal(t, 2, code, args)
		require.Contains(t, stderr, "--embeddings-", args)
	}
}
