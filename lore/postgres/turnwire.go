package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// A recorded turn's commit on the wire (docs/benchmarks.md#recorded-turn-serve-cpu):
// its statements go in one pipeline on the connection's prepared
// statements, their parameters encoded into buffers kept for the next
// turn (pgx's batch regrew its own from 256 bytes for every turn's stored
// result) and the row read without pgx's scan plans, which pgx builds
// again for every row.

// wireStatement is one statement of a pipeline and its arguments (as pgx
// takes them: each is encoded for the parameter type Postgres describes).
type wireStatement struct {
	sql  string
	args []any
}

// turnWire holds pipe's buffers between turns (Store.wires).
type turnWire struct {
	buf     []byte
	values  [][]byte
	formats []int16
	ends    []int // each value's end in buf, -1 for NULL
}

// newTurnWires returns the pool of a Store's turnWires, shared by the
// Stores derived from it (WithLimits, InTx, ...).
func newTurnWires() *sync.Pool {
	return &sync.Pool{New: func() any { return &turnWire{buf: make([]byte, 0, 1024)} }}
}

// maxKeptWire is the largest parameter buffer kept for the next turn.
const maxKeptWire = 256 << 10

// pipe runs stmts on conn in one pipeline ended by one Sync, their
// parameters encoded into a turnWire of s's pool: one round trip and,
// outside a transaction, one implicit transaction (a failing
// statement rolls back the ones before it and skips the rest). A
// statement is prepared on conn at its first use there (pgx.Conn.Prepare:
// one more round trip, once per connection). row gets each row of each
// statement (its index in stmts and the values, in the binary format, nil
// for NULL; valid only during the call). The first error is returned: a
// statement's as a *pgconn.PgError. A pgx.BatchTracer of conn traces the
// pipeline as a batch of stmts.
func (s *Store) pipe(ctx context.Context, conn *pgx.Conn, stmts []wireStatement, row func(stmt int, values [][]byte) error) error {
	w := s.wires.Get().(*turnWire)
	defer func() {
		if cap(w.buf) <= maxKeptWire {
			s.wires.Put(w)
		}
	}()
	return pipeWire(ctx, conn, w, stmts, row)
}

// pipeWire is pipe encoding the parameters into w's buffers (one caller
// at a time: the deferred turns' flusher keeps its own).
func pipeWire(ctx context.Context, conn *pgx.Conn, w *turnWire, stmts []wireStatement, row func(stmt int, values [][]byte) error) (err error) {
	bt, _ := conn.Config().Tracer.(pgx.BatchTracer)
	if bt != nil {
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s.sql, s.args...)
		}
		ctx = bt.TraceBatchStart(ctx, conn, pgx.TraceBatchStartData{Batch: b})
		defer func() { bt.TraceBatchEnd(ctx, conn, pgx.TraceBatchEndData{Err: err}) }()
	}
	sds := make([]*pgconn.StatementDescription, len(stmts))
	for i, s := range stmts {
		if sds[i], err = conn.Prepare(ctx, s.sql, s.sql); err != nil {
			return err
		}
	}
	p := conn.PgConn().StartPipeline(ctx)
	defer func() {
		if cerr := p.Close(); err == nil {
			err = cerr
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == pgFeatureNotSupported {
			// "cached plan must not change result type": the schema
			// changed under a prepared statement; prepare them again.
			for _, s := range stmts {
				_ = conn.Deallocate(context.WithoutCancel(ctx), s.sql)
			}
		}
	}()
	binaryResults := []int16{pgtype.BinaryFormatCode}
	for i, s := range stmts {
		if err := w.encode(conn.TypeMap(), sds[i], s.args); err != nil {
			return fmt.Errorf("statement %d: %w", i+1, err)
		}
		p.SendQueryStatement(sds[i], w.values, w.formats, binaryResults)
	}
	if err := p.Sync(); err != nil {
		return err
	}
	for i := range stmts {
		res, err := p.GetResults()
		if err != nil {
			return err
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			return fmt.Errorf("statement %d: unexpected result %T", i+1, res)
		}
		for rr.NextRow() {
			if err := row(i, rr.Values()); err != nil {
				_, _ = rr.Close()
				return err
			}
		}
		tag, err := rr.Close()
		if bt != nil {
			bt.TraceBatchQuery(ctx, conn, pgx.TraceBatchQueryData{SQL: stmts[i].sql, Args: stmts[i].args, CommandTag: tag, Err: err})
		}
		if err != nil {
			return err
		}
	}
	if res, err := p.GetResults(); err != nil {
		return err
	} else if _, ok := res.(*pgconn.PipelineSync); !ok {
		return fmt.Errorf("pipeline: unexpected result %T", res)
	}
	return nil
}

// encode sets w's values and formats to args encoded for sd's parameter
// types as pgx's extended protocol does (strings in the text format,
// other values in the format pgx prefers for the type, else the other).
// The values stay valid until the next encode.
func (w *turnWire) encode(m *pgtype.Map, sd *pgconn.StatementDescription, args []any) error {
	if len(args) != len(sd.ParamOIDs) {
		return fmt.Errorf("%d arguments for %d parameters", len(args), len(sd.ParamOIDs))
	}
	w.buf, w.formats, w.ends = w.buf[:0], w.formats[:0], w.ends[:0]
	for i, arg := range args {
		oid := sd.ParamOIDs[i]
		format := m.FormatCodeForOID(oid)
		switch arg.(type) {
		case string, *string:
			format = pgtype.TextFormatCode
		}
		start := len(w.buf)
		out, err := m.Encode(oid, format, arg, w.buf)
		if err != nil {
			format = 1 - format // the other of pgtype.TextFormatCode (0) and BinaryFormatCode (1)
			var otherErr error
			if out, otherErr = m.Encode(oid, format, arg, w.buf[:start]); otherErr != nil {
				return fmt.Errorf("argument %d: %w", i+1, err)
			}
		}
		end := -1
		if out != nil {
			w.buf, end = out, len(out)
		}
		w.ends = append(w.ends, end)
		w.formats = append(w.formats, format)
	}
	w.values = w.values[:0]
	start := 0
	for _, end := range w.ends {
		if end < 0 {
			w.values = append(w.values, nil)
			continue
		}
		w.values = append(w.values, w.buf[start:end:end])
		start = end
	}
	return nil
}

// wireInt8 reads a bigint in the binary format (nil for NULL).
func wireInt8(v []byte) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	if len(v) != 8 {
		return nil, fmt.Errorf("bigint of %d bytes", len(v))
	}
	n := int64(binary.BigEndian.Uint64(v))
	return &n, nil
}

// wireXID reads an xid in the binary format (nil for NULL).
func wireXID(v []byte) (*uint32, error) {
	if v == nil {
		return nil, nil
	}
	if len(v) != 4 {
		return nil, fmt.Errorf("xid of %d bytes", len(v))
	}
	n := binary.BigEndian.Uint32(v)
	return &n, nil
}

// wireInt8s reads a one-dimensional bigint[] without NULLs in the binary
// format (nil for NULL or no elements).
func wireInt8s(v []byte) ([]int64, error) {
	if len(v) < 12 {
		if v == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("array of %d bytes", len(v))
	}
	dims, elem := binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[8:])
	switch {
	case dims == 0:
		return nil, nil
	case dims != 1 || elem != pgtype.Int8OID || len(v) < 20:
		return nil, fmt.Errorf("array of %d dimensions of type %d", dims, elem)
	}
	n := int(binary.BigEndian.Uint32(v[12:]))
	v = v[20:]
	if len(v) != 12*n {
		return nil, fmt.Errorf("%d bytes for %d bigints", len(v), n)
	}
	out := make([]int64, n)
	for i := range out {
		if int32(binary.BigEndian.Uint32(v[12*i:])) != 8 {
			return nil, errors.New("bigint[] holds a NULL")
		}
		out[i] = int64(binary.BigEndian.Uint64(v[12*i+4:]))
	}
	return out, nil
}
