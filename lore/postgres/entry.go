package postgres

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"loregate/lore"
	"loregate/lore/i18n"
)

// entryRow receives the columns of entryColumns, in order. Every field is
// nullable because the per-turn read's LEFT JOIN yields an all-NULL entry
// for a server whose scope is empty; value types (pgtype) keep the scan
// from allocating a pointer per column.
type entryRow struct {
	id, lineage                              pgtype.Int8
	server, title, content, logic, placement pgtype.Text
	role, collection                         pgtype.Text
	keys, secondary, channels, tags          []string
	constant, enabled                        pgtype.Bool
	caseSensitive, wholeWords                pgtype.Bool
	ignoreBudget                             pgtype.Bool
	scanDepth, probability, order, priority  pgtype.Int4
	extensions                               []byte
	created, updated                         pgtype.Timestamptz
	group                                    pgtype.Text
	groupOverride, excludeRec, preventRec    pgtype.Bool
	useGroupScoring                          pgtype.Bool
	groupWeight, delayRec                    pgtype.Int4
	sticky, cooldown, delay                  pgtype.Int4
	vectorized                               pgtype.Bool
	position, outlet                         pgtype.Text
	depth                                    pgtype.Int4
	match                                    [6]pgtype.Bool
	charNames, charTags, genTypes            []string
	charExclude                              pgtype.Bool
	category                                 pgtype.Int8
	note                                     pgtype.Text
}

// dests returns the scan destinations in entryColumns order.
func (r *entryRow) dests() []any {
	return []any{&r.id, &r.server, &r.lineage, &r.collection, &r.title, &r.content,
		&r.keys, &r.secondary, &r.logic, &r.constant, &r.enabled, &r.scanDepth, &r.probability,
		&r.order, &r.priority, &r.placement, &r.role, &r.caseSensitive, &r.wholeWords, &r.ignoreBudget,
		&r.channels, &r.extensions, &r.created, &r.updated,
		&r.group, &r.groupOverride, &r.groupWeight, &r.useGroupScoring, &r.excludeRec,
		&r.preventRec, &r.delayRec, &r.sticky, &r.cooldown, &r.delay, &r.vectorized,
		&r.position, &r.depth, &r.outlet, &r.match[0], &r.match[1], &r.match[2], &r.match[3], &r.match[4], &r.match[5],
		&r.charNames, &r.charTags, &r.charExclude, &r.genTypes, &r.category, &r.note, &r.tags}
}

// optBool is a nullable boolean column as lore's *bool (nil for NULL).
func optBool(b pgtype.Bool) *bool {
	if !b.Valid {
		return nil
	}
	v := b.Bool
	return &v
}

// entry converts a scanned row; ok is false for the all-NULL row.
func (r *entryRow) entry() (e lore.Entry, ok bool, err error) {
	if !r.id.Valid {
		return lore.Entry{}, false, nil
	}
	e = lore.Entry{
		ID: r.id.Int64, Server: r.server.String, Title: r.title.String, Content: r.content.String,
		Keys: nilIfEmpty(r.keys), SecondaryKeys: nilIfEmpty(r.secondary),
		Logic: lore.SelectiveLogic(r.logic.String), Constant: r.constant.Bool, Enabled: r.enabled.Bool,
		Probability: int(r.probability.Int32), Order: int(r.order.Int32), Priority: int(r.priority.Int32),
		Placement: lore.Placement(r.placement.String), Role: lore.Role(r.role.String),
		CaseSensitive: optBool(r.caseSensitive), WholeWords: optBool(r.wholeWords), IgnoreBudget: r.ignoreBudget.Bool,
		ChannelIDs: nilIfEmpty(r.channels), LegacyChannelTags: nilIfEmpty(r.tags),
		CreatedAt: r.created.Time, UpdatedAt: r.updated.Time,
		Group: r.group.String, GroupOverride: r.groupOverride.Bool, GroupWeight: int(r.groupWeight.Int32),
		UseGroupScoring: optBool(r.useGroupScoring), ExcludeRecursion: r.excludeRec.Bool, PreventRecursion: r.preventRec.Bool,
		DelayUntilRecursion: int(r.delayRec.Int32), Sticky: int(r.sticky.Int32), Cooldown: int(r.cooldown.Int32), Delay: int(r.delay.Int32),
		Vectorized: r.vectorized.Bool, CategoryID: r.category.Int64, Note: r.note.String,
	}
	e.Position, e.Depth, e.Outlet = lore.PositionKind(r.position.String), int(r.depth.Int32), r.outlet.String
	e.Match = lore.MatchSources{CharacterDescription: r.match[0].Bool, CharacterPersonality: r.match[1].Bool,
		Scenario: r.match[2].Bool, CreatorNotes: r.match[3].Bool, CharacterDepthPrompt: r.match[4].Bool, PersonaDescription: r.match[5].Bool}
	e.CharacterFilter = lore.CharacterFilter{Names: nilIfEmpty(r.charNames), Tags: nilIfEmpty(r.charTags), Exclude: r.charExclude.Bool}
	for _, g := range r.genTypes {
		e.GenerationTypes = append(e.GenerationTypes, lore.GenerationType(g))
	}
	e.Lineage = lore.Lineage(r.lineage.Int64) // NULL: Serverwide (0)
	e.Collection = r.collection.String
	if r.scanDepth.Valid {
		d := int(r.scanDepth.Int32)
		e.ScanDepth = &d
	}
	if len(r.extensions) > 0 && string(r.extensions) != "{}" {
		// jsonb prints with spaces after ':' and ','; compacted first, the
		// values read like the compact JSON importers produce.
		var buf bytes.Buffer
		if err := json.Compact(&buf, r.extensions); err != nil {
			return lore.Entry{}, false, fmt.Errorf("decode extensions of entry %d: %w", e.ID, err)
		}
		if err := json.Unmarshal(buf.Bytes(), &e.Extensions); err != nil {
			return lore.Entry{}, false, fmt.Errorf("decode extensions of entry %d: %w", e.ID, err)
		}
	}
	return e, true, nil
}

// scanEntry scans one row of entryColumns.
func scanEntry(row pgx.Row) (lore.Entry, error) {
	var r entryRow
	if err := row.Scan(r.dests()...); err != nil {
		return lore.Entry{}, err
	}
	e, _, err := r.entry()
	return e, err
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// prepareEntry normalizes e for storage (defaults for the zero logic and
// role) and validates it with lore's rules; the server must be a snowflake.
func (s *Store) prepareEntry(e lore.Entry) (lore.Entry, error) {
	if err := checkServerID(e.Server); err != nil {
		return e, err
	}
	if e.Logic == "" {
		e.Logic = lore.AndAny
	}
	if e.Role == "" {
		e.Role = lore.RoleSystem
	}
	e.NormalizePosition()
	return e, e.ValidateWith(s.lim)
}

// entryArgs returns the parameters $4..$47 of entryInsert/entryUpdate.
func entryArgs(e lore.Entry) ([]any, error) {
	ext := []byte("{}")
	if len(e.Extensions) > 0 {
		var err error
		if ext, err = json.Marshal(e.Extensions); err != nil {
			return nil, lore.Reject("extensions", i18n.NotJSON, nil)
		}
	}
	m := e.Match
	genTypes := make([]string, len(e.GenerationTypes))
	for i, g := range e.GenerationTypes {
		genTypes[i] = string(g)
	}
	var scanDepth *int32
	if e.ScanDepth != nil {
		d := int32(*e.ScanDepth)
		scanDepth = &d
	}
	return []any{e.Title, e.Content, emptyIfNil(e.Keys), emptyIfNil(e.SecondaryKeys), string(e.Logic),
		e.Constant, e.Enabled, scanDepth, int32(e.Probability), int32(e.Order), int32(e.Priority),
		string(e.Placement), string(e.Role), e.CaseSensitive, e.WholeWords, emptyIfNil(e.ChannelIDs), ext, e.IgnoreBudget,
		e.Group, e.GroupOverride, int32(e.GroupWeight), e.UseGroupScoring, e.ExcludeRecursion, e.PreventRecursion,
		int32(e.DelayUntilRecursion), int32(e.Sticky), int32(e.Cooldown), int32(e.Delay), e.Vectorized,
		string(e.PositionKindOrDerived()), int32(e.Depth), e.Outlet, m.CharacterDescription, m.CharacterPersonality,
		m.Scenario, m.CreatorNotes, m.CharacterDepthPrompt, m.PersonaDescription,
		emptyIfNil(e.CharacterFilter.Names), emptyIfNil(e.CharacterFilter.Tags), e.CharacterFilter.Exclude, genTypes,
		categoryParam(e.CategoryID), e.Note}, nil
}

// categoryParam is a category id as a parameter: NULL for none (0).
func categoryParam(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// insertEntriesTx inserts prepared entries and their legacy tags in one
// statement each (entryInsertMany: one statement, so the revision trigger
// of migration 000072 runs once for the whole batch), filling ids and
// timestamps. An entry whose CreatedAt is set keeps it as its creation
// time (no later than now); otherwise it is now. The caller holds the
// server lock and has checked capacity.
func insertEntriesTx(ctx context.Context, tx pgx.Tx, entries []lore.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	raw, err := entriesJSON(entries, time.Now())
	if err != nil {
		return err
	}
	type inserted struct {
		id               int64
		created, updated time.Time
	}
	got := make([]inserted, 0, len(entries))
	rs, err := tx.Query(ctx, entryInsertMany, raw)
	if err != nil {
		return err
	}
	for rs.Next() {
		var r inserted
		if err := rs.Scan(&r.id, &r.created, &r.updated); err != nil {
			rs.Close()
			return err
		}
		got = append(got, r)
	}
	if err := rs.Err(); err != nil {
		return err
	}
	if len(got) != len(entries) {
		return fmt.Errorf("insert entries: %d rows inserted for %d entries", len(got), len(entries))
	}
	// The ids come from one identity sequence in the order the rows were
	// inserted (ordinality), so ascending ids are the entries in order.
	slices.SortFunc(got, func(a, b inserted) int { return cmp.Compare(a.id, b.id) })
	for i := range entries {
		entries[i].ID, entries[i].CreatedAt, entries[i].UpdatedAt = got[i].id, got[i].created, got[i].updated
	}
	tags := &pgx.Batch{}
	for _, e := range entries {
		if len(e.LegacyChannelTags) > 0 {
			tags.Queue(tagInsert, e.ID, e.LegacyChannelTags)
		}
	}
	if tags.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, tags).Close()
}

// entriesJSON encodes entries as entryInsertMany's $1: a JSON array of
// objects keyed by column, the keys in one fixed order (written directly:
// encoding a map per row sorted its keys, most of a large insert's time).
// An entry's CreatedAt before now is kept; otherwise the key is null (now).
func entriesJSON(entries []lore.Entry, now time.Time) ([]byte, error) {
	out := make([]byte, 0, len(entries)*2048)
	out = append(out, '[')
	for i := range entries {
		e := &entries[i]
		args, err := entryArgs(*e)
		if err != nil {
			return nil, lore.WithFieldPrefix(fmt.Sprintf("entries[%d]", i), err)
		}
		var collection, created any
		if e.Lineage.IsServerwide() {
			collection = e.Collection
		}
		if !e.CreatedAt.IsZero() && e.CreatedAt.Before(now) {
			created = e.CreatedAt
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"server_id":`...)
		out = appendJSONString(out, e.Server)
		keys := [...]string{`,"lineage_id":`, `,"lorebook_name":`, `,"created_at":`}
		for j, v := range []any{lineageParam(e.Lineage), collection, created} {
			if out, err = appendJSONValue(append(out, keys[j]...), v); err != nil {
				return nil, fmt.Errorf("encode entries[%d]: %w", i, err)
			}
		}
		for j, col := range entryInsertColumns {
			out = append(append(append(append(out, ',', '"'), col...), '"'), ':')
			if out, err = appendJSONValue(out, args[j]); err != nil {
				return nil, fmt.Errorf("encode entries[%d].%s: %w", i, col, err)
			}
		}
		out = append(out, '}')
	}
	return append(out, ']'), nil
}

// appendJSONValue appends v, a value of entryArgs, as JSON: the types
// entryArgs makes directly, anything else through encoding/json. A []byte
// is JSON already (the extensions).
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendJSONString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case *bool:
		if x == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendBool(b, *x), nil
	case *int32:
		if x == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, int64(*x), 10), nil
	case *int64:
		if x == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, *x, 10), nil
	case []byte:
		return append(b, x...), nil
	case []string:
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']'), nil
	}
	raw, err := json.Marshal(v)
	return append(b, raw...), err
}

// appendJSONString appends s as a JSON string: between quotes as it is
// when it needs no escape (no quote, backslash or control character, valid
// UTF-8), else as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != '"' && s[i] != '\\'
	}
	if !plain {
		raw, _ := json.Marshal(s) // a string always encodes
		return append(b, raw...)
	}
	return append(append(append(b, '"'), s...), '"')
}

// sortedTags returns the tags as stored: a set, ordered by name.
func sortedTags(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	out := slices.Clone(tags)
	slices.Sort(out)
	return slices.Compact(out)
}

// countScopeTx counts the entries of one scope (all Serverwide collections
// together, or one lineage).
func countScopeTx(ctx context.Context, tx pgx.Tx, server string, lineage lore.Lineage) (int, error) {
	var n int
	var err error
	if lineage.IsServerwide() {
		err = tx.QueryRow(ctx, entryCountServerwide, server).Scan(&n)
	} else {
		err = tx.QueryRow(ctx, entryCountLineage, server, int64(lineage)).Scan(&n)
	}
	return n, err
}

// checkCapacity returns a *lore.ScopeFullError when existing + adding
// exceeds the store's scope limit.
func (s *Store) checkCapacity(server string, lineage lore.Lineage, existing, adding int) error {
	if existing+adding > s.lim.ScopeEntries {
		return &lore.ScopeFullError{Server: server, Lineage: lineage, Limit: s.lim.ScopeEntries, Existing: existing, Adding: adding}
	}
	return nil
}

// InsertEntry stores a new entry in the scope e.Server/e.Lineage (and, for
// Serverwide, the existing collection e.Collection). e is validated with
// Entry.Validate (ErrInvalid naming the field); under the server lock a
// full scope (lore.MaxEntriesPerScope entries) is ErrScopeFull; an unknown
// server or collection is ErrNotFound. e.ID is ignored; the stored entry is
// returned with its id and timestamps.
func (s *Store) InsertEntry(ctx context.Context, e lore.Entry) (lore.Entry, error) {
	const op = "insert entry"
	e, err := s.prepareEntry(e)
	if err != nil {
		return lore.Entry{}, wrapErr(op, err)
	}
	e.ID = 0
	e.LegacyChannelTags = sortedTags(e.LegacyChannelTags)
	err = s.write(ctx, op, e.Server, func(tx pgx.Tx) error {
		n, err := countScopeTx(ctx, tx, e.Server, e.Lineage)
		if err != nil {
			return err
		}
		if err := s.checkCapacity(e.Server, e.Lineage, n, 1); err != nil {
			return err
		}
		if e.Lineage.IsServerwide() {
			if err := requireCollectionTx(ctx, tx, e.Server, e.Collection); err != nil {
				return err
			}
		}
		if err := checkEntryCategoryTx(ctx, tx, e); err != nil {
			return err
		}
		one := []lore.Entry{e}
		if err := insertEntriesTx(ctx, tx, one); err != nil {
			return err
		}
		e = one[0]
		return nil
	})
	if err != nil {
		return lore.Entry{}, err
	}
	return e, nil
}

// requireCollectionTx returns ErrNotFound when the collection does not
// exist (a clearer error than the foreign key's).
func requireCollectionTx(ctx context.Context, tx pgx.Tx, server, name string) error {
	var ok bool
	if err := tx.QueryRow(ctx, lorebookExists, server, name).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("collection name", name)
	}
	return nil
}

// UpdateEntry applies p to the entry addressed by (server, lineage, id);
// nil fields of p keep the stored values, and the scope never changes. The
// result is validated like an insert. When the entry is a part of a split
// group (lore.KeySplit), every field of p but Content is applied to all
// parts of the group: keys and settings are the group's. When p.ChannelIDs is set and differs
// from the stored channel ids as a set, the entry's pending legacy channel
// names are cleared (the member chose channels deliberately); an equal set
// keeps them. ErrNotFound when the entry is not in that scope of that
// server; a *lore.StaleError (ErrStaleTarget) when p.ExpectedUpdatedAt is
// set and differs from the entry's UpdatedAt under the lock (the split
// siblings' times are not compared: they follow the addressed part).
func (s *Store) UpdateEntry(ctx context.Context, server string, lineage lore.Lineage, id int64, p lore.EntryPatch) (lore.Entry, error) {
	const op = "update entry"
	if err := checkLineage(lineage); err != nil {
		return lore.Entry{}, wrapErr(op, err)
	}
	var out lore.Entry
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		cur, err := scanEntry(tx.QueryRow(ctx, entryGetForUpdate, server, lineageParam(lineage), id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("entry", id)
		}
		if err != nil {
			return err
		}
		if err := lore.CheckUpdatedAt(fmt.Sprintf("entry %d", id), p.ExpectedUpdatedAt, cur.UpdatedAt); err != nil {
			return err
		}
		next, clearTags := applyPatch(cur, p)
		if next, err = s.prepareEntry(next); err != nil {
			return err
		}
		if next.CategoryID != cur.CategoryID {
			if err := checkEntryCategoryTx(ctx, tx, next); err != nil {
				return err
			}
		}
		args, err := entryArgs(next)
		if err != nil {
			return err
		}
		args = append([]any{server, lineageParam(lineage), id}, args...)
		if err := tx.QueryRow(ctx, entryUpdate, args...).Scan(&next.UpdatedAt); err != nil {
			return err
		}
		if clearTags && len(cur.LegacyChannelTags) > 0 {
			if _, err := tx.Exec(ctx, tagClear, id); err != nil {
				return err
			}
			next.LegacyChannelTags = nil
		}
		out = next
		group := p
		group.Content = nil
		return s.forSplitSiblingsTx(ctx, tx, server, lineage, id, func(sid int64) error {
			sib, err := scanEntry(tx.QueryRow(ctx, entryGet, server, lineageParam(lineage), sid))
			if err != nil {
				return err
			}
			snext, clear := applyPatch(sib, group)
			if snext, err = s.prepareEntry(snext); err != nil {
				return err
			}
			args, err := entryArgs(snext)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, entryUpdate, append([]any{server, lineageParam(lineage), sid}, args...)...); err != nil {
				return err
			}
			if clear && len(sib.LegacyChannelTags) > 0 {
				_, err = tx.Exec(ctx, tagClear, sid)
			}
			return err
		})
	})
	return out, err
}

// forSplitSiblingsTx calls fn with the id of every other part of the split
// group of the addressed entry (none when it is not a part), locking them
// first. The caller holds the server lock.
func (s *Store) forSplitSiblingsTx(ctx context.Context, tx pgx.Tx, server string, lineage lore.Lineage, id int64, fn func(id int64) error) error {
	rows, err := tx.Query(ctx, entrySplitSiblings, server, lineageParam(lineage), id)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	for _, sid := range ids {
		if err := fn(sid); err != nil {
			return err
		}
	}
	return nil
}

// applyPatch returns cur with p applied and whether the channel selection
// changed (which clears pending legacy channel names).
func applyPatch(cur lore.Entry, p lore.EntryPatch) (lore.Entry, bool) {
	next := cur.Clone()
	setIf(&next.Title, p.Title)
	setIf(&next.Content, p.Content)
	if p.Keys != nil {
		next.Keys = slices.Clone(*p.Keys)
	}
	if p.SecondaryKeys != nil {
		next.SecondaryKeys = slices.Clone(*p.SecondaryKeys)
	}
	setIf(&next.Logic, p.Logic)
	setIf(&next.Constant, p.Constant)
	setIf(&next.Enabled, p.Enabled)
	setIf(&next.ScanDepth, p.ScanDepth)
	setIf(&next.Probability, p.Probability)
	if p.Order != nil && p.Priority == nil && cur.PriorityFollowsOrder() {
		next.Priority = *p.Order // the priority follows the order (lore.KeyPriorityFromOrder)
	}
	setIf(&next.Order, p.Order)
	setIf(&next.Priority, p.Priority)
	setIf(&next.Placement, p.Placement)
	setIf(&next.Role, p.Role)
	setIf(&next.CaseSensitive, p.CaseSensitive)
	setIf(&next.WholeWords, p.WholeWords)
	setIf(&next.IgnoreBudget, p.IgnoreBudget)
	setIf(&next.Vectorized, p.Vectorized)
	setIf(&next.CategoryID, p.CategoryID)
	setIf(&next.Note, p.Note)
	setIf(&next.Group, p.Group)
	setIf(&next.GroupOverride, p.GroupOverride)
	setIf(&next.GroupWeight, p.GroupWeight)
	setIf(&next.UseGroupScoring, p.UseGroupScoring)
	setIf(&next.ExcludeRecursion, p.ExcludeRecursion)
	setIf(&next.PreventRecursion, p.PreventRecursion)
	setIf(&next.DelayUntilRecursion, p.DelayUntilRecursion)
	setIf(&next.Sticky, p.Sticky)
	setIf(&next.Cooldown, p.Cooldown)
	setIf(&next.Delay, p.Delay)
	applyPositionPatch(&next, cur, p)
	changed := false
	if p.ChannelIDs != nil {
		changed = !sameSet(cur.ChannelIDs, *p.ChannelIDs)
		next.ChannelIDs = nilIfEmpty(slices.Clone(*p.ChannelIDs))
	}
	return next, changed
}

// applyPositionPatch applies the position fields of p to next (cur is the
// stored entry): Position sets the kind (and, without Placement, the
// derived placement); Placement alone sets BEFORE_CHAR or AFTER_CHAR when
// it changes cur's placement. Position and Placement that disagree are
// left for validation to refuse (field "position").
func applyPositionPatch(next *lore.Entry, cur lore.Entry, p lore.EntryPatch) {
	switch {
	case p.Position != nil:
		next.Position = *p.Position
		if p.Placement == nil {
			next.Placement = next.Position.Placement()
		}
	case p.Placement != nil && *p.Placement != cur.PositionKindOrDerived().Placement():
		next.Position = lore.PositionAfterChar
		if *p.Placement == lore.Before {
			next.Position = lore.PositionBeforeChar
		}
	}
	setIf(&next.Depth, p.Depth)
	setIf(&next.Outlet, p.Outlet)
	next.Match = p.Match.Apply(next.Match)
	next.CharacterFilter = p.CharacterFilter.Apply(next.CharacterFilter)
	if p.GenerationTypes != nil {
		next.GenerationTypes = slices.Clone(*p.GenerationTypes)
		if len(next.GenerationTypes) == 0 {
			next.GenerationTypes = nil
		}
	}
}

// setIf stores *v in dst when the patch field v is set.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// sameSet reports whether a and b hold the same strings, ignoring order and
// repetition.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// DeleteEntry removes the entry addressed by (server, lineage, id) and its
// pending legacy channel names; a part of a split group removes the whole
// group (one entry to the engine and in exports). ErrNotFound when it is not
// in that scope.
func (s *Store) DeleteEntry(ctx context.Context, server string, lineage lore.Lineage, id int64) error {
	const op = "delete entry"
	if err := checkLineage(lineage); err != nil {
		return wrapErr(op, err)
	}
	return s.write(ctx, op, server, func(tx pgx.Tx) error {
		err := s.forSplitSiblingsTx(ctx, tx, server, lineage, id, func(sid int64) error {
			_, err := tx.Exec(ctx, entryDelete, server, lineageParam(lineage), sid)
			return err
		})
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, entryDelete, server, lineageParam(lineage), id)
		if err == nil && tag.RowsAffected() == 0 {
			err = notFound("entry", id)
		}
		return err
	})
}

// SetEntryEnabled sets the entry's own enabled flag (every part's, for a
// part of a split group) and returns the entry. ErrNotFound when it is not
// in that scope.
func (s *Store) SetEntryEnabled(ctx context.Context, server string, lineage lore.Lineage, id int64, enabled bool) (lore.Entry, error) {
	const op = "set entry enabled"
	if err := checkLineage(lineage); err != nil {
		return lore.Entry{}, wrapErr(op, err)
	}
	var out lore.Entry
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, entrySetEnabled, server, lineageParam(lineage), id, enabled)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("entry", id)
		}
		err = s.forSplitSiblingsTx(ctx, tx, server, lineage, id, func(sid int64) error {
			_, err := tx.Exec(ctx, entrySetEnabled, server, lineageParam(lineage), sid, enabled)
			return err
		})
		if err != nil {
			return err
		}
		out, err = scanEntry(tx.QueryRow(ctx, entryGet, server, lineageParam(lineage), id))
		return err
	})
	return out, err
}

// GetEntry returns the entry addressed by (server, lineage, id) with its
// pending legacy channel names. ErrNotFound when it is not in that scope.
func (s *Store) GetEntry(ctx context.Context, server string, lineage lore.Lineage, id int64) (lore.Entry, error) {
	const op = "get entry"
	if err := checkServerID(server); err != nil {
		return lore.Entry{}, wrapErr(op, err)
	}
	if err := checkLineage(lineage); err != nil {
		return lore.Entry{}, wrapErr(op, err)
	}
	e, err := scanEntry(s.db.QueryRow(ctx, entryGet, server, lineageParam(lineage), id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("entry", id)
	}
	return e, wrapErr(op, err)
}
