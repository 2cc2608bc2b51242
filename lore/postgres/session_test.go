package postgres_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
)

// TestDashboardSessions: a session is read back by its id until it
// expires or is deleted; only the id's hash is stored; a new session
// deletes the expired ones; unknown and over-long ids are not found.
func TestDashboardSessions(t *testing.T) {
	b := setup(t)
	st := b.store
	live := postgres.DashboardSession{UserID: "42", UserName: strings.Repeat("ñ", 250), Token: "member-token",
		Guilds: json.RawMessage(`[{"id":"1","name":"Glade","manage":true}]`), CSRF: "csrf", ExpiresAt: time.Now().Add(time.Hour)}
	require.NoError(t, st.CreateDashboardSession(b.ctx, "expired-id", postgres.DashboardSession{UserID: "7", Guilds: json.RawMessage(`[]`),
		ExpiresAt: time.Now().Add(-time.Minute)}))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM dashboard_sessions`))
	require.NoError(t, st.CreateDashboardSession(b.ctx, "live-id", live))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM dashboard_sessions`), "the expired session was deleted")
	require.Zero(t, b.count(t, `SELECT count(*) FROM dashboard_sessions WHERE id_hash = $1::bytea`, []byte("live-id")), "the id is stored hashed")

	got, err := st.DashboardSession(b.ctx, "live-id")
	require.NoError(t, err)
	require.Equal(t, "42", got.UserID)
	require.Equal(t, strings.Repeat("ñ", 200), got.UserName, "the name is clipped to 200 characters")
	require.Equal(t, "member-token", got.Token)
	require.JSONEq(t, string(live.Guilds), string(got.Guilds))
	require.Equal(t, "csrf", got.CSRF)
	require.WithinDuration(t, live.ExpiresAt, got.ExpiresAt, time.Millisecond)

	for _, id := range []string{"", "expired-id", "unknown", strings.Repeat("x", 101)} {
		_, err := st.DashboardSession(b.ctx, id)
		require.ErrorIs(t, err, lore.ErrNotFound, id)
	}
	require.NoError(t, st.DeleteDashboardSession(b.ctx, "live-id"))
	_, err = st.DashboardSession(b.ctx, "live-id")
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.NoError(t, st.DeleteDashboardSession(b.ctx, "live-id"), "deleting an ended session is no error")
}
