package graph

import (
	"context"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// Decisions shown to proposers once (graph/decision.graphqls,
// docs/workbench.md#decisions).

// unseenDecisions resolves Server.unseenDecisions: the caller's own
// decided proposals not marked seen (the server is one the caller reads,
// or it would not resolve).
func (r *Resolver) unseenDecisions(ctx context.Context, obj *model.Server, first *int) ([]*model.Proposal, error) {
	n, err := pageSize(first, 5)
	if err != nil {
		return nil, err
	}
	if n > lore.MaxDecisionsMarked {
		return nil, lore.Reject("first", i18n.Between, lore.Params{"min": 0, "max": lore.MaxDecisionsMarked})
	}
	list, _, err := r.Store.UnseenDecisions(ctx, obj.DiscordID, auth.FromContext(ctx).UserID, n)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Proposal, 0, len(list))
	for _, p := range list {
		out = append(out, proposalToModel(p))
	}
	return out, nil
}

// markDecisionsSeen answers markDecisionsSeen: any member who can read the
// server marks decisions on their own proposals.
func (r *Resolver) markDecisionsSeen(ctx context.Context, in model.MarkDecisionsSeenInput) (*model.MarkDecisionsSeenPayload, error) {
	fail := failure[model.MarkDecisionsSeenPayload]
	if err := r.authorizeMember(ctx, in.ServerDiscordID, lore.Serverwide); err != nil {
		return fail(err)
	}
	if len(in.ProposalIds) > lore.MaxDecisionsMarked {
		return fail(lore.Reject("proposalIds", i18n.TooManyIDs, lore.Params{"count": len(in.ProposalIds), "max": lore.MaxDecisionsMarked}))
	}
	ids := make([]int64, 0, len(in.ProposalIds))
	for _, s := range in.ProposalIds {
		id, err := parseID("proposal", s)
		if err != nil {
			return fail(err)
		}
		ids = append(ids, id)
	}
	n, err := r.Store.MarkDecisionsSeen(ctx, in.ServerDiscordID, auth.FromContext(ctx).UserID, ids)
	if err != nil {
		return fail(err)
	}
	return &model.MarkDecisionsSeenPayload{Count: n}, nil
}
