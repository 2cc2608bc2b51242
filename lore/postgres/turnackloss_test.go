package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"loregate/lore/postgres"
)

// ackLostConn is a connection whose answer to the write that carries
// marker is lost: the server gets the whole write (and commits it), then,
// before the client reads a byte of the answer, the connection breaks.
type ackLostConn struct {
	net.Conn
	marker  []byte
	armed   *atomic.Bool
	trip    bool
	tripped chan struct{}
}

func (c *ackLostConn) Write(p []byte) (int, error) {
	if bytes.Contains(p, c.marker) && c.armed.CompareAndSwap(true, false) {
		c.trip = true
	}
	return c.Conn.Write(p)
}

func (c *ackLostConn) Read(p []byte) (int, error) {
	if c.trip {
		c.trip = false
		time.Sleep(300 * time.Millisecond) // the server commits meanwhile
		c.Conn.Close()
		close(c.tripped)
		return 0, errors.New("connection reset after the write was sent")
	}
	return c.Conn.Read(p)
}

// TestTurnDeferredCommitAckLost: a flush whose write commits on the
// server but whose answer is lost (the connection breaks after the
// commit) is tried again; the turns it wrote are recorded and must not be
// counted lost, and the turns of the same conversation queued while it
// ran must not be dropped as if their state had moved on.
func TestTurnDeferredCommitAckLost(t *testing.T) {
	b := setup(t)
	es := b.insert(t, entry(b.server, 3, "", "a"))
	const marker = "ack-lost-0f3c9b"
	var armed atomic.Bool
	tripped := make(chan struct{})
	cfg := b.pool.Config()
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &ackLostConn{Conn: c, marker: []byte(marker), armed: &armed, tripped: tripped}, nil
	}
	pool, err := pgxpool.NewWithConfig(b.ctx, cfg)
	require.NoError(t, err)
	defer pool.Close()
	st, lost, failed, stop := countedDeferred(t, postgres.New(pool))
	a := cachedTurns{t: t, store: st, c: b.conversation(t), es: es}
	d, _ := a.recordDeferred("t1", 2, es[0].ID)
	require.False(t, d)
	for i, id := range []string{"t2", marker} {
		d, _ := a.recordDeferred(id, 4+2*i, es[0].ID)
		require.True(t, d, id)
	}
	armed.Store(true)
	settled := make(chan error, 1)
	go func() {
		_, err := st.ActivationLog(b.ctx, a.c, 1)
		settled <- err
	}()
	select {
	case <-tripped:
	case <-time.After(20 * time.Second):
		t.Fatal("the flush's write was not sent")
	}
	d, _ = a.recordDeferred("t4", 10, es[0].ID) // queued behind the write in flight
	require.True(t, d)
	require.NoError(t, <-settled)
	_, err = st.ActivationLog(b.ctx, a.c, 1)
	require.NoError(t, err)
	stop()
	require.Positive(t, failed.Load(), "the lost answer was reported")
	logs, err := b.store.ActivationLog(b.ctx, a.c, 10)
	require.NoError(t, err)
	var ids []string
	for _, l := range logs {
		ids = append(ids, l.TurnID)
	}
	require.Equal(t, []string{"t4", marker, "t2", "t1"}, ids, "every answered turn recorded")
	require.Zero(t, lost.Load(), "no turn counted lost")
}
