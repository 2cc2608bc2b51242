package turnstate

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Conversation identifies one conversation of turn state: a channel (a
// thread is its own) of a server, read with one lineage's lore
// (docs/turns.md).
type Conversation struct {
	Server  string
	Lineage lore.Lineage
	// Channel is the channel or thread snowflake (required).
	Channel string
}

// MaxTurnIDLen bounds a turn id in characters.
const MaxTurnIDLen = 128

// CheckConversation refuses a conversation whose lineage is negative
// (bad_lineage on lineageField) or whose channel is not a snowflake
// (conversation_channel on channelField: a conversation is a channel or
// thread).
func CheckConversation(c Conversation, lineageField, channelField string) error {
	if err := lore.CheckLineage(lineageField, c.Lineage); err != nil {
		return err
	}
	if !lore.ValidSnowflake(c.Channel) {
		return lore.Reject(channelField, i18n.ConversationChannel, nil)
	}
	return nil
}

// CheckTurnID refuses a turn id for field that is blank or longer than
// MaxTurnIDLen characters (turn_id_length).
func CheckTurnID(field, id string) error {
	if strings.TrimSpace(id) == "" || utf8.RuneCountInString(id) > MaxTurnIDLen {
		return lore.Reject(field, i18n.TurnIDLength, lore.Params{"max": MaxTurnIDLen})
	}
	return nil
}

// LoggedEntry is one admitted entry of a logged turn.
type LoggedEntry struct {
	ID int64 `json:"id"`
	// Group is the engine's group (always_on, activated).
	Group     string `json:"group"`
	Placement string `json:"placement"`
	// Pass is the recursion pass that admitted the entry (1 = the chat
	// scan).
	Pass int `json:"pass"`
	// Cost is the entry's share of the budget (0 for IgnoreBudget entries).
	Cost int `json:"cost"`
}

// LoggedTurn is one row of the activation log: which entries entered one
// recorded turn. It holds no message text.
type LoggedTurn struct {
	TurnID       string
	MessageCount int
	// InputSHA256 is the hex digest of the turn's input (the caller's
	// canonical encoding), telling a retry from a different turn under a
	// used id.
	InputSHA256 string
	Admitted    []LoggedEntry
	BudgetUnit  string
	BudgetLimit int
	BudgetUsed  int
	// Response is the API's encoding of the turn's result, returned to
	// retries unchanged: a JSON object (rows stored before migration
	// 000086, kept as jsonb) or any other bytes (the API's compact
	// encoding, kept as bytea); the store does not read it.
	Response  []byte
	CreatedAt time.Time
}

// Turn is a recorded turn in progress, holding the conversation's lock
// until Commit or Rollback (lore/postgres implements it).
type Turn interface {
	// Stored is the conversation's stored state.
	Stored() State
	// Retry is the logged turn with the same turn id, when one exists (a
	// retry: roll back then), else nil.
	Retry() *LoggedTurn
	// Commit writes the next state and the log row and ends the turn.
	Commit(ctx context.Context, next State, log LoggedTurn) error
	// Rollback ends the turn without writing (a no-op after Commit).
	Rollback(ctx context.Context)
}

// ErrStale is the error of a turn opened on a conversation's cached state
// (lore/turn's CachedRecorder) whose Commit found the conversation
// changed since (another turn, a reset, a lore write of its server) or
// its turn id already used: nothing was written. Begin the turn again
// with Store.BeginTurn.
var ErrStale = errors.New("turn state changed since it was cached")

// Store keeps turn state and the activation log (lore/postgres implements
// it through Store.TurnStore).
type Store interface {
	// BeginTurn locks the conversation and reads its state and any logged
	// turn with turnID.
	BeginTurn(ctx context.Context, c Conversation, turnID string) (Turn, error)
	// TurnState reads a conversation's state without locking it.
	TurnState(ctx context.Context, c Conversation) (State, error)
	// ActivationLog returns the conversation's last logged turns, newest
	// first.
	ActivationLog(ctx context.Context, c Conversation, last int) ([]LoggedTurn, error)
	// ResetTurnState deletes a conversation's state (timed-effect windows
	// and activation history; the log stays) and returns how many entries
	// had state.
	ResetTurnState(ctx context.Context, c Conversation) (int64, error)
	// LastActivations returns, for every entry of the scope that holds
	// entry id, the time of its latest activation in a recorded turn over
	// all conversations (nil: never); an unknown id gives an empty map.
	LastActivations(ctx context.Context, id int64) (map[int64]*time.Time, error)
}
