package main

import (
	"io"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dbProxy forwards TCP connections to a Postgres address until stop,
// which closes its listener and every connection it forwards: to the
// processes connected through it, the database went down (their
// connections break, new ones are refused).
type dbProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

// newDBProxy returns a proxy to dbURL's host and dbURL rewritten to go
// through it.
func newDBProxy(t *testing.T, dbURL string) (*dbProxy, string) {
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &dbProxy{ln: ln}
	t.Cleanup(p.stop)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, s) {
				return
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	u.Host = ln.Addr().String()
	return p, u.String()
}

// track keeps c and s to close at stop; false (both closed) once stopped.
func (p *dbProxy) track(c, s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil && p.ln == nil {
		c.Close()
		s.Close()
		return false
	}
	p.conns = append(p.conns, c, s)
	return true
}

func (p *dbProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.ln, p.conns = nil, nil
}

// TestServeStopDatabaseDown: SIGTERM with the database down (every
// connection broken, new ones refused, as when Postgres stops) stops
// serve within twice LOREGATE_SHUTDOWN_TIMEOUT (docs/operations.md#shutdown;
// here 2 s, so 4 s, and 3 s more for the exit itself) with job workers,
// the scope cache's listener and a flush of deferred turns retrying; its
// log line counts the turns it could not write (counts only, no lore).
// Before the bound, the flush's 30 s of retries alone held it.
func TestServeStopDatabaseDown(t *testing.T) {
	d := newDeferredServe(t)
	var env []string
	var proxy *dbProxy
	for _, kv := range d.env {
		switch {
		case kv == "LOREGATE_JOB_WORKERS=0":
			continue // River runs
		case len(kv) > len("DATABASE_URL=") && kv[:len("DATABASE_URL=")] == "DATABASE_URL=":
			var through string
			proxy, through = newDBProxy(t, kv[len("DATABASE_URL="):])
			kv = "DATABASE_URL=" + through
		}
		env = append(env, kv)
	}
	const grace = 2 * time.Second
	env = append(env, "LOREGATE_SHUTDOWN_TIMEOUT="+grace.String())
	p := startServe(t, loregateBinary(t), env)
	const n = 9
	for i := 1; i <= n; i++ {
		d.turn(t, p, i)
	}
	queued := n - d.check(t, n)
	require.Positive(t, queued, "turns are queued")
	proxy.stop()
	start := time.Now()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		require.NoError(t, err)
	case <-time.After(2*grace + 3*time.Second):
		t.Fatalf("serve did not stop within twice the grace period:\n%s", p.output())
	}
	t.Logf("serve stopped in %v", time.Since(start).Round(time.Millisecond))
	m := regexp.MustCompile(`msg="deferred turns: the queue is written" turns_written=0 turns_unrecorded=(\d+)\n`).FindStringSubmatch(p.output())
	require.NotNil(t, m, p.output())
	require.Equal(t, strconv.Itoa(n-d.check(t, n)), m[1])
	require.NotContains(t, p.output(), "ragon", "no lore logged")
}
