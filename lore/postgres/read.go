package postgres

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// LoadEnabledForScope is the per-turn read: in one indexed statement it
// returns the server (settings, lore version), the enabled entries of the
// enabled Serverwide collections, the enabled entries of lineage (none for
// lore.Serverwide) in insertion order (ties by id), and the collections
// those Serverwide entries belong to with their channel ids and book
// settings, and the lineage's persona book settings; for a persona
// lineage a second statement reads its card character
// (Snapshot.Character). A disabled
// collection hides its entries without changing their flags.
//
// On any failure it returns an empty snapshot (Server.ID and Lineage set)
// and the error; runtime callers log it and carry on with no lore. An
// unknown server is ErrNotFound, a database failure ErrUnavailable.
func (s *Store) LoadEnabledForScope(ctx context.Context, server string, lineage lore.Lineage) (lore.Snapshot, error) {
	const op = "load enabled for scope"
	empty := lore.Snapshot{Server: lore.Server{ID: server}, Lineage: lineage}
	if err := checkServerID(server); err != nil {
		return empty, wrapErr(op, err)
	}
	if err := checkLineage(lineage); err != nil {
		return empty, wrapErr(op, err)
	}
	rows, err := s.db.Query(ctx, entryLoadEnabled, server, lineageParam(lineage))
	if err != nil {
		return empty, wrapErr(op, err)
	}
	defer rows.Close()
	snap := lore.Snapshot{Server: lore.Server{ID: server}, Lineage: lineage, Collections: map[string]lore.Collection{}}
	found := false
	sv := &snap.Server
	var (
		bookID       *int64
		bookChannels []string
		bookCreated  *time.Time
		bookUpdated  *time.Time
		unit, tok    string
		limit        int32
		persona      bookSettingsRow
		book         bookSettingsRow
	)
	// The server's row (its name is never NULL) has the server's and the
	// persona book's columns; an entry row repeats its collection's, decoded
	// from the collection's first row only (nil destinations skip a column).
	head := []any{&sv.Name, &sv.Settings.ChannelScoping, &sv.Settings.MemoryTagging,
		&sv.Settings.RegexKeys, &unit, &limit, &tok, &sv.LoreVersion, &sv.Settings.Semantic}
	head = append(head, selectionDests(&sv.Settings.Selection)...)
	head = append(head, persona.dests()...)
	bookCols := append([]any{&bookID, &bookChannels, &bookCreated, &bookUpdated}, book.dests()...)
	skip := make([]any, max(len(head), len(bookCols)))
	seenBooks := map[string]bool{}
	dest := make([]any, 0, len(head)+len(bookCols)+64)
	for rows.Next() {
		var r entryRow
		isServer := rows.RawValues()[0] != nil
		dest = append(dest[:0], skip[:len(head)]...)
		if isServer {
			dest = append(dest[:0], head...)
		}
		rawBook := rows.RawValues()[len(head)]
		newBook := rawBook != nil && !seenBooks[string(rawBook)]
		if newBook {
			seenBooks[string(rawBook)] = true
			dest = append(dest, bookCols...)
		} else {
			dest = append(dest, skip[:len(bookCols)]...)
		}
		if err := rows.Scan(append(dest, r.dests()...)...); err != nil {
			return empty, wrapErr(op, err)
		}
		if isServer {
			sv.Settings.BudgetUnit, sv.Settings.BudgetLimit, sv.Settings.Tokenizer = lore.BudgetUnit(unit), int(limit), lore.TokenizerName(tok)
			snap.PersonaBook = persona.settings()
			found = true
			continue
		}
		e, _, err := r.entry()
		if err != nil {
			return empty, wrapErr(op, err)
		}
		if newBook {
			snap.Collections[e.Collection] = lore.Collection{
				ID: *bookID, Server: server, Name: e.Collection, Enabled: true,
				ChannelIDs: nilIfEmpty(bookChannels), Settings: book.settings(), CreatedAt: *bookCreated, UpdatedAt: *bookUpdated,
			}
		}
		snap.Entries = append(snap.Entries, e)
	}
	if err := rows.Err(); err != nil {
		return empty, wrapErr(op, err)
	}
	if !found {
		return empty, wrapErr(op, notFound("server", server))
	}
	sortByInsertion(snap.Entries)
	// The engine sees a split group as one entry (docs/formats.md "Long
	// entries").
	snap.Entries = lore.JoinSplit(snap.Entries)
	if !lineage.IsServerwide() {
		var known bool
		if snap.Character, known, err = lineageRead(ctx, s.db, server, lineage); err != nil {
			return empty, wrapErr(op, err)
		}
		snap.UnknownLineage = !known
	}
	return snap, nil
}

// ListScope returns exactly one scope, disabled entries included, in
// insertion order (ties by id). For lore.Serverwide, collection "" lists
// every collection's entries and a name lists that collection's
// (ErrNotFound when the server has no such collection); a persona lineage
// takes no collection name (ErrInvalid). Entries carry their pending
// LegacyChannelTags. An unknown server or empty scope is an empty list; a
// database failure wraps ErrUnavailable (the panel shows "unavailable",
// never an empty scope).
func (s *Store) ListScope(ctx context.Context, server string, lineage lore.Lineage, collection string) ([]lore.Entry, error) {
	const op = "list scope"
	if err := checkServerID(server); err != nil {
		return nil, wrapErr(op, err)
	}
	if err := checkLineage(lineage); err != nil {
		return nil, wrapErr(op, err)
	}
	var (
		rows pgx.Rows
		err  error
	)
	switch {
	case !lineage.IsServerwide() && collection != "":
		return nil, wrapErr(op, lore.Reject("collection", i18n.PersonaBookNoCollection, nil))
	case !lineage.IsServerwide():
		rows, err = s.db.Query(ctx, entryListLineage, server, int64(lineage))
	case collection == "":
		rows, err = s.db.Query(ctx, entryListServerwide, server)
	default:
		rows, err = s.db.Query(ctx, entryListCollection, server, collection)
	}
	if err != nil {
		return nil, wrapErr(op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Entry, error) { return scanEntry(r) })
	if err != nil {
		return nil, wrapErr(op, err)
	}
	if len(out) == 0 && lineage.IsServerwide() && collection != "" {
		var ok bool
		if err := s.db.QueryRow(ctx, lorebookExists, server, collection).Scan(&ok); err != nil {
			return nil, wrapErr(op, err)
		}
		if !ok {
			return nil, wrapErr(op, notFound("collection name", collection))
		}
	}
	return out, nil
}

// CountByScope returns the number of entries (disabled included) of every
// scope of the server that has any, keyed by lineage; the Serverwide key
// (lore.Serverwide, the seed's NULL key) is always present, 0 when empty.
// On failure it returns nil and an error wrapping ErrUnavailable.
func (s *Store) CountByScope(ctx context.Context, server string) (lore.ScopeCounts, error) {
	const op = "count by scope"
	if err := checkServerID(server); err != nil {
		return nil, wrapErr(op, err)
	}
	rows, err := s.db.Query(ctx, entryCountByScope, server)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	counts := lore.ScopeCounts{lore.Serverwide: 0}
	var lineage *int64
	var n int
	_, err = pgx.ForEachRow(rows, []any{&lineage, &n}, func() error {
		if lineage == nil {
			counts[lore.Serverwide] = n
		} else {
			counts[lore.Lineage(*lineage)] = n
		}
		return nil
	})
	if err != nil {
		return nil, wrapErr(op, err)
	}
	return counts, nil
}

// sortByInsertion puts entries in insertion order, ties by id (the order
// of every scope read), in place. entryLoadEnabled leaves the sort to this:
// Postgres sorted the whole wide rows, 1,000 characters of content each, a
// tenth of its time in the per-turn read; here positions are sorted and
// each entry moves once.
func sortByInsertion(entries []lore.Entry) {
	pos := make([]int32, len(entries))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(a, b int32) int {
		x, y := &entries[a], &entries[b]
		return cmp.Or(cmp.Compare(x.Order, y.Order), cmp.Compare(x.ID, y.ID))
	})
	// entries[i] takes the entry at pos[i]: follow each cycle of the
	// permutation once, marking done positions with -1.
	for i := range pos {
		if pos[i] < 0 || int(pos[i]) == i {
			continue
		}
		held := entries[i]
		j := i
		for int(pos[j]) != i {
			next := int(pos[j])
			entries[j] = entries[next]
			pos[j] = -1
			j = next
		}
		entries[j] = held
		pos[j] = -1
	}
}
