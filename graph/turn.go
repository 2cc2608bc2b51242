package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/turnstate"
)

// MaxMessageCount bounds activateTurn's messageCount.
const MaxMessageCount = 1_000_000_000

// turnRecorder carries one recorded turn (activateTurn) through
// runActivation; a nil recorder is a dry run.
type turnRecorder struct {
	in   *model.ActivateTurnInput
	conv turnstate.Conversation
	// hash is the hex SHA-256 of the input, stored with the log row.
	hash string
	// turn is the open transaction, state the state after the start-of-turn
	// rules.
	turn  turnstate.Turn
	state turnstate.State
	// replay is the recorded result of a retried turn.
	replay *model.Activation
}

// errReplayed ends runActivation for a retried turn: rec.replay holds the
// recorded result.
var errReplayed = errors.New("turn already recorded")

// applyTurnState sets the turn-state fields of the engine input: for a
// recorded turn it opens the turn (conversation lock, state, used turn id)
// and seeds the chance rolls from the turn id; for a dry run it reads the
// state only when the scope has stateful entries and a channel is given,
// and never writes.
func (r *Resolver) applyTurnState(ctx context.Context, in *model.ActivateInput, rec *turnRecorder, m *activation.Matcher,
	snap lore.Snapshot, unavailable bool, input *activation.Input, opts *activation.Options) error {
	if v, ok := in.MessageCount.ValueOK(); ok && v != nil {
		if *v < len(in.Messages) || *v > MaxMessageCount {
			return lore.Invalid("messageCount", "%d is outside %d (the messages sent) to %d", *v, len(in.Messages), MaxMessageCount)
		}
		input.MessageCount = *v
	}
	if rec == nil {
		if r.Turns == nil || !lore.ValidSnowflake(input.Channel) || !m.Stateful() {
			return nil
		}
		conv := turnstate.Conversation{Server: input.Server, Lineage: input.Lineage, Channel: input.Channel}
		st, err := r.Turns.TurnState(ctx, conv)
		if err != nil {
			// A runtime read failure: the dry run goes on without state.
			r.Logger.WarnContext(ctx, "turn state unavailable for a dry run; using none",
				"request_id", RequestID(ctx), "server", input.Server, "err", err)
			return nil
		}
		_, flags := turnstate.Derive(st, snap.Entries, messageCount(input))
		input.State = engineState(flags)
		return nil
	}
	if unavailable {
		return fmt.Errorf("activate turn: %w", lore.ErrUnavailable)
	}
	count := input.MessageCount
	t, err := r.Turns.BeginTurn(ctx, rec.conv, rec.in.TurnID)
	if err != nil {
		return err
	}
	if t.Retry() != nil {
		t.Rollback(ctx)
		if t.Retry().InputSHA256 != rec.hash {
			return lore.Invalid("turnId", "was already used in this conversation for a different turn; use a new turn id")
		}
		var res model.Activation
		if err := json.Unmarshal(t.Retry().Response, &res); err != nil {
			return fmt.Errorf("recorded turn %q: %w", lore.ClipBytes(rec.in.TurnID, 40), err)
		}
		rec.replay = &res
		return errReplayed
	}
	rec.turn = t
	var flags map[int64]turnstate.Flags
	rec.state, flags = turnstate.Derive(t.Stored(), snap.Entries, count)
	input.State = engineState(flags)
	if !overridesRandom(rec.in.Overrides) {
		opts.Random = turnstate.Random(rec.in.TurnID)
	}
	return nil
}

func messageCount(in *activation.Input) int {
	if in.MessageCount > 0 {
		return in.MessageCount
	}
	return len(in.Messages)
}

func engineState(flags map[int64]turnstate.Flags) map[int64]activation.EntryState {
	if len(flags) == 0 {
		return nil
	}
	out := make(map[int64]activation.EntryState, len(flags))
	for id, f := range flags {
		out[id] = activation.EntryState{Sticky: f.Sticky, Cooldown: f.Cooldown, Matched: f.Matched}
	}
	return out
}

func overridesRandom(o interface {
	ValueOK() (*model.ActivationOverrides, bool)
}) bool {
	v, _ := o.ValueOK()
	if v == nil {
		return false
	}
	r, _ := v.Random.ValueOK()
	return r != nil
}

// activateTurn runs and records one turn (see the schema).
func (r *Resolver) activateTurn(ctx context.Context, in *model.ActivateTurnInput) (*model.ActivateTurnPayload, error) {
	fail := failure[model.ActivateTurnPayload]
	if !auth.FromContext(ctx).CanManage(in.ServerDiscordID) {
		return fail(errForbidden)
	}
	if r.Turns == nil {
		return fail(fmt.Errorf("activate turn: no turn store: %w", lore.ErrUnavailable))
	}
	rec := &turnRecorder{in: in}
	if err := rec.check(); err != nil {
		return fail(err)
	}
	ai := &model.ActivateInput{ServerDiscordID: in.ServerDiscordID, LineageID: in.LineageID, ChannelID: in.ChannelID,
		ParentChannelID: in.ParentChannelID, Messages: in.Messages, Names: in.Names, Overrides: in.Overrides,
		MessageCount: graphql.OmittableOf(&in.MessageCount)}
	t, err := r.runActivation(ctx, ai, rec, selects(ctx, "result", "trace"))
	if rec.turn != nil {
		defer rec.turn.Rollback(ctx) // a no-op after Commit
	}
	switch {
	case errors.Is(err, errReplayed):
		return &model.ActivateTurnPayload{Result: rec.replay}, nil
	case err != nil:
		return fail(err)
	}
	res := activationToModel(t, r.blocks(t))
	response, err := json.Marshal(res)
	if err != nil {
		return fail(fmt.Errorf("activate turn: encode result: %w", err))
	}
	now := time.Now()
	admitted := make([]int64, len(t.result.Admitted))
	logged := make([]turnstate.LoggedEntry, len(t.result.Admitted))
	for i, a := range t.result.Admitted {
		admitted[i] = a.Entry.ID
		logged[i] = turnstate.LoggedEntry{ID: a.Entry.ID, Group: string(a.Group), Placement: string(a.Placement), Pass: a.Pass, Cost: a.Cost}
	}
	next := turnstate.Advance(rec.state, t.snapshot.Entries, admitted, in.MessageCount, now)
	err = rec.turn.Commit(ctx, next, turnstate.LoggedTurn{
		TurnID: in.TurnID, MessageCount: in.MessageCount, InputSHA256: rec.hash, Admitted: logged,
		BudgetUnit: string(t.result.Budget.Unit), BudgetLimit: t.result.Budget.Limit, BudgetUsed: t.result.Budget.Used,
		Response: response, CreatedAt: now,
	})
	if err != nil {
		return fail(err)
	}
	return &model.ActivateTurnPayload{Result: res}, nil
}

// check validates what activate does not, and hashes the input.
func (rec *turnRecorder) check() error {
	in := rec.in
	lineage := lore.Lineage(get(in.LineageID, 0))
	if lineage < 0 {
		return lore.Invalid("lineageId", "must be 0 (Serverwide) or a positive lineage id")
	}
	rec.conv = turnstate.Conversation{Server: in.ServerDiscordID, Lineage: lineage, Channel: get(in.ChannelID, "")}
	if !lore.ValidSnowflake(rec.conv.Channel) {
		return lore.Invalid("channelId", "is required and must be a Discord snowflake: a conversation is a channel or thread")
	}
	if strings.TrimSpace(in.TurnID) == "" || len([]rune(in.TurnID)) > turnstate.MaxTurnIDLen {
		return lore.Invalid("turnId", "must be 1-%d characters, not blank", turnstate.MaxTurnIDLen)
	}
	data, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("activate turn: encode input: %w", err)
	}
	sum := sha256.Sum256(data)
	rec.hash = hex.EncodeToString(sum[:])
	return nil
}

// conversation validates a conversation of the log and reset API.
func conversation(server string, lineageID *int64, channel string) (turnstate.Conversation, error) {
	c := turnstate.Conversation{Server: server, Channel: channel}
	if lineageID != nil {
		c.Lineage = lore.Lineage(*lineageID)
	}
	if c.Lineage < 0 {
		return c, lore.Invalid("lineageId", "must be 0 (Serverwide) or a positive lineage id")
	}
	if !lore.ValidSnowflake(channel) {
		return c, lore.Invalid("channelId", "is not a Discord snowflake")
	}
	return c, nil
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

// resetTurnState clears a conversation's state (managers only).
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
