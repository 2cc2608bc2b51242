package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
)

// rawPair returns a server-side connection accepted through ln (wrapped
// by wrap) and its client.
func rawPair(t *testing.T, wrap func(net.Listener) net.Listener) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := wrap(ln).Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	server = <-accepted
	require.NotNil(t, server)
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// TestRawConnActsAsNetConn runs each case on a plain accepted
// *net.TCPConn and on rawIOListener's connection: what net/http relies
// on (data, io.EOF, the OpError's Op, a deadline's timeout, a closed
// connection's error, a pending read aborted by a past deadline) must be
// the same.
func TestRawConnActsAsNetConn(t *testing.T) {
	plain := func(ln net.Listener) net.Listener { return ln }
	for _, wrap := range []struct {
		name string
		fn   func(net.Listener) net.Listener
	}{{"net", plain}, {"raw", rawIOListener}} {
		t.Run(wrap.name, func(t *testing.T) {
			t.Run("round trip larger than the socket buffers", func(t *testing.T) {
				server, client := rawPair(t, wrap.fn)
				if wrap.name == "raw" {
					require.IsType(t, &rawConn{}, server)
				}
				data := make([]byte, 8<<20)
				for i := range data {
					data[i] = byte(rand.Uint32())
				}
				got := make(chan []byte, 1)
				go func() { b, _ := io.ReadAll(client); got <- b }()
				n, err := server.Write(data) // blocks on a full buffer: EAGAIN, then the rest
				require.NoError(t, err)
				require.Equal(t, len(data), n)
				require.NoError(t, server.(interface{ CloseWrite() error }).CloseWrite())
				require.True(t, bytes.Equal(data, <-got))

				go func() { _, _ = client.Write(data); client.Close() }()
				back, err := io.ReadAll(server) // short reads, then io.EOF
				require.NoError(t, err)
				require.True(t, bytes.Equal(data, back))
				n, err = server.Read(make([]byte, 1))
				require.Equal(t, 0, n)
				require.ErrorIs(t, err, io.EOF)
			})
			t.Run("deadline passed", func(t *testing.T) {
				server, _ := rawPair(t, wrap.fn)
				require.NoError(t, server.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
				_, err := server.Read(make([]byte, 16))
				requireOpError(t, err, "read", os.ErrDeadlineExceeded)
				require.True(t, err.(net.Error).Timeout())
			})
			t.Run("pending read aborted by a past deadline", func(t *testing.T) {
				server, _ := rawPair(t, wrap.fn)
				done := make(chan error, 1)
				go func() { _, err := server.Read(make([]byte, 1)); done <- err }()
				time.Sleep(20 * time.Millisecond) // parked in the poller
				require.NoError(t, server.SetReadDeadline(time.Unix(1, 0)))
				select {
				case err := <-done:
					requireOpError(t, err, "read", os.ErrDeadlineExceeded)
					require.True(t, err.(net.Error).Timeout())
				case <-time.After(10 * time.Second):
					t.Fatal("the pending read was not aborted")
				}
			})
			t.Run("closed", func(t *testing.T) {
				server, _ := rawPair(t, wrap.fn)
				require.NoError(t, server.Close())
				_, err := server.Read(make([]byte, 1))
				requireOpError(t, err, "read", net.ErrClosed)
				_, err = server.Write([]byte("x"))
				requireOpError(t, err, "write", net.ErrClosed)
			})
			t.Run("peer reset", func(t *testing.T) {
				server, client := rawPair(t, wrap.fn)
				require.NoError(t, client.(*net.TCPConn).SetLinger(0))
				require.NoError(t, client.Close()) // RST
				var err error
				for range 100 {
					if _, err = server.Write(make([]byte, 64<<10)); err != nil {
						break
					}
					time.Sleep(time.Millisecond)
				}
				var oe *net.OpError
				require.ErrorAs(t, err, &oe)
				require.Equal(t, "write", oe.Op)
				var se *os.SyscallError
				require.ErrorAs(t, err, &se)
			})
		})
	}
}

func requireOpError(t *testing.T, err error, op string, cause error) {
	t.Helper()
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, op, oe.Op)
	require.Equal(t, "tcp", oe.Net)
	require.ErrorIs(t, err, cause)
}

// TestRawIODialPool: openPool's TCP connections to Postgres are raw ones,
// and what pgx needs of them holds: queries, a query cut short by its
// context (a deadline on the connection, then the connection closed) and
// the pool going on with a new connection.
func TestRawIODialPool(t *testing.T) {
	ctx := context.Background()
	pool, err := openPool(ctx, postgrestest.NewDatabase(t), nil)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	c, err := pool.Acquire(ctx)
	require.NoError(t, err)
	// The test cluster listens on TCP only (cmd/internal/pglocal), so the
	// raw connection is always the one under test.
	require.IsType(t, &net.TCPAddr{}, c.Conn().PgConn().Conn().LocalAddr(), "the test database must be reached over TCP")
	require.IsType(t, &rawConn{}, c.Conn().PgConn().Conn())
	var big string
	require.NoError(t, c.QueryRow(ctx, `SELECT repeat('x', 1 << 20)`).Scan(&big)) // many reads
	require.Len(t, big, 1<<20)
	c.Release()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = pool.Exec(short, `SELECT pg_sleep(5)`)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var one int
	require.NoError(t, pool.QueryRow(ctx, `SELECT 1`).Scan(&one))
	require.Equal(t, 1, one)
}

// TestRawConnAllocatesNothing: a Read and a Write that succeed allocate
// nothing (their callbacks are bound once per connection; a closure made
// per call escaped into syscall.RawConn and was allocated every time).
func TestRawConnAllocatesNothing(t *testing.T) {
	server, client := rawPair(t, rawIOListener)
	require.IsType(t, &rawConn{}, server)
	out, in := []byte("ping"), make([]byte, 4)
	allocs := testing.AllocsPerRun(200, func() {
		_, _ = client.Write(out)
		_, _ = server.Read(in)
		_, _ = server.Write(out)
		_, _ = io.ReadFull(client, in)
	})
	require.Zero(t, allocs)
}
