package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// runMainEnv set to 1 makes this test binary run loregate's main instead
// of its tests (TestMain). The tests start `loregate serve` from the test
// binary itself (loregateBinary, loregateEnv): it is built from the same
// main package, so no test waits for a `go build` of its own (the
// package built the command three times before, 15-20 s each on a loaded
// machine).
const runMainEnv = "LOREGATE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main() // exits with the command's status
	}
	os.Exit(m.Run())
}

// loregateBinary returns the loregate command the tests run: this test
// binary, which runs main when started with loregateEnv.
func loregateBinary(t testing.TB) string {
	t.Helper()
	bin, err := os.Executable()
	require.NoError(t, err)
	return bin
}

// loregateEnv is the environment of a loregate process a test starts:
// this process's, then env, then runMainEnv (a real loregate binary
// ignores it).
func loregateEnv(env []string) []string {
	return append(append(os.Environ(), env...), runMainEnv+"=1")
}

// turnCall posts one activateTurn to p and returns the result object.
func (p *serveProcess) turnCall(t *testing.T, key string, input map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"query": `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) {
			result { admitted { id content } budget { used } trace { id verdict detail } } error { code message } } }`,
		"variables": map[string]any{"input": input},
	})
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Data struct {
			ActivateTurn struct {
				Result json.RawMessage
				Error  *struct{ Code, Message string }
			}
		}
		Errors []any
	}
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	require.Empty(t, out.Errors, "%s", raw)
	require.Nil(t, out.Data.ActivateTurn.Error, "%s", raw)
	return string(out.Data.ActivateTurn.Result)
}

// turnDatabase returns a fresh migrated database holding the server row
// of server, a pool on it (closed when t ends) and a store over the pool.
func turnDatabase(t *testing.T, server string) (string, *pgxpool.Pool, *postgres.Store) {
	dbURL := postgrestest.NewDatabase(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	_, err = store.UpsertServer(context.Background(), server, "S")
	require.NoError(t, err)
	return dbURL, pool, store
}

// TestTwoServeProcessesShareTurnState alternates the turns of one
// conversation between two `loregate serve` processes and plays the same
// turns in another conversation through one process: timed effects, match
// decorators and seeded chance rolls give the same result turn by turn.
func TestTwoServeProcessesShareTurnState(t *testing.T) {
	const server = "111111111111111111"
	dbURL, pool, store := turnDatabase(t, server)
	ctx := context.Background()
	add := func(title, content string, sticky, cooldown, chance int) {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Title, e.Content, e.Keys = server, 7, title, content, []string{"dragon"}
		e.Sticky, e.Cooldown, e.Probability = sticky, cooldown, chance
		_, err := store.InsertEntry(ctx, e)
		require.NoError(t, err)
	}
	add("Sticky", "Sticky lore.", 3, 2, 100)
	add("Once", "@@dont_activate_after_match\nOnce lore.", 0, 0, 100)
	for i := range 6 {
		add(fmt.Sprint("Chance ", i), fmt.Sprint("Chance lore ", i, "."), 0, 0, 50)
	}

	bin := loregateBinary(t)
	const key = "two-serve-turns-key-0123456789"
	env := []string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + key, "LOREGATE_JOB_WORKERS=0"}
	procs := []*serveProcess{startServe(t, bin, env), startServe(t, bin, env)}

	texts := []string{"a dragon", "nothing", "nothing", "dragon", "dragon", "nothing", "dragon", "dragon"}
	counts := []int{2, 4, 4, 6, 8, 10, 12, 12} // swipes at 4 and 12
	input := func(channel string, i int) map[string]any {
		return map[string]any{"serverDiscordId": server, "lineageId": 7, "channelId": channel, "turnId": fmt.Sprint("turn-", i),
			"messageCount": counts[i], "messages": []map[string]any{{"content": "hello"}, {"content": texts[i]}}}
	}
	for i := range texts {
		two := procs[i%2].turnCall(t, key, input("333333333333333333", i))
		one := procs[0].turnCall(t, key, input("444444444444444444", i))
		require.JSONEq(t, one, two, "turn %d", i)
		if i == 1 {
			require.Contains(t, two, "Sticky lore.", "the sticky window opened by turn 0 admits without keys")
		}
		// A retry on the other process returns the recorded result.
		require.JSONEq(t, two, procs[(i+1)%2].turnCall(t, key, input("333333333333333333", i)), "retry of turn %d", i)
	}
	var rows int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM activation_log`).Scan(&rows))
	require.Equal(t, 2*len(texts), rows)
}
