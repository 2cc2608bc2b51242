package turn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/i18n"
	"loregate/lore/turnstate"
)

// MaxMessageCount bounds a request's MessageCount under APIBounds.
const MaxMessageCount = 1_000_000_000

// Names are the identity macro names of a turn ({{user}}, {{char}},
// {{bot}}; an empty Bot falls back to Char in the engine).
type Names struct{ User, Char, Bot string }

// Request is the request layer of one turn.
type Request struct {
	// Lineage is the active persona lineage (Serverwide for none); Channel
	// and ParentChannel the conversation's channel and a thread's parent.
	Lineage                lore.Lineage
	Channel, ParentChannel string
	// Messages are the chat message texts, oldest first.
	Messages []string
	// MessageCount is the conversation's message count, nil (or 0
	// offline) = len(Messages): len(Messages)..MaxMessageCount under
	// APIBounds, >= 0 offline. Delays and timed effects count it
	// (docs/turns.md).
	MessageCount *int
	Names        Names
	Overrides    Overrides
	// Bounds are the ranges Overrides and MessageCount are checked
	// against.
	Bounds Bounds
	// Random, when set, is the caller's own draw source (the CLI's
	// --seed); Overrides.Random wins over it. Either keeps a recorded
	// turn's draws (otherwise they are seeded from the turn id).
	Random func() float64
	// Tokenizer counts tokens (token budgets, Admitted.Tokens); nil counts
	// none (a token budget then fails).
	Tokenizer activation.Tokenizer
	// Trace is set when the caller reads the trace (a preview): near
	// misses are named; a run without it, dry or recorded, builds no
	// trace (a recorded turn's stored response then holds none,
	// docs/turns.md#what-the-log-holds).
	Trace bool
	// Speakers are the names of Messages' senders (same length or nil;
	// "" unknown), scanned with includeNames.
	Speakers []string
	// Character and Persona are the request's context sources (nil:
	// none), read by character filters and match flags; GenerationType is
	// the generation's type ("" = normal). See activation.Input.
	Character      *activation.Character
	Persona        *activation.Persona
	GenerationType lore.GenerationType
}

// Turn is a prepared turn: the engine input and options. A caller may set
// Options.Texts and Finish before running it.
type Turn struct {
	Input   activation.Input
	Options activation.Options
	// Finish, when set, completes the engine's result before it is
	// returned or recorded (the API appends the gate verdicts of the
	// entries the per-turn read leaves out).
	Finish func(*activation.Result)
	// Semantic is the turn's retrieval settings: the server's with the
	// request's overrides (Rank uses them).
	Semantic lore.SemanticSettings
	// seeded: the request fixes the draws (Overrides.Random or
	// Request.Random).
	seeded bool
}

// Prepare builds the turn of req over snap, the scope's enabled entries,
// collections (with their book settings), persona book and server
// settings: the engine's server layer from snap.Server.Settings (regex
// keys, budget unit and limit, channel scoping), then req's names and
// overrides (checked against req.Bounds; errors are *lore.InvalidError).
// Under APIBounds a book budget stored in the other unit (before the
// server changed unit) is clamped into the turn's unit's range.
func Prepare(snap lore.Snapshot, req Request) (*Turn, error) {
	set := snap.Server.Settings
	opts := activation.Options{RegexKeys: set.RegexKeys, Tokenizer: req.Tokenizer,
		UserName: req.Names.User, CharName: req.Names.Char, BotName: req.Names.Bot, NearMisses: req.Trace,
		IncludeNames: set.IncludeNames, MinActivations: set.MinActivations,
		MinActivationsDepthMax: set.MinActivationsDepthMax, MaxEntries: set.MaxEntries}
	if set.Unit() == lore.BudgetTokens {
		opts.TokenBudget = set.Limit()
	} else {
		opts.CharBudget = set.Limit()
	}
	scoping := set.ChannelScoping
	if err := req.Overrides.apply(&opts, &scoping, req.Bounds); err != nil {
		return nil, err
	}
	sem, err := req.Overrides.semantic(set.Semantic)
	if err != nil {
		return nil, err
	}
	if req.Overrides.Random == nil && req.Random != nil {
		opts.Random = req.Random
	}
	count, err := checkMessageCount(req)
	if err != nil {
		return nil, err
	}
	if err := checkContext(&req); err != nil {
		return nil, err
	}
	// A dry run whose caller does not read the trace (the bot's turn)
	// skips building it; Record turns it back on.
	opts.SkipTrace = !req.Trace
	in := activation.Input{
		Entries:        snap.Entries,
		Collections:    snap.Collections,
		Messages:       req.Messages,
		Server:         snap.Server.ID,
		Lineage:        req.Lineage,
		Channel:        req.Channel,
		ParentChannel:  req.ParentChannel,
		ChannelScoping: scoping,
		PersonaBook:    snap.PersonaBook,
		MessageCount:   count,
		Names:          req.Speakers,
		Character:      req.Character,
		Persona:        req.Persona,
		GenerationType: req.GenerationType,
	}
	if in.Character == nil {
		// The request sent no character: its persona's card gives it.
		in.Character = CardCharacter(snap)
	}
	if req.Bounds == APIBounds {
		unit := lore.BudgetCharacters
		if opts.TokenBudget > 0 {
			unit = lore.BudgetTokens
		}
		in.Collections, in.PersonaBook = clampBookBudgets(in.Collections, unit), clampBudget(in.PersonaBook, unit)
	}
	return &Turn{Input: in, Options: opts, Semantic: sem, seeded: opts.Random != nil}, nil
}

// CardCharacter is the character of the card imported onto the persona
// of snap's lineage (lore.Snapshot.Character), as the engine reads it;
// nil when there is none. Prepare gives it to every turn; a request's own
// context.character replaces it (docs/authoring.md "Context sources").
func CardCharacter(snap lore.Snapshot) *activation.Character {
	if snap.Character == nil {
		return nil
	}
	c := activation.Character(*snap.Character)
	return &c
}

// checkMessageCount checks req.MessageCount against req.Bounds and
// returns it (0 for nil: the engine counts the messages sent).
func checkMessageCount(req Request) (int, error) {
	if req.MessageCount == nil {
		return 0, nil
	}
	n := *req.MessageCount
	switch {
	case req.Bounds == APIBounds && (n < len(req.Messages) || n > MaxMessageCount):
		return 0, lore.Reject("messageCount", i18n.MessageCountRange, lore.Params{"value": n, "min": len(req.Messages), "max": MaxMessageCount})
	case n < 0:
		return 0, lore.Reject("messageCount", i18n.Negative, lore.Params{"value": n})
	}
	return n, nil
}

// checkContext checks the request's generation type, speakers and
// character (an *lore.InvalidError naming the field): the type one of
// lore.GenerationTypes, at most one speaker per message, the character's
// name and tags within the character filter's limits (lore.MaxFilterItems
// tags of at most lore.MaxFilterItemLen UTF-16 code units).
func checkContext(req *Request) error {
	if g := req.GenerationType; g != "" && !g.Valid() {
		return lore.Reject("generationType", i18n.NotOneOf, lore.Params{"value": lore.ClipBytes(string(g), 40), "allowed": []string{"normal", "continue", "impersonate", "swipe", "regenerate", "quiet"}})
	}
	if len(req.Speakers) > len(req.Messages) {
		return lore.Reject("messages", i18n.SpeakersMismatch, lore.Params{"count": len(req.Speakers), "messages": len(req.Messages)})
	}
	c := req.Character
	if c == nil {
		return nil
	}
	if lore.UTF16Len(c.Name) > lore.MaxFilterItemLen {
		return lore.Reject("context.character.name", i18n.TooLong, lore.Params{"length": lore.UTF16Len(c.Name), "max": lore.MaxFilterItemLen})
	}
	if len(c.Tags) > lore.MaxFilterItems {
		return lore.Reject("context.character.tags", i18n.TooManyTags, lore.Params{"count": len(c.Tags), "max": lore.MaxFilterItems})
	}
	for i, tag := range c.Tags {
		if lore.UTF16Len(tag) > lore.MaxFilterItemLen {
			return lore.Reject(fmt.Sprintf("context.character.tags[%d]", i), i18n.TooLong, lore.Params{"length": lore.UTF16Len(tag), "max": lore.MaxFilterItemLen})
		}
	}
	return nil
}

// Outcome is what a run gives back.
type Outcome struct {
	// Result is the engine's result (Finish applied); empty on a replay.
	Result activation.Result
	// Replayed: Record found the turn id already recorded with the same
	// input, and Response is the response recorded then, to return
	// unchanged (a run on a CachedRecorder's kept state, which found the
	// id used at its commit, is discarded).
	Replayed bool
	// Response is the recorded response: Recording.Encode's, or on a
	// replay the stored one (opaque bytes: the caller's encoding). Nil
	// for a dry run.
	Response []byte
	// StateErr is set when a dry run could not read the conversation's
	// turn state and ran without it (a runtime read failure, for the
	// caller to log).
	StateErr error
	// Elapsed is the engine's time.
	Elapsed time.Duration
}

// StateReader reads a conversation's turn state without locking it
// (turnstate.Store has it).
type StateReader interface {
	TurnState(ctx context.Context, c turnstate.Conversation) (turnstate.State, error)
}

// DryRun runs t once and records nothing. With states (nil: none) and a
// matcher m with stateful entries it reads conversation c's turn state
// first; a failure to read it leaves the turn without state (Outcome's
// StateErr). m must be compiled from t.Input with t.Options'
// MatchOptions.
func DryRun(ctx context.Context, m *activation.Matcher, t *Turn, states StateReader, c turnstate.Conversation) (Outcome, error) {
	var out Outcome
	if states != nil && m.Stateful() {
		st, err := states.TurnState(ctx, c)
		if err != nil {
			out.StateErr = err
		} else {
			_, flags := turnstate.Derive(st, t.Input.Entries, messageCount(&t.Input))
			t.Input.State = engineState(flags)
		}
	}
	err := t.run(ctx, m, &out)
	return out, err
}

// Recorder opens recorded turns (turnstate.Store has it).
type Recorder interface {
	BeginTurn(ctx context.Context, c turnstate.Conversation, turnID string) (turnstate.Turn, error)
}

// CachedRecorder is a Recorder that keeps the state of the conversations
// whose turns it recorded (lore/postgres's TurnStore,
// docs/turns.md#cached-state).
type CachedRecorder interface {
	Recorder
	// BeginCachedTurn opens turnID of c on the state kept at the end of
	// c's last turn recorded through it, without a database round trip;
	// nil when it keeps none. The turn's Retry is nil: its Commit refuses
	// with turnstate.ErrStale, having written nothing, when c changed
	// since or turnID was used.
	BeginCachedTurn(ctx context.Context, c turnstate.Conversation, turnID string) turnstate.Turn
}

// Recording is what Record needs besides the turn.
type Recording struct {
	// TurnID is the caller's id of the turn, unique in the conversation.
	TurnID string
	// InputSHA256 is the key of the request (64 hex digits: the caller's
	// digest of its encoding), telling a retry (same input: replayed) from
	// another turn under a used id (refused).
	InputSHA256 string
	// InputKeyBefore, when set, gives the key the caller gave the same
	// request before it changed its digest: a logged turn whose key is
	// neither is another turn. It runs only when the logged key is not
	// InputSHA256.
	InputKeyBefore func() string
	// Encode gives the response stored with the log row and returned to
	// retries (turnstate.LoggedTurn.Response); nil stores none (the CLI's
	// state file keeps no responses).
	Encode func(activation.Result) ([]byte, error)
	// Now is the clock of the end-of-turn rules (nil: time.Now).
	Now func() time.Time
}

// Record runs t as the recorded turn rec.TurnID of conversation c
// (docs/turns.md): it opens the turn (the conversation's lock and state),
// replays a retry (same turn id and input: Outcome.Replayed, the engine
// does not run) or refuses a used id with another input (an
// *lore.InvalidError naming turnId), applies the start-of-turn rules,
// seeds the chance draws from the turn id unless the request fixes them
// (turnstate.Random), runs the engine (with the trace when t's request
// read it: Request.Trace), encodes the response
// and commits the next state with the log row. Nothing is written on an
// error. A CachedRecorder's cached state is tried first: when its commit
// finds it stale (turnstate.ErrStale) the turn runs again from
// BeginTurn.
func Record(ctx context.Context, m *activation.Matcher, t *Turn, turns Recorder, c turnstate.Conversation, rec Recording) (Outcome, error) {
	if cr, ok := turns.(CachedRecorder); ok {
		if tx := cr.BeginCachedTurn(ctx, c, rec.TurnID); tx != nil {
			out, err := record(ctx, m, t, tx, rec)
			if !errors.Is(err, turnstate.ErrStale) {
				return out, err
			}
		}
	}
	tx, err := turns.BeginTurn(ctx, c, rec.TurnID)
	if err != nil {
		return Outcome{}, err
	}
	return record(ctx, m, t, tx, rec)
}

// record runs t as the turn tx opened and ends tx.
func record(ctx context.Context, m *activation.Matcher, t *Turn, tx turnstate.Turn, rec Recording) (Outcome, error) {
	defer tx.Rollback(ctx) // a no-op after Commit
	if r := tx.Retry(); r != nil {
		if r.InputSHA256 != rec.InputSHA256 && (rec.InputKeyBefore == nil || r.InputSHA256 != rec.InputKeyBefore()) {
			return Outcome{}, lore.Reject("turnId", i18n.TurnIDReused, nil)
		}
		return Outcome{Replayed: true, Response: r.Response}, nil
	}
	count := messageCount(&t.Input)
	state, flags := turnstate.Derive(tx.Stored(), t.Input.Entries, count)
	if m.Stateful() {
		// Else no entry reads a flag (a match latch is read only by the
		// decorators that make a scope stateful), and a turn without state
		// can copy the gates of the turn before (the Matcher's gate plan).
		t.Input.State = engineState(flags)
	}
	if !t.seeded {
		t.Options.Random = turnstate.Random(rec.TurnID)
	}
	var out Outcome
	if err := t.run(ctx, m, &out); err != nil {
		return Outcome{}, err
	}
	var err error
	if rec.Encode != nil {
		if out.Response, err = rec.Encode(out.Result); err != nil {
			return Outcome{}, fmt.Errorf("record turn: encode result: %w", err)
		}
	}
	now := time.Now()
	if rec.Now != nil {
		now = rec.Now()
	}
	res := &out.Result
	admitted := make([]int64, res.NumAdmitted())
	logged := make([]turnstate.LoggedEntry, res.NumAdmitted())
	for i := range admitted {
		a := res.AdmittedAt(i)
		admitted[i] = a.Entry.ID
		logged[i] = turnstate.LoggedEntry{ID: a.Entry.ID, Group: string(a.Group), Placement: string(a.Placement), Pass: a.Pass, Cost: a.Cost}
	}
	next := turnstate.Advance(state, t.Input.Entries, admitted, count, now)
	err = tx.Commit(ctx, next, turnstate.LoggedTurn{
		TurnID: rec.TurnID, MessageCount: count, InputSHA256: rec.InputSHA256, Admitted: logged,
		BudgetUnit: string(res.Budget.Unit), BudgetLimit: res.Budget.Limit, BudgetUsed: res.Budget.Used,
		Response: out.Response, CreatedAt: now,
	})
	if err != nil {
		return Outcome{}, err
	}
	return out, nil
}

// run runs the engine and Finish into out.
func (t *Turn) run(ctx context.Context, m *activation.Matcher, out *Outcome) error {
	start := time.Now()
	res, err := m.Activate(ctx, t.Input, t.Options)
	out.Elapsed = time.Since(start)
	if err != nil {
		return err // the engine's errors name it
	}
	if t.Finish != nil {
		// A copy, so that res is not moved to the heap on every turn
		// (Finish may keep the pointer).
		fin := res
		t.Finish(&fin)
		res = fin
	}
	out.Result = res
	return nil
}

// messageCount is the turn's message count: Input.MessageCount, else the
// messages sent.
func messageCount(in *activation.Input) int {
	if in.MessageCount > 0 {
		return in.MessageCount
	}
	return len(in.Messages)
}

// engineState is the engine's view of the start-of-turn flags.
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

// clampBudget returns s with a budget limit outside the unit's range
// (stored before the server changed unit) moved into it.
func clampBudget(s lore.BookSettings, unit lore.BudgetUnit) lore.BookSettings {
	if s.BudgetLimit == nil || unit.ClampLimit(*s.BudgetLimit) == *s.BudgetLimit {
		return s
	}
	s = s.Clone()
	*s.BudgetLimit = unit.ClampLimit(*s.BudgetLimit)
	return s
}

// clampBookBudgets applies clampBudget to every collection, copying the
// map only when one changes.
func clampBookBudgets(cols map[string]lore.Collection, unit lore.BudgetUnit) map[string]lore.Collection {
	var out map[string]lore.Collection
	for name, c := range cols {
		s := clampBudget(c.Settings, unit)
		if s.BudgetLimit == c.Settings.BudgetLimit {
			continue
		}
		if out == nil {
			out = make(map[string]lore.Collection, len(cols))
			for k, v := range cols {
				out[k] = v
			}
		}
		c.Settings = s
		out[name] = c
	}
	if out == nil {
		return cols
	}
	return out
}
