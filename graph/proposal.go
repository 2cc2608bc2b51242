package graph

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
)

// Proposals (graph/proposal.graphqls, docs/workbench.md#proposals).

func proposalToModel(p lore.Proposal) *model.Proposal {
	m := &model.Proposal{ID: strconv.FormatInt(p.ID, 10), Kind: model.ProposalKind(strings.ToUpper(string(p.Kind))),
		State: model.ProposalState(strings.ToUpper(string(p.State))), Proposer: p.Proposer, LineageID: int64(p.Lineage),
		ChangedFields: []string{}, Note: p.Note, Reviewer: p.Reviewer, ReviewNote: p.ReviewNote, CreatedAt: p.CreatedAt,
		ReviewedAt: p.ReviewedAt, EntryID: historyID(p.EntryID)}
	if p.Collection != "" {
		m.Collection = &p.Collection
	}
	if p.Base != nil {
		m.Base = entryToModel(*p.Base)
	}
	if p.Proposed != nil {
		m.Proposed = entryToModel(*p.Proposed)
		// A proposed new entry was never written: it carries the
		// proposal's time (Entry.createdAt and updatedAt are non-null).
		if m.Proposed.CreatedAt.IsZero() {
			m.Proposed.CreatedAt = p.CreatedAt
		}
		if m.Proposed.UpdatedAt.IsZero() {
			m.Proposed.UpdatedAt = p.CreatedAt
		}
	}
	if p.Base != nil && p.Proposed != nil {
		m.ChangedFields = nonNil(lore.ChangedFields(*p.Base, *p.Proposed))
	}
	return m
}

func proposalPayload(p lore.Proposal, err error) (*model.ProposalPayload, error) {
	if err == nil {
		return &model.ProposalPayload{Proposal: proposalToModel(p)}, nil
	}
	out, gerr := failure[model.ProposalPayload](err)
	var c *lore.ProposalConflictError
	if errors.As(err, &c) && out != nil {
		conflict := &model.ProposalConflict{Base: *entryToModel(*c.Base), ChangedSince: []string{}}
		if c.Current != nil {
			conflict.Current = entryToModel(*c.Current)
			conflict.ChangedSince = nonNil(lore.ChangedFields(*c.Base, *c.Current))
		}
		if c.Proposed != nil {
			conflict.Proposed = entryToModel(*c.Proposed)
		}
		out.Conflict = conflict
	}
	return out, gerr
}

// proposeEntryChange answers proposeEntryChange: any member who can read
// the server (a persona book's lineage must be known).
func (r *Resolver) proposeEntryChange(ctx context.Context, in model.ProposeEntryChangeInput) (*model.ProposalPayload, error) {
	fail := func(err error) (*model.ProposalPayload, error) { return proposalPayload(lore.Proposal{}, err) }
	if err := r.authorizeMember(ctx, in.ServerDiscordID, lore.Lineage(in.LineageID)); err != nil {
		return fail(err)
	}
	p := lore.Proposal{Server: in.ServerDiscordID, Proposer: auth.FromContext(ctx).UserID, Lineage: lore.Lineage(in.LineageID),
		Kind: lore.ProposalKind(strings.ToLower(string(in.Kind))), Note: valueOr(in.Note, "")}
	if eid, ok := in.EntryID.ValueOK(); ok && eid != nil {
		id, err := parseID("entry", *eid)
		if err != nil {
			return fail(err)
		}
		p.EntryID = id
	}
	if cid, ok := in.CollectionID.ValueOK(); ok && cid != nil && p.Kind == lore.ProposeCreate {
		id, err := parseID("collection", *cid)
		if err != nil {
			return fail(err)
		}
		c, err := r.Store.GetCollection(ctx, p.Server, id)
		if err != nil {
			return fail(err)
		}
		p.Collection = c.Name
	}
	if e, ok := in.Entry.ValueOK(); ok && e != nil {
		ne, err := entryFromInput(e, p.Server, p.Lineage, p.Collection)
		if err != nil {
			return fail(err)
		}
		p.Proposed = &ne
	}
	if pa, ok := in.Patch.ValueOK(); ok && pa != nil {
		patch, err := patchFromInput(pa)
		if err != nil {
			return fail(err)
		}
		p.Patch = &patch
	}
	return proposalPayload(r.Store.ProposeEntryChange(ctx, p))
}

// reviewProposal answers reviewProposal (lore writers only).
func (r *Resolver) reviewProposal(ctx context.Context, in model.ReviewProposalInput) (*model.ProposalPayload, error) {
	id, err := r.writableID(ctx, in.ServerDiscordID, lore.Serverwide, "proposal", in.ProposalID)
	if err != nil {
		return proposalPayload(lore.Proposal{}, err)
	}
	return proposalPayload(r.Store.ReviewProposal(ctx, in.ServerDiscordID, id, in.Decision == model.ProposalDecisionApprove,
		actor(ctx), valueOr(in.Note, ""), expected(in.ExpectedUpdatedAt)))
}

// withdrawProposal answers withdrawProposal (the proposer only).
func (r *Resolver) withdrawProposal(ctx context.Context, in model.WithdrawProposalInput) (*model.ProposalPayload, error) {
	id, err := r.visibleID(ctx, in.ServerDiscordID, "proposal", in.ProposalID)
	if err != nil {
		return proposalPayload(lore.Proposal{}, err)
	}
	return proposalPayload(r.Store.WithdrawProposal(ctx, in.ServerDiscordID, id, auth.FromContext(ctx).UserID))
}

// serverProposals resolves Server.proposals: every proposal for lore
// writers, their own for other members.
func (r *Resolver) serverProposals(ctx context.Context, obj *model.Server, state *model.ProposalState, first *int, after *string) (*model.ProposalConnection, error) {
	n, err := pageSize(first, 20)
	if err != nil {
		return nil, err
	}
	before, err := idCursor(after, "p:")
	if err != nil {
		return nil, err
	}
	conn := &model.ProposalConnection{Edges: []*model.ProposalEdge{}}
	if n == 0 {
		return conn, nil
	}
	writer, err := r.canWriteLore(ctx, obj.DiscordID)
	if err != nil {
		return nil, err
	}
	proposer := ""
	if !writer {
		proposer = auth.FromContext(ctx).UserID
	}
	st := lore.ProposalState("")
	if state != nil {
		st = lore.ProposalState(strings.ToLower(string(*state)))
	}
	list, more, err := r.Store.Proposals(ctx, obj.DiscordID, st, proposer, n, before)
	if err != nil {
		return nil, err
	}
	for _, pr := range list {
		cursor := encodeKeyset("p:", pr.ID)
		conn.Edges = append(conn.Edges, &model.ProposalEdge{Cursor: cursor, Node: *proposalToModel(pr)})
		conn.PageInfo.EndCursor = &cursor
	}
	conn.PageInfo.HasNextPage = more
	return conn, nil
}

func workbenchSettingsToModel(w lore.WorkbenchSettings) *model.WorkbenchSettings {
	m := &model.WorkbenchSettings{ProposalsEnabled: w.ProposalsEnabled, UpdatedAt: w.UpdatedAt}
	if w.ProposalChannelID != "" {
		m.ProposalChannelID = &w.ProposalChannelID
	}
	if w.LoreEditorRoleID != "" {
		m.LoreEditorRoleID = &w.LoreEditorRoleID
	}
	return m
}

func (r *Resolver) workbenchSettings(ctx context.Context, obj *model.Server) (*model.WorkbenchSettings, error) {
	w, err := r.Store.GetWorkbenchSettings(ctx, obj.DiscordID)
	if err != nil {
		return nil, err
	}
	return workbenchSettingsToModel(w), nil
}

// updateWorkbenchSettings answers updateWorkbenchSettings (managers).
func (r *Resolver) updateWorkbenchSettings(ctx context.Context, in model.UpdateWorkbenchSettingsInput) (*model.WorkbenchSettingsPayload, error) {
	fail := failure[model.WorkbenchSettingsPayload]
	if err := r.authorizeSettings(ctx, in.ServerDiscordID); err != nil {
		return fail(err)
	}
	var p lore.WorkbenchSettingsPatch
	p.ProposalsEnabled, _ = in.ProposalsEnabled.ValueOK()
	p.ProposalChannelID, _ = in.ProposalChannelID.ValueOK()
	p.LoreEditorRoleID, _ = in.LoreEditorRoleID.ValueOK()
	w, err := r.Store.UpdateWorkbenchSettings(ctx, in.ServerDiscordID, p)
	if err != nil {
		return fail(err)
	}
	return &model.WorkbenchSettingsPayload{Settings: workbenchSettingsToModel(w)}, nil
}
