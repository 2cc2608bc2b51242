package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"loregate/lore"
	"loregate/lore/i18n"
)

// entrySortKey is how one lore.EntryOrderField sorts: expr orders the rows,
// key renders a row's position as text (EntryPosition.Key) and cast turns
// that text back into expr's type for the keyset comparison. Every SQL
// fragment of a listing comes from this table or from constants; user input
// only ever travels as a parameter.
type entrySortKey struct{ expr, key, cast string }

var entrySortKeys = map[lore.EntryOrderField]entrySortKey{
	lore.OrderTitle:          {"lower(e.title)", "lower(e.title)", "text"},
	lore.OrderInsertionOrder: {"e.insertion_order", "e.insertion_order::text", "integer"},
	lore.OrderPriority:       {"e.priority", "e.priority::text", "integer"},
	lore.OrderUpdatedAt:      {"e.updated_at", utcText("e.updated_at"), "timestamptz"},
	lore.OrderCreatedAt:      {"e.created_at", utcText("e.created_at"), "timestamptz"},
}

// utcText renders a timestamptz as ISO 8601 in UTC with microseconds, which
// casts back exactly whatever the session's DateStyle and TimeZone.
func utcText(col string) string {
	return `to_char(` + col + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
}

// likeContains returns a LIKE pattern matching s anywhere, with LIKE's
// wildcards and the escape character in s escaped (ESCAPE '\').
func likeContains(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// sqlArgs numbers query parameters as they are added.
type sqlArgs []any

func (a *sqlArgs) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// ListEntries returns one page of one book's entries (lore.EntryQuery):
// one statement filtered by scope (lorebook_entries_scope_idx and
// lorebook_entries_lorebook_idx), the enabled flag and the search (ILIKE
// on the title, content and each key, the search escaped), ordered by the
// sort key then id, continued after q.After by a row comparison, and
// limited to q.Limit+1 rows (the extra row only says HasMore); a second
// count(*) statement with the same filters when q.Count. The work is bounded
// by the scope's size (the deployment's scope limit) and the page size.
func (s *Store) ListEntries(ctx context.Context, q lore.EntryQuery) (lore.EntryPage, error) {
	const op = "list entries"
	page := lore.EntryPage{Total: -1}
	if err := checkServerID(q.Server); err != nil {
		return page, wrapErr(op, err)
	}
	if err := checkLineage(q.Lineage); err != nil {
		return page, wrapErr(op, err)
	}
	if err := q.Validate(); err != nil {
		return page, wrapErr(op, err)
	}
	if q.Lineage.IsServerwide() == (q.Collection == "") {
		return page, wrapErr(op, lore.Reject("collection", i18n.ListingCollection, nil))
	}
	sk := entrySortKeys[q.Order.Field]
	var args sqlArgs
	where := "e.server_id = " + args.add(q.Server)
	if q.Lineage.IsServerwide() {
		where += " AND e.lineage_id IS NULL AND e.lorebook_name = " + args.add(q.Collection)
	} else {
		where += " AND e.lineage_id = " + args.add(int64(q.Lineage))
	}
	if q.EnabledOnly {
		where += " AND e.enabled"
	}
	if q.Search != "" {
		p := args.add(likeContains(q.Search))
		where += fmt.Sprintf(` AND (e.title ILIKE %[1]s ESCAPE '\' OR e.content ILIKE %[1]s ESCAPE '\'
    OR EXISTS (SELECT 1 FROM unnest(e.keys || e.secondary_keys) k WHERE k ILIKE %[1]s ESCAPE '\'))`, p)
	}
	filtered := where
	dir, cmp := "ASC", ">"
	if q.Order.Desc {
		dir, cmp = "DESC", "<"
	}
	if q.After != nil {
		where += fmt.Sprintf(" AND (%s, e.id) %s (%s::%s, %s::bigint)", sk.expr, cmp, args.add(q.After.Key), sk.cast, args.add(q.After.ID))
	}
	sql := fmt.Sprintf("SELECT %s, %s FROM lorebook_entries e WHERE %s ORDER BY %s %s, e.id %s LIMIT %s",
		entryColumns, sk.key, where, sk.expr, dir, dir, args.add(q.Limit+1))
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return page, wrapErr(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r entryRow
		var key string
		if err := rows.Scan(append(r.dests(), &key)...); err != nil {
			return page, wrapErr(op, err)
		}
		e, _, err := r.entry()
		if err != nil {
			return page, wrapErr(op, err)
		}
		if len(page.Entries) == q.Limit {
			page.HasMore = true
			break
		}
		page.Entries = append(page.Entries, e)
		page.Positions = append(page.Positions, lore.EntryPosition{Key: key, ID: e.ID})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return page, wrapErr(op, err)
	}
	if q.Count {
		n := len(args) - 1 // the LIMIT
		if q.After != nil {
			n -= 2 // the position
		}
		if err := s.db.QueryRow(ctx, "SELECT count(*) FROM lorebook_entries e WHERE "+filtered, args[:n]...).Scan(&page.Total); err != nil {
			return page, wrapErr(op, err)
		}
	}
	return page, nil
}

// serverList is one page of ServerQuery (keyset on name, id).
const serverList = `SELECT ` + serverColumns + ` FROM servers
WHERE ($1::bool OR id = ANY($2::text[])) AND ($4::text = '' OR (name, id::text) > ($3::text, $4::text))
ORDER BY name, id::text LIMIT $5`

const serverListCount = `SELECT count(*) FROM servers WHERE $1::bool OR id = ANY($2::text[])`

// maxListedServerIDs bounds ServerQuery.IDs (a member token's guilds;
// Discord caps a user's guilds at 200).
const maxListedServerIDs = 1000

// ListServers returns one page of servers by name, then id
// (lore.ServerQuery), and how many the restriction keeps. At most 1,000 ids
// are considered; ids that are not snowflakes are ignored.
func (s *Store) ListServers(ctx context.Context, q lore.ServerQuery) (lore.ServerPage, error) {
	const op = "list servers"
	var page lore.ServerPage
	if q.Limit < 1 {
		return page, wrapErr(op, lore.Reject("first", i18n.AtLeast, lore.Params{"min": 1}))
	}
	ids := make([]string, 0, min(len(q.IDs), maxListedServerIDs))
	for _, id := range q.IDs {
		if len(ids) == maxListedServerIDs {
			break
		}
		if lore.ValidSnowflake(id) {
			ids = append(ids, id)
		}
	}
	if !q.All && len(ids) == 0 {
		return page, nil
	}
	rows, err := s.db.Query(ctx, serverList, q.All, ids, q.AfterName, q.AfterID, q.Limit+1)
	if err != nil {
		return page, wrapErr(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		sv, err := scanServer(rows)
		if err != nil {
			return page, wrapErr(op, err)
		}
		if len(page.Servers) == q.Limit {
			page.HasMore = true
			break
		}
		page.Servers = append(page.Servers, sv)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return page, wrapErr(op, err)
	}
	err = s.db.QueryRow(ctx, serverListCount, q.All, ids).Scan(&page.Total)
	return page, wrapErr(op, err)
}
