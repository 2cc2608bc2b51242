package graph_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/discord"
	"loregate/graph/graphtest"
)

const qChannels = `query($s: String!) { server(discordId: $s) { channels { id name parentId kind } } }`

type channelsView struct {
	Server struct {
		Channels *[]struct {
			ID, Name, Kind string
			ParentID       *string
		}
	}
}

// TestServerChannels: Server.channels lists the guild's channels by name
// from a fake Discord REST API, read with the bot token; without a bot
// token it is null.
func TestServerChannels(t *testing.T) {
	var auth string
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v9/guilds/" + serverA + "/channels":
			_, _ = io.WriteString(w, `[{"id": "510000000000000001", "name": "roleplay", "type": 0, "parent_id": "510000000000000009"},
				{"id": "510000000000000009", "name": "Story", "type": 4}]`)
		case "/api/v9/guilds/" + serverA + "/threads/active":
			_, _ = io.WriteString(w, `{"threads": [{"id": "520000000000000001", "name": "the glade", "type": 11, "parent_id": "510000000000000001"}], "members": []}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(fake.Close)
	rest, err := discord.NewREST("bot-token", discord.RESTOptions{APIBase: fake.URL})
	require.NoError(t, err)
	r, store, pool := graphtest.NewResolver(t, graphtest.Options{})
	r.Channels = discord.NewChannelDirectory(rest)
	a := wrap(t, graphtest.Serve(t, r, graphtest.Options{}, store, pool))
	setupServer(t, a, serverA)
	var v channelsView
	a.must(serviceKey, qChannels, map[string]any{"s": serverA}, "server", &v.Server)
	require.Equal(t, "Bot bot-token", auth)
	require.NotNil(t, v.Server.Channels)
	ch := *v.Server.Channels
	require.Len(t, ch, 3)
	require.Equal(t, "roleplay", ch[0].Name)
	require.Equal(t, "GUILD_TEXT", ch[0].Kind)
	require.Equal(t, "510000000000000009", *ch[0].ParentID)
	require.Equal(t, "GUILD_CATEGORY", ch[1].Kind)
	require.Nil(t, ch[1].ParentID)
	require.Equal(t, "the glade", ch[2].Name)
	require.Equal(t, "PUBLIC_THREAD", ch[2].Kind)

	plain := newAPI(t)
	setupServer(t, plain, serverA)
	var none channelsView
	plain.must(serviceKey, qChannels, map[string]any{"s": serverA}, "server", &none.Server)
	require.Nil(t, none.Server.Channels, "no bot token: null")
}
