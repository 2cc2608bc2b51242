package discord

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"
)

// TestChannelDirectory reads a guild's channels and active threads from
// the fake Discord REST API with the bot token: names, parents and
// Discord's type names, private threads left out; a second read is served
// from memory, Invalidate (a channel event) and the TTL read again, and a
// Discord failure is an error, not an empty list.
func TestChannelDirectory(t *testing.T) {
	f := newFakeDiscord(t)
	const guild = "900000000000000001"
	f.mu.Lock()
	f.channels[guild] = []*discordgo.Channel{
		{ID: "910000000000000001", GuildID: guild, Name: "Story", Type: discordgo.ChannelTypeGuildCategory},
		{ID: "910000000000000002", GuildID: guild, Name: "roleplay", Type: discordgo.ChannelTypeGuildText, ParentID: "910000000000000001"},
		{ID: "910000000000000003", GuildID: guild, Name: "Tavern", Type: discordgo.ChannelTypeGuildVoice},
	}
	f.threads[guild] = []*discordgo.Channel{
		{ID: "920000000000000001", GuildID: guild, Name: "the glade", Type: discordgo.ChannelTypeGuildPublicThread, ParentID: "910000000000000002"},
		{ID: "920000000000000002", GuildID: guild, Name: "staff only", Type: discordgo.ChannelTypeGuildPrivateThread, ParentID: "910000000000000002"},
	}
	f.mu.Unlock()
	rest, err := NewREST("test-token", RESTOptions{APIBase: f.srv.URL})
	require.NoError(t, err)
	d := NewChannelDirectory(rest)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d.now = func() time.Time { return now }
	ctx := context.Background()

	list, err := d.GuildChannels(ctx, guild)
	require.NoError(t, err)
	var got []string
	for _, c := range list {
		p := "-"
		if c.ParentID != nil {
			p = *c.ParentID
		}
		got = append(got, strings.Join([]string{c.ID, c.Name, p, c.Kind}, " "))
	}
	require.Equal(t, []string{
		"910000000000000001 Story - GUILD_CATEGORY",
		"910000000000000002 roleplay 910000000000000001 GUILD_TEXT",
		"910000000000000003 Tavern - GUILD_VOICE",
		"920000000000000001 the glade 910000000000000002 PUBLIC_THREAD",
	}, got)
	reads := f.count()
	require.Equal(t, 2, reads, "channels and active threads")
	auth := f.since(0)[0]
	require.Equal(t, "/api/v9/guilds/"+guild+"/channels", auth.Path)

	_, err = d.GuildChannels(ctx, guild)
	require.NoError(t, err)
	require.Equal(t, reads, f.count(), "served from memory")

	f.mu.Lock()
	f.channels[guild][1].Name = "roleplay-2"
	f.mu.Unlock()
	d.Invalidate(guild)
	list, err = d.GuildChannels(ctx, guild)
	require.NoError(t, err)
	require.Equal(t, "roleplay-2", list[1].Name, "an event drops the listing")
	require.Equal(t, reads+2, f.count())

	now = now.Add(ChannelTTL)
	_, err = d.GuildChannels(ctx, guild)
	require.NoError(t, err)
	require.Equal(t, reads+4, f.count(), "read again after the TTL")

	_, err = d.GuildChannels(ctx, "900000000000000404")
	require.NoError(t, err, "an unknown guild the fake answers with no channels")
}

// TestChannelTypeNames: every channel type discordgo knows has Discord's
// name, not a number.
func TestChannelTypeNames(t *testing.T) {
	for _, ty := range []discordgo.ChannelType{discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildForum,
		discordgo.ChannelTypeGuildNewsThread, discordgo.ChannelTypeGuildMedia, discordgo.ChannelTypeGuildStageVoice} {
		require.NotContains(t, channelTypeName(ty), "TYPE_", ty)
	}
	require.Equal(t, "TYPE_99", channelTypeName(99))
}
