package graph

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/transfer"
)

// previewImport answers previewImport: importLorebook's checks and
// conversion, then the plan of the write (lore/transfer.Preview: the write
// runs in a transaction that is rolled back). Nothing is written or stored,
// whatever the file's size.
func (r *Resolver) previewImport(ctx context.Context, in *model.ImportLorebookInput) (*model.ImportPreviewPayload, error) {
	fail := failure[model.ImportPreviewPayload]
	req, err := r.importRequest(ctx, in)
	if err != nil {
		return fail(err)
	}
	res, err := transfer.Preview(ctx, r.Store, req)
	if err != nil {
		return fail(err)
	}
	mode := model.ImportModeAppend
	if req.Target.Mode == lore.Replace {
		mode = model.ImportModeReplace
	}
	plan := &model.ImportPlan{Report: *reportToModel(&res.Conversion), Added: res.Added, Duplicates: res.Duplicates,
		Replaced: res.Replaced, Mode: mode, LineageID: int64(req.Target.Lineage), NewCollection: res.NewCollection,
		ScopeBefore: res.ScopeBefore, ScopeAfter: res.ScopeAfter}
	if res.CollectionName != "" {
		plan.CollectionName = &res.CollectionName
	}
	return &model.ImportPreviewPayload{Plan: plan}, nil
}

// authorizeUndoSettings refuses (errForbiddenSettings) the undo of record
// id to a caller who does not manage the server when the record replaced
// the server's settings or workbench settings (a backup import,
// HistorySnapshot.ServerSettings, Workbench): the undo would write them
// back, and settings are the managers' like the import itself
// (docs/contract.md#backups). Any other undo is a lore write. A record
// that does not exist is left to the undo to report.
func (r *Resolver) authorizeUndoSettings(ctx context.Context, server string, id int64) error {
	if auth.FromContext(ctx).CanManage(server) {
		return nil
	}
	rec, err := r.Store.HistoryRecord(ctx, server, id)
	if errors.Is(err, lore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if s := rec.Snapshot; s != nil && (s.ServerSettings != nil || s.Workbench != nil) {
		return errForbiddenSettings
	}
	return nil
}

// undoImport answers undoImport (lore/transfer.Undo). A lore write,
// except for a record that replaced the server's settings
// (authorizeUndoSettings).
func (r *Resolver) undoImport(ctx context.Context, in *model.UndoImportInput) (*model.UndoImportPayload, error) {
	fail := failure[model.UndoImportPayload]
	if err := r.authorizeWrite(ctx, in.ServerDiscordID, lore.Serverwide); err != nil {
		return fail(err)
	}
	id, err := parseID("import", in.ImportID)
	if err != nil {
		return fail(err)
	}
	if err := r.authorizeUndoSettings(ctx, in.ServerDiscordID, id); err != nil {
		return fail(err)
	}
	res, err := transfer.Undo(ctx, r.Store, in.ServerDiscordID, id, actor(ctx))
	if err != nil {
		return fail(err)
	}
	r.Logger.InfoContext(ctx, "import undone", "request_id", RequestID(ctx), "server", in.ServerDiscordID,
		"import_id", id, "restored", res.Restored, "removed", res.Removed, "missing", res.Missing)
	undo := strconv.FormatInt(res.Record.ID, 10)
	out := &model.UndoImportPayload{Restored: res.Restored, Removed: res.Removed, ImportID: &undo, CollectionsRestored: res.Collections, CollectionsKept: res.CollectionsKept, BookSettingsKept: res.BookSettingsKept,
		ServerSettingsRestored: res.ServerSettings, ServerSettingsKept: res.ServerSettingsKept}
	if p := res.Persona; p != nil {
		out.Persona = &model.UndoPersona{PersonaID: p.ID, LineageID: int64(p.Lineage), Removed: p.Removed,
			AuthoredSince: p.AuthoredSince, Moved: p.Moved}
	}
	return out, nil
}

// importHistory answers importHistory (a lore writer's read, authorizeWrite:
// snapshots hold every scope's lore, and a lore writer may undo a record).
// Cursors are opaque record ids. totalCount is counted only when selected,
// as EntryConnection's is.
func (r *Resolver) importHistory(ctx context.Context, server string, first *int, after *string) (*model.ImportHistoryConnection, error) {
	if err := r.authorizeWrite(ctx, server, lore.Serverwide); err != nil {
		return nil, err
	}
	n, err := pageSize(first, 20)
	if err != nil {
		return nil, err
	}
	before, err := idCursor(after, "h:")
	if err != nil {
		return nil, err
	}
	conn := &model.ImportHistoryConnection{Edges: []*model.ImportRecordEdge{}, PageInfo: model.PageInfo{}}
	if selects(ctx, "totalCount") {
		if conn.TotalCount, err = r.Store.HistoryCount(ctx, server); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return conn, nil
	}
	recs, more, err := r.Store.History(ctx, server, n, before)
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		cursor := encodeKeyset("h:", rec.ID)
		conn.Edges = append(conn.Edges, &model.ImportRecordEdge{Cursor: cursor, Node: *recordToModel(rec)})
		conn.PageInfo.EndCursor = &cursor
	}
	conn.PageInfo.HasNextPage = more
	return conn, nil
}

var historyKinds = map[lore.HistoryKind]model.ImportKind{
	lore.HistoryFile: model.ImportKindFile, lore.HistoryBackup: model.ImportKindBackup,
	lore.HistoryMigration: model.ImportKindMigration, lore.HistoryCollectionDelete: model.ImportKindCollectionDelete,
	lore.HistoryScopeWipe: model.ImportKindScopeWipe, lore.HistoryUndo: model.ImportKindUndo,
	lore.HistoryBulk: model.ImportKindBulk,
}

func recordToModel(rec lore.HistoryRecord) *model.ImportRecord {
	id := func(n int64) *string {
		if n == 0 {
			return nil
		}
		s := strconv.FormatInt(n, 10)
		return &s
	}
	m := &model.ImportRecord{ID: *id(rec.ID), Kind: historyKinds[rec.Kind], Actor: rec.Actor, CreatedAt: rec.CreatedAt,
		SourceName: rec.SourceName, SourceSha256: rec.SourceSHA256, Mode: rec.Mode, LineageID: int64(rec.Target.Lineage),
		Created: len(rec.CreatedIDs), Removed: len(rec.RemovedIDs), SnapshotKept: !rec.SnapshotPruned,
		UndoneBy: id(rec.UndoneBy), UndoneAt: rec.UndoneAt, UndoOf: id(rec.UndoOf)}
	if rec.Target.Collection != "" {
		m.CollectionName = &rec.Target.Collection
	}
	if rec.CreatedPersona != 0 {
		m.CreatedPersonaID = &rec.CreatedPersona
	}
	var obj map[string]any
	if json.Unmarshal(rec.Report, &obj) == nil {
		m.Report = obj
	}
	return m
}
