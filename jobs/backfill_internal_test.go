package jobs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMatchPrefersExactNames: loose matching (spaces, '-' and '_' alike)
// applies only when no channel has exactly the written name.
func TestMatchPrefersExactNames(t *testing.T) {
	idx := indexChannels([]Channel{
		{ID: "100000000000000001", Name: "general-chat", Kind: ChannelText},
		{ID: "100000000000000002", Name: "general_chat", Kind: ChannelText},
		{ID: "100000000000000003", Name: "lore-room", Kind: ChannelText},
	})
	ids, _ := idx.match("#general_chat")
	require.Equal(t, []string{"100000000000000002"}, ids)
	ids, _ = idx.match("General-Chat")
	require.Equal(t, []string{"100000000000000001"}, ids)
	ids, several := idx.match("general chat")
	require.ElementsMatch(t, []string{"100000000000000001", "100000000000000002"}, ids, "no exact match: both loose ones")
	require.True(t, several)
	ids, _ = idx.match("#Lore Room")
	require.Equal(t, []string{"100000000000000003"}, ids)
}
