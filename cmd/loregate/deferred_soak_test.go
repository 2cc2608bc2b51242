//go:build soak

package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSoakDeferredTurnKill measures what a SIGKILL of serve loses with
// LOREGATE_TURN_COMMIT=deferred at the default flush interval (10 ms,
// docs/turns.md#durability): c workers record turns back to back, each
// in a conversation of its own, until serve is killed; the turns lost are
// the last ones each worker was answered, within the interval plus the
// flush in flight before the kill (at most the queue's 1,024 and the
// requests in flight). After a restart, retrying each
// worker's turns from five before its first lost one records each lost
// one once and replays the others: every turn id answered is logged
// exactly once (and the one whose answer the kill cut off at most once). Five kills at c=1 and at
// c=4; built only with -tags soak (`make soak`).
func TestSoakDeferredTurnKill(t *testing.T) {
	for _, c := range []int{1, 4} {
		for k := range 5 {
			t.Run(fmt.Sprintf("c=%d/%d", c, k), func(t *testing.T) { deferredKillRun(t, c) })
		}
	}
}

func deferredKillRun(t *testing.T, c int) {
	d := newDeferredServe(t)
	env := append(d.env, "LOREGATE_TURN_FLUSH_INTERVAL=10ms")
	bin := loregateBinary(t)
	p := startServe(t, bin, env)
	acked := make([][]ack, c)
	var wg sync.WaitGroup
	for w := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; ; i++ {
				if err := deferredTurn(p, w, i); err != nil {
					return // the kill
				}
				acked[w] = append(acked[w], ack{fmt.Sprint("turn-", i), time.Now()})
			}
		}()
	}
	time.Sleep(2 * time.Second)
	killAt := time.Now()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.done
	wg.Wait()
	logWarnings(t, p)

	kept := d.logged(t)
	total, lost, window := 0, 0, time.Duration(0)
	retryFrom := make([]int, c)
	for w, as := range acked {
		total += len(as)
		firstLost := -1
		for i, a := range as {
			id := fmt.Sprint(deferredChannelOf(w), "/", a.id)
			if kept[id] == 0 && firstLost < 0 {
				firstLost = i
			}
			if firstLost >= 0 {
				require.Zero(t, kept[id], "%s is kept although an earlier turn of its conversation was lost", id)
			}
		}
		retryFrom[w] = max(0, len(as)-5)
		if firstLost >= 0 {
			lost += len(as) - firstLost
			window = max(window, killAt.Sub(as[firstLost].at))
			retryFrom[w] = max(0, firstLost-5)
		}
	}
	t.Logf("c=%d: %d turns answered, %d lost, the earliest answered %v before the kill", c, total, lost,
		window.Round(100*time.Microsecond))
	// The window is the interval plus the write in flight, which holds
	// the commit's WAL flush (a slow disk stretches it) and is tried again
	// while the database is unavailable; the queue bounds what it loses.
	require.LessOrEqual(t, lost, 1024+c)

	p = startServe(t, bin, env)
	for w, as := range acked {
		for i := retryFrom[w]; i < len(as); i++ {
			require.NoError(t, deferredTurn(p, w, i+1))
		}
	}
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	<-p.done
	logWarnings(t, p)
	logged := d.logged(t)
	for w, as := range acked {
		for i, a := range as {
			id := fmt.Sprint(deferredChannelOf(w), "/", a.id)
			require.Equal(t, 1, logged[id], "answered turn %s (%d of %d) is logged once after the retries", id, i+1, len(as))
			delete(logged, id)
		}
		// The turn whose answer the kill cut off may be logged too.
		delete(logged, fmt.Sprint(deferredChannelOf(w), "/turn-", len(as)+1))
	}
	require.Empty(t, logged, "turns logged that were never sent")
}

// logged counts the log rows of each channel/turn id.
func (d deferredServe) logged(t *testing.T) map[string]int {
	out := map[string]int{}
	rows, err := d.pool.Query(context.Background(), `SELECT channel_id || '/' || turn_id FROM activation_log l
		JOIN turn_conversations c ON c.id = l.conversation_id`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		out[id]++
	}
	require.NoError(t, rows.Err())
	return out
}

// logWarnings logs p's warnings and errors (a failed flush).
func logWarnings(t *testing.T, p *serveProcess) {
	for _, line := range strings.Split(p.output(), "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			t.Log(line)
		}
	}
}
