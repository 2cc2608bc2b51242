-- 000074_proposal_decisions_seen (down): which decisions proposers were
-- shown is dropped; the proposals stay (their decisions would show again).
-- loses: column entry_proposals.decision_seen_at unless NULL
DROP INDEX entry_proposals_unseen_idx;
ALTER TABLE entry_proposals DROP COLUMN decision_seen_at;
