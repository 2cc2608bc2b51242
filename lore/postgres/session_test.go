package postgres_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
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

// TestLoginStates: a sign-in state is consumed once (a second consume, as a
// replayed callback does, finds nothing); an expired state is never
// consumed and is deleted by the next sign-in; only the state's hash is
// stored; with MaxLoginStates unexpired states a new one is refused.
func TestLoginStates(t *testing.T) {
	b := setup(t)
	st := b.store
	require.NoError(t, st.CreateLoginState(b.ctx, "old-state", postgres.LoginState{Verifier: "v0", ExpiresAt: time.Now().Add(-time.Minute)}))
	ls := postgres.LoginState{Verifier: "verifier-1", Next: "/dashboard/s/1/", ExpiresAt: time.Now().Add(10 * time.Minute)}
	require.NoError(t, st.CreateLoginState(b.ctx, "state-1", ls))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM dashboard_login_states`), "the expired state was deleted")
	require.Zero(t, b.count(t, `SELECT count(*) FROM dashboard_login_states WHERE state_hash = $1::bytea`, []byte("state-1")), "the state is stored hashed")

	got, err := st.ConsumeLoginState(b.ctx, "state-1")
	require.NoError(t, err)
	require.Equal(t, ls.Verifier, got.Verifier)
	require.Equal(t, ls.Next, got.Next)
	require.WithinDuration(t, ls.ExpiresAt, got.ExpiresAt, time.Millisecond)
	for _, state := range []string{"state-1", "old-state", "", "unknown", strings.Repeat("x", 101)} {
		_, err := st.ConsumeLoginState(b.ctx, state)
		require.ErrorIs(t, err, lore.ErrNotFound, state)
	}

	_, err = b.pool.Exec(b.ctx, `INSERT INTO dashboard_login_states (state_hash, verifier, expires_at)
SELECT sha256(i::text::bytea), 'v', now() + interval '10 minutes' FROM generate_series(1, $1) i`, postgres.MaxLoginStates)
	require.NoError(t, err)
	err = st.CreateLoginState(b.ctx, "one-too-many", ls)
	require.ErrorIs(t, err, lore.ErrUnavailable)
	_, err = st.ConsumeLoginState(b.ctx, "one-too-many")
	require.ErrorIs(t, err, lore.ErrNotFound, "a refused state is not stored")
}

// TestLoginStatesCapExact: sign-ins started at once never take the
// unexpired states past MaxLoginStates (issue 26: concurrent starts each
// counted 9,999 and all stored): with 10 free places and 40 concurrent
// starts, exactly 10 are stored and 30 refused.
func TestLoginStatesCapExact(t *testing.T) {
	b := setup(t)
	const free, starts = 10, 40
	_, err := b.pool.Exec(b.ctx, `INSERT INTO dashboard_login_states (state_hash, verifier, expires_at)
SELECT sha256(i::text::bytea), 'v', now() + interval '10 minutes' FROM generate_series(1, $1) i`, postgres.MaxLoginStates-free)
	require.NoError(t, err)
	var wg sync.WaitGroup
	var stored, refused atomic.Int32
	gate := make(chan struct{})
	for i := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			err := b.store.CreateLoginState(b.ctx, fmt.Sprintf("concurrent-%d", i), postgres.LoginState{Verifier: "v", ExpiresAt: time.Now().Add(10 * time.Minute)})
			switch {
			case err == nil:
				stored.Add(1)
			case errors.Is(err, lore.ErrUnavailable):
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	close(gate)
	wg.Wait()
	require.Equal(t, postgres.MaxLoginStates, b.count(t, `SELECT count(*) FROM dashboard_login_states`), "exactly the cap")
	require.EqualValues(t, free, stored.Load())
	require.EqualValues(t, starts-free, refused.Load())
}
