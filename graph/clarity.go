package graph

import (
	"context"
	"strconv"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// entriesByID answers Server.entriesById: the server's entries with these
// ids in any scope, in the order asked (lore.Store.EntriesByID). An id
// that is not a positive number names no entry and is left out, like an
// unknown one. The server was resolved (and its visibility checked) by the
// parent field.
func (r *Resolver) entriesByID(ctx context.Context, server string, ids []string) ([]*model.Entry, error) {
	if len(ids) > lore.MaxEntriesByID {
		return nil, lore.Reject("ids", i18n.TooManyIDs, lore.Params{"count": len(ids), "max": lore.MaxEntriesByID})
	}
	nums := make([]int64, 0, len(ids))
	for _, id := range ids {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && n > 0 {
			nums = append(nums, n)
		}
	}
	got, err := r.Store.EntriesByID(ctx, server, nums)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Entry, len(got))
	for i, e := range got {
		out[i] = entryToModel(e)
	}
	return out, nil
}
