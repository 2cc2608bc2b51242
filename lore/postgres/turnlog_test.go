package postgres_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres"
	"loregate/lore/turnstate"
)

// TestTurnLogGoesWithItsConversation: deleting a server deletes the log rows
// of its conversations (a trigger since migration 000087 dropped the log's
// foreign key), a turn that committed while the deletion waited for it
// included, and leaves other servers' rows.
func TestTurnLogGoesWithItsConversation(t *testing.T) {
	b := setup(t)
	other := &testBundle{ctx: b.ctx, pool: b.pool, store: b.store, server: snowflake(t)}
	_, err := b.store.UpsertServer(b.ctx, other.server, "Other Guild")
	require.NoError(t, err)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	kept := other.insert(t, entry(other.server, 3, "", "a"))
	c, k := b.conversation(t), other.conversation(t)
	for i := range 3 {
		record(t, b.store, c, fmt.Sprintf("a%d", i), i+1, es, es[0].ID)
		record(t, other.store, k, fmt.Sprintf("a%d", i), i+1, kept, kept[0].ID)
	}
	logRows := func(b *testBundle, c postgres.Conversation) int {
		return b.count(t, `SELECT count(*) FROM activation_log l JOIN turn_conversations v ON v.id = l.conversation_id
WHERE v.server_id = $1 AND v.channel_id = $2`, c.Server, c.Channel)
	}
	require.Equal(t, 3, logRows(b, c))
	var conv int64
	require.NoError(t, b.pool.QueryRow(b.ctx, `SELECT id FROM turn_conversations WHERE channel_id = $1`, c.Channel).Scan(&conv))

	// A turn holding its locks; the deletion waits for its commit.
	turn, err := b.store.BeginTurn(b.ctx, c, "late")
	require.NoError(t, err)
	deleted := make(chan error, 1)
	go func() { deleted <- b.store.DeleteServer(b.ctx, b.server) }()
	select {
	case err := <-deleted:
		t.Fatalf("the deletion did not wait for the turn: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	next := turnstate.Advance(turn.State, es, []int64{es[0].ID}, 9, time.Now())
	require.NoError(t, turn.Commit(b.ctx, next, postgres.LoggedTurn{TurnID: "late", MessageCount: 9,
		InputSHA256: fmt.Sprintf("%064x", 9), BudgetUnit: "utf16", Response: json.RawMessage(`{}`)}))
	require.NoError(t, <-deleted)

	require.Zero(t, b.count(t, `SELECT count(*) FROM activation_log WHERE conversation_id = $1`, conv))
	require.Zero(t, b.count(t, `SELECT count(*) FROM turn_entry_state WHERE conversation_id = $1`, conv))
	require.Equal(t, 3, logRows(other, k))
}
