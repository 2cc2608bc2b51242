package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
)

// rawIOListener wraps serve's listener so that each accepted TCP
// connection reads and writes with raw non-blocking system calls
// (docs/benchmarks.md#raw-io). net's own Read and Write enter the runtime's
// syscall state, and the first such call after the process was idle wakes
// the runtime's sysmon thread from its deep sleep; sysmon then polls every
// 20 µs until every P is idle again. At one request at a time that was
// every request: a sixth of serve's CPU per cached turn. A read or write
// of a non-blocking socket never blocks the thread, so it needs no syscall
// state; when the socket is not ready the goroutine waits in the network
// poller as before (syscall.RawConn), with the connection's deadlines.
//
// The connection stays a net.Conn as net's: its errors are *net.OpError
// with Op "read" or "write" around the same causes (a deadline's is a
// timeout, a closed connection's net.ErrClosed), the end of the stream is
// io.EOF, and every other method is the *net.TCPConn's.
//
// The cost: sysmon, asleep while serve is idle, is woken by the next
// timer or system call instead of by the request, so a request that
// reaches an idle serve and then computes without any I/O is preempted
// for fairness only from then on (the runtime's own behaviour for work
// woken by the network poller).
func rawIOListener(ln net.Listener) net.Listener { return rawListener{ln} }

type rawListener struct{ net.Listener }

func (l rawListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return rawIOConn(c), nil
}

// rawIODial wraps a pgx dial function so that the database connections it
// dials read and write as rawIOListener's do: a recorded turn's commit
// waits for Postgres' answer, and its read woke sysmon as a request's did.
func rawIODial(dial pgconn.DialFunc) pgconn.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return rawIOConn(c), nil
	}
}

// rawIOConn is c reading and writing with raw system calls when it is a
// TCP connection, else c.
func rawIOConn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	rc := &rawConn{TCPConn: tc, raw: raw}
	// Bound once: a method value made per call would be allocated for each
	// Read and Write (it escapes into syscall.RawConn).
	rc.readFn, rc.writeFn = rc.rd.read, rc.wr.write
	return rc
}

// rawConn is a TCP connection whose Read and Write are raw system calls
// run under raw (the connection's poller and deadlines). rd and wr hold
// the buffer and the outcome of the Read or Write in progress, each
// under its own lock: net.Conn allows concurrent calls.
type rawConn struct {
	*net.TCPConn
	raw     syscall.RawConn
	rmu     sync.Mutex
	rd      rawOp
	readFn  func(fd uintptr) bool
	wmu     sync.Mutex
	wr      rawOp
	writeFn func(fd uintptr) bool
}

// rawOp is one Read's or Write's buffer, the bytes done and the error
// number that ended it (0 for none).
type rawOp struct {
	p     []byte
	done  int
	errno syscall.Errno
}

// read is the Read callback: one read(2) into p, retried on EINTR; it
// reports false (wait until readable) on EAGAIN.
func (o *rawOp) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(o.p))), uintptr(len(o.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait until readable, then again
		}
		o.done, o.errno = int(r), e
		return true
	}
}

// write is the Write callback: write(2) until all of p is written or an
// error other than EINTR; it reports false (wait until writable, then
// the rest) on EAGAIN.
func (o *rawOp) write(fd uintptr) bool {
	for o.done < len(o.p) {
		rest := o.p[o.done:]
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case 0:
			o.done += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // wait until writable, then the rest
		default:
			o.errno = e
			return true
		}
	}
	return true
}

func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	c.rd = rawOp{p: p}
	err := c.raw.Read(c.readFn)
	n, errno := c.rd.done, c.rd.errno
	c.rd.p = nil // the caller's buffer is not kept
	c.rmu.Unlock()
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	c.wr = rawOp{p: p}
	err := c.raw.Write(c.writeFn)
	done, errno := c.wr.done, c.wr.errno
	c.wr.p = nil
	c.wmu.Unlock()
	switch {
	case err != nil:
		return done, c.opError("write", err)
	case errno != 0:
		return done, c.opError("write", os.NewSyscallError("write", errno))
	}
	return done, nil
}

// opError is err as net's Read and Write return it: a *net.OpError of op
// (syscall.RawConn's own says "raw-read" or "raw-write").
func (c *rawConn) opError(op string, err error) error {
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
