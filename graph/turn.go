package graph

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/cespare/xxhash/v2"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/prompt"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// MaxMessageCount bounds activateTurn's messageCount (turn.MaxMessageCount).
const MaxMessageCount = turn.MaxMessageCount

// activateTurn runs and records one turn (see the schema) through
// lore/turn's Record; a retry returns the recorded result.
func (r *Resolver) activateTurn(ctx context.Context, in *model.ActivateTurnInput) (*model.ActivateTurnPayload, error) {
	return r.activateTurnAs(ctx, in, selects(ctx, "result", "trace"), selects(ctx, "result", "blocks"),
		selects(ctx, "result", "budget", "byBook", "name"))
}

// activateTurnAs is activateTurn with the trace (traced), the prompt
// blocks (blocks) and the persona books' names in budget.byBook (byBook)
// chosen by the caller: the lean path has no operation context to read
// them from.
func (r *Resolver) activateTurnAs(ctx context.Context, in *model.ActivateTurnInput, traced, blocks, byBook bool) (*model.ActivateTurnPayload, error) {
	fail := failure[model.ActivateTurnPayload]
	if !auth.FromContext(ctx).CanManage(in.ServerDiscordID) {
		return fail(errForbiddenManage)
	}
	if r.Turns == nil {
		return fail(fmt.Errorf("activate turn: no turn store: %w", lore.ErrUnavailable))
	}
	rec, err := r.checkTurn(in)
	if err != nil {
		return fail(err)
	}
	var built *model.Activation
	// The stored response is the whole result in the compact encoding of
	// turnresult.go, its trace without the reasons, which the trace's own
	// fields give (withReasons). The engine builds the trace, and the row
	// stores it, only when the request selects it (a bot's turn does not:
	// docs/turns.md#what-the-log-holds). The engine's trace and the
	// encoding go to buffers of earlier turns: neither is read once the
	// turn is committed.
	bufs := r.turnBuffers()
	defer r.releaseTurnBuffers(bufs)
	rec.rec.Encode = func(res activation.Result) ([]byte, error) {
		if cap(res.Trace) > cap(bufs.trace) {
			bufs.trace = res.Trace[:0]
		}
		var bs []*model.PromptBlock // not stored: a retry rebuilds them (decodeTurnResult)
		if blocks {
			bs = blocksOf(prompt.Blocks(&res))
		}
		built = activationToModel(&turnRun{result: res, bareTrace: true, skipTrace: !traced}, bs)
		return bufs.enc.encode(built, res.Trace)
	}
	ai := &model.ActivateInput{ServerDiscordID: in.ServerDiscordID, LineageID: in.LineageID, ChannelID: in.ChannelID,
		ParentChannelID: in.ParentChannelID, Messages: in.Messages, Names: in.Names, Overrides: in.Overrides,
		MessageCount: graphql.OmittableOf(&in.MessageCount), Context: in.Context, GenerationType: in.GenerationType}
	t, err := r.runActivation(ctx, ai, rec, traced, bufs)
	if err != nil {
		return fail(err)
	}
	if t.replayed {
		res, err := decodeTurnResult(t.response)
		if err != nil {
			return fail(fmt.Errorf("recorded turn %q: %w", lore.ClipBytes(in.TurnID, 40), err))
		}
		built = res
	}
	if traced {
		withReasons(built.Trace)
	}
	if built != nil {
		// Not stored: the notices are the request's, from this read of the
		// scope (a retry is told too).
		built.Notices = activationNotices(&t.snapshot)
	}
	if built != nil && byBook {
		r.namePersonaBooks(ctx, in.ServerDiscordID, built.Budget.ByBook)
	}
	return &model.ActivateTurnPayload{Result: built}, nil
}

// turnBuffers are the scratch buffers of one turn at a time
// (Resolver.turnBufs), held by one request from Resolver.turnBuffers to
// releaseTurnBuffers: the engine's admitted entries
// (activation.Options.AdmittedBuf, every turn), its trace
// (activation.Options.TraceBuf, a recorded turn) and the stored result's
// encoder. What a turn answers is built from them (the model copies what
// it reads) before release.
type turnBuffers struct {
	admitted []activation.Admission
	trace    []activation.TraceItem
	enc      turnEncoder
}

// turnBuffers takes a turn's buffers from r's pool (new ones when it has
// none), to give back with releaseTurnBuffers.
func (r *Resolver) turnBuffers() *turnBuffers {
	if b, ok := r.turnBufs.Get().(*turnBuffers); ok {
		return b
	}
	return new(turnBuffers)
}

// Largest buffers kept for the next turn: 8,192 admitted entries (128
// KiB), a trace of 8,192 entries (about 0.8 MB) and a stored result of
// 256 KiB.
const (
	maxKeptAdmitted = 8192
	maxKeptTrace    = 8192
	maxKeptResult   = 256 << 10
)

// releaseTurnBuffers returns b to r's pool, dropping a buffer too large
// to keep.
func (r *Resolver) releaseTurnBuffers(b *turnBuffers) {
	if cap(b.admitted) > maxKeptAdmitted {
		b.admitted = nil
	}
	if cap(b.trace) > maxKeptTrace {
		b.trace = nil
	}
	if cap(b.enc.out) > maxKeptResult {
		b.enc = turnEncoder{}
	}
	r.turnBufs.Put(b)
}

// withReasons sets the reason and params of the items of a recorded turn's
// trace that have none (the stored response leaves the reason out and
// keeps only the params beyond pass and score: activationToModel's
// bareTrace): activation.TraceItem.Reason of the item's verdict, pass,
// score and stored params, as a dry run gives them. Items read from an
// older stored response keep theirs.
func withReasons(items []*model.TraceItem) {
	for _, it := range items {
		if it.Reason == "" {
			it.Reason, it.Params = activation.TraceItem{Verdict: activation.Verdict(it.Verdict), Pass: it.Pass, Score: it.Score, Params: it.Params}.Reason(nil)
		}
	}
}

// checkTurn validates what activate does not (a conversation channel, the
// turn id) and keys the input for the log row (turnInputKey).
func (r *Resolver) checkTurn(in *model.ActivateTurnInput) (*recording, error) {
	rec := &recording{conv: turnstate.Conversation{Server: in.ServerDiscordID, Lineage: lore.Lineage(get(in.LineageID, 0)), Channel: get(in.ChannelID, "")}}
	if err := turnstate.CheckConversation(rec.conv, "lineageId", "channelId"); err != nil {
		return nil, err
	}
	if err := turnstate.CheckTurnID("turnId", in.TurnID); err != nil {
		return nil, err
	}
	key, err := turnInputKey(&r.turnInputBufs, in, inputKey)
	if err != nil {
		return nil, fmt.Errorf("activate turn: encode input: %w", err)
	}
	rec.rec = turn.Recording{TurnID: in.TurnID, InputSHA256: key, InputKeyBefore: func() string {
		key, _ := turnInputKey(&r.turnInputBufs, in, inputSHA256) // no error: it encoded above
		return key
	}}
	return rec, nil
}

// turnInputKey is key(turnInputJSON(in)), the input encoded by
// appendTurnInput into a buffer of bufs (*[]byte, kept up to 64 KiB; a
// new one when bufs has none) when it knows in's shape.
func turnInputKey(bufs *sync.Pool, in *model.ActivateTurnInput, key func([]byte) string) (string, error) {
	buf, ok := bufs.Get().(*[]byte)
	if !ok {
		buf = new([]byte)
	}
	defer func() {
		if cap(*buf) <= 64<<10 {
			bufs.Put(buf)
		}
	}()
	data, ok := appendTurnInput((*buf)[:0], in)
	if ok {
		*buf = data
		return key(data), nil
	}
	data, err := turnInputJSON(in)
	if err != nil {
		return "", err
	}
	return key(data), nil
}

// inputKey is the key of a recorded turn's encoded input that its log row
// keeps (input_sha256, 64 lower-case hex digits, migration 000088's
// domain), telling a retry (same input) from another turn under a used
// id: two xxh64 digests of data (seeds inputKeySeeds), then inputKeyTag.
// It replaced the input's SHA-256 (inputSHA256) on 2 December 2026: the
// digest of the bot's 20-message input (6.6 KB encoded) was 5% of
// serve's CPU for a deferred turn at c=16; the xxh64 pair takes about a
// quarter of its time, 1.3 against 5.0 µs
// (docs/benchmarks.md#deferred-turns-serve). A caller able to find two
// inputs with one key gains nothing: it would replay its own turn.
func inputKey(data []byte) string {
	var out [64]byte
	var d xxhash.Digest
	for i, seed := range inputKeySeeds {
		d.ResetWithSeed(seed)
		_, _ = d.Write(data)
		var sum [8]byte
		binary.BigEndian.PutUint64(sum[:], d.Sum64())
		hex.Encode(out[16*i:], sum[:])
	}
	copy(out[32:], inputKeyTag)
	return string(out[:])
}

// inputKeySeeds are inputKey's digests' seeds.
var inputKeySeeds = [2]uint64{0x6c6f7265, 0x67617465}

// inputKeyTag ends every inputKey: a SHA-256 digest, the key of rows
// recorded before it, ends so once in 2^128.
const inputKeyTag = "00000000000000000000000000000000"

// inputSHA256 is the hex SHA-256 of data: the key of a turn's input in
// rows recorded before inputKey (turn.Recording.InputKeyBefore).
func inputSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// turnInputJSON is the encoding of in that a recorded turn hashes: the
// generated model's, without the fields added after turns were first
// recorded (context, generationType) while they are omitted, so a retry
// of a turn recorded by an earlier version still replays
// (TestTurnInputEncodingStable).
func turnInputJSON(in *model.ActivateTurnInput) ([]byte, error) {
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if c, _ := in.Context.ValueOK(); c == nil {
		if g, _ := in.GenerationType.ValueOK(); g == nil {
			// The two fields are the struct's last; trimmed in place.
			if tail := []byte(`,"context":null,"generationType":null}`); bytes.HasSuffix(data, tail) {
				data = append(data[:len(data)-len(tail)], '}')
			}
		}
	}
	return data, nil
}

// conversation validates a conversation of the log and reset API.
func conversation(server string, lineageID *int64, channel string) (turnstate.Conversation, error) {
	c := turnstate.Conversation{Server: server, Channel: channel}
	if lineageID != nil {
		c.Lineage = lore.Lineage(*lineageID)
	}
	if err := lore.CheckLineage("lineageId", c.Lineage); err != nil {
		return c, err
	}
	return c, lore.CheckSnowflake("channelId", channel)
}

// activationLog lists a conversation's recorded turns.
func (r *Resolver) activationLog(ctx context.Context, server string, lineageID *int64, channel string, last *int) ([]*model.ActivationLogEntry, error) {
	if !auth.FromContext(ctx).CanRead(server) {
		return nil, lore.NotFound("server", server)
	}
	c, err := conversation(server, lineageID, channel)
	if err != nil {
		return nil, err
	}
	if r.Turns == nil {
		return nil, fmt.Errorf("activation log: %w", lore.ErrUnavailable)
	}
	n := 20
	if last != nil {
		n = *last
	}
	logs, err := r.Turns.ActivationLog(ctx, c, n)
	if err != nil {
		return nil, err
	}
	out := make([]*model.ActivationLogEntry, len(logs))
	for i, l := range logs {
		e := &model.ActivationLogEntry{TurnID: l.TurnID, At: l.CreatedAt, MessageCount: l.MessageCount,
			Admitted: make([]*model.LoggedEntry, len(l.Admitted)),
			Budget:   model.Budget{Unit: l.BudgetUnit, Limit: l.BudgetLimit, Used: l.BudgetUsed}}
		for j, a := range l.Admitted {
			group := model.ActivationGroupActivated
			if a.Group == string(activation.AlwaysOn) {
				group = model.ActivationGroupAlwaysOn
			}
			e.Admitted[j] = &model.LoggedEntry{ID: strconv.FormatInt(a.ID, 10), Group: group,
				Placement: model.Placement(strings.ToUpper(a.Placement)), Pass: a.Pass, BudgetShare: a.Cost}
		}
		out[i] = e
	}
	return out, nil
}

// resetTurnState clears a conversation's state: a lore write (authorizeWrite:
// Manage Server, the lore editor role or a service key), unlike
// activateTurn, which needs Manage Server (docs/api.md "Reason keys").
func (r *Resolver) resetTurnState(ctx context.Context, in *model.ResetTurnStateInput) (*model.DeletePayload, error) {
	lineage := get(in.LineageID, 0)
	c, err := conversation(in.ServerDiscordID, &lineage, in.ChannelID)
	if err == nil {
		err = r.authorizeWrite(ctx, c.Server, c.Lineage)
	}
	if err == nil && r.Turns == nil {
		err = fmt.Errorf("reset turn state: %w", lore.ErrUnavailable)
	}
	if err == nil {
		_, err = r.Turns.ResetTurnState(ctx, c)
	}
	return deletePayload(err)
}

// lastActivatedAt resolves Entry.lastActivatedAt: one read per scope and
// operation (the operation's loaders), or per entry outside an operation.
func (r *Resolver) lastActivatedAt(ctx context.Context, obj *model.Entry) (*time.Time, error) {
	if r.Turns == nil {
		return nil, nil
	}
	id, err := strconv.ParseInt(obj.ID, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("entry id %q: %w", lore.ClipBytes(obj.ID, 24), err)
	}
	l, _ := ctx.Value(loadersKey{}).(*loaders)
	if l == nil {
		m, err := r.Turns.LastActivations(ctx, id)
		return m[id], err
	}
	l.lastMu.Lock()
	defer l.lastMu.Unlock()
	if at, ok := l.lastActive[id]; ok {
		return at, nil
	}
	m, err := r.Turns.LastActivations(ctx, id)
	if err != nil {
		return nil, err
	}
	if l.lastActive == nil {
		l.lastActive = map[int64]*time.Time{}
	}
	for eid, at := range m {
		l.lastActive[eid] = at
	}
	l.lastActive[id] = m[id]
	return m[id], nil
}
