package postgres

import (
	"context"
	"fmt"
	"math"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Decisions shown to proposers once (migration 000074,
// docs/workbench.md#decisions).

var _ lore.DecisionStore = (*Store)(nil)

const (
	// decisionsUnseen lists the unseen decisions of proposer $2 on the
	// servers $1, at most $3 a server, each server's most recent first:
	// per server, the first $3 rows of entry_proposals_unseen_idx.
	decisionsUnseen = `SELECT p.* FROM (SELECT DISTINCT unnest($1::text[]) AS sid) s CROSS JOIN LATERAL (
    SELECT ` + proposalColumns + ` FROM entry_proposals
    WHERE server_id = s.sid AND proposer = $2 AND decision_seen_at IS NULL AND state IN ('approved', 'rejected')
    ORDER BY reviewed_at DESC, id DESC LIMIT $3
) p
ORDER BY s.sid, p.reviewed_at DESC, p.id DESC`

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
	rows, err := s.db.Query(ctx, decisionsUnseen, []string{server}, proposer, first+1)
	return collectProposals(op, rows, err, first)
}

// UnseenDecisionsOf lists proposer's decided proposals not shown yet on
// each of servers in one query (lore.DecisionStore).
func (s *Store) UnseenDecisionsOf(ctx context.Context, servers []string, proposer string, first int) (map[string][]lore.Proposal, error) {
	const op = "list unseen decisions"
	if len(servers) > lore.MaxDecisionServers {
		return nil, wrapErr(op, fmt.Errorf("%w: %d servers, at most %d", lore.ErrInvalid, len(servers), lore.MaxDecisionServers))
	}
	for _, server := range servers {
		if err := checkServerID(server); err != nil {
			return nil, wrapErr(op, err)
		}
	}
	if first <= 0 || proposer == "" || len(servers) == 0 {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, decisionsUnseen, servers, proposer, min(first, 100)+1)
	list, _, err := collectProposals(op, rows, err, math.MaxInt)
	if err != nil {
		return nil, err
	}
	out := map[string][]lore.Proposal{}
	for _, p := range list {
		out[p.Server] = append(out[p.Server], p)
	}
	return out, nil
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
