package graph

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"

	"loregate/graph/model"
	"loregate/lore/turn"
)

// TestTurnInputEncodingStable: the input a recorded turn hashes (its log
// row's input_sha256, which tells a retry from another turn) encodes as it
// did before ActivationOverrides was bound to turn.Overrides, so a retry
// of a turn recorded by an earlier version still replays. The expected
// strings are what the generated model encoded.
func TestTurnInputEncodingStable(t *testing.T) {
	d, b, f, n, ch := 3, true, 0.25, int64(7), "123456789012345678"
	in := model.ActivateTurnInput{ServerDiscordID: "111111111111111111", LineageID: graphql.OmittableOf(&n), ChannelID: graphql.OmittableOf(&ch),
		Messages: []*model.MessageInput{{Content: "hello"}}, TurnID: "t1", MessageCount: 4,
		Overrides: graphql.OmittableOf(&turn.Overrides{ScanDepth: &d, WholeWords: &b, Random: &f})}
	data, err := turnInputJSON(&in)
	require.NoError(t, err)
	require.Equal(t, `{"serverDiscordId":"111111111111111111","lineageId":7,"channelId":"123456789012345678","parentChannelId":null,`+
		`"messages":[{"name":null,"role":null,"content":"hello"}],"names":null,"overrides":{"scanDepth":3,"budget":null,"budgetTokens":null,`+
		`"recursive":null,"maxRecursionSteps":null,"wholeWords":true,"caseSensitive":null,"channelScoping":null,"random":0.25},"turnId":"t1","messageCount":4}`,
		string(data))
	in.Overrides = graphql.Omittable[*turn.Overrides]{}
	data, err = turnInputJSON(&in)
	require.NoError(t, err)
	require.Equal(t, `{"serverDiscordId":"111111111111111111","lineageId":7,"channelId":"123456789012345678","parentChannelId":null,`+
		`"messages":[{"name":null,"role":null,"content":"hello"}],"names":null,"overrides":null,"turnId":"t1","messageCount":4}`, string(data))
	// A turn with a generation type hashes it (another turn than one without).
	g := model.GenerationTypeContinue
	in.GenerationType = graphql.OmittableOf(&g)
	data, err = turnInputJSON(&in)
	require.NoError(t, err)
	require.Contains(t, string(data), `"generationType":"CONTINUE"`)
	// The new overrides are left out while unset (omitempty).
	in.Overrides = graphql.OmittableOf(&turn.Overrides{})
	data, err = json.Marshal(in.Overrides.Value())
	require.NoError(t, err)
	require.NotContains(t, string(data), "minActivations")
}

// TestInputKey: a recorded turn's input key fits the log's column (64
// lower-case hex digits), ends with inputKeyTag, which no SHA-256 key of
// the inputs here does, and changes with any byte of the input.
func TestInputKey(t *testing.T) {
	hexKey := regexp.MustCompile(`^[0-9a-f]{64}$`)
	seen := map[string]bool{}
	base := []byte(`{"serverDiscordId":"111111111111111111","messages":[{"content":"hello"}],"turnId":"t1","messageCount":4}`)
	for i := range base {
		for _, data := range [][]byte{base[:i], append(append([]byte{}, base[:i]...), base[i]^1)} {
			key := inputKey(data)
			require.Regexp(t, hexKey, key)
			require.True(t, strings.HasSuffix(key, inputKeyTag))
			require.False(t, strings.HasSuffix(inputSHA256(data), inputKeyTag))
			require.False(t, seen[key], "%q", data)
			seen[key] = true
		}
	}
	require.Equal(t, inputKey(base), inputKey(append([]byte{}, base...)))
}
