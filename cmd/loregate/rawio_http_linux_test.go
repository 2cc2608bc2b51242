package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRawConnServesHTTP runs what http.Server asks of a connection on a
// plain listener and on rawIOListener's: keep-alive and pipelined
// requests, a request body, a client that leaves mid-request (the
// server's background read sees the end and cancels the request's
// context), a header sent too slowly (ReadHeaderTimeout, the hostile
// suite's slowloris bound) and Shutdown closing an idle connection.
func TestRawConnServesHTTP(t *testing.T) {
	for _, wrap := range []struct {
		name string
		fn   func(net.Listener) net.Listener
	}{{"net", func(ln net.Listener) net.Listener { return ln }}, {"raw", rawIOListener}} {
		t.Run(wrap.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			left := make(chan error, 1)
			mux := http.NewServeMux()
			mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				fmt.Fprintf(w, "%d", len(b))
			})
			mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
					left <- r.Context().Err()
				case <-time.After(10 * time.Second):
					left <- nil
				}
			})
			srv := &http.Server{Handler: mux, ReadHeaderTimeout: 300 * time.Millisecond, IdleTimeout: time.Minute}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(wrap.fn(ln)) }()
			addr := ln.Addr().String()
			dial := func() (net.Conn, *bufio.Reader) {
				c, err := net.Dial("tcp", addr)
				require.NoError(t, err)
				t.Cleanup(func() { c.Close() })
				require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
				return c, bufio.NewReader(c)
			}
			post := func(n int) string {
				return fmt.Sprintf("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", n, strings.Repeat("a", n))
			}
			readBody := func(br *bufio.Reader) string {
				resp, err := http.ReadResponse(br, nil)
				require.NoError(t, err)
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				return string(b)
			}

			// Keep-alive, then two pipelined requests in one write.
			c, br := dial()
			for _, n := range []int{0, 3, 1 << 20} {
				_, err := io.WriteString(c, post(n))
				require.NoError(t, err)
				require.Equal(t, fmt.Sprint(n), readBody(br))
			}
			_, err = io.WriteString(c, post(5)+post(7))
			require.NoError(t, err)
			require.Equal(t, "5", readBody(br))
			require.Equal(t, "7", readBody(br))

			// The client leaves while its request runs.
			w, _ := dial()
			_, err = io.WriteString(w, "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			time.Sleep(50 * time.Millisecond)
			require.NoError(t, w.Close())
			require.ErrorIs(t, <-left, context.Canceled)

			// A header trickled slower than ReadHeaderTimeout: the server
			// hangs up.
			s, sbr := dial()
			_, err = io.WriteString(s, "GET /echo HTTP/1.1\r\nHost: x\r\n")
			require.NoError(t, err)
			start := time.Now()
			closed := make(chan error, 1)
			go func() { _, err := io.Copy(io.Discard, sbr); closed <- err }()
		trickle:
			for {
				select {
				case err := <-closed:
					if err != nil { // else io.Copy's EOF
						require.ErrorIs(t, err, syscall.ECONNRESET, "closed with unread bytes")
					}
					break trickle
				case <-time.After(100 * time.Millisecond):
					_, _ = io.WriteString(s, "X")
				}
			}
			require.Less(t, time.Since(start), 5*time.Second)

			// Shutdown closes the idle keep-alive connection.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			require.NoError(t, srv.Shutdown(ctx))
			require.ErrorIs(t, <-served, http.ErrServerClosed)
			_, err = br.ReadByte()
			require.ErrorIs(t, err, io.EOF)
		})
	}
}

// TestRawConnWriteDeadline: a write to a client that reads nothing ends
// at the write deadline (http.Server's WriteTimeout) with a timeout, as
// net's does.
func TestRawConnWriteDeadline(t *testing.T) {
	for _, wrap := range []struct {
		name string
		fn   func(net.Listener) net.Listener
	}{{"net", func(ln net.Listener) net.Listener { return ln }}, {"raw", rawIOListener}} {
		t.Run(wrap.name, func(t *testing.T) {
			server, _ := rawPair(t, wrap.fn)
			require.NoError(t, server.SetWriteDeadline(time.Now().Add(50*time.Millisecond)))
			data := make([]byte, 64<<20)
			n, err := server.Write(data)
			requireOpError(t, err, "write", os.ErrDeadlineExceeded)
			require.True(t, err.(net.Error).Timeout())
			require.Less(t, n, len(data)) // what fit the socket's buffers, if any
		})
	}
}
