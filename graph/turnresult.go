package graph

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/prompt"
)

// The stored result of a recorded turn (docs/turns.md#what-the-log-holds):
// what a retry of the turn returns, whatever it selects (the trace only
// when the recorded request selected it: else no items). Rows
// written before migration 000086 hold the whole Activation as JSON (an
// object, first byte '{'); newer ones this compact encoding, led by
// turnResultNoBlocks (turnResultCompact before 2 December 2026: each
// item's detail inline, no detail table; then turnResultDetails, whose
// JSON holds the prompt blocks):
//
//	byte     turnResultNoBlocks
//	uvarint  n, then n bytes: the Activation as JSON without its trace
//	         and its prompt blocks (rebuilt from admitted when read:
//	         each admitted content was stored three times)
//	uvarint  v, then v verdicts, each uvarint length and bytes
//	uvarint  d, then d details, each uvarint length and bytes
//	uvarint  items, then per trace item:
//	  varint   id minus the previous item's id (the first: minus 0)
//	  uvarint  verdict (index into the verdicts)
//	  uvarint  pass
//	  uvarint  flags: 1 triggeredBy, 2 score, 4 params, 8 detail
//	  uvarint  length, title
//	  varint   triggeredBy (flag 1)
//	  8 bytes  score, IEEE 754 little endian (flag 2)
//	  uvarint  length, params as a JSON object (flag 4)
//	  uvarint  detail (flag 8; index into the details)
//
// The trace is the bulk of a turn (250 items in a full scope): as JSON
// objects it was ~30 KB a turn, encoded and stored every turn and parsed
// by Postgres as jsonb; here it is ~10 bytes an item. Most items of a
// turn share one detail ("no key in the last 2 messages"): inline, that
// was 7.5 of the 11.4 KB of a 250-entry turn. The items keep what a bare
// stored trace kept (activationToModel's bareTrace): withReasons derives
// their reasons when the trace is selected.
const (
	turnResultCompact  = 0x02
	turnResultDetails  = 0x03
	turnResultNoBlocks = 0x04
)

// Trace item flags of the compact encoding.
const (
	traceHasTriggeredBy = 1 << iota
	traceHasScore
	traceHasParams
	traceHasDetail
)

// encodeTurnResult is the stored result of a recorded turn: a, its trace
// and prompt blocks left out (a.Trace and a.Blocks are not read), and the
// engine's trace items.
func encodeTurnResult(a *model.Activation, trace []activation.TraceItem) ([]byte, error) {
	var e turnEncoder
	return e.encode(a, trace)
}

// turnEncoder writes stored results (encodeTurnResult) into buffers it
// keeps for the next one: the result it returns is valid until its next
// encode.
type turnEncoder struct {
	out               []byte
	index             []uint64 // per trace item: its verdict's and its detail's number
	verdicts, details stringTable
}

// encode is encodeTurnResult into e's buffers.
func (e *turnEncoder) encode(a *model.Activation, trace []activation.TraceItem) ([]byte, error) {
	bare := *a
	bare.Trace, bare.Blocks = nil, nil
	if e.out == nil {
		size := 16 + binary.MaxVarintLen64 + activationHeadSize(&bare) // ids of one scope are close: ~8 bytes an item besides its strings
		for i := range trace {
			size += 8 + len(trace[i].Title) + 24*len(trace[i].Params)
		}
		e.out = make([]byte, 0, size)
	}
	// The head is written after room for its longest length, then moved
	// back behind its length.
	const headAt = 1 + binary.MaxVarintLen64
	out := append(e.out[:0], make([]byte, headAt)...)
	out[0] = turnResultNoBlocks
	out, err := marshalActivationHead(out, &bare)
	if err != nil {
		return nil, err
	}
	var length [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(length[:], uint64(len(out)-headAt))
	copy(out[1:], length[:n])
	out = out[:1+n+copy(out[1+n:], out[headAt:])]
	// Few distinct verdicts and details, first numbered, then written.
	e.verdicts.reset()
	e.details.reset()
	index := slices.Grow(e.index[:0], 2*len(trace))[:2*len(trace)]
	e.index = index
	for i := range trace {
		index[2*i] = e.verdicts.id(string(trace[i].Verdict))
		if trace[i].Detail != "" {
			index[2*i+1] = e.details.id(trace[i].Detail)
		}
	}
	for _, t := range [...]*stringTable{&e.verdicts, &e.details} {
		out = binary.AppendUvarint(out, uint64(len(t.list)))
		for _, v := range t.list {
			out = appendString(out, v)
		}
	}
	out, err = appendTraceItems(out, trace, index)
	e.out = out[:0]
	return out, err
}

// appendTraceItems appends the trace items of the compact encoding, index
// holding each item's verdict and detail numbers.
func appendTraceItems(out []byte, trace []activation.TraceItem, index []uint64) ([]byte, error) {
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
		out = binary.AppendUvarint(out, index[2*i])
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
				return out, fmt.Errorf("trace params of entry %d: %w", tr.ID, err)
			}
			out = appendString(out, string(p))
		}
		if flags&traceHasDetail != 0 {
			out = binary.AppendUvarint(out, index[2*i+1])
		}
	}
	return out, nil
}

// stringTable numbers distinct strings in the order first seen: the
// trace's verdicts and details, few distinct ones, mostly in runs.
type stringTable struct {
	list []string
	last int            // the index id gave last
	byID map[string]int // once list outgrows a linear search
}

// reset empties t for another trace, keeping its list's room.
func (t *stringTable) reset() {
	clear(t.list)
	t.list, t.last, t.byID = t.list[:0], 0, nil
}

func (t *stringTable) id(s string) uint64 {
	if t.last < len(t.list) && t.list[t.last] == s {
		return uint64(t.last)
	}
	j, ok := -1, false
	if t.byID != nil {
		if j, ok = t.byID[s]; !ok {
			j = -1
		}
	} else {
		j = slices.Index(t.list, s)
	}
	if j < 0 {
		j = len(t.list)
		t.list = append(t.list, s)
		switch {
		case t.byID != nil:
			t.byID[s] = j
		case len(t.list) > 16:
			t.byID = make(map[string]int, 2*len(t.list))
			for k, v := range t.list {
				t.byID[v] = k
			}
		}
	}
	t.last = j
	return uint64(j)
}

func appendString(out []byte, s string) []byte {
	out = binary.AppendUvarint(out, uint64(len(s)))
	return append(out, s...)
}

// errTurnResult is a stored result that does not decode.
var errTurnResult = errors.New("stored turn result is corrupt")

// decodeTurnResult reads a stored result, any encoding: the Activation
// with its trace items as stored (no reasons for items stored without
// them; numbers in params as written) and its prompt blocks.
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
	if len(raw) == 0 || raw[0] < turnResultCompact || raw[0] > turnResultNoBlocks {
		return nil, errTurnResult
	}
	d := &turnResultReader{buf: raw[1:]}
	var res model.Activation
	if err := decodeJSON(d.bytes(), &res); err != nil || d.err != nil {
		return nil, errors.Join(errTurnResult, d.err, err)
	}
	verdicts := d.strings()
	var details []string
	if raw[0] != turnResultCompact {
		details = d.strings()
	}
	if raw[0] == turnResultNoBlocks {
		stored := activation.ResultOf(admittedOf(res.Admitted))
		res.Blocks = blocksOf(prompt.Blocks(&stored))
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
			it.Detail, d.err = detailOf(d, details, raw[0] != turnResultCompact)
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

// admittedOf is the engine's view of a stored result's admitted entries,
// what prompt.Blocks reads of them: id, title, group, placement, position
// kind and content (activationToModel's mapping reversed).
func admittedOf(entries []*model.AdmittedEntry) []activation.Admitted {
	out := make([]activation.Admitted, 0, len(entries))
	for _, m := range entries {
		if m == nil {
			continue
		}
		id, _ := strconv.ParseInt(m.ID, 10, 64)
		group := activation.Activated
		if m.Group == model.ActivationGroupAlwaysOn {
			group = activation.AlwaysOn
		}
		out = append(out, activation.Admitted{Entry: &lore.Entry{ID: id, Title: m.Title}, Content: m.Content,
			Placing: &activation.Placing{Group: group, Placement: lore.Placement(strings.ToLower(string(m.Placement))),
				Position: lore.Position{Kind: lore.PositionKind(m.Position.Kind)}}})
	}
	return out
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

// strings reads a count and that many strings (a table of the compact
// encoding).
func (d *turnResultReader) strings() []string {
	out := make([]string, d.count(1))
	for i := range out {
		out[i] = string(d.bytes())
	}
	return out
}

// detailOf reads a trace item's detail: an index into details (byIndex),
// else inline; d.err, or an index out of range, as the error.
func detailOf(d *turnResultReader, details []string, byIndex bool) (*string, error) {
	var s string
	if !byIndex {
		s = string(d.bytes())
	} else if i := d.uvarint(); d.err == nil && i >= uint64(len(details)) {
		return nil, fmt.Errorf("detail %d of %d", i, len(details))
	} else if d.err == nil {
		s = details[i]
	}
	return &s, d.err
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
