package postgres

import (
	"context"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Decisions shown to proposers once (migration 000074,
// docs/workbench.md#decisions).

var _ lore.DecisionStore = (*Store)(nil)

const (
	decisionsUnseen = `SELECT ` + proposalColumns + ` FROM entry_proposals
WHERE server_id = $1 AND proposer = $2 AND decision_seen_at IS NULL AND state IN ('approved', 'rejected')
ORDER BY reviewed_at DESC, id DESC LIMIT $3`

	// decisionsMark needs no server lock: it touches only the decision's
	// own mark, and a review deciding the same row concurrently holds the
	// row (FOR UPDATE) until it commits, after which this statement sees
	// the decided state.
	decisionsMark = `UPDATE entry_proposals SET decision_seen_at = now()
WHERE server_id = $1 AND proposer = $2 AND id = ANY($3) AND decision_seen_at IS NULL AND state IN ('approved', 'rejected')`
)

// UnseenDecisions lists proposer's decided proposals not shown yet
// (lore.DecisionStore).
func (s *Store) UnseenDecisions(ctx context.Context, server, proposer string, first int) ([]lore.Proposal, bool, error) {
	const op = "list unseen decisions"
	if err := checkServerID(server); err != nil {
		return nil, false, wrapErr(op, err)
	}
	if first <= 0 || proposer == "" {
		return nil, false, nil
	}
	first = min(first, 100)
	rows, err := s.db.Query(ctx, decisionsUnseen, server, proposer, first+1)
	return collectProposals(op, rows, err, first)
}

// MarkDecisionsSeen marks proposer's decisions among ids as shown
// (lore.DecisionStore).
func (s *Store) MarkDecisionsSeen(ctx context.Context, server, proposer string, ids []int64) (int, error) {
	const op = "mark decisions seen"
	if err := checkServerID(server); err != nil {
		return 0, wrapErr(op, err)
	}
	if len(ids) > lore.MaxDecisionsMarked {
		return 0, wrapErr(op, lore.Reject("proposalIds", i18n.TooManyIDs, lore.Params{"count": len(ids), "max": lore.MaxDecisionsMarked}))
	}
	if len(ids) == 0 || proposer == "" {
		return 0, nil
	}
	tag, err := s.db.Exec(ctx, decisionsMark, server, proposer, ids)
	if err != nil {
		return 0, wrapErr(op, err)
	}
	return int(tag.RowsAffected()), nil
}
