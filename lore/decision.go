package lore

import "context"

// MaxDecisionsMarked bounds the proposals one MarkDecisionsSeen call names
// (a member has at most a page of unseen decisions to acknowledge).
const MaxDecisionsMarked = 100

// MaxDecisionServers bounds the servers of one UnseenDecisionsOf read (a
// page of Viewer.servers).
const MaxDecisionServers = 100

// DecisionStore tells proposers the decisions on their proposals once
// (docs/workbench.md#decisions): the approvals and rejections a proposer
// has not been shown yet, and the mark that they were shown (migration
// 000074). Withdrawn and open proposals have no decision to show.
type DecisionStore interface {
	// UnseenDecisions lists proposer's approved or rejected proposals of
	// server whose decision is not marked seen, the most recently decided
	// first: at most first (1-100); more reports whether there are others.
	UnseenDecisions(ctx context.Context, server, proposer string, first int) (list []Proposal, more bool, err error)
	// UnseenDecisionsOf is UnseenDecisions for each of servers (at most
	// MaxDecisionServers) in one read: each server's list (absent: none)
	// holds at most first+1 proposals, the last one only when there are
	// more than first.
	UnseenDecisionsOf(ctx context.Context, servers []string, proposer string, first int) (map[string][]Proposal, error)
	// MarkDecisionsSeen marks the decisions of the proposals ids names as
	// seen by proposer and answers how many it marked: only proposer's
	// own decided proposals of server not marked yet count; other ids are
	// left alone. At most MaxDecisionsMarked ids (ErrInvalid, field
	// "proposalIds").
	MarkDecisionsSeen(ctx context.Context, server, proposer string, ids []int64) (int, error)
}
