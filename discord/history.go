package discord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// The import history view (docs/discord.md "Import history"): managers
// open it from the Backups view and see the server's recent imports,
// backup imports, memory migrations, lorebook deletes, wipes and undos,
// newest first, with who, when, the source, the mode, the target and the
// counts. Picking a record shows what undoing it does; Undo import
// (confirmed) calls undoImport and the receipt says what was restored and
// removed, or why the undo was refused. The API lists and undoes for
// managers only and checks again on every call.

// Routes of the history view. The route's page field is the history page;
// on the confirmation the entry field is the record id.
const (
	actHistory     = "lore-hi"  // Backups view: Import history (and its page buttons)
	actHistoryPick = "lore-hip" // history: pick a record to undo (value: record id)
	actHistoryUndo = "lore-hiu" // confirmation: Undo import (entry field: record id)
)

// Views of the history.
const (
	viewHistory viewKind = iota + 100
	viewHistoryConfirm
)

const (
	// historyPageSize is how many records one page lists.
	historyPageSize = 10
	// historyMaxRecords is how far back the view pages (the API's page
	// ceiling per request).
	historyMaxRecords = 100
)

const ()

// historyView is the history part of a panel: one page of records and,
// on the confirmation, the record to undo.
type historyView struct {
	page    int
	records []model.ImportRecord
	// more is set when older records exist beyond this page.
	more bool
	// undo is the record the confirmation asks about.
	undo *model.ImportRecord
}

// undoable reports whether the API would consider undoing r: not an undo,
// not undone, and its snapshot kept when it replaced or removed entries.
// The API decides the rest (later imports, occupied ids, limits).
func undoable(r model.ImportRecord) bool {
	return r.Kind != model.ImportKindUndo && r.UndoneBy == nil && (r.SnapshotKept || r.Removed == 0)
}

// showHistory answers Import history and its page buttons: the panel's
// Backups tab with one page of the history (managers only).
func (b *Bot) showHistory(ctx context.Context, in *request) error {
	p, err := b.loadHistory(ctx, in, in.rt.page, 0)
	if err != nil || p == nil {
		return err
	}
	return b.paint(ctx, in, p)
}

// pickHistory answers the record select: the confirmation for that record,
// or the list again with a receipt when it is no longer there or can no
// longer be undone.
func (b *Bot) pickHistory(ctx context.Context, in *request) error {
	id, ok := pickedID(in.values)
	if !ok {
		return b.outdated(ctx, in)
	}
	p, err := b.loadHistory(ctx, in, in.rt.page, id)
	if err != nil || p == nil {
		return err
	}
	return b.paint(ctx, in, p)
}

// undoHistory runs a confirmed undo and repaints the history with the
// receipt: what was restored and removed, what became of a persona the
// import created, or why the API refused.
func (b *Bot) undoHistory(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	page, id := in.rt.page, in.rt.entry
	if !in.manage {
		p, err := b.load(ctx, in, route{}, loadOpts{view: viewBackups})
		if err != nil {
			return err
		}
		p.view = viewBackups
		p.receipt = append(p.receipt, in.notAllowed())
		return b.paint(ctx, in, p)
	}
	var out model.UndoImportPayload
	e, err := b.mutate(ctx, in.p, client.OpUndoImport, map[string]any{"serverDiscordId": in.guild,
		"importId": strconv.FormatInt(id, 10), "idempotencyKey": in.i.ID}, &out)
	var receipt string
	switch {
	case errors.Is(err, client.ErrForbidden):
		receipt = forbiddenText(in.t, err)
	case err != nil:
		return err
	case e != nil && e.Code == string(model.ErrorCodeInvalidInput):
		// The API's reason, without its "invalid importId: " prefix.
		reason := e.Message
		if e.Field != "" {
			reason = strings.TrimPrefix(reason, "invalid "+e.Field+": ")
		}
		receipt = in.t.S("Not undone, nothing was changed: %s", lore.ClipRunes(reason, 300))
	case e != nil:
		receipt = failure(in.t, e)
	default:
		receipt = undoReceipt(in.t, id, &out)
	}
	p, err := b.loadHistory(ctx, in, page, 0)
	if err != nil || p == nil {
		return err
	}
	p.receipt = append([]string{receipt}, p.receipt...)
	return b.paint(ctx, in, p)
}

// historyRefusal is the receipt of a history read the member may not
// make: the text of the permission the API's FORBIDDEN err names
// (forbiddenReason), a lore write's for the adapter's own refusal (err
// nil) of a member who may not write lore.
func historyRefusal(t tr, err error) string {
	return t.S("The import history is not shown: %s", forbiddenReason(t, err))
}

// undoReceipt says what an undo did.
func undoReceipt(t tr, id int64, u *model.UndoImportPayload) string {
	var s strings.Builder
	s.WriteString(t.S("Undid import #%d: %s restored, %s removed.", id, t.N("%d entries", u.Restored), t.N("%d entries", u.Removed)))
	if u.CollectionsRestored > 0 {
		s.WriteString(" " + t.S("Lorebook states put back: %d.", u.CollectionsRestored))
	}
	if u.CollectionsKept > 0 {
		s.WriteString(" " + t.S("Lorebooks changed since keep their current state: %d.", u.CollectionsKept))
	}
	if u.ServerSettingsRestored {
		s.WriteString(" " + t.S("The server settings the backup replaced were put back."))
	}
	if u.ServerSettingsKept {
		s.WriteString(" " + t.S("Server settings changed since keep their current state."))
	}
	if pr := u.Persona; pr != nil {
		switch {
		case pr.Removed:
			s.WriteString(" " + t.S("The persona it created (id %d) was removed with its book.", pr.PersonaID))
		case pr.AuthoredSince > 0:
			s.WriteString(" " + t.S("The persona it created (id %d) stays: %s were written in its book since.", pr.PersonaID, t.N("%d entries", pr.AuthoredSince)))
		default:
			s.WriteString(" " + t.S("The persona it created (id %d) stays: it was moved to another lineage since.", pr.PersonaID))
		}
	}
	return s.String()
}

// loadHistory loads the panel on its Backups tab with history page page
// and, when pick is set, the confirmation for that record. A member
// without Manage Server (or one the API refuses) gets the Backups view with
// a receipt. The returned panel is nil when a repaint already answered.
func (b *Bot) loadHistory(ctx context.Context, in *request, page int, pick int64) (*panel, error) {
	p, err := b.load(ctx, in, route{}, loadOpts{view: viewBackups})
	if err != nil {
		return nil, err
	}
	p.view = viewBackups
	if !in.manage {
		p.receipt = append(p.receipt, historyRefusal(in.t, nil))
		return p, nil
	}
	page = min(max(page, 0), historyMaxRecords/historyPageSize-1)
	var data struct {
		ImportHistory *model.ImportHistoryConnection `json:"importHistory"`
	}
	err = b.api.Do(ctx, in.p, client.OpImportHistory, map[string]any{"s": in.guild, "first": (page + 1) * historyPageSize}, &data)
	switch {
	case errors.Is(err, client.ErrForbidden):
		p.receipt = append(p.receipt, historyRefusal(in.t, err))
		return p, nil
	case err != nil:
		return nil, fmt.Errorf("read import history: %w", err)
	case data.ImportHistory == nil:
		return nil, fmt.Errorf("import history: %w", errUnavailable)
	}
	all := make([]model.ImportRecord, 0, len(data.ImportHistory.Edges))
	for _, e := range data.ImportHistory.Edges {
		all = append(all, e.Node)
	}
	page = clampPage(page, len(all), historyPageSize)
	start := page * historyPageSize
	h := &historyView{page: page, records: all[start:min(start+historyPageSize, len(all))]}
	h.more = len(all) > start+historyPageSize || (data.ImportHistory.PageInfo.HasNextPage && (page+1)*historyPageSize < historyMaxRecords)
	p.history, p.view = h, viewHistory
	if pick != 0 {
		i := slices.IndexFunc(all, func(r model.ImportRecord) bool { return r.ID == strconv.FormatInt(pick, 10) })
		switch {
		case i < 0:
			p.addReceipt("That import is no longer in the recent history, so nothing was changed.")
		case !undoable(all[i]):
			p.addReceipt("Import #%d can no longer be undone, so nothing was changed.", pick)
		default:
			h.undo, p.view = &all[i], viewHistoryConfirm
		}
	}
	return p, nil
}

// renderHistory draws the history list, or the confirmation of an undo.
func renderHistory(w *builder, p *panel) {
	t := p.t
	h := p.history
	w.text("## " + t.S("Import history"))
	if p.view == viewHistoryConfirm && h.undo != nil {
		renderUndoConfirm(w, p)
		return
	}
	if len(h.records) == 0 {
		w.text(t.S("Nothing was imported, deleted or wiped on this server yet."))
		return
	}
	var s strings.Builder
	for _, r := range h.records {
		s.WriteString(historyLine(p, r) + "\n")
	}
	s.WriteString("-# " + t.S("Undo removes the entries an import created, edited ones too, and restores what it replaced. Lore written since stays."))
	w.text(s.String())
	var opts []discordgo.SelectMenuOption
	for _, r := range h.records {
		if !undoable(r) {
			continue
		}
		opts = append(opts, discordgo.SelectMenuOption{
			Label:       lore.ClipRunes(t.S("Undo #%s · %s", r.ID, kindLabel(t, r)), maxLabelLen),
			Value:       r.ID,
			Description: lore.ClipRunes(r.SourceName+" · "+r.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), maxLabelLen),
		})
	}
	if len(opts) > 0 {
		w.add(selectRow(route{action: actHistoryPick, page: h.page}, t.S("Choose an import to undo"), opts))
	}
	if h.page > 0 || h.more {
		prev, next := route{action: actHistory, page: max(0, h.page-1)}, route{action: actHistory, page: h.page + 1}
		w.row(
			discordgo.Button{Label: "◀ " + t.S("Newer"), Style: discordgo.SecondaryButton, CustomID: prev.encode(), Disabled: h.page == 0},
			discordgo.Button{Label: t.S("Older") + " ▶", Style: discordgo.SecondaryButton, CustomID: next.encode(), Disabled: !h.more},
		)
	}
}

// renderUndoConfirm asks before undoing h.undo, saying what the undo does.
func renderUndoConfirm(w *builder, p *panel) {
	t := p.t
	r := p.history.undo
	var s strings.Builder
	s.WriteString(historyLine(p, *r) + "\n")
	s.WriteString(t.S("Undo this? It removes the %s it created (edited ones too) and restores the %s it replaced or removed. Lore written since stays.",
		t.N("%d entries", r.Created), t.N("%d entries", r.Removed)))
	if r.CreatedPersonaID != nil {
		s.WriteString("\n" + t.S("The persona it created goes too, with its book, unless lore was written in that book since."))
	}
	w.text(s.String())
	id, _ := strconv.ParseInt(r.ID, 10, 64)
	w.row(
		discordgo.Button{Label: t.S("Undo import"), Style: discordgo.DangerButton, CustomID: route{action: actHistoryUndo, page: p.history.page, entry: id}.encode()},
		discordgo.Button{Label: t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: route{action: actHistory, page: p.history.page}.encode()},
	)
}

// historyLine is one record: number, when, who, what, source, mode,
// target, counts and state.
func historyLine(p *panel, r model.ImportRecord) string {
	t := p.t
	parts := []string{
		"**#" + r.ID + "**",
		fmt.Sprintf("<t:%d:f>", r.CreatedAt.Unix()),
		actorText(t, r.Actor),
		kindLabel(t, r),
	}
	// Undos, deletes and wipes have no source beyond their target.
	if r.SourceName != "" && (r.Kind == model.ImportKindFile || r.Kind == model.ImportKindBackup || r.Kind == model.ImportKindMigration) {
		parts = append(parts, "`"+strings.ReplaceAll(lore.ClipRunes(r.SourceName, 60), "`", "'")+"`")
	}
	target := "→ " + targetText(p, r)
	switch r.Mode {
	case "append":
		target = t.S("append") + " " + target
	case "replace":
		target = t.S("replace") + " " + target
	}
	parts = append(parts, target, t.S("+%d / −%d", r.Created, r.Removed))
	switch {
	case r.UndoneBy != nil:
		parts = append(parts, t.S("undone by #%s", *r.UndoneBy))
	case r.Kind != model.ImportKindUndo && !r.SnapshotKept && r.Removed > 0:
		parts = append(parts, t.S("too old to undo"))
	}
	return strings.Join(parts, " · ")
}

// kindLabel names what a record recorded.
func kindLabel(t tr, r model.ImportRecord) string {
	switch r.Kind {
	case model.ImportKindFile:
		return t.S("Import")
	case model.ImportKindBackup:
		return t.S("Backup import")
	case model.ImportKindMigration:
		return t.S("Memory migration")
	case model.ImportKindCollectionDelete:
		return t.S("Lorebook deleted")
	case model.ImportKindScopeWipe:
		return t.S("Lore wiped")
	case model.ImportKindUndo:
		if r.UndoOf != nil {
			return t.S("Undo of #%s", *r.UndoOf)
		}
	}
	return string(r.Kind)
}

// actorText shows who asked: a member as a mention, a service by its
// label, the command line as CLI.
func actorText(t tr, actor string) string {
	switch kind, rest, _ := strings.Cut(actor, ":"); {
	case kind == "user" && rest != "" && strings.Trim(rest, "0123456789") == "":
		return "<@" + rest + ">"
	case kind == "service" && rest != "":
		return escape(lore.ClipRunes(rest, 40))
	case actor == "cli":
		return t.S("command line")
	case actor == "":
		return t.S("unknown")
	}
	return escape(lore.ClipRunes(actor, 40))
}

// targetText names where a record wrote: a Serverwide book, a persona's
// book (by its names when the persona is still there), or the whole
// server.
func targetText(p *panel, r model.ImportRecord) string {
	t := p.t
	switch {
	case r.LineageID != 0:
		for _, g := range p.groups {
			if g.lineage == r.LineageID {
				return escape(lore.ClipRunes(g.label(), 60))
			}
		}
		return t.S("Lineage %s", strconv.FormatInt(r.LineageID, 10))
	case r.CollectionName != nil:
		return t.S("Serverwide") + " › " + escape(lore.ClipRunes(*r.CollectionName, 60))
	}
	return t.S("whole server")
}

// historyButton is the Backups view's way into the history (disabled for
// members who cannot manage the server).
func historyButton(p *panel) discordgo.Button {
	return discordgo.Button{Label: p.t.S("Import history"), Style: discordgo.SecondaryButton,
		CustomID: route{action: actHistory}.encode(), Disabled: !p.canManage}
}
