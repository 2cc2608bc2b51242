package graph

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
)

// turnResultSample is an engine result whose trace has every optional
// part: ids going down and up, a score, params (an int64 lineage among
// them), details (one in many items), a recursion trigger, non-ASCII
// titles.
func turnResultSample() activation.Result {
	score := 0.8125
	e := lore.NewEntry()
	e.ID, e.Title, e.Content = 40, "Dragon <b>", "The dragon sleeps."
	// Admitted entries of both groups and placements, one of them
	// injected (not in the prompt blocks), so that the blocks a read
	// rebuilds are checked.
	always, deep, before := lore.NewEntry(), lore.NewEntry(), lore.NewEntry()
	always.ID, always.Title, always.Content = 41, "Always", "Always said."
	deep.ID, deep.Title, deep.Content = 42, "Deep", "Said at depth."
	before.ID, before.Title, before.Content = 43, "Before", "Said before."
	res := activation.ResultOf([]activation.Admitted{
		{Entry: &e, Content: e.Content, Placing: &activation.Placing{Placement: lore.After, Group: activation.Activated, Position: e.EntryPosition()}, Pass: 1},
		{Entry: &always, Content: always.Content, Placing: &activation.Placing{Placement: lore.Before, Group: activation.AlwaysOn, Position: always.EntryPosition()}, Pass: 1},
		{Entry: &deep, Content: deep.Content, Placing: &activation.Placing{Placement: lore.After, Group: activation.Activated,
			Position: lore.NewPosition(lore.PositionAtDepth, 2, lore.RoleSystem, "")}, Pass: 1},
		{Entry: &before, Content: before.Content, Placing: &activation.Placing{Placement: lore.Before, Group: activation.Activated, Position: before.EntryPosition()}, Pass: 2},
	})
	res.Budget = activation.Budget{Unit: activation.UnitUTF16, Limit: 8000, Used: 18}
	res.Passes = 2
	res.Trace = []activation.TraceItem{
		{ID: 40, Title: "Dragon <b>", Verdict: activation.VerdictAdmitted, Pass: 1, Detail: `key "dragon"`},
		{ID: 7, Title: "城 \u2028", Verdict: activation.VerdictChanceFailed, Pass: 2, TriggeredBy: 40, Params: lore.Params{"chance": 50}},
		{ID: 9_007_199_254_740_993, Title: "", Verdict: activation.VerdictGatedLineage, Params: lore.Params{"lineage": int64(9_007_199_254_740_993)}},
		{ID: 8, Title: "Scored", Verdict: activation.VerdictNoKeyMatch, Pass: 1, Score: &score},
		{ID: 8, Title: "Again", Verdict: activation.VerdictNoKeyMatch, Params: lore.Params{}},
	}
	// Details in runs, repeated after others, and more distinct ones
	// than the table searches linearly.
	for i := range 40 {
		detail := "no key in the last 2 messages"
		if i%2 == 1 {
			detail = fmt.Sprintf("key %q", fmt.Sprint("k", i%23))
		}
		res.Trace = append(res.Trace, activation.TraceItem{ID: int64(100 + i), Title: fmt.Sprint("e", i), Verdict: activation.VerdictNoKeyMatch, Detail: detail})
	}
	return res
}

// TestTurnResultRoundTrip: the compact stored result decodes to the
// Activation a recorded turn answered with (its trace as stored: bare),
// field for field as the API encodes it, and is a fraction of the JSON
// encoding it replaces.
func TestTurnResultRoundTrip(t *testing.T) {
	res := turnResultSample()
	r := &Resolver{}
	run := &turnRun{result: res, bareTrace: true}
	want := activationToModel(run, r.blocks(run))
	require.Len(t, want.Blocks, 3)
	raw, err := encodeTurnResult(want, res.Trace)
	require.NoError(t, err)
	require.Equal(t, byte(turnResultNoBlocks), raw[0])
	require.Equal(t, 1, bytes.Count(raw, []byte("The dragon sleeps.")), "the content stored once, not again in the blocks")
	got, err := decodeTurnResult(raw)
	require.NoError(t, err)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(wantJSON), string(gotJSON))
	require.Equal(t, 1, bytes.Count(raw, []byte("no key in the last 2 messages")), "a detail stored once")

	// Rows stored before: with the blocks in the JSON (turnResultDetails),
	// and before the detail table (turnResultCompact: each detail inline),
	// read the same.
	bare := *want
	bare.Trace = nil
	head, err := marshalActivationHead(nil, &bare)
	require.NoError(t, err)
	withBlocks := withHead(t, raw, turnResultDetails, head)
	require.JSONEq(t, string(wantJSON), string(mustJSON(t, withBlocks)))
	require.JSONEq(t, string(wantJSON), string(mustJSON(t, inlineDetails(t, withBlocks))))
	require.Len(t, got.Trace, len(res.Trace))
	require.Nil(t, got.Trace[4].Params, "empty params are none, as in a JSON row")
	require.Less(t, len(raw), len(wantJSON))

	// The JSON encoding of rows stored before migration 000086 reads as
	// it did (numbers as written).
	legacy, err := decodeTurnResult(wantJSON)
	require.NoError(t, err)
	require.Equal(t, json.Number("9007199254740993"), legacy.Trace[2].Params["lineage"])
	require.Equal(t, json.Number("9007199254740993"), got.Trace[2].Params["lineage"])

	for _, bad := range [][]byte{nil, {}, {turnResultCompact}, raw[:len(raw)-1], append(append([]byte{}, raw...), 0), {'x'}} {
		_, err := decodeTurnResult(bad)
		require.Error(t, err, "%q", bad)
	}
}

// withHead is raw, a compact stored result, with format byte format and
// the Activation's JSON head.
func withHead(t *testing.T, raw []byte, format byte, head []byte) []byte {
	d := &turnResultReader{buf: raw[1:]}
	d.bytes()
	require.NoError(t, d.err)
	return append(appendString([]byte{format}, string(head)), d.buf...)
}

// inlineDetails rewrites a turnResultDetails result as turnResultCompact
// wrote it: no detail table, each item's detail inline.
func inlineDetails(t *testing.T, raw []byte) []byte {
	d := &turnResultReader{buf: raw[1:]}
	out := appendString([]byte{turnResultCompact}, string(d.bytes()))
	verdicts, details := d.strings(), d.strings()
	out = binary.AppendUvarint(out, uint64(len(verdicts)))
	for _, v := range verdicts {
		out = appendString(out, v)
	}
	n := d.count(5)
	out = binary.AppendUvarint(out, uint64(n))
	for range n {
		out = binary.AppendVarint(out, d.varint())
		out = binary.AppendUvarint(out, d.uvarint())
		out = binary.AppendUvarint(out, d.uvarint())
		flags := d.uvarint()
		out = appendString(binary.AppendUvarint(out, flags), string(d.bytes()))
		if flags&traceHasTriggeredBy != 0 {
			out = binary.AppendVarint(out, d.varint())
		}
		if flags&traceHasScore != 0 {
			out = append(out, d.next(8)...)
		}
		if flags&traceHasParams != 0 {
			out = appendString(out, string(d.bytes()))
		}
		if flags&traceHasDetail != 0 {
			out = appendString(out, details[d.uvarint()])
		}
	}
	require.NoError(t, d.err)
	require.Empty(t, d.buf)
	return out
}

// TestTurnEncoderReuse: an encoder that keeps its buffers between turns
// writes each turn's stored result as a fresh one does, a longer result
// after a shorter one and back.
func TestTurnEncoderReuse(t *testing.T) {
	res := turnResultSample()
	short := res
	short.Trace = res.Trace[:3]
	var e turnEncoder
	for _, r := range []activation.Result{short, res, short, res} {
		run := &turnRun{result: r, bareTrace: true}
		a := activationToModel(run, nil)
		want, err := encodeTurnResult(a, r.Trace)
		require.NoError(t, err)
		got, err := e.encode(a, r.Trace)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}

func mustJSON(t *testing.T, raw []byte) []byte {
	a, err := decodeTurnResult(raw)
	require.NoError(t, err)
	out, err := json.Marshal(a)
	require.NoError(t, err)
	return out
}

// FuzzTurnResult: a stored result that does not decode is an error, never
// a panic or an allocation its length cannot back.
func FuzzTurnResult(f *testing.F) {
	res := turnResultSample()
	run := &turnRun{result: res, bareTrace: true}
	a := activationToModel(run, nil)
	raw, err := encodeTurnResult(a, res.Trace)
	require.NoError(f, err)
	f.Add(raw)
	f.Add([]byte(`{"admitted":[],"trace":[{"id":"1","verdict":"admitted"}]}`))
	f.Add([]byte{turnResultCompact, 2, '{', '}', 1, 1, 'x', 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := decodeTurnResult(raw)
		if err == nil {
			_, err = json.Marshal(a)
			require.NoError(t, err)
		}
	})
}
