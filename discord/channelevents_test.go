package discord

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGatewayChannelEventsRefreshChannels: Server.channels' directory is
// read once and served from memory; a CHANNEL_UPDATE or THREAD_CREATE
// from the gateway drops the guild's listing, so the next read shows the
// rename or the new thread at once (no waiting for the 5-minute TTL).
func TestGatewayChannelEventsRefreshChannels(t *testing.T) {
	h := newHarness(t)
	rest, err := NewREST("test-token", RESTOptions{APIBase: h.fake.srv.URL})
	require.NoError(t, err)
	dir := NewChannelDirectory(rest)
	h.bot.channels = dir
	gw := newFakeGateway(t)
	gw.guilds = []string{testGuild}
	done, stop := runBot(t, h, gw)
	waitState(t, h, GatewayConnected)
	ctx := context.Background()
	names := func() map[string]string {
		list, err := dir.GuildChannels(ctx, testGuild)
		require.NoError(t, err)
		m := map[string]string{}
		for _, c := range list {
			m[c.ID] = c.Name
		}
		return m
	}
	require.Equal(t, "channel-0", names()[chanA])

	h.fake.mu.Lock()
	h.fake.channels[testGuild][0].Name = "tavern"
	h.fake.mu.Unlock()
	require.Equal(t, "channel-0", names()[chanA], "served from memory until an event")
	gw.dispatch("CHANNEL_UPDATE", map[string]any{"id": chanA, "guild_id": testGuild, "name": "tavern", "type": 0})
	require.Eventually(t, func() bool { return names()[chanA] == "tavern" }, 10*time.Second, 10*time.Millisecond, "the rename shows")

	const thread = "520000000000000001"
	h.fake.setThreads(testGuild, thread)
	gw.dispatch("THREAD_CREATE", map[string]any{"id": thread, "guild_id": testGuild, "parent_id": chanA, "type": 11, "name": ""})
	require.Eventually(t, func() bool { _, ok := names()[thread]; return ok }, 10*time.Second, 10*time.Millisecond, "the new thread shows")

	stop()
	require.NoError(t, <-done)
}

// TestFieldErrorsInMemberLanguage: a refused entry save answers with the
// API's reason keys rendered in the member's Discord locale (es-ES and
// es-419 Spanish, pt-BR Portuguese), not the API's English message.
func TestFieldErrorsInMemberLanguage(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	long := strings.Repeat("a", 300)
	for locale, want := range map[string]string{
		"es-ES":  "tiene 300 caracteres; el máximo es 200",
		"es-419": "tiene 300 caracteres; el máximo es 200",
		"pt-BR":  "tem 300 caracteres; o máximo é 200",
		"en-US":  "is 300 characters long, at most 200 allowed",
	} {
		h.locale = locale
		m := h.click(permManager, h.need(h.personaPanel(true), actEntryEdit)).modal()
		before := h.snapshot()
		o := h.submit(permManager, m, map[string]string{fieldTitle: long, fieldContent: "changed"})
		require.Contains(t, o.content(), "title: "+want, locale)
		require.Equal(t, before, h.snapshot(), "nothing was written")
	}
	h.locale = "en-US"
}
