package lore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Proposals: members propose a new entry, a change or a deletion; managers
// approve or reject (docs/workbench.md#proposals).

// ProposalKind is what a proposal asks for.
type ProposalKind string

// The proposal kinds.
const (
	ProposeCreate ProposalKind = "create"
	ProposeUpdate ProposalKind = "update"
	ProposeDelete ProposalKind = "delete"
)

// ProposalState is where a proposal stands.
type ProposalState string

// The proposal states.
const (
	ProposalOpen      ProposalState = "open"
	ProposalApproved  ProposalState = "approved"
	ProposalRejected  ProposalState = "rejected"
	ProposalWithdrawn ProposalState = "withdrawn"
)

// Proposal limits (docs/workbench.md#proposals).
const (
	// MaxOpenProposalsPerMember is how many open proposals one member may
	// have on a server.
	MaxOpenProposalsPerMember = 5
	// MaxOpenProposalsPerServer is how many open proposals a server holds.
	MaxOpenProposalsPerServer = 100
	// MaxProposalNoteLen bounds the proposer's and the reviewer's notes.
	MaxProposalNoteLen = 1000
)

// ErrProposalsOff reports a proposal on a server whose managers turned
// proposals off (WorkbenchSettings.ProposalsEnabled). It matches
// ErrInvalid.
var ErrProposalsOff = fmt.Errorf("%w: proposals are turned off on this server", ErrInvalid)

// Proposal is one proposed entry change.
type Proposal struct {
	ID     int64
	Server string
	// Proposer is the member's Discord user id.
	Proposer string
	Kind     ProposalKind
	State    ProposalState
	// Lineage and Collection are the book: the entry's (update, delete) or
	// where the new entry goes (create).
	Lineage    Lineage
	Collection string
	// EntryID is the entry changed or deleted; after an approved create,
	// the entry made.
	EntryID int64
	// Base is the entry when proposed (update, delete); Proposed the entry
	// as the proposer wants it (create, update).
	Base, Proposed *Entry
	// Patch, for a change, is applied by the store to the entry as it is
	// when proposed (instead of a whole Proposed entry).
	Patch *EntryPatch
	Note  string
	// Reviewer ("user:<id>", "service:<label>"), ReviewNote and ReviewedAt
	// are set by the decision.
	Reviewer   string
	ReviewNote string
	CreatedAt  time.Time
	ReviewedAt *time.Time
}

// ProposalConflictError is the answer to approving a change or deletion
// whose entry changed after it was proposed: the three states, so a
// manager can decide afresh (approve again expecting Current.UpdatedAt, or
// reject). It matches ErrStaleTarget. Current is nil when the entry was
// deleted since.
type ProposalConflictError struct {
	Base, Current, Proposed *Entry
}

func (e *ProposalConflictError) Error() string {
	if e.Current == nil {
		return fmt.Sprintf("entry %d was deleted after the proposal was made; nothing was written", e.Base.ID)
	}
	return fmt.Sprintf("entry %d was changed at %s, after the proposal was made (its version then: %s); compare the three states and approve again expecting the current version, or reject; nothing was written",
		e.Base.ID, e.Current.UpdatedAt.UTC().Format(time.RFC3339Nano), e.Base.UpdatedAt.UTC().Format(time.RFC3339Nano))
}

// Is makes errors.Is(err, ErrStaleTarget) true.
func (e *ProposalConflictError) Is(target error) bool { return target == ErrStaleTarget }

// WorkbenchSettings are a server's workbench settings.
type WorkbenchSettings struct {
	// ProposalsEnabled lets members propose (default true).
	ProposalsEnabled bool `json:"proposalsEnabled"`
	// ProposalChannelID is the channel for "a proposal arrived" notices
	// ("" = none).
	ProposalChannelID string `json:"proposalChannelId"`
	// LoreEditorRoleID is the Discord role whose members write lore but
	// not server settings ("" = none).
	LoreEditorRoleID string    `json:"loreEditorRoleId"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// Same reports whether w and o hold the same settings (UpdatedAt aside).
func (w WorkbenchSettings) Same(o WorkbenchSettings) bool {
	return w.ProposalsEnabled == o.ProposalsEnabled && w.ProposalChannelID == o.ProposalChannelID &&
		w.LoreEditorRoleID == o.LoreEditorRoleID
}

// Apply returns w with p applied (UpdatedAt unchanged).
func (p WorkbenchSettingsPatch) Apply(w WorkbenchSettings) WorkbenchSettings {
	if p.ProposalsEnabled != nil {
		w.ProposalsEnabled = *p.ProposalsEnabled
	}
	if p.ProposalChannelID != nil {
		w.ProposalChannelID = *p.ProposalChannelID
	}
	if p.LoreEditorRoleID != nil {
		w.LoreEditorRoleID = *p.LoreEditorRoleID
	}
	return w
}

// WorkbenchSettingsPatch changes the settings it sets; a pointer to ""
// clears a channel or role.
type WorkbenchSettingsPatch struct {
	ProposalsEnabled  *bool
	ProposalChannelID *string
	LoreEditorRoleID  *string
}

// ProposalStore is the proposal part of a Store (lore/postgres).
type ProposalStore interface {
	// ProposeEntryChange stores an open proposal after checking it: the
	// server's proposals are on (ErrProposalsOff), the limits
	// (MaxOpenProposalsPerMember, MaxOpenProposalsPerServer: ErrInvalid),
	// the entry exists in its scope (update, delete: ErrNotFound), the
	// proposed entry is valid and, for a create, its scope has room
	// (*ScopeFullError). p.Base is read by the store.
	ProposeEntryChange(ctx context.Context, p Proposal) (Proposal, error)
	// Proposals lists a server's proposals newest first, in state ("" =
	// every state), of proposer ("" = everyone's), paged like
	// EntryRevisions.
	Proposals(ctx context.Context, server string, state ProposalState, proposer string, first int, before int64) ([]Proposal, bool, error)
	// GetProposal returns one proposal of the server (ErrNotFound).
	GetProposal(ctx context.Context, server string, id int64) (Proposal, error)
	// ReviewProposal decides an open proposal (ErrInvalid when it is not
	// open). Approving writes the change as the reviewer's own entry write
	// (revision kind proposal): the fields the proposer changed are put
	// on the entry as it is now, after the conflict check: the entry must
	// still be at Base's version, or at expected when the reviewer passes
	// the version shown by a *ProposalConflictError.
	ReviewProposal(ctx context.Context, server string, id int64, approve bool, reviewer, note string, expected *time.Time) (Proposal, error)
	// WithdrawProposal withdraws an open proposal of proposer.
	WithdrawProposal(ctx context.Context, server string, id int64, proposer string) (Proposal, error)
	// GetWorkbenchSettings returns the server's settings (the defaults when
	// none are stored; ErrNotFound for an unknown server).
	GetWorkbenchSettings(ctx context.Context, server string) (WorkbenchSettings, error)
	// UpdateWorkbenchSettings applies p (channel and role ids are
	// snowflakes or "").
	UpdateWorkbenchSettings(ctx context.Context, server string, p WorkbenchSettingsPatch) (WorkbenchSettings, error)
}

// MergeFields returns cur with the fields named (JSON names of Entry, as
// ChangedFields returns them) taken from from: a proposal's changes put on
// the entry as it is now.
func MergeFields(cur, from Entry, fields []string) (Entry, error) {
	a, err := json.Marshal(cur)
	if err != nil {
		return cur, err
	}
	b, err := json.Marshal(from)
	if err != nil {
		return cur, err
	}
	var am, bm map[string]json.RawMessage
	if err := json.Unmarshal(a, &am); err != nil {
		return cur, err
	}
	if err := json.Unmarshal(b, &bm); err != nil {
		return cur, err
	}
	for _, f := range fields {
		if v, ok := bm[f]; ok {
			am[f] = v
		} else {
			delete(am, f)
		}
	}
	raw, err := json.Marshal(am)
	if err != nil {
		return cur, err
	}
	var out Entry
	err = json.Unmarshal(raw, &out)
	return out, err
}
