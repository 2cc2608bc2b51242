package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// MaxBatchEntries bounds the entries of one batch write (imports, book
// replacements, backup scopes) at the default limits: four times
// lore.MaxEntriesPerScope (four times the store's scope limit when raised).
const MaxBatchEntries = 4 * lore.MaxEntriesPerScope

// prepareBatch returns validated copies of entries placed in one scope: the
// server and lineage are set; persona entries lose any collection name
// (docs/contract.md#scopes: persona writes ignore collection names); Serverwide entries
// get collection, or keep their own when collection is "" (an empty one
// becomes lore.DefaultCollection). The whole batch is checked before
// anything is written; the first failure is an *lore.InvalidError whose
// field starts with "entries[i]". Pending legacy tags are normalized to a
// sorted set, as they are stored.
func (s *Store) prepareBatch(server string, lineage lore.Lineage, collection string, entries []lore.Entry) ([]lore.Entry, error) {
	return s.prepareBatchAt(server, lineage, collection, entries, nil)
}

// prepareBatchAt is prepareBatch whose invalid entry i is named by its
// position in the caller's input, positions[i] (lore.ScopeReplacement.
// Positions), when positions has one for it.
func (s *Store) prepareBatchAt(server string, lineage lore.Lineage, collection string, entries []lore.Entry, positions []int) ([]lore.Entry, error) {
	// Bound the work an oversized batch causes before anything is copied or
	// validated. Append batches may shrink by deduplication, so the bound is
	// a multiple of the scope limit rather than the limit itself.
	if bound := max(MaxBatchEntries, 4*s.lim.ScopeEntries); len(entries) > bound {
		// Name the limit users meet (a scope's capacity), not this
		// internal bound.
		scope := s.lim.ScopeEntries
		if scope <= 0 {
			scope = lore.MaxEntriesPerScope
		}
		return nil, lore.Reject("entries", i18n.BatchOverScope, lore.Params{"count": len(entries), "max": scope})
	}
	out := make([]lore.Entry, len(entries))
	for i, in := range entries {
		e := in.Clone()
		e.ID, e.Server, e.Lineage = 0, server, lineage
		switch {
		case !lineage.IsServerwide():
			e.Collection = ""
		case collection != "":
			e.Collection = collection
		case e.Collection == "":
			e.Collection = lore.DefaultCollection
		}
		e.LegacyChannelTags = sortedTags(e.LegacyChannelTags)
		var err error
		if out[i], err = s.prepareEntry(e); err != nil {
			pos := i
			if i < len(positions) {
				pos = positions[i]
			}
			return nil, lore.WithFieldPrefix(fmt.Sprintf("entries[%d]", pos), err)
		}
	}
	return out, nil
}

// identitySetTx loads the duplicate identities (lore.DuplicateKey) of the
// book an Append writes into: the lineage, or the Serverwide collection.
func identitySetTx(ctx context.Context, tx pgx.Tx, server string, lineage lore.Lineage, collection string) (map[string]struct{}, error) {
	var rows pgx.Rows
	var err error
	if lineage.IsServerwide() {
		rows, err = tx.Query(ctx, entryIdentityCollection, server, collection)
	} else {
		rows, err = tx.Query(ctx, entryIdentityLineage, server, int64(lineage))
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]struct{}{}
	var e lore.Entry
	_, err = pgx.ForEachRow(rows, []any{&e.Title, &e.Content, &e.Keys, &e.SecondaryKeys}, func() error {
		seen[lore.DuplicateKey(e)] = struct{}{}
		return nil
	})
	return seen, err
}

// dedupe returns the entries whose duplicate identity is neither in seen nor
// held by an earlier entry of the batch, and how many were skipped. seen is
// extended.
func dedupe(seen map[string]struct{}, entries []lore.Entry) ([]lore.Entry, int) {
	out := make([]lore.Entry, 0, len(entries))
	for _, e := range entries {
		k := lore.DuplicateKey(e)
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		out = append(out, e)
	}
	return out, len(entries) - len(out)
}

// ReplacePersonaBook replaces the complete book of a persona lineage (> 0)
// with entries: the whole batch is validated first, then, under the server
// lock, the lineage's entries are deleted and the batch inserted in one
// transaction. An empty batch clears the lineage. More than
// lore.MaxEntriesPerScope entries is ErrScopeFull and changes nothing; any
// failure keeps the previous book. Collection names on entries are ignored.
// The result counts Added and Replaced (deleted) entries.
func (s *Store) ReplacePersonaBook(ctx context.Context, server string, lineage lore.Lineage, entries []lore.Entry) (lore.ImportResult, error) {
	return s.replacePersonaBook(ctx, server, lineage, entries, nil)
}

// replacePersonaBook is ReplacePersonaBook that also stores the book's
// settings when settings is non-nil.
func (s *Store) replacePersonaBook(ctx context.Context, server string, lineage lore.Lineage, entries []lore.Entry, settings *lore.BookSettings) (lore.ImportResult, error) {
	const op = "replace persona book"
	if lineage <= 0 {
		return lore.ImportResult{}, wrapErr(op, lore.Reject("lineage", i18n.NotPersonaLineage, nil))
	}
	if err := checkServerID(server); err != nil {
		return lore.ImportResult{}, wrapErr(op, err)
	}
	batch, err := s.prepareBatch(server, lineage, "", entries)
	if err != nil {
		return lore.ImportResult{}, wrapErr(op, err)
	}
	if err := s.checkCapacity(server, lineage, 0, len(batch)); err != nil {
		return lore.ImportResult{}, wrapErr(op, err)
	}
	var res lore.ImportResult
	err = s.write(ctx, op, server, func(tx pgx.Tx) error {
		var err error
		if res, err = replaceLineageTx(ctx, tx, server, lineage, batch); err != nil || settings == nil {
			return err
		}
		return setPersonaBookTx(ctx, tx, server, lineage, *settings)
	})
	if err != nil {
		return lore.ImportResult{}, err
	}
	return res, nil
}

func replaceLineageTx(ctx context.Context, tx pgx.Tx, server string, lineage lore.Lineage, batch []lore.Entry) (lore.ImportResult, error) {
	tag, err := tx.Exec(ctx, entryDeleteLineage, server, int64(lineage))
	if err != nil {
		return lore.ImportResult{}, err
	}
	if err := insertEntriesTx(ctx, tx, batch); err != nil {
		return lore.ImportResult{}, err
	}
	return lore.ImportResult{Added: len(batch), Replaced: int(tag.RowsAffected())}, nil
}

// ImportEntries writes an import batch into one existing book, in one
// transaction under the server lock, after validating the whole batch.
//
// Persona target (target.Lineage > 0; collection fields ignored): Append
// adds the entries that are not duplicates (lore.DuplicateKey against the
// lineage's entries and earlier entries of the batch) and counts the rest as
// Duplicates; Replace behaves as ReplacePersonaBook.
//
// Serverwide target: target.CollectionID and target.Collection are the
// collection the caller saw when preparing the import. Under the lock the
// collection with that id must still exist with that name; otherwise the
// import fails with ErrStaleTarget and nothing is written (a removed or
// renamed book is never recreated by a stale import). Append deduplicates
// against that collection's entries. Replace deletes only that collection's
// entries; the other collections stay intact and count against the shared
// Serverwide limit. The collection's enabled flag and channels are kept.
//
// A batch that would take the scope past lore.MaxEntriesPerScope is refused
// whole with ErrScopeFull. Result.Collection is the Serverwide target after
// the write, with its entry count.
//
// Book settings: with target.Settings non-nil, a Replace stores them as the
// book's settings (validated in the server's budget unit; invalid settings
// refuse the whole import); an Append keeps the book's own settings.
func (s *Store) ImportEntries(ctx context.Context, target lore.ImportTarget, mode lore.ImportMode, entries []lore.Entry) (lore.ImportResult, error) {
	const op = "import entries"
	server, lineage := target.Server, target.Lineage
	if err := checkServerID(server); err != nil {
		return lore.ImportResult{}, wrapErr(op, err)
	}
	if err := checkLineage(lineage); err != nil {
		return lore.ImportResult{}, wrapErr(op, err)
	}
	if mode != lore.Append && mode != lore.Replace {
		return lore.ImportResult{}, wrapErr(op, lore.Reject("mode", i18n.NotOneOf, lore.Params{"value": lore.ClipBytes(fmt.Sprint(mode), 40), "allowed": []string{"Append", "Replace"}}))
	}
	if !lineage.IsServerwide() {
		if mode == lore.Replace {
			return s.replacePersonaBook(ctx, server, lineage, entries, target.Settings)
		}
		target.CollectionID, target.Collection = 0, ""
	} else {
		if target.CollectionID <= 0 {
			return lore.ImportResult{}, wrapErr(op, lore.Reject("collectionId", i18n.CollectionRequired, nil))
		}
		if err := lore.ValidateCollectionName(target.Collection); err != nil {
			return lore.ImportResult{}, wrapErr(op, lore.WithFieldPrefix("target", err))
		}
	}
	batch, err := s.prepareBatch(server, lineage, target.Collection, entries)
	if err != nil {
		return lore.ImportResult{}, wrapErr(op, err)
	}
	if mode == lore.Replace {
		// Cheap early refusal; the locked check below is authoritative.
		if err := s.checkCapacity(server, lineage, 0, len(batch)); err != nil {
			return lore.ImportResult{}, wrapErr(op, err)
		}
	}
	var res lore.ImportResult
	err = s.write(ctx, op, server, func(tx pgx.Tx) error {
		res = lore.ImportResult{}
		if lineage.IsServerwide() {
			if err := checkTargetTx(ctx, tx, target); err != nil {
				return err
			}
		}
		if mode == lore.Append {
			seen, err := identitySetTx(ctx, tx, server, lineage, target.Collection)
			if err != nil {
				return err
			}
			add, dups := dedupe(seen, batch)
			n, err := countScopeTx(ctx, tx, server, lineage)
			if err != nil {
				return err
			}
			if err := s.checkCapacity(server, lineage, n, len(add)); err != nil {
				return err
			}
			if err := insertEntriesTx(ctx, tx, add); err != nil {
				return err
			}
			res.Added, res.Duplicates = len(add), dups
		} else {
			var others int
			if err := tx.QueryRow(ctx, entryCountServerwideOutside, server, target.Collection).Scan(&others); err != nil {
				return err
			}
			if err := s.checkCapacity(server, lineage, others, len(batch)); err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, entryDeleteCollection, server, target.Collection)
			if err != nil {
				return err
			}
			if err := insertEntriesTx(ctx, tx, batch); err != nil {
				return err
			}
			res.Added, res.Replaced = len(batch), int(tag.RowsAffected())
			if target.Settings != nil {
				if err := setCollectionBookTx(ctx, tx, server, target.Collection, *target.Settings); err != nil {
					return err
				}
			}
		}
		if lineage.IsServerwide() {
			c, err := scanCollection(tx.QueryRow(ctx, lorebookGet, server, target.CollectionID))
			if err != nil {
				return err
			}
			res.Collection = &c
		}
		return nil
	})
	if err != nil {
		return lore.ImportResult{}, err
	}
	return res, nil
}

// checkTargetTx re-reads the import target under the server lock: it must
// exist with the id and name the caller prepared against.
func checkTargetTx(ctx context.Context, tx pgx.Tx, target lore.ImportTarget) error {
	var name string
	err := tx.QueryRow(ctx, lorebookLockByID, target.Server, target.CollectionID).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("collection %d (%q) was removed: %w", target.CollectionID, target.Collection, lore.ErrStaleTarget)
	}
	if err != nil {
		return err
	}
	if name != target.Collection {
		return fmt.Errorf("collection %d was renamed from %q: %w", target.CollectionID, target.Collection, lore.ErrStaleTarget)
	}
	return nil
}

// CreateCollectionWithEntries creates collection c and its entries in one
// transaction under the server lock, so a failed or oversized import leaves
// no empty book. Entries are validated whole first and placed in c
// (collection names on them are overwritten); duplicates inside the batch
// (lore.DuplicateKey) are skipped and counted. A taken name is
// ErrDuplicateName; a batch that would take the Serverwide scope past
// lore.MaxEntriesPerScope is ErrScopeFull. The returned collection carries
// its entry count; the result's Collection points to the same value.
func (s *Store) CreateCollectionWithEntries(ctx context.Context, c lore.Collection, entries []lore.Entry) (lore.Collection, lore.ImportResult, error) {
	const op = "create collection with entries"
	if err := checkCollection(c); err != nil {
		return lore.Collection{}, lore.ImportResult{}, wrapErr(op, err)
	}
	batch, err := s.prepareBatch(c.Server, lore.Serverwide, c.Name, entries)
	if err != nil {
		return lore.Collection{}, lore.ImportResult{}, wrapErr(op, err)
	}
	add, dups := dedupe(map[string]struct{}{}, batch)
	var out lore.Collection
	err = s.write(ctx, op, c.Server, func(tx pgx.Tx) error {
		n, err := countScopeTx(ctx, tx, c.Server, lore.Serverwide)
		if err != nil {
			return err
		}
		if err := s.checkCapacity(c.Server, lore.Serverwide, n, len(add)); err != nil {
			return err
		}
		if out, err = createCollectionTx(ctx, tx, c); err != nil {
			return err
		}
		if err := insertEntriesTx(ctx, tx, add); err != nil {
			return err
		}
		out.EntryCount = len(add)
		return nil
	})
	if err != nil {
		return lore.Collection{}, lore.ImportResult{}, err
	}
	return out, lore.ImportResult{Added: len(add), Duplicates: dups, Collection: &out}, nil
}

// collectionSettings is what a whole-scope replacement restores per
// collection.
type collectionSettings struct {
	enabled  bool
	channels []string
}

// ReplaceScopes replaces complete scopes of a server in one transaction
// under the server lock (workspace backup import): each listed scope ends up
// holding exactly its entries, and scopes not listed are untouched. The
// whole input is validated first: every entry (ErrInvalid with
// "scopes[i].entries[j]..." fields, j the entry's position in the
// caller's input, ScopeReplacement.Positions), at most lore.MaxEntriesPerScope
// entries per scope (ErrScopeFull), each lineage listed once.
//
// Persona scopes ignore collection names and Collections. For the
// Serverwide scope, entries keep their collection names ("" means
// lore.DefaultCollection) and Collections carries collection settings
// (enabled, channel ids). A name may occur in Collections more than once
// (a backup decoder may emit one per entry), but all occurrences must agree
// on enabled and on the channel set, else ErrInvalid. A collection used by
// entries but absent from Collections is restored enabled with every
// channel. The Serverwide scope is replaced as a whole: collections are
// upserted by name (keeping their ids) with those settings, and collections
// that are neither used nor listed are deleted.
func (s *Store) ReplaceScopes(ctx context.Context, server string, scopes []lore.ScopeReplacement) error {
	const op = "replace scopes"
	if err := checkServerID(server); err != nil {
		return wrapErr(op, err)
	}
	type prepared struct {
		lineage     lore.Lineage
		entries     []lore.Entry
		collections map[string]collectionSettings
		names       []string
	}
	plan := make([]prepared, 0, len(scopes))
	seenLineage := map[lore.Lineage]bool{}
	for i, sc := range scopes {
		prefix := fmt.Sprintf("scopes[%d]", i)
		if err := checkLineage(sc.Lineage); err != nil {
			return wrapErr(op, lore.WithFieldPrefix(prefix, err))
		}
		if seenLineage[sc.Lineage] {
			return wrapErr(op, lore.Reject(prefix+".lineage", i18n.LineageListedTwice, lore.Params{"lineage": int64(sc.Lineage)}))
		}
		seenLineage[sc.Lineage] = true
		batch, err := s.prepareBatchAt(server, sc.Lineage, "", sc.Entries, sc.Positions)
		if err != nil {
			return wrapErr(op, lore.WithFieldPrefix(prefix, err))
		}
		if err := s.checkCapacity(server, sc.Lineage, 0, len(batch)); err != nil {
			return wrapErr(op, err)
		}
		p := prepared{lineage: sc.Lineage, entries: batch}
		if sc.Lineage.IsServerwide() {
			if p.collections, p.names, err = collectionPlan(prefix, sc.Collections, batch); err != nil {
				return wrapErr(op, err)
			}
		}
		plan = append(plan, p)
	}
	return s.write(ctx, op, server, func(tx pgx.Tx) error {
		for _, p := range plan {
			if !p.lineage.IsServerwide() {
				if _, err := replaceLineageTx(ctx, tx, server, p.lineage, p.entries); err != nil {
					return err
				}
				continue
			}
			if _, err := tx.Exec(ctx, entryDeleteServerwide, server); err != nil {
				return err
			}
			// A nil slice would be sent as NULL, and NOT (name = ANY(NULL))
			// matches nothing: an empty Serverwide scope must drop them all.
			if _, err := tx.Exec(ctx, lorebookDeleteNotIn, server, emptyIfNil(p.names)); err != nil {
				return err
			}
			for _, name := range p.names {
				set := p.collections[name]
				if _, err := tx.Exec(ctx, lorebookUpsertSettings, server, name, set.enabled, emptyIfNil(set.channels)); err != nil {
					return err
				}
			}
			if err := insertEntriesTx(ctx, tx, p.entries); err != nil {
				return err
			}
		}
		return nil
	})
}

// collectionPlan checks the agreement of collection settings and returns
// the settings of every collection the Serverwide scope will hold, with the
// names in first-seen order.
func collectionPlan(prefix string, cols []lore.Collection, entries []lore.Entry) (map[string]collectionSettings, []string, error) {
	sets := map[string]collectionSettings{}
	var names []string
	for j, c := range cols {
		field := fmt.Sprintf("%s.collections[%d]", prefix, j)
		if err := lore.ValidateCollectionName(c.Name); err != nil {
			return nil, nil, lore.WithFieldPrefix(field, err)
		}
		if err := lore.ValidateChannelIDs(field+".channelIds", c.ChannelIDs); err != nil {
			return nil, nil, err
		}
		next := collectionSettings{enabled: c.Enabled, channels: c.ChannelIDs}
		if prev, ok := sets[c.Name]; ok {
			if prev.enabled != next.enabled || !sameSet(prev.channels, next.channels) {
				return nil, nil, lore.Reject(field, i18n.CollectionSettingsDisagree, lore.Params{"name": lore.ClipBytes(c.Name, 40)})
			}
			continue
		}
		sets[c.Name] = next
		names = append(names, c.Name)
	}
	for _, e := range entries {
		if _, ok := sets[e.Collection]; !ok {
			sets[e.Collection] = collectionSettings{enabled: true}
			names = append(names, e.Collection)
		}
	}
	if len(names) > lore.MaxCollectionsPerServer {
		return nil, nil, lore.Reject(prefix+".collections", i18n.TooManyCollections, lore.Params{"count": len(names), "max": lore.MaxCollectionsPerServer})
	}
	return sets, names, nil
}

// WipeServerLore deletes the server's Serverwide lore: every collection,
// its entries and their pending legacy channel markers, in one transaction
// under the server lock. Persona lore is deleted too unless
// preservePersonas (docs/contract.md#scopes: a wipe with preserved personas keeps Persona
// lore). The persona registry and the server row stay. ErrNotFound for an
// unknown server.
func (s *Store) WipeServerLore(ctx context.Context, server string, preservePersonas bool) error {
	return s.write(ctx, "wipe server lore", server, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lorebookDeleteAll, server); err != nil {
			return err
		}
		if preservePersonas {
			_, err := tx.Exec(ctx, entryDeleteServerwide, server)
			return err
		}
		if _, err := tx.Exec(ctx, personaBookDeleteAll, server); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, entryDeleteAllOfServer, server)
		return err
	})
}
