package graph

import (
	"context"
	"time"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

func rowCounts(rows []lore.TableRows) []*model.TableRowCount {
	out := make([]*model.TableRowCount, len(rows))
	for i, r := range rows {
		out[i] = &model.TableRowCount{Table: r.Table, Rows: int(r.Rows)}
	}
	return out
}

// deleteServer counts (confirm false) or removes now (confirm true) a
// server and every row keyed by it.
func (r *Resolver) deleteServer(ctx context.Context, in model.DeleteServerInput) (*model.DeleteServerPayload, error) {
	if err := authorizeService(ctx, in.ServerDiscordID); err != nil {
		return failure[model.DeleteServerPayload](err)
	}
	if !in.Confirm {
		rows, err := r.Store.ServerFootprint(ctx, in.ServerDiscordID)
		if err != nil {
			return failure[model.DeleteServerPayload](err)
		}
		return &model.DeleteServerPayload{Rows: rowCounts(rows)}, nil
	}
	rows, err := r.Store.PurgeServer(ctx, in.ServerDiscordID, lore.PurgeRule{Force: true, Actor: auth.FromContext(ctx).UserID})
	if err != nil {
		return failure[model.DeleteServerPayload](err)
	}
	if r.Logger != nil {
		r.Logger.InfoContext(ctx, "server deleted", "server", in.ServerDiscordID, "by", auth.FromContext(ctx).UserID)
	}
	return &model.DeleteServerPayload{Deleted: true, Rows: rowCounts(rows)}, nil
}

// markServerLeft records that the bot left the guild.
func (r *Resolver) markServerLeft(ctx context.Context, in model.MarkServerLeftInput) (*model.ServerPayload, error) {
	if err := authorizeService(ctx, in.ServerDiscordID); err != nil {
		return failure[model.ServerPayload](err)
	}
	if _, err := r.Store.MarkServerLeft(ctx, in.ServerDiscordID, time.Now(), auth.FromContext(ctx).UserID); err != nil {
		return failure[model.ServerPayload](err)
	}
	s, err := r.Store.GetServer(ctx, in.ServerDiscordID)
	if err != nil {
		return failure[model.ServerPayload](err)
	}
	return &model.ServerPayload{Server: serverToModel(s, true, r.Limits)}, nil
}

// reconcileServers marks left the member servers of a shard that READY
// did not list.
func (r *Resolver) reconcileServers(ctx context.Context, in model.ReconcileServersInput) (*model.ReconcileServersPayload, error) {
	if err := serviceOnly(ctx); err != nil {
		return nil, err
	}
	for _, id := range in.PresentServerDiscordIds {
		if !lore.ValidSnowflake(id) {
			return failure[model.ReconcileServersPayload](lore.Reject("presentServerDiscordIds", i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(id, 24)}))
		}
	}
	shard, shards := get(in.ShardID, 0), get(in.ShardCount, 1)
	if shards < 1 {
		return failure[model.ReconcileServersPayload](lore.Reject("shardCount", i18n.AtLeast, lore.Params{"min": 1}))
	}
	marked, err := r.Store.MarkServersLeftExcept(ctx, in.PresentServerDiscordIds, shard, shards, time.Now(), auth.FromContext(ctx).UserID)
	if err != nil {
		return failure[model.ReconcileServersPayload](err)
	}
	if marked == nil {
		marked = []string{}
	}
	return &model.ReconcileServersPayload{MarkedLeft: marked}, nil
}
