-- 000074_proposal_decisions_seen: when the proposer was shown the decision
-- on a proposal (issue 29, docs/workbench.md#decisions). The Discord panel
-- shows a member the approvals and rejections of their proposals once, the
-- next time they open it, and then marks them seen (markDecisionsSeen).
-- lore/postgres (decision.go) reads and writes it. NULL: not shown yet
-- (or not decided).
ALTER TABLE entry_proposals ADD COLUMN decision_seen_at timestamptz;

-- Decisions taken before this upgrade count as seen (at their decision):
-- a member is not shown a backlog of old approvals and rejections.
UPDATE entry_proposals SET decision_seen_at = reviewed_at
    WHERE state IN ('approved', 'rejected') AND reviewed_at IS NOT NULL;

-- The per-member read of unseen decisions, newest decision first.
CREATE INDEX entry_proposals_unseen_idx ON entry_proposals (server_id, proposer, reviewed_at DESC, id DESC)
    WHERE decision_seen_at IS NULL AND state IN ('approved', 'rejected');
