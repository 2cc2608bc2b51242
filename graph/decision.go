package graph

import (
	"context"
	"slices"
	"sync"

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
	proposer := auth.FromContext(ctx).UserID
	list, listed, err := r.listedDecisions(ctx, obj.DiscordID, proposer, n)
	if !listed {
		list, _, err = r.Store.UnseenDecisions(ctx, obj.DiscordID, proposer, n)
	}
	if err != nil {
		return nil, err
	}
	list = list[:min(len(list), n)]
	out := make([]*model.Proposal, 0, len(list))
	for _, p := range list {
		out = append(out, proposalToModel(p))
	}
	return out, nil
}

// decisionLoads are an operation's reads of unseen decisions for the
// servers it listed (Viewer.servers): the first Server.unseenDecisions of
// a listed server reads those of every listed server in one query.
type decisionLoads struct {
	mu sync.Mutex // held during a read: one read serves every listed server
	// pending are the listed servers not read yet; read holds the lists
	// read (first+1 at most, nil: none), by server, for first.
	pending []string
	first   int
	read    map[string][]lore.Proposal
}

// listedServers records the servers an operation lists, so that their
// unseen decisions are read together.
func listedServers(ctx context.Context, servers []string) {
	if l := opLoaders(ctx); l != nil {
		l.decisions.mu.Lock()
		defer l.decisions.mu.Unlock()
		l.decisions.pending = append(l.decisions.pending, servers...)
	}
}

// listedDecisions returns server's unseen decisions for proposer (at most
// first+1) from the operation's one read of the listed servers; listed
// is false when server was not listed or was read with another first.
func (r *Resolver) listedDecisions(ctx context.Context, server, proposer string, first int) (list []lore.Proposal, listed bool, err error) {
	l := opLoaders(ctx)
	if l == nil {
		return nil, false, nil
	}
	d := &l.decisions
	d.mu.Lock()
	defer d.mu.Unlock()
	if list, ok := d.read[server]; ok && d.first == first {
		return list, true, nil
	}
	if d.read != nil && d.first != first || !slices.Contains(d.pending, server) {
		return nil, false, nil
	}
	batch := d.pending[:min(len(d.pending), lore.MaxDecisionServers)]
	if !slices.Contains(batch, server) {
		batch = []string{server}
	}
	got, err := r.Store.UnseenDecisionsOf(ctx, batch, proposer, first)
	if err != nil {
		return nil, true, err
	}
	if d.read == nil {
		d.read, d.first = map[string][]lore.Proposal{}, first
	}
	for _, s := range batch {
		d.read[s] = got[s]
	}
	d.pending = slices.DeleteFunc(d.pending, func(s string) bool { _, done := d.read[s]; return done })
	return got[server], true, nil
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
