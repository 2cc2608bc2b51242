//go:build soak

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/pglocal"
	"loregate/lore/postgres"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// TestSoakTurnCrashWindow measures what a database crash loses of recorded
// turns (docs/turns.md#durability): turns are recorded one after another
// on a durable local cluster (fsync on) until the postmaster is stopped in
// immediate mode (SIGQUIT: no shutdown checkpoint, WAL not yet flushed is
// lost, the next start recovers). Turns go through a TurnStore as the API
// records them: after the first, each in one round trip on the state kept
// from the turn before (docs/turns.md#cached-state). With the default asynchronous turn
// commit the turns lost are the last ones acknowledged, within a second of
// the crash; with WithDurableTurns none is lost. Either way every turn id
// retried after the restart is applied at most once: a kept turn answers
// as a retry, a lost one is recorded anew, once. Built only with -tags
// soak (`make soak`).
func TestSoakTurnCrashWindow(t *testing.T) {
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprintf("durable=%v", durable), func(t *testing.T) { crashRun(t, durable) })
	}
}

type ack struct {
	id string
	at time.Time
}

func crashRun(t *testing.T, durable bool) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755)) // the cluster may run as another user
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	start := func() (*pglocal.Cluster, *postgres.Store, *pgxpool.Pool) {
		cl, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Database: "loregate", Logger: logger})
		require.NoError(t, err)
		pool, err := pgxpool.New(ctx, cl.URL())
		require.NoError(t, err)
		require.NoError(t, migrateUp(ctx, pool, logger))
		st := postgres.New(pool)
		if durable {
			st = st.WithDurableTurns()
		}
		return cl, st, pool
	}
	cl, st, pool := start()
	turns := st.TurnStore()
	const server = "111111111111111111"
	_, err := st.UpsertServer(ctx, server, "crash")
	require.NoError(t, err)
	conv := turnstate.Conversation{Server: server, Channel: "222222222222222222"}

	// record records turn id as the API does: on the state the TurnStore
	// kept from the conversation's last turn when it has it (one round
	// trip, docs/turns.md#cached-state), else, or when that is stale, under
	// the conversation's lock.
	record := func(turns turnstate.Store, id string, n int) (retry bool, err error) {
		commit := func(tx turnstate.Turn) error {
			return tx.Commit(ctx, tx.Stored(), turnstate.LoggedTurn{TurnID: id, MessageCount: n,
				InputSHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(id))), Response: json.RawMessage(`{"admitted":[]}`)})
		}
		if tx := turns.(turn.CachedRecorder).BeginCachedTurn(ctx, conv, id); tx != nil {
			if err := commit(tx); !errors.Is(err, turnstate.ErrStale) {
				return false, err
			}
		}
		tx, err := turns.BeginTurn(ctx, conv, id)
		if err != nil {
			return false, err
		}
		if tx.Retry() != nil {
			tx.Rollback(ctx)
			return true, nil
		}
		return false, commit(tx)
	}
	var acked []ack
	var stopErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; ; i++ {
			id := "t" + strconv.Itoa(i)
			if _, err := record(turns, id, i); err != nil {
				stopErr = err // the crash
				return
			}
			acked = append(acked, ack{id, time.Now()})
		}
	}()
	time.Sleep(3 * time.Second)
	// The postmaster is the parent of any backend.
	var backend int
	require.NoError(t, pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend))
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", backend))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))[1])
	require.NoError(t, err)
	crashAt := time.Now()
	require.NoError(t, syscall.Kill(pid, syscall.SIGQUIT))
	<-done
	pool.Close()
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(50 * time.Millisecond)
	}
	_ = cl.Stop(ctx) // not running any more: releases the directory

	cl, st, pool = start()
	defer func() { pool.Close(); _ = cl.Stop(ctx) }()
	turns = st.TurnStore()
	kept := map[string]int{}
	rows, err := pool.Query(ctx, `SELECT turn_id FROM activation_log`)
	require.NoError(t, err)
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		kept[id]++
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, acked, "no turn recorded before the crash: %v", stopErr)
	firstLost := -1
	for i, a := range acked {
		if kept[a.id] == 0 && firstLost < 0 {
			firstLost = i
		}
		if firstLost >= 0 {
			require.Zero(t, kept[a.id], "turn %s is kept although an earlier acknowledged turn was lost", a.id)
		}
	}
	lost := 0
	window := time.Duration(0)
	if firstLost >= 0 {
		lost = len(acked) - firstLost
		window = crashAt.Sub(acked[firstLost].at)
	}
	t.Logf("durable=%v: %d turns acknowledged, %d lost, acknowledged %v before the crash at the earliest",
		durable, len(acked), lost, window.Round(time.Millisecond))
	if durable {
		require.Zero(t, lost, "a durable turn commit loses nothing")
	} else {
		require.Less(t, window, time.Second, "async commit loses at most the last ~3 x wal_writer_delay (200 ms)")
	}

	// Retries after the restart: the last acknowledged turns again.
	from := max(0, len(acked)-lost-5)
	for i, a := range acked[from:] {
		retry, err := record(turns, a.id, from+i+1)
		require.NoError(t, err)
		require.Equal(t, kept[a.id] == 1, retry, "turn %s: a kept turn answers as a retry, a lost one records anew", a.id)
	}
	for _, a := range acked[from:] {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM activation_log WHERE turn_id = $1`, a.id).Scan(&n))
		require.Equal(t, 1, n, "turn %s is recorded exactly once", a.id)
	}
}
