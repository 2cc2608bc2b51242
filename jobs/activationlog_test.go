package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// TestActivationLogPrune: the periodic job, run at start-up by the leader,
// keeps the newest LogRowsPerConversation rows of each conversation and
// drops rows past LogMaxAge.
func TestActivationLogPrune(t *testing.T) {
	pool := postgrestest.NewPool(t)
	ctx := context.Background()
	store := postgres.New(pool)
	const server = "123456789012345678"
	_, err := store.UpsertServer(ctx, server, "S")
	require.NoError(t, err)
	convs := []postgres.Conversation{{Server: server, Channel: "223456789012345678"}, {Server: server, Lineage: 4, Channel: "223456789012345678"}}
	for _, c := range convs {
		for i := range 4 {
			turn, err := store.BeginTurn(ctx, c, fmt.Sprint("t", i))
			require.NoError(t, err)
			require.NoError(t, turn.Commit(ctx, turn.State, postgres.LoggedTurn{TurnID: fmt.Sprint("t", i), MessageCount: i + 1,
				InputSHA256: fmt.Sprintf("%064x", i), BudgetUnit: "utf16"}))
		}
	}
	// t3 of the second conversation is 50 days old: gone by age, so its
	// other three rows stay; the first keeps its newest three.
	_, err = pool.Exec(ctx, `UPDATE activation_log SET created_at = now() - interval '50 days'
		WHERE turn_id = 't3' AND conversation_id = (SELECT max(id) FROM turn_conversations)`)
	require.NoError(t, err)

	startClient(t, pool, jobs.Config{Deps: jobs.Deps{LogRowsPerConversation: 3, LogMaxAge: 30 * 24 * time.Hour}})
	deadline := time.Now().Add(waitLimit)
	for {
		var state string
		err := pool.QueryRow(ctx, `SELECT state::text FROM river_job WHERE kind = 'activation_log_prune'`).Scan(&state)
		if err == nil && state == "completed" {
			break
		}
		require.True(t, time.Now().Before(deadline), "prune job not completed (state %q, err %v)", state, err)
		time.Sleep(50 * time.Millisecond)
	}
	for i, want := range [][]string{{"t1", "t2", "t3"}, {"t0", "t1", "t2"}} {
		logs, err := store.ActivationLog(ctx, convs[i], 10)
		require.NoError(t, err)
		var got []string
		for _, l := range logs {
			got = append(got, l.TurnID)
		}
		require.ElementsMatch(t, want, got, "conversation %d", i)
	}
}
