package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

const (
	// maxLogFlushInterval bounds LOREGATE_LOG_FLUSH_INTERVAL.
	maxLogFlushInterval = 10 * time.Second
	// logFlushBytes is the buffered size at which the lines are written
	// at once, by the call that reached it.
	logFlushBytes = 32 << 10
)

// logBuffer is serve's log output once it serves (docs/operations.md#logs):
// lines are collected and written to the underlying writer in one write
// per interval (or per logFlushBytes), so the access log costs no syscall
// per request. Until start and after Close every line is written
// through at once. Lines are never reordered: flushes are serialized and
// each writes everything collected before it.
type logBuffer struct {
	out      io.Writer
	interval time.Duration // the longest a line waits, > 0

	wmu sync.Mutex // serializes writes to out, in the order the lines came

	mu        sync.Mutex
	buf       []byte // lines not yet written
	spare     []byte // the previous flush's buffer, reused
	buffering bool   // between start and Close
	armed     bool   // the flush timer runs
	timer     *time.Timer
}

func newLogBuffer(out io.Writer, interval time.Duration) *logBuffer {
	b := &logBuffer{out: out, interval: interval}
	b.timer = time.AfterFunc(time.Hour, func() { _ = b.Flush() })
	b.timer.Stop()
	return b
}

// start begins buffering.
func (b *logBuffer) start() {
	b.mu.Lock()
	b.buffering = true
	b.mu.Unlock()
}

// Write collects p (one record of the slog handler): written at once
// before start and after Close, when the buffer reaches logFlushBytes
// (the error is then the write's), and otherwise within the interval.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	if b.buffering && len(b.buf) < logFlushBytes {
		if !b.armed {
			b.armed = true
			b.timer.Reset(b.interval)
		}
		b.mu.Unlock()
		return len(p), nil
	}
	b.mu.Unlock()
	if err := b.Flush(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes every collected line in one write.
func (b *logBuffer) Flush() error {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.mu.Lock()
	data := b.buf
	b.buf, b.spare = b.spare[:0], nil
	b.armed = false
	b.mu.Unlock()
	if len(data) == 0 {
		return nil
	}
	_, err := b.out.Write(data)
	if cap(data) <= 4*logFlushBytes { // a burst of long lines is not kept
		b.mu.Lock()
		b.spare = data[:0]
		b.mu.Unlock()
	}
	return err
}

// Close writes what is collected and ends buffering: later lines are
// written through (serve's last lines, after its shutdown).
func (b *logBuffer) Close() error {
	b.mu.Lock()
	b.buffering = false
	b.mu.Unlock()
	b.timer.Stop()
	return b.Flush()
}

// flushingHandler writes the buffer at once after every record at
// slog.LevelWarn or above, so a warning or error is never held back (nor
// the lines before it).
type flushingHandler struct {
	slog.Handler
	out *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.out.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.out}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.out}
}
