package postgres

import (
	"context"

	"loregate/lore"
	"loregate/lore/i18n"
)

// entriesByID reads a server's entries by id in any scope.
const entriesByID = `SELECT ` + entryColumns + ` FROM lorebook_entries e WHERE e.server_id = $1 AND e.id = ANY($2::bigint[])`

// EntriesByID returns the server's entries with these ids, in any scope,
// in the order of ids; ids of another server, unknown ids and repeats are
// left out. At most lore.MaxEntriesByID ids.
func (s *Store) EntriesByID(ctx context.Context, server string, ids []int64) ([]lore.Entry, error) {
	const op = "entries by id"
	if err := checkServerID(server); err != nil {
		return nil, wrapErr(op, err)
	}
	if len(ids) > lore.MaxEntriesByID {
		return nil, wrapErr(op, lore.Reject("ids", i18n.TooManyIDs, lore.Params{"count": len(ids), "max": lore.MaxEntriesByID}))
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, entriesByID, server, ids)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	defer rows.Close()
	byID := make(map[int64]lore.Entry, len(ids))
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, wrapErr(op, err)
		}
		byID[e.ID] = e
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(op, err)
	}
	out := make([]lore.Entry, 0, len(byID))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
			delete(byID, id)
		}
	}
	return out, nil
}
