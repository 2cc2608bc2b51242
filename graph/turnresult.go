package graph

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"loregate/graph/model"
	"loregate/lore/activation"
)

// The stored result of a recorded turn (docs/turns.md "What the log
// holds"): what a retry of the turn returns, whatever it selects. Rows
// written before migration 000086 hold the whole Activation as JSON (an
// object, first byte '{'); newer ones this compact encoding, led by
// turnResultCompact:
//
//	byte     turnResultCompact
//	uvarint  n, then n bytes: the Activation as JSON without its trace
//	uvarint  v, then v verdicts, each uvarint length and bytes
//	uvarint  items, then per trace item:
//	  varint   id minus the previous item's id (the first: minus 0)
//	  uvarint  verdict (index into the verdicts)
//	  uvarint  pass
//	  uvarint  flags: 1 triggeredBy, 2 score, 4 params, 8 detail
//	  uvarint  length, title
//	  varint   triggeredBy (flag 1)
//	  8 bytes  score, IEEE 754 little endian (flag 2)
//	  uvarint  length, params as a JSON object (flag 4)
//	  uvarint  length, detail (flag 8)
//
// The trace is the bulk of a turn (250 items in a full scope): as JSON
// objects it was ~30 KB a turn, encoded and stored every turn and parsed
// by Postgres as jsonb; here it is ~10 bytes an item. The items keep what
// a bare stored trace kept (activationToModel's bareTrace): withReasons
// derives their reasons when the trace is selected.
const turnResultCompact = 0x02

// Trace item flags of the compact encoding.
const (
	traceHasTriggeredBy = 1 << iota
	traceHasScore
	traceHasParams
	traceHasDetail
)

// encodeTurnResult is the stored result of a recorded turn: a, its trace
// left out (a.Trace is not read), and the engine's trace items.
func encodeTurnResult(a *model.Activation, trace []activation.TraceItem) ([]byte, error) {
	bare := *a
	bare.Trace = nil
	size := 16 + binary.MaxVarintLen64 + activationHeadSize(&bare) // ids of one scope are close: ~8 bytes an item besides its strings
	for i := range trace {
		size += 8 + len(trace[i].Title) + len(trace[i].Detail) + 24*len(trace[i].Params)
	}
	// The head is written after room for its longest length, then moved
	// back behind its length.
	const headAt = 1 + binary.MaxVarintLen64
	out := make([]byte, headAt, size)
	out[0] = turnResultCompact
	out, err := marshalActivationHead(out, &bare)
	if err != nil {
		return nil, err
	}
	var length [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(length[:], uint64(len(out)-headAt))
	copy(out[1:], length[:n])
	out = out[:1+n+copy(out[1+n:], out[headAt:])]
	var verdicts []activation.Verdict // few distinct ones: a linear search
	index := make([]uint64, len(trace))
	for i, tr := range trace {
		j := 0
		for j < len(verdicts) && verdicts[j] != tr.Verdict {
			j++
		}
		if j == len(verdicts) {
			verdicts = append(verdicts, tr.Verdict)
		}
		index[i] = uint64(j)
	}
	out = binary.AppendUvarint(out, uint64(len(verdicts)))
	for _, v := range verdicts {
		out = appendString(out, string(v))
	}
	out = binary.AppendUvarint(out, uint64(len(trace)))
	prev := int64(0)
	for i := range trace {
		tr := &trace[i]
		out = binary.AppendVarint(out, tr.ID-prev)
		prev = tr.ID
		flags := uint64(0)
		if tr.TriggeredBy != 0 {
			flags |= traceHasTriggeredBy
		}
		if tr.Score != nil {
			flags |= traceHasScore
		}
		if len(tr.Params) > 0 {
			flags |= traceHasParams
		}
		if tr.Detail != "" {
			flags |= traceHasDetail
		}
		out = binary.AppendUvarint(out, index[i])
		out = binary.AppendUvarint(out, uint64(max(tr.Pass, 0)))
		out = binary.AppendUvarint(out, flags)
		out = appendString(out, tr.Title)
		if flags&traceHasTriggeredBy != 0 {
			out = binary.AppendVarint(out, tr.TriggeredBy)
		}
		if flags&traceHasScore != 0 {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(*tr.Score))
		}
		if flags&traceHasParams != 0 {
			p, err := json.Marshal(tr.Params)
			if err != nil {
				return nil, fmt.Errorf("trace params of entry %d: %w", tr.ID, err)
			}
			out = appendString(out, string(p))
		}
		if flags&traceHasDetail != 0 {
			out = appendString(out, tr.Detail)
		}
	}
	return out, nil
}

func appendString(out []byte, s string) []byte {
	out = binary.AppendUvarint(out, uint64(len(s)))
	return append(out, s...)
}

// errTurnResult is a stored result that does not decode.
var errTurnResult = errors.New("stored turn result is corrupt")

// decodeTurnResult reads a stored result, either encoding: the
// Activation with its trace items as stored (no reasons for items stored
// without them; numbers in params as written).
func decodeTurnResult(raw []byte) (*model.Activation, error) {
	if len(raw) > 0 && raw[0] == '{' {
		var res model.Activation
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // a lineage id in params is an int64
		if err := dec.Decode(&res); err != nil {
			return nil, err
		}
		return &res, nil
	}
	if len(raw) == 0 || raw[0] != turnResultCompact {
		return nil, errTurnResult
	}
	d := &turnResultReader{buf: raw[1:]}
	var res model.Activation
	if err := decodeJSON(d.bytes(), &res); err != nil || d.err != nil {
		return nil, errors.Join(errTurnResult, d.err, err)
	}
	verdicts := make([]string, d.count(1))
	for i := range verdicts {
		verdicts[i] = string(d.bytes())
	}
	n := d.count(5) // an item is at least 5 bytes
	items := make([]model.TraceItem, n)
	res.Trace = make([]*model.TraceItem, n)
	id := int64(0)
	for i := range items {
		id += d.varint()
		it := &items[i]
		v := d.uvarint()
		if d.err == nil && v >= uint64(len(verdicts)) {
			d.err = fmt.Errorf("verdict %d of %d", v, len(verdicts))
		}
		if d.err != nil {
			return nil, errors.Join(errTurnResult, d.err)
		}
		it.ID, it.Verdict = strconv.FormatInt(id, 10), verdicts[v]
		it.Pass = int(min(d.uvarint(), math.MaxInt32))
		flags := d.uvarint()
		it.Title = string(d.bytes())
		if flags&traceHasTriggeredBy != 0 {
			it.TriggeredBy = idOrNil(d.varint())
		}
		if flags&traceHasScore != 0 {
			s := math.Float64frombits(binary.LittleEndian.Uint64(d.next(8)))
			it.Score = &s
		}
		if flags&traceHasParams != 0 {
			if err := decodeJSON(d.bytes(), &it.Params); err != nil {
				return nil, errors.Join(errTurnResult, err)
			}
		}
		if flags&traceHasDetail != 0 {
			s := string(d.bytes())
			it.Detail = &s
		}
		res.Trace[i] = it
	}
	if d.err == nil && len(d.buf) != 0 {
		d.err = fmt.Errorf("%d bytes after the trace", len(d.buf))
	}
	if d.err != nil {
		return nil, errors.Join(errTurnResult, d.err)
	}
	return &res, nil
}

// decodeJSON decodes one JSON value into v, numbers as json.Number.
func decodeJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// turnResultReader reads the compact encoding; the first failure sticks
// in err (later reads give zeros).
type turnResultReader struct {
	buf []byte
	err error
}

func (d *turnResultReader) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("truncated at a %s", what)
	}
	d.buf = nil
}

func (d *turnResultReader) uvarint() uint64 { return readNumber(d, binary.Uvarint) }
func (d *turnResultReader) varint() int64   { return readNumber(d, binary.Varint) }

// readNumber reads one varint of d with read (binary.Uvarint or Varint).
func readNumber[T uint64 | int64](d *turnResultReader, read func([]byte) (T, int)) T {
	v, n := read(d.buf)
	if n <= 0 {
		d.fail("number")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// next returns the next n bytes (zeros when fewer are left).
func (d *turnResultReader) next(n int) []byte {
	if n > len(d.buf) {
		d.fail("value")
		return make([]byte, n)
	}
	out := d.buf[:n]
	d.buf = d.buf[n:]
	return out
}

// bytes reads a length and that many bytes.
func (d *turnResultReader) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.fail("string")
		return nil
	}
	return d.next(int(n))
}

// count reads a count of things of at least size bytes each, refusing
// one the rest of the buffer cannot hold (no allocation from a corrupt
// length).
func (d *turnResultReader) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.buf)/size) {
		d.fail("count")
		return 0
	}
	return int(n)
}
