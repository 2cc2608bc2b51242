package discord

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGuildMembership: READY marks left the registered servers it does
// not list; a GUILD_DELETE with unavailable (an outage) marks nothing, one
// without marks the server left; GUILD_CREATE restores a left server with
// its lore.
func TestGuildMembership(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	a, b, c := "400000000000000001", "400000000000000002", "400000000000000003"
	for _, id := range []string{a, b, c} {
		require.NoError(t, h.bot.registerServer(ctx, id))
	}
	_, err := h.pool.Exec(ctx, `INSERT INTO lorebooks (server_id, name) VALUES ($1, 'World')`, c)
	require.NoError(t, err)
	left := func(id string) bool {
		var at *time.Time
		require.NoError(t, h.pool.QueryRow(ctx, "SELECT left_at FROM servers WHERE id = $1", id).Scan(&at))
		return at != nil
	}
	gw := newFakeGateway(t)
	gw.guilds = []string{a, b}
	done, stop := runBot(t, h, gw)
	waitState(t, h, GatewayConnected)
	require.Eventually(t, func() bool { return left(c) }, 10*time.Second, 10*time.Millisecond, "missing from READY: left")
	require.False(t, left(a))
	require.False(t, left(b))

	gw.dispatch("GUILD_DELETE", map[string]any{"id": a, "unavailable": true})
	gw.dispatch("GUILD_DELETE", map[string]any{"id": b})
	require.Eventually(t, func() bool { return left(b) }, 10*time.Second, 10*time.Millisecond, "removed: left")
	require.False(t, left(a), "an outage marks nothing")

	gw.dispatch("GUILD_CREATE", map[string]any{"id": c, "name": "Back again", "unavailable": false})
	require.Eventually(t, func() bool { return !left(c) }, 10*time.Second, 10*time.Millisecond, "rejoined: restored")
	var books int
	require.NoError(t, h.pool.QueryRow(ctx, "SELECT count(*) FROM lorebooks WHERE server_id = $1", c).Scan(&books))
	require.Equal(t, 1, books, "restored untouched")

	stop()
	require.NoError(t, <-done)
}
