package transfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/format"
	"loregate/lore/i18n"
)

// DeleteCollection deletes a Serverwide collection and its entries and
// records the delete with a snapshot of both (so Undo brings them back),
// in one transaction. It returns the history record's id.
func DeleteCollection(ctx context.Context, st lore.HistoryStore, server string, id int64, actor string) (int64, error) {
	var recID int64
	err := st.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		c, err := st.GetCollection(ctx, server, id)
		if err != nil {
			return err
		}
		removed, err := st.ListScope(ctx, server, lore.Serverwide, c.Name)
		if err != nil {
			return err
		}
		if err := st.DeleteCollection(ctx, server, id); err != nil {
			return err
		}
		report, _ := json.Marshal(map[string]any{"collection": c.Name, "removed": len(removed)})
		rec, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: server, Kind: lore.HistoryCollectionDelete, Actor: actor,
			SourceName: c.Name, Target: lore.HistoryTarget{CollectionID: c.ID, Collection: c.Name}, Report: report,
			RemovedIDs: ids(removed), Snapshot: &lore.HistorySnapshot{Entries: removed, Collections: []lore.Collection{c}}})
		recID = rec.ID
		return err
	})
	return recID, err
}

// WipeServerLore deletes a server's Serverwide lore and collections (and
// persona lore unless preservePersonas) and records the wipe with a
// snapshot of everything removed, in one transaction. It returns the
// history record's id.
func WipeServerLore(ctx context.Context, st lore.HistoryStore, server string, preservePersonas bool, actor string) (int64, error) {
	var recID int64
	err := st.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		all, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		cols, err := st.ListCollections(ctx, server)
		if err != nil {
			return err
		}
		var removed []lore.Entry
		for _, e := range all {
			if e.Lineage.IsServerwide() || !preservePersonas {
				removed = append(removed, e)
			}
		}
		if err := st.WipeServerLore(ctx, server, preservePersonas); err != nil {
			return err
		}
		report, _ := json.Marshal(map[string]any{"removed": len(removed), "collections": len(cols), "preservePersonas": preservePersonas})
		rec, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: server, Kind: lore.HistoryScopeWipe, Actor: actor,
			SourceName: "wipe", Target: lore.HistoryTarget{Whole: true}, Report: report,
			RemovedIDs: ids(removed), Snapshot: &lore.HistorySnapshot{Entries: removed, Collections: cols}})
		recID = rec.ID
		return err
	})
	return recID, err
}

// BackupReport is a workspace backup import's report: the plan's per-scope
// counts and memory report, plus what the conversions actually added.
type BackupReport struct {
	// ImportID is the history record of the import.
	ImportID int64               `json:"import_id,omitempty"`
	Scopes   []backup.ScopePlan  `json:"scopes"`
	Memories backup.MemoryReport `json:"memories"`
	// ConvertedAdded and ConvertedDuplicates: converted memories written,
	// and those skipped as already present (repeated imports).
	ConvertedAdded      int `json:"converted_added"`
	ConvertedDuplicates int `json:"converted_duplicates"`
	// ServerSettings says what the import did with the server's settings
	// and workbench settings: whether the backup carried them, whether
	// they changed, and which it left (the source server's channel and
	// role ids, onto another server).
	ServerSettings backup.SettingsPlan `json:"server_settings"`
	// OtherServerChannels counts, onto another server, the restored
	// collections and persona entries whose channel lists name the source
	// server's channels (kept as they are: they admit that lore in no
	// channel here until a manager chooses its channels).
	OtherServerChannels backup.OtherChannels `json:"other_server_channels"`
}

// PlanBackup decodes data and plans its import into server with the
// destination's current settings and counts (the preview). Errors wrap
// lore.ErrInvalid for a file that is not a backup or a bad mapping.
func PlanBackup(ctx context.Context, st lore.Store, server string, data []byte, mapping map[lore.Lineage]lore.Lineage) (backup.ImportPlan, error) {
	doc, err := backup.Decode(data)
	if err != nil {
		if errors.Is(err, backup.ErrNotBackup) {
			err = lore.Reject("file", i18n.NotABackup, lore.Params{"detail": strings.TrimPrefix(err.Error(), "not a loregate workspace backup: ")})
		}
		return backup.ImportPlan{}, err
	}
	sv, err := st.GetServer(ctx, server)
	if err != nil {
		return backup.ImportPlan{}, err
	}
	counts, err := st.CountByScope(ctx, server)
	if err != nil {
		return backup.ImportPlan{}, err
	}
	return backup.Plan(doc, backup.Options{Server: server, LineageMap: mapping, MemoryTagging: sv.Settings.MemoryTagging,
		Current: counts, BudgetUnit: sv.Settings.Unit(), SemanticRanker: sv.Settings.Semantic.Ranker})
}

// ImportBackup plans data against server as it is now and writes it, in
// one transaction under the server lock: the server's settings and
// workbench settings the backup carries are applied first
// (applyServerSettings), every included scope is replaced
// (whole batch validated first, absent scopes untouched), converted keyword
// memories are appended (deduplicated against the scope, so repeated
// imports add them once), and the import is recorded with the created
// entry ids and a snapshot of every entry it replaced. Any failure rolls
// everything back.
func ImportBackup(ctx context.Context, st lore.HistoryStore, server, fileName string, data []byte, mapping map[lore.Lineage]lore.Lineage, actor string) (BackupReport, error) {
	var rep BackupReport
	// The entry revisions the import writes name its actor, also when a
	// background job (no request principal) runs it.
	ctx = lore.WithActor(ctx, actor)
	err := st.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		plan, err := PlanBackup(ctx, st, server, data, mapping)
		if err != nil {
			return err
		}
		before, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		colsBefore, err := st.ListCollections(ctx, server)
		if err != nil {
			return err
		}
		var books lore.HistorySnapshot
		if err := applyServerSettings(ctx, st, server, &plan.Settings, &books); err != nil {
			return err
		}
		rep = BackupReport{Scopes: plan.Scopes, Memories: plan.Memories, ServerSettings: plan.Settings, OtherServerChannels: plan.OtherServerChannels}
		if err := organiseBooks(ctx, st, server, &plan, &books); err != nil {
			return err
		}
		if len(plan.Replace) > 0 {
			if err := st.ReplaceScopes(ctx, server, plan.Replace); err != nil {
				return err
			}
		}
		for _, sc := range plan.Scopes {
			conv := plan.Conversions[sc.Lineage]
			if len(conv) == 0 {
				continue
			}
			res, err := appendConverted(ctx, st, server, sc.Lineage, conv)
			if err != nil {
				return err
			}
			rep.ConvertedAdded += res.Added
			rep.ConvertedDuplicates += res.Duplicates
		}
		after, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		colsAfter, err := st.ListCollections(ctx, server)
		if err != nil {
			return err
		}
		created, removed := diff(before, after)
		report, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("encode backup report: %w", err)
		}
		snap := collectionSnapshot(removed, colsBefore, colsAfter)
		snap.CreatedCategories, snap.ChangedCategories, snap.CategoriesAfter = books.CreatedCategories, books.ChangedCategories, books.CategoriesAfter
		snap.PersonaBooks, snap.ServerSettings, snap.Workbench = books.PersonaBooks, books.ServerSettings, books.Workbench
		rec, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: server, Kind: lore.HistoryBackup, Actor: actor,
			SourceName: fileName, SourceSHA256: Hash(data), Mode: "replace", Target: lore.HistoryTarget{Whole: true},
			Report: report, CreatedIDs: ids(created), RemovedIDs: ids(removed), Snapshot: snap})
		rep.ImportID = rec.ID
		return err
	})
	if err != nil {
		return BackupReport{}, err
	}
	return rep, nil
}

// collectionSnapshot is a whole-server write's snapshot: the entries it
// removed, and by name the collections of before missing from after (with
// their settings), those in both whose enabled flag, channels or book
// settings changed (as they were before and after), and those only in
// after.
func collectionSnapshot(removed []lore.Entry, before, after []lore.Collection) *lore.HistorySnapshot {
	snap := &lore.HistorySnapshot{Entries: removed}
	now := make(map[string]lore.Collection, len(after))
	for _, c := range after {
		now[c.Name] = c
	}
	was := make(map[string]bool, len(before))
	for _, c := range before {
		was[c.Name] = true
		a, kept := now[c.Name]
		switch {
		case !kept:
			snap.Collections = append(snap.Collections, c)
		case !lore.SameCollectionState(a, c):
			snap.ChangedCollections = append(snap.ChangedCollections, c)
			snap.CollectionsAfter = append(snap.CollectionsAfter, a)
		}
	}
	for _, c := range after {
		if !was[c.Name] {
			snap.CreatedCollections = append(snap.CreatedCollections, c.Name)
		}
	}
	return snap
}

// appendConverted appends converted legacy memories to a scope (Append:
// deduplicated); Serverwide memories go to lore.DefaultCollection, created
// when missing.
func appendConverted(ctx context.Context, st lore.Store, server string, lineage lore.Lineage, entries []lore.Entry) (lore.ImportResult, error) {
	target := lore.ImportTarget{Server: server, Lineage: lineage}
	if lineage.IsServerwide() {
		c, err := st.GetCollectionByName(ctx, server, lore.DefaultCollection)
		if errors.Is(err, lore.ErrNotFound) {
			c, err = st.CreateCollection(ctx, lore.Collection{Server: server, Name: lore.DefaultCollection, Enabled: true})
		}
		if err != nil {
			return lore.ImportResult{}, err
		}
		target.CollectionID, target.Collection = c.ID, c.Name
	}
	return st.ImportEntries(ctx, target, lore.Append, entries)
}

// ImportPersonaCard writes a character card import (lore.Store.
// ImportPersonaCard: a new persona or an existing one, its book replaced
// by the card's), keeps the card with the persona's book when the card had
// a book (card exports), and records the import with the created entries
// and a snapshot of the replaced book and its settings, in one
// transaction. Undoing it restores the book and the card character the
// import replaced on an existing persona (lore.CardSnapshot); a persona the import created
// is removed with its book unless entries were written in that book since
// (lore.UndoPersona).
func ImportPersonaCard(ctx context.Context, st lore.HistoryStore, c lore.PersonaCardImport, card *format.SourceCard, fileName string, data []byte, actor string) (lore.Persona, lore.ImportResult, int64, error) {
	var p lore.Persona
	var res lore.ImportResult
	var recID int64
	err := st.Atomic(ctx, c.Server, func(ctx context.Context, st lore.HistoryStore) error {
		before, err := st.ListServerEntries(ctx, c.Server)
		if err != nil {
			return err
		}
		snap := &lore.HistorySnapshot{}
		if c.PersonaID != 0 && c.Entries != nil && c.Settings != nil {
			ps, err := st.ListPersonas(ctx, c.Server)
			if err != nil {
				return err
			}
			if i := slices.IndexFunc(ps, func(p lore.Persona) bool { return p.ID == c.PersonaID }); i >= 0 {
				set, err := st.PersonaBookSettings(ctx, c.Server, ps[i].Lineage)
				if err != nil {
					return err
				}
				snap.BookSettings = &set
			}
		}
		if c.PersonaID != 0 {
			before, ok, err := st.PersonaCard(ctx, c.Server, c.PersonaID)
			if err != nil {
				return err
			}
			if ok {
				snap.Card = &lore.CardSnapshot{Persona: c.PersonaID, Before: before}
			}
		}
		if p, res, err = st.ImportPersonaCard(ctx, c); err != nil {
			return err
		}
		if snap.Card != nil {
			if snap.Card.After, _, err = st.PersonaCard(ctx, c.Server, c.PersonaID); err != nil {
				return err
			}
		}
		if card != nil && c.Entries != nil {
			if snap.BookCard, err = putCard(ctx, st, lore.BookCard{Server: c.Server, Lineage: p.Lineage,
				Container: string(card.Container), Card: card.JSON, File: card.File}, c.PersonaID != 0); err != nil {
				return fmt.Errorf("keep the card: %w", err)
			}
		}
		if src := c.Source; src != nil && c.Entries != nil {
			s := *src
			s.Server, s.Lineage, s.CollectionID = c.Server, p.Lineage, 0
			if snap.Source, err = putSource(ctx, st, s, true, c.PersonaID != 0); err != nil {
				return fmt.Errorf("keep the book fields: %w", err)
			}
		}
		after, err := st.ListServerEntries(ctx, c.Server)
		if err != nil {
			return err
		}
		created, removed := diff(before, after)
		snap.Entries = removed
		if snap.BookSettings != nil {
			set, err := st.PersonaBookSettings(ctx, c.Server, p.Lineage)
			if err != nil {
				return err
			}
			snap.BookSettingsAfter = &set
		}
		report, _ := json.Marshal(map[string]any{"persona": p.ID, "created": c.PersonaID == 0, "added": res.Added,
			"replaced": res.Replaced, "bookIncluded": c.Entries != nil})
		var createdPersona int64
		if c.PersonaID == 0 {
			createdPersona = p.ID
		}
		rec, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: c.Server, Kind: lore.HistoryFile, Actor: actor,
			SourceName: fileName, SourceSHA256: Hash(data), Mode: "replace", Target: lore.HistoryTarget{Lineage: p.Lineage},
			Report: report, CreatedIDs: ids(created), RemovedIDs: ids(removed), CreatedPersona: createdPersona, Snapshot: snap})
		recID = rec.ID
		return err
	})
	return p, res, recID, err
}
