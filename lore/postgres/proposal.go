package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Proposals and the workbench settings (migration 000071,
// docs/workbench.md#proposals).

var _ lore.ProposalStore = (*Store)(nil)

const (
	proposalColumns = `id, server_id::text, proposer, kind, state, lineage_id, lorebook_name, entry_id, base, proposed,
    note, reviewer, review_note, created_at, reviewed_at`

	proposalInsert = `INSERT INTO entry_proposals (server_id, proposer, kind, lineage_id, lorebook_name, entry_id, base, proposed, note)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ` + proposalColumns

	proposalGet          = `SELECT ` + proposalColumns + ` FROM entry_proposals WHERE server_id = $1 AND id = $2`
	proposalGetForUpdate = proposalGet + ` FOR UPDATE`

	proposalList = `SELECT ` + proposalColumns + ` FROM entry_proposals
WHERE server_id = $1 AND ($2 = '' OR state = $2) AND ($3 = '' OR proposer = $3) AND ($4 = 0 OR id < $4)
ORDER BY id DESC LIMIT $5`

	proposalOpenCounts = `SELECT count(*), count(*) FILTER (WHERE proposer = $2) FROM entry_proposals
WHERE server_id = $1 AND state = 'open'`

	proposalDecide = `UPDATE entry_proposals SET state = $3, reviewer = $4, review_note = $5, reviewed_at = now(),
    entry_id = COALESCE($6, entry_id)
WHERE server_id = $1 AND id = $2 RETURNING ` + proposalColumns

	workbenchSettingsGet = `SELECT COALESCE(w.proposals_enabled, true), COALESCE(w.proposal_channel_id::text, ''),
    COALESCE(w.lore_editor_role_id::text, ''), COALESCE(w.updated_at, s.created_at)
FROM servers s LEFT JOIN workbench_settings w ON w.server_id = s.id WHERE s.id = $1`

	workbenchSettingsUpsert = `INSERT INTO workbench_settings AS w (server_id, proposals_enabled, proposal_channel_id, lore_editor_role_id)
VALUES ($1, COALESCE($2, true), NULLIF($3, ''), NULLIF($4, ''))
ON CONFLICT (server_id) DO UPDATE SET
    proposals_enabled = COALESCE($2, w.proposals_enabled),
    proposal_channel_id = CASE WHEN $3::text IS NULL THEN w.proposal_channel_id ELSE NULLIF($3, '') END,
    lore_editor_role_id = CASE WHEN $4::text IS NULL THEN w.lore_editor_role_id ELSE NULLIF($4, '') END,
    updated_at = clock_timestamp()`
)

func scanProposal(row pgx.Row) (lore.Proposal, error) {
	var p lore.Proposal
	var kind, state string
	var lineage *int64
	var collection *string
	var entryID *int64
	var base, proposed []byte
	err := row.Scan(&p.ID, &p.Server, &p.Proposer, &kind, &state, &lineage, &collection, &entryID, &base, &proposed,
		&p.Note, &p.Reviewer, &p.ReviewNote, &p.CreatedAt, &p.ReviewedAt)
	if err != nil {
		return p, err
	}
	p.Kind, p.State = lore.ProposalKind(kind), lore.ProposalState(state)
	if lineage != nil {
		p.Lineage = lore.Lineage(*lineage)
	}
	if collection != nil {
		p.Collection = *collection
	}
	if entryID != nil {
		p.EntryID = *entryID
	}
	for _, x := range []struct {
		raw []byte
		dst **lore.Entry
	}{{base, &p.Base}, {proposed, &p.Proposed}} {
		if len(x.raw) == 0 {
			continue
		}
		var e lore.Entry
		if err := json.Unmarshal(x.raw, &e); err != nil {
			return p, fmt.Errorf("decode proposal %d: %w", p.ID, err)
		}
		*x.dst = &e
	}
	return p, nil
}

func entryJSON(e *lore.Entry) ([]byte, error) {
	if e == nil {
		return nil, nil
	}
	return json.Marshal(e)
}

// ProposeEntryChange stores an open proposal (lore.ProposalStore): under
// the server lock it checks the settings, the open-proposal limits, the
// entry and the proposed entry.
func (s *Store) ProposeEntryChange(ctx context.Context, p lore.Proposal) (lore.Proposal, error) {
	const op = "propose entry change"
	if err := checkLineage(p.Lineage); err != nil {
		return p, wrapErr(op, err)
	}
	if lore.UTF16Len(p.Note) > lore.MaxProposalNoteLen {
		return p, wrapErr(op, lore.Reject("note", i18n.TooLong, lore.Params{"length": lore.UTF16Len(p.Note), "max": lore.MaxProposalNoteLen}))
	}
	var out lore.Proposal
	err := s.write(ctx, op, p.Server, func(tx pgx.Tx) error {
		if err := s.checkProposalAllowedTx(ctx, tx, p); err != nil {
			return err
		}
		if err := s.prepareProposalTx(ctx, tx, &p); err != nil {
			return err
		}
		base, err := entryJSON(p.Base)
		if err != nil {
			return err
		}
		proposed, err := entryJSON(p.Proposed)
		if err != nil {
			return err
		}
		var collection *string
		if p.Lineage.IsServerwide() {
			collection = &p.Collection
		}
		var entryID *int64
		if p.EntryID != 0 {
			entryID = &p.EntryID
		}
		out, err = scanProposal(tx.QueryRow(ctx, proposalInsert, p.Server, p.Proposer, string(p.Kind), lineageParam(p.Lineage),
			collection, entryID, base, proposed, p.Note))
		return err
	})
	return out, err
}

// checkProposalAllowedTx refuses a proposal on a server with proposals off
// or past the open-proposal limits.
func (s *Store) checkProposalAllowedTx(ctx context.Context, tx pgx.Tx, p lore.Proposal) error {
	ws, err := scanWorkbenchSettings(tx.QueryRow(ctx, workbenchSettingsGet, p.Server))
	if err != nil {
		return err
	}
	if !ws.ProposalsEnabled {
		return lore.ErrProposalsOff
	}
	var all, mine int
	if err := tx.QueryRow(ctx, proposalOpenCounts, p.Server, p.Proposer).Scan(&all, &mine); err != nil {
		return err
	}
	if mine >= lore.MaxOpenProposalsPerMember {
		return lore.Reject("proposer", i18n.TooManyOpenProposals, lore.Params{"count": mine, "max": lore.MaxOpenProposalsPerMember})
	}
	if all >= lore.MaxOpenProposalsPerServer {
		return lore.Reject("proposer", i18n.TooManyServerProposals, lore.Params{"count": all, "max": lore.MaxOpenProposalsPerServer})
	}
	return nil
}

// prepareProposalTx reads the base entry (update, delete), builds and
// validates the proposed entry, and checks a create's scope for room.
func (s *Store) prepareProposalTx(ctx context.Context, tx pgx.Tx, p *lore.Proposal) error {
	switch p.Kind {
	case lore.ProposeUpdate, lore.ProposeDelete:
		cur, err := scanEntry(tx.QueryRow(ctx, entryGet, p.Server, lineageParam(p.Lineage), p.EntryID))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("entry", p.EntryID)
		}
		if err != nil {
			return err
		}
		p.Base, p.Collection = &cur, cur.Collection
		if p.Kind == lore.ProposeDelete {
			p.Proposed = nil
			return nil
		}
		if p.Patch != nil {
			patched, _ := applyPatch(cur, *p.Patch)
			p.Proposed = &patched
		}
		if p.Proposed == nil {
			return lore.Reject("patch", i18n.Required, nil)
		}
		next := p.Proposed.Clone()
		next.ID, next.Server, next.Lineage, next.Collection, next.CreatedAt, next.UpdatedAt = cur.ID, cur.Server, cur.Lineage, cur.Collection, cur.CreatedAt, cur.UpdatedAt
		if next, err = s.prepareEntry(next); err != nil {
			return lore.WithFieldPrefix("patch", err)
		}
		if len(lore.ChangedFields(cur, next)) == 0 {
			return lore.Reject("patch", i18n.ChangesNothing, nil)
		}
		if next.CategoryID != cur.CategoryID {
			if err := checkEntryCategoryTx(ctx, tx, next); err != nil {
				return lore.WithFieldPrefix("patch", err)
			}
		}
		p.Proposed = &next
	case lore.ProposeCreate:
		if p.Proposed == nil {
			return lore.Reject("entry", i18n.Required, nil)
		}
		next := p.Proposed.Clone()
		next.ID, next.Server, next.Lineage, next.Collection = 0, p.Server, p.Lineage, p.Collection
		next, err := s.prepareEntry(next)
		if err != nil {
			return lore.WithFieldPrefix("entry", err)
		}
		if next.Lineage.IsServerwide() {
			if err := requireCollectionTx(ctx, tx, p.Server, p.Collection); err != nil {
				return err
			}
		}
		if err := checkEntryCategoryTx(ctx, tx, next); err != nil {
			return lore.WithFieldPrefix("entry", err)
		}
		n, err := countScopeTx(ctx, tx, p.Server, p.Lineage)
		if err != nil {
			return err
		}
		if err := s.checkCapacity(p.Server, p.Lineage, n, 1); err != nil {
			return err
		}
		p.Base, p.EntryID, p.Proposed = nil, 0, &next
	default:
		return lore.Reject("kind", i18n.NotOneOf, lore.Params{"value": lore.ClipBytes(string(p.Kind), 40), "allowed": []string{"create", "update", "delete"}})
	}
	return nil
}

// Proposals lists proposals newest first (lore.ProposalStore).
func (s *Store) Proposals(ctx context.Context, server string, state lore.ProposalState, proposer string, first int, before int64) ([]lore.Proposal, bool, error) {
	const op = "list proposals"
	if err := checkServerID(server); err != nil {
		return nil, false, wrapErr(op, err)
	}
	if first <= 0 {
		return nil, false, nil
	}
	rows, err := s.db.Query(ctx, proposalList, server, string(state), proposer, before, first+1)
	return collectProposals(op, rows, err, first)
}

// collectProposals reads the rows of a query asked for first+1
// proposals: at most first, and whether there were more.
func collectProposals(op string, rows pgx.Rows, err error, first int) ([]lore.Proposal, bool, error) {
	if err != nil {
		return nil, false, wrapErr(op, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (lore.Proposal, error) { return scanProposal(row) })
	if err != nil {
		return nil, false, wrapErr(op, err)
	}
	if len(out) > first {
		return out[:first], true, nil
	}
	return out, false, nil
}

// GetProposal returns one proposal of the server.
func (s *Store) GetProposal(ctx context.Context, server string, id int64) (lore.Proposal, error) {
	const op = "get proposal"
	if err := checkServerID(server); err != nil {
		return lore.Proposal{}, wrapErr(op, err)
	}
	p, err := scanProposal(s.db.QueryRow(ctx, proposalGet, server, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("proposal", id)
	}
	return p, wrapErr(op, err)
}

// ReviewProposal approves or rejects an open proposal (lore.ProposalStore).
func (s *Store) ReviewProposal(ctx context.Context, server string, id int64, approve bool, reviewer, note string, expected *time.Time) (lore.Proposal, error) {
	const op = "review proposal"
	if lore.UTF16Len(note) > lore.MaxProposalNoteLen {
		return lore.Proposal{}, wrapErr(op, lore.Reject("note", i18n.TooLong, lore.Params{"length": lore.UTF16Len(note), "max": lore.MaxProposalNoteLen}))
	}
	ctx = lore.WithRevisionKind(lore.WithActor(ctx, reviewer), lore.RevisionProposal)
	var out lore.Proposal
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		p, err := scanProposal(tx.QueryRow(ctx, proposalGetForUpdate, server, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("proposal", id)
		}
		if err != nil {
			return err
		}
		if p.State != lore.ProposalOpen {
			return lore.Reject("proposalId", i18n.ProposalNotOpen, lore.Params{"id": id, "state": string(p.State)})
		}
		state := lore.ProposalRejected
		var made *int64
		if approve {
			state = lore.ProposalApproved
			if made, err = s.applyProposalTx(ctx, tx, p, expected); err != nil {
				return err
			}
		}
		out, err = scanProposal(tx.QueryRow(ctx, proposalDecide, server, id, string(state), lore.TruncateRunes(reviewer, 200), note, made))
		return err
	})
	return out, err
}

// applyProposalTx writes an approved proposal: a create inserts (room and
// collection checked), a change puts the proposer's changed fields on the
// entry as it is now, a delete deletes; a change or delete first checks
// the entry's version (see ReviewProposal). It returns a create's new id.
func (s *Store) applyProposalTx(ctx context.Context, tx pgx.Tx, p lore.Proposal, expected *time.Time) (*int64, error) {
	if p.Kind == lore.ProposeCreate {
		e := p.Proposed.Clone()
		chk := lore.Proposal{Server: p.Server, Kind: p.Kind, Lineage: p.Lineage, Collection: p.Collection, Proposed: &e}
		if err := s.prepareProposalTx(ctx, tx, &chk); err != nil {
			return nil, err
		}
		one := []lore.Entry{*chk.Proposed}
		one[0].LegacyChannelTags = sortedTags(one[0].LegacyChannelTags)
		if err := insertEntriesTx(ctx, tx, one); err != nil {
			return nil, err
		}
		return &one[0].ID, nil
	}
	cur, err := scanEntry(tx.QueryRow(ctx, entryGetForUpdate, p.Server, lineageParam(p.Lineage), p.EntryID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &lore.ProposalConflictError{Base: p.Base, Proposed: p.Proposed}
	}
	if err != nil {
		return nil, err
	}
	want := p.Base.UpdatedAt
	if expected != nil {
		want = *expected
	}
	if lore.CheckUpdatedAt("entry", &want, cur.UpdatedAt) != nil {
		return nil, &lore.ProposalConflictError{Base: p.Base, Current: &cur, Proposed: p.Proposed}
	}
	if p.Kind == lore.ProposeDelete {
		_, err := tx.Exec(ctx, entryDeleteScopeIDs, p.Server, lineageParam(p.Lineage), []int64{p.EntryID})
		return nil, err
	}
	next, err := lore.MergeFields(cur, *p.Proposed, lore.ChangedFields(*p.Base, *p.Proposed))
	if err != nil {
		return nil, err
	}
	_, err = s.rewriteTx(ctx, tx, cur, next)
	return nil, err
}

// WithdrawProposal withdraws an open proposal of proposer (ErrNotFound for
// another member's).
func (s *Store) WithdrawProposal(ctx context.Context, server string, id int64, proposer string) (lore.Proposal, error) {
	const op = "withdraw proposal"
	var out lore.Proposal
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		p, err := scanProposal(tx.QueryRow(ctx, proposalGetForUpdate, server, id))
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && p.Proposer != proposer) {
			return notFound("proposal", id)
		}
		if err != nil {
			return err
		}
		if p.State != lore.ProposalOpen {
			return lore.Reject("proposalId", i18n.ProposalNotOpen, lore.Params{"id": id, "state": string(p.State)})
		}
		out, err = scanProposal(tx.QueryRow(ctx, proposalDecide, server, id, string(lore.ProposalWithdrawn), "", "", nil))
		return err
	})
	return out, err
}

func scanWorkbenchSettings(row pgx.Row) (lore.WorkbenchSettings, error) {
	var w lore.WorkbenchSettings
	err := row.Scan(&w.ProposalsEnabled, &w.ProposalChannelID, &w.LoreEditorRoleID, &w.UpdatedAt)
	return w, err
}

// GetWorkbenchSettings returns the server's workbench settings.
func (s *Store) GetWorkbenchSettings(ctx context.Context, server string) (lore.WorkbenchSettings, error) {
	const op = "get workbench settings"
	if err := checkServerID(server); err != nil {
		return lore.WorkbenchSettings{}, wrapErr(op, err)
	}
	w, err := scanWorkbenchSettings(s.db.QueryRow(ctx, workbenchSettingsGet, server))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("server", server)
	}
	return w, wrapErr(op, err)
}

// UpdateWorkbenchSettings applies p under the server lock.
func (s *Store) UpdateWorkbenchSettings(ctx context.Context, server string, p lore.WorkbenchSettingsPatch) (lore.WorkbenchSettings, error) {
	const op = "update workbench settings"
	for _, f := range []struct {
		name string
		v    *string
	}{{"proposalChannelId", p.ProposalChannelID}, {"loreEditorRoleId", p.LoreEditorRoleID}} {
		if f.v != nil && *f.v != "" && !lore.ValidSnowflake(*f.v) {
			return lore.WorkbenchSettings{}, wrapErr(op, lore.Reject(f.name, i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(*f.v, 40)}))
		}
	}
	var out lore.WorkbenchSettings
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, workbenchSettingsUpsert, server, p.ProposalsEnabled, p.ProposalChannelID, p.LoreEditorRoleID); err != nil {
			return err
		}
		var err error
		out, err = scanWorkbenchSettings(tx.QueryRow(ctx, workbenchSettingsGet, server))
		return err
	})
	return out, err
}
