package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// deferredServe is a database with a server of one keyed entry and the
// serve environment that records its turns with
// LOREGATE_TURN_COMMIT=deferred, flushing every second (the longest).
type deferredServe struct {
	pool *pgxpool.Pool
	env  []string
}

const (
	deferredKey     = "deferred-turns-key-0123456789"
	deferredServer  = "111111111111111111"
	deferredChannel = "333333333333333333"
)

func newDeferredServe(t *testing.T) deferredServe {
	dbURL, pool, store := turnDatabase(t, deferredServer)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content, e.Keys, e.Sticky = deferredServer, 7, "Dragon", "Dragon lore.", []string{"dragon"}, 3
	_, err := store.InsertEntry(context.Background(), e)
	require.NoError(t, err)
	return deferredServe{pool: pool, env: []string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + deferredKey,
		"LOREGATE_JOB_WORKERS=0", "LOREGATE_TURN_COMMIT=deferred", "LOREGATE_TURN_FLUSH_INTERVAL=1s"}}
}

// turn records turn i (message count 2i, the entry's key every third
// turn) and returns its result.
func (d deferredServe) turn(t *testing.T, p *serveProcess, i int) string {
	text := "nothing here"
	if i%3 == 0 {
		text = "a dragon"
	}
	return p.turnCall(t, deferredKey, map[string]any{"serverDiscordId": deferredServer, "lineageId": 7,
		"channelId": deferredChannel, "turnId": fmt.Sprint("turn-", i), "messageCount": 2 * i,
		"messages": []map[string]any{{"content": "hello"}, {"content": text}}})
}

// check asserts that turns 1..n are each logged once, that the
// conversation's version counted n writes, and that the entry's state is
// what its last logged admission left; it returns the rows logged.
func (d deferredServe) check(t *testing.T, n int) int {
	ctx := context.Background()
	// One statement, so one snapshot: a flush committing between two
	// reads would otherwise tell a version from a row count it did not
	// go with.
	var rows, ids, version int
	var lastLogged, lastState *int
	require.NoError(t, d.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM activation_log),
		(SELECT count(DISTINCT turn_id) FROM activation_log),
		(SELECT version FROM turn_conversations),
		(SELECT max(message_count) FROM activation_log WHERE jsonb_array_length(admitted) > 0),
		(SELECT max(last_count) FROM turn_entry_state)`).Scan(&rows, &ids, &version, &lastLogged, &lastState))
	require.Equal(t, rows, ids, "a turn id logged twice")
	require.Equal(t, rows, version, "the version counts the turns logged")
	require.Equal(t, lastLogged, lastState, "the state is what the log's last admission left")
	require.LessOrEqual(t, rows, n)
	return rows
}

// TestServeDeferredTurnsKill: with LOREGATE_TURN_COMMIT=deferred a SIGKILL
// of serve loses the turns answered since the last flush
// (docs/turns.md#durability), never part of one; after a restart,
// retrying the last turns records each lost one once and replays each
// recorded one unchanged. Before the kill a retry of a still-queued turn
// replays it.
func TestServeDeferredTurnsKill(t *testing.T) {
	d := newDeferredServe(t)
	bin := loregateBinary(t)
	p := startServe(t, bin, d.env)
	answered := map[int]string{}
	require.Equal(t, deferredChannel, deferredChannelOf(0))
	for i := 1; i <= 12; i++ {
		answered[i] = d.turn(t, p, i)
	}
	for deadline := time.Now().Add(10 * time.Second); d.check(t, 12) < 12; time.Sleep(20 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the turns are written within the interval")
	}
	for i := 13; i <= 20; i++ {
		answered[i] = d.turn(t, p, i)
	}
	require.Less(t, d.check(t, 20), 20)
	require.Equal(t, answered[20], d.turn(t, p, 20), "a retry of a queued turn waits for its flush and replays it")
	require.Equal(t, 20, d.check(t, 20))
	const n = 30
	for i := 21; i <= n; i++ {
		answered[i] = d.turn(t, p, i)
	}
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.done
	kept := d.check(t, n)
	require.Less(t, kept, n, "the queued turns are lost with the process")
	t.Logf("%d of %d turns were written before the kill", kept, n)

	p = startServe(t, bin, d.env)
	for i := 5; i <= n; i++ {
		got := d.turn(t, p, i)
		if i <= kept {
			require.JSONEq(t, answered[i], got, "turn %d was written: the retry replays it", i)
		}
	}
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	<-p.done
	require.Equal(t, n, d.check(t, n))
}

// TestServeDeferredTurnsTerm: SIGTERM writes every queued turn before
// serve exits, the flush in progress too: with nothing written yet
// (flushing every second), and while turns come back to back (flushing
// every millisecond). The shutdown's log line counts the queued turns
// its last flush wrote (no lore in it).
func TestServeDeferredTurnsTerm(t *testing.T) {
	d := newDeferredServe(t)
	p := startServe(t, loregateBinary(t), d.env)
	const n = 15
	for i := 1; i <= n; i++ {
		d.turn(t, p, i)
	}
	queued := n - d.check(t, n)
	require.Positive(t, queued, "turns are queued")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, <-p.done)
	require.Equal(t, n, d.check(t, n))
	require.Regexp(t, fmt.Sprintf(`msg="deferred turns: the queue is written" turns_written=%d turns_unrecorded=0\n`, queued), p.output())
	require.NotContains(t, p.output(), "dragon")

	p = startServe(t, loregateBinary(t), append(d.env, "LOREGATE_TURN_FLUSH_INTERVAL=1ms"))
	answered := n
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := n + 1; deferredTurn(p, 0, i) == nil; i++ {
			answered = i
		}
	}()
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, <-p.done)
	<-done
	require.Greater(t, answered, n+10)
	require.Equal(t, answered, d.check(t, answered))
}

func deferredChannelOf(worker int) string { return fmt.Sprint(333333333333333333 + worker) }

// deferredTurn records turn i of worker's conversation on p as
// deferredServe.turn does, failing neither on an error nor a refusal:
// it returns them.
func deferredTurn(p *serveProcess, worker, i int) error {
	text := "nothing here"
	if i%3 == 0 {
		text = "a dragon"
	}
	body, _ := json.Marshal(map[string]any{
		"query": `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) { result { budget { used } } error { code } } }`,
		"variables": map[string]any{"input": map[string]any{"serverDiscordId": deferredServer, "lineageId": 7,
			"channelId": deferredChannelOf(worker), "turnId": fmt.Sprint("turn-", i), "messageCount": 2 * i,
			"messages": []map[string]any{{"content": "hello"}, {"content": text}}}},
	})
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+deferredKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ActivateTurn struct{ Result json.RawMessage }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return err
	}
	if len(out.Data.ActivateTurn.Result) == 0 || string(out.Data.ActivateTurn.Result) == "null" {
		return fmt.Errorf("turn %d: no result", i)
	}
	return nil
}
