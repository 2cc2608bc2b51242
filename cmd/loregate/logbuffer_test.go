package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
)

// writeLog records every write it is given, each as one string.
type writeLog struct {
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *writeLog) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

func TestLogBufferBatchesLines(t *testing.T) {
	out := &writeLog{}
	// An interval no test run reaches, then a short one for the timer.
	buf := newLogBuffer(out, time.Hour)
	logger := slog.New(flushingHandler{slog.NewTextHandler(buf, nil), buf})

	logger.Info("starting")
	require.Len(t, out.get(), 1, "before start every line is written at once")

	buf.start()
	for i := range 50 {
		logger.Info("http request", "n", i)
	}
	require.Len(t, out.get(), 1, "50 access lines buffered, none written yet")
	require.NoError(t, buf.Flush())
	batch := out.get()[1]
	require.Equal(t, 50, strings.Count(batch, "http request"), "one write for the 50 lines")
	for i := range 50 {
		require.Contains(t, batch, fmt.Sprintf(" n=%d\n", i))
	}

	// A warning goes out at once, with the lines before it, in order.
	logger.Info("http request", "n", 50)
	logger.Warn("listener down")
	writes := out.get()
	require.Len(t, writes, 3)
	require.Regexp(t, `(?s)n=50\n.*listener down`, writes[2])

	// A burst over logFlushBytes is written by the call that fills it.
	long := strings.Repeat("x", 1000)
	for range logFlushBytes/1000 + 1 {
		logger.Info("http request", "path", long)
	}
	require.Len(t, out.get(), 4)

	// Close writes what is left; later lines go straight through.
	logger.Info("http request", "n", 51)
	require.NoError(t, buf.Close())
	logger.Info("shut down")
	writes = out.get()
	require.Len(t, writes, 6)
	require.Contains(t, writes[4], "n=51")
	require.Contains(t, writes[5], "shut down")
	var all bytes.Buffer
	for _, w := range writes {
		all.WriteString(w)
	}
	require.Equal(t, 50+1+(logFlushBytes/1000+1)+1, strings.Count(all.String(), "http request"))
}

func TestLogBufferFlushesOnTimer(t *testing.T) {
	out := &writeLog{}
	buf := newLogBuffer(out, 20*time.Millisecond)
	defer buf.Close()
	buf.start()
	logger := slog.New(flushingHandler{slog.NewTextHandler(buf, nil), buf})
	for range 3 {
		logger.Info("http request")
		require.Eventually(t, func() bool { return strings.Contains(strings.Join(out.get(), ""), "http request") }, 10*time.Second, time.Millisecond,
			"the line is written within the interval, without a later line or a flush")
		out.mu.Lock()
		out.writes = nil
		out.mu.Unlock()
	}
}

// TestServeWritesBufferedLinesAtShutdown: a serving process holds its
// access lines (LOREGATE_LOG_FLUSH_INTERVAL) and writes every one of
// them when SIGTERM stops it.
func TestServeWritesBufferedLinesAtShutdown(t *testing.T) {
	const key = "log-buffer-key-0123456789"
	p := startServe(t, loregateBinary(t), []string{"DATABASE_URL=" + postgrestest.NewDatabase(t), "LOREGATE_SERVICE_KEYS=" + key,
		"LOREGATE_LOG_FLUSH_INTERVAL=10s", "LOREGATE_JOB_WORKERS=0"})
	const requests = 5
	for range requests {
		req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", strings.NewReader(`{"query":"{__typename}"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.NotContains(t, p.output(), "http request", "the access lines are held")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		require.NoError(t, err, "%s", p.output())
	case <-time.After(time.Minute):
		t.Fatalf("serve did not stop:\n%s", p.output())
	}
	require.Equal(t, requests, strings.Count(p.output(), "http request"), "%s", p.output())
	require.Regexp(t, `(?s)http request.*msg="shut down"`, p.output(), "in order")
}
