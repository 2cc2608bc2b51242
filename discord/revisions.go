package discord

import (
	"context"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// The entry history view (docs/workbench.md#revisions): History on an
// entry lists its last 10 revisions, newest first, with when, who, the
// kind of write and the fields it changed; whoever may read the entry may
// read them. A lore writer picks one, sees that state and confirms
// Restore, which writes it as a new change (restoreEntryRevision, kind
// RESTORE): the state it replaces stays in the history and can itself be
// restored.

// Routes of the entry history: History on the entry view (and the
// confirmation's Cancel), the revision select (value: revision id) and
// the confirmation's Restore. On the list and its select the route is the
// entry's; on Restore the entry field holds the revision id
// (restoreEntryRevision needs nothing else and answers the entry).
const actRevisions, actRevPick, actRevRestore = "lore-rv", "lore-rvp", "lore-rvr"

// The entry history's views (the list, the confirmation) and how many
// revisions it lists (the "last 10").
const (
	viewRevisions, viewRevisionConfirm viewKind = 200, 201
	revisionPageSize                            = 10
)

// revisionView is the entry history part of a panel.
type revisionView struct {
	revs []model.EntryRevision
	// more is set when older revisions exist.
	more bool
	// pick is the revision the confirmation asks about.
	pick *model.EntryRevision
}

// showRevisions answers History and the confirmation's Cancel;
// pickRevision the revision select, with the confirmation.
func (b *Bot) showRevisions(ctx context.Context, in *request) error {
	return b.paintLoaded(ctx, in, "", b.loadRevisions)
}

func (b *Bot) pickRevision(ctx context.Context, in *request) error {
	return b.paintPicked(ctx, in, b.loadRevisions)
}

// paintPicked paints what load returns for a select's one picked id (an
// outdated panel for anything else); paintLoaded for pick, "" = none.
func (b *Bot) paintPicked(ctx context.Context, in *request, load func(context.Context, *request, string) (*panel, error)) error {
	id, ok := pickedID(in.values)
	if !ok {
		return b.outdated(ctx, in)
	}
	return b.paintLoaded(ctx, in, fmt.Sprint(id), load)
}

func (b *Bot) paintLoaded(ctx context.Context, in *request, pick string, load func(context.Context, *request, string) (*panel, error)) error {
	p, err := load(ctx, in, pick)
	if err != nil {
		return err
	}
	return b.paint(ctx, in, p)
}

// restoreRevision runs a confirmed restore and shows the entry with the
// receipt, or the book with the reason the API refused.
func (b *Bot) restoreRevision(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	scope := in.rt
	rev := scope.entry
	scope.entry = 0
	if !in.manage {
		return b.repaintWith(ctx, in, scope, loadOpts{persona: scope.lineage != 0}, in.notAllowed())
	}
	var out model.EntryPayload
	e, err := b.mutate(ctx, in.p, client.OpRestoreEntryRevision, map[string]any{"serverDiscordId": in.guild,
		"revisionId": fmt.Sprint(rev), "idempotencyKey": in.i.ID}, &out)
	switch {
	case forbidden(err):
		return b.repaintWith(ctx, in, scope, loadOpts{persona: scope.lineage != 0}, forbiddenText(in.t, err))
	case err != nil:
		return err
	case e != nil:
		return b.repaintWith(ctx, in, scope, loadOpts{persona: scope.lineage != 0}, in.t.S("Not restored, nothing was changed: %s", reasonOf(in.t, e)))
	}
	next := scope
	if out.Entry != nil {
		next.entry = idOf(out.Entry.ID)
	}
	title := ""
	if out.Entry != nil {
		title = out.Entry.Title
	}
	return b.repaintWith(ctx, in, next, loadOpts{full: true, persona: scope.lineage != 0},
		in.t.S("Restored **%s** to revision #%d. The state it replaced stays in its history.", escape(orUntitled(in.t, title)), rev))
}

// repaintWith loads the panel at rt and paints it with receipt first.
func (b *Bot) repaintWith(ctx context.Context, in *request, rt route, o loadOpts, receipt string) error {
	p, err := b.load(ctx, in, rt, o)
	if err != nil {
		return err
	}
	p.receipt = append([]string{receipt}, p.receipt...)
	return b.paint(ctx, in, p)
}

// loadRevisions loads the entry of the route with its last revisions and, when
// pick is set, the confirmation of that revision.
func (b *Bot) loadRevisions(ctx context.Context, in *request, pick string) (*panel, error) {
	p, err := b.load(ctx, in, in.rt, loadOpts{full: true, persona: in.rt.lineage != 0})
	if err != nil || p.stale || p.entry == nil {
		return p, err
	}
	var data struct {
		Server *struct {
			Entry *struct {
				Revisions model.EntryRevisionConnection `json:"revisions"`
			} `json:"entry"`
		} `json:"server"`
	}
	err = b.api.Do(ctx, in.p, client.OpEntryRevisions, map[string]any{"s": in.guild, "l": p.lineage, "id": p.entry.ID, "first": revisionPageSize}, &data)
	if err != nil {
		return nil, fmt.Errorf("read entry revisions: %w", err)
	}
	if data.Server == nil || data.Server.Entry == nil {
		p.addReceipt("That entry was deleted, so nothing was changed.")
		return p, nil
	}
	rv := &revisionView{more: data.Server.Entry.Revisions.PageInfo.HasNextPage}
	for _, e := range data.Server.Entry.Revisions.Edges {
		rv.revs = append(rv.revs, e.Node)
	}
	p.wb.revisions, p.view = rv, viewRevisions
	if pick != "" {
		i := len(rv.revs) - 1
		for i >= 0 && rv.revs[i].ID != pick {
			i--
		}
		switch {
		case i < 0:
			p.addReceipt("That revision is no longer among the entry's last 10, so nothing was changed.")
		case !in.manage:
			p.receipt = append(p.receipt, in.notAllowed())
		default:
			rv.pick, p.view = &rv.revs[i], viewRevisionConfirm
		}
	}
	return p, nil
}

// renderRevisions draws the entry history or the restore confirmation.
func renderRevisions(w *builder, p *panel) {
	t := p.t
	rv := p.wb.revisions
	w.text("## " + t.S("History · %s", escape(lore.ClipRunes(orUntitled(t, p.entry.Title), 80))))
	back := p.route(actEntryPick)
	if p.view == viewRevisionConfirm && rv.pick != nil {
		r := rv.pick
		var s strings.Builder
		s.WriteString(revisionLine(t, *r) + "\n")
		s.WriteString(stateText(t, &r.Entry, 700))
		w.text(s.String())
		w.text(t.S("Restore this state? It becomes the entry's current state; the state it replaces stays in the history and can be restored too."))
		restore := p.route(actRevRestore)
		restore.entry = idOf(r.ID)
		w.row(
			discordgo.Button{Label: t.S("Restore"), Style: discordgo.DangerButton, CustomID: restore.encode()},
			discordgo.Button{Label: t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: p.route(actRevisions).encode()},
		)
		return
	}
	w.lines(listLines(rv.revs, func(r model.EntryRevision) string { return revisionLine(t, r) }),
		t.S("No revisions are kept for this entry."), footnoteIf(rv.more, t.S("Older revisions are in the dashboard and the API.")))
	var opts []discordgo.SelectMenuOption
	// The newest revision is the entry as it is: restoring it changes
	// nothing, so it is not offered.
	for i, r := range rv.revs {
		if i == 0 || !p.canManage {
			continue
		}
		opts = append(opts, discordgo.SelectMenuOption{
			Label:       lore.ClipRunes(t.S("Restore #%s · %s", r.ID, revisionKindLabel(t, r.Kind)), maxLabelLen),
			Value:       r.ID,
			Description: lore.ClipRunes(orUntitled(t, r.Title)+" · "+r.At.UTC().Format("2006-01-02 15:04 UTC"), maxLabelLen),
		})
	}
	if len(opts) > 0 {
		w.add(selectRow(p.route(actRevPick), t.S("Choose a revision to restore"), opts))
	}
	w.row(discordgo.Button{Label: t.S("Back to the entry"), Style: discordgo.SecondaryButton, CustomID: back.encode()})
}

// revisionLine is one revision: number, when, who, the kind of write and
// what it changed.
func revisionLine(t tr, r model.EntryRevision) string {
	parts := []string{"**#" + r.ID + "**", fmt.Sprintf("<t:%d:f>", r.At.Unix()), actorText(t, r.By), revisionKindLabel(t, r.Kind)}
	if len(r.ChangedFields) > 0 && r.Kind != model.RevisionKindDelete {
		parts = append(parts, t.S("changed: %s", lore.ClipRunes(strings.Join(r.ChangedFields, ", "), 120)))
	}
	return strings.Join(parts, " · ")
}

// revisionKindLabel names the kind of write that recorded a revision.
func revisionKindLabel(t tr, k model.RevisionKind) string {
	switch k {
	case model.RevisionKindCreate:
		return t.S("Created")
	case model.RevisionKindUpdate:
		return t.S("Edited")
	case model.RevisionKindDelete:
		return t.S("Deleted")
	case model.RevisionKindImport:
		return t.S("Import")
	case model.RevisionKindUndo:
		return t.S("Undo")
	case model.RevisionKindMove:
		return t.S("Moved or copied")
	case model.RevisionKindRestore:
		return t.S("Restored")
	case model.RevisionKindProposal:
		return t.S("Suggestion approved")
	case model.RevisionKindBulk:
		return t.S("Bulk edit")
	}
	return string(k)
}

// stateText shows an entry state: title, keywords and the content cut to
// n characters, quoted.
func stateText(t tr, e *model.Entry, n int) string {
	var s strings.Builder
	s.WriteString("**" + escape(lore.ClipRunes(orUntitled(t, e.Title), 100)) + "**\n")
	if e.Constant || len(e.Keys) == 0 {
		s.WriteString(t.S("Always On") + "\n")
	} else {
		s.WriteString(t.S("Keywords: %s", escape(lore.ClipRunes(strings.Join(e.Keys, ", "), 200))) + "\n")
	}
	s.WriteString(quote(lore.ClipRunes(e.Content, n)))
	return s.String()
}

// quote prefixes every line of s with "> ".
func quote(s string) string {
	if strings.TrimSpace(s) == "" {
		return "> …"
	}
	return "> " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

// reasonOf is a refused write's reason in the member's language: every
// failing field of INVALID_INPUT, else the code's plain reason.
func reasonOf(t tr, e *client.Error) string {
	switch model.ErrorCode(e.Code) {
	case model.ErrorCodeInvalidInput:
		return fieldReasons(t, e)
	case model.ErrorCodeScopeFull:
		return t.S("the scope already holds its maximum of %d entries", scopeLimitOf(e))
	case model.ErrorCodeNotFound:
		return t.S("it is no longer there (its lorebook may have been deleted)")
	case model.ErrorCodeStaleTarget:
		return t.S("it was changed meanwhile")
	}
	return t.S("the lore store is unavailable; try again in a moment")
}

// scopeLimitOf is the scope limit a SCOPE_FULL names (the default when it
// names none).
func scopeLimitOf(e *client.Error) int {
	if e.Limit != nil {
		return *e.Limit
	}
	return maxScopeEntries
}

// deletedView is one page of deleted entries and the one picked.
type deletedView struct {
	page int
	list []model.EntryRevision
	more bool
	// beyond: older deleted entries exist past what the panel pages.
	beyond bool
	pick   *model.EntryRevision
}

// Deleted entries (docs/workbench.md#revisions), opened from Backups:
// Server.deletedEntries ten a page, newest first (when, who, the kind of
// write that removed each, its book); lore writers pick one, see its last
// state and confirm Restore (restoreEntryRevision), which brings it back
// with its id in its book.
const (
	// Routes: the list and its page buttons and Cancel (page: the list
	// page), the entry select (value: revision id), Restore (entry: the
	// revision id).
	actDeleted, actDeletedPick, actDeletedRestore = "lore-de", "lore-dep", "lore-der"
	// The list and the confirmation; a page's size and how far the list
	// pages (older ones are in the dashboard and the API).
	viewDeleted, viewDeletedConfirm viewKind = 400, 401
	deletedPageSize, deletedMax              = 10, 100
)

// shows is the handler painting what load returns with nothing picked
// (a list, its page buttons, Cancel); picks the one of its select, for the
// one id picked (paintPicked).
func (b *Bot) shows(load func(context.Context, *request, string) (*panel, error)) handlerFunc {
	return func(ctx context.Context, in *request) error { return b.paintLoaded(ctx, in, "", load) }
}

func (b *Bot) picks(load func(context.Context, *request, string) (*panel, error)) handlerFunc {
	return func(ctx context.Context, in *request) error { return b.paintPicked(ctx, in, load) }
}

// loadDeleted loads the route's page of deleted entries and, when pick is
// set, the confirmation of that one (lore writers only; one restored
// meanwhile is no longer listed, so it is refused with a receipt).
func (b *Bot) loadDeleted(ctx context.Context, in *request, pick string) (*panel, error) {
	page := min(max(in.rt.page, 0), deletedMax/deletedPageSize-1)
	p, err := b.load(ctx, in, route{}, loadOpts{})
	var srv *client.Server
	if err == nil {
		srv, err = b.readServer(ctx, in, client.OpDeletedEntries, map[string]any{"s": in.guild, "first": (page + 1) * deletedPageSize},
			"deleted entries", func(s *client.Server) bool { return s.DeletedEntries != nil })
	}
	if err != nil {
		return nil, err
	}
	conn := srv.DeletedEntries
	all := make([]model.EntryRevision, len(conn.Edges))
	for i := range conn.Edges {
		all[i] = conn.Edges[i].Node
	}
	dv := &deletedView{}
	dv.list, dv.page, dv.more = pageWindow(all, page, deletedPageSize, deletedMax, conn.PageInfo.HasNextPage)
	dv.beyond = conn.PageInfo.HasNextPage && !dv.more
	p.wb.deleted, p.view = dv, viewDeleted
	if pick == "" {
		return p, nil
	}
	i := len(all) - 1
	for i >= 0 && all[i].ID != pick {
		i--
	}
	if i < 0 {
		p.addReceipt("That entry is no longer deleted (it may have been restored meanwhile), so nothing was changed.")
	} else if !in.manage {
		p.receipt = append(p.receipt, in.notAllowed())
	} else {
		dv.pick, p.view = &all[i], viewDeletedConfirm
	}
	return p, nil
}

// deletedButton is the Backups view's Deleted entries, for lore writers.
func deletedButton(p *panel) discordgo.Button {
	return discordgo.Button{Label: p.t.S("Deleted entries"), Style: discordgo.SecondaryButton, CustomID: route{action: actDeleted}.encode(), Disabled: !p.canManage}
}

// inDeleted reports whether p shows a deleted entries view.
func inDeleted(p *panel) bool {
	return (p.view == viewDeleted || p.view == viewDeletedConfirm) && p.wb.deleted != nil
}

// deletedLine is one deleted entry: the revision number, when, who, the
// kind of write that removed it, its book and its title.
func deletedLine(p *panel, r model.EntryRevision) string {
	t := p.t
	book := model.ImportRecord{CollectionName: r.Collection}
	if r.LineageID != nil {
		book.LineageID = *r.LineageID
	}
	parts := []string{"**#" + r.ID + "**", fmt.Sprintf("<t:%d:f>", r.At.Unix()), actorText(t, r.By), revisionKindLabel(t, r.Kind),
		targetText(p, book), "**" + escape(lore.ClipRunes(orUntitled(t, r.Title), 80)) + "**"}
	return strings.Join(parts, " · ")
}

// renderDeleted draws the deleted entries or the restore confirmation.
func renderDeleted(w *builder, p *panel) {
	t := p.t
	dv := p.wb.deleted
	w.text("## " + t.S("Deleted entries"))
	if p.view == viewDeletedConfirm && dv.pick != nil {
		r := dv.pick
		w.text(deletedLine(p, *r) + "\n" + stateText(t, &r.Entry, 700))
		w.text(t.S("Restore this entry? It comes back with its id in its book, as it was when deleted; the scope's entry limit applies."))
		w.row(
			discordgo.Button{Label: t.S("Restore"), Style: discordgo.DangerButton, CustomID: route{action: actDeletedRestore, page: dv.page, entry: idOf(r.ID)}.encode()},
			discordgo.Button{Label: t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: route{action: actDeleted, page: dv.page}.encode()},
		)
		return
	}
	w.lines(listLines(dv.list, func(r model.EntryRevision) string { return deletedLine(p, r) }),
		t.S("No deleted entries are kept on this server."), footnoteIf(dv.beyond, t.S("Older deleted entries are in the dashboard and the API.")))
	if p.canManage && len(dv.list) > 0 {
		opts := make([]discordgo.SelectMenuOption, 0, len(dv.list))
		for _, r := range dv.list {
			opts = append(opts, discordgo.SelectMenuOption{
				Label:       lore.ClipRunes(t.S("Restore %s", orUntitled(t, r.Title)), maxLabelLen),
				Value:       r.ID,
				Description: lore.ClipRunes("#"+r.ID+" · "+revisionKindLabel(t, r.Kind)+" · "+r.At.UTC().Format("2006-01-02 15:04 UTC"), maxLabelLen),
			})
		}
		w.add(selectRow(route{action: actDeletedPick, page: dv.page}, t.S("Choose a deleted entry to restore"), opts))
	}
	w.row(newerOlderRow(t, actDeleted, dv.page, dv.more)...)
}

// pageWindow cuts one page of size from all, a newest-first list read as
// (page+1)*size items: the page clamped to what exists, and whether a
// later page exists within maxItems (hasNext: the API holds more).
func pageWindow[T any](all []T, page, size, maxItems int, hasNext bool) (list []T, at int, more bool) {
	at = clampPage(page, len(all), size)
	start := at * size
	more = len(all) > start+size || (hasNext && (at+1)*size < maxItems)
	return all[start:min(start+size, len(all))], at, more
}

// readServer runs op, a query whose root field is server, as in's
// member: an unregistered server, or one whose answer lacks what present
// looks for, is errUnavailable (what names the read in errors).
func (b *Bot) readServer(ctx context.Context, in *request, op client.Op, vars map[string]any, what string, present func(*client.Server) bool) (*client.Server, error) {
	var data client.ServerData
	if err := b.api.Do(ctx, in.p, op, vars, &data); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if data.Server == nil || !present(data.Server) {
		return nil, fmt.Errorf("%s: %w", what, errUnavailable)
	}
	return data.Server, nil
}

// listLines is one line per item.
func listLines[T any](items []T, line func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, x := range items {
		out = append(out, line(x))
	}
	return out
}

// footnoteIf is s when cond holds, else "" (no footnote).
func footnoteIf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// lines writes a list's lines as one text, empty when there are none,
// and a footnote ("" none) under them.
func (w *builder) lines(lines []string, empty, footnote string) {
	if len(lines) == 0 {
		w.text(empty)
		return
	}
	text := strings.Join(lines, "\n")
	if footnote != "" {
		text += "\n-# " + footnote
	}
	w.text(text)
}

// newerOlderRow is a list's page buttons (route act at the next page
// each way); none when the list has one page.
func newerOlderRow(t tr, act string, page int, more bool) []discordgo.MessageComponent {
	if page == 0 && !more {
		return nil
	}
	return []discordgo.MessageComponent{
		discordgo.Button{Label: "◀ " + t.S("Newer"), Style: discordgo.SecondaryButton, CustomID: route{action: act, page: max(0, page-1)}.encode(), Disabled: page == 0},
		discordgo.Button{Label: t.S("Older") + " ▶", Style: discordgo.SecondaryButton, CustomID: route{action: act, page: page + 1}.encode(), Disabled: !more},
	}
}

// restoreDeleted runs a confirmed restore of the route's revision, after
// checking the entry is still deleted (a second press of a stale Restore
// would otherwise rewrite the restored entry), and repaints the list with
// the receipt.
func (b *Bot) restoreDeleted(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	id := fmt.Sprint(in.rt.entry)
	p, err := b.loadDeleted(ctx, in, id)
	if err != nil {
		return err
	}
	if p.view != viewDeletedConfirm {
		return b.paint(ctx, in, p) // refused with the receipt
	}
	receipt := in.t.S("Restored **%s**: it is back in its book with its id, and the restore is in its history.", escape(orUntitled(in.t, p.wb.deleted.pick.Title)))
	e, err := b.mutate(ctx, in.p, client.OpRestoreEntryRevision, map[string]any{"serverDiscordId": in.guild, "revisionId": id, "idempotencyKey": in.i.ID}, nil)
	if forbidden(err) {
		receipt, err = forbiddenText(in.t, err), nil
	} else if e != nil {
		receipt = in.t.S("Not restored, nothing was changed: %s", reasonOf(in.t, e))
	}
	if err != nil {
		return err
	}
	return b.repaintLoaded(ctx, in, b.loadDeleted, receipt)
}

// repaintLoaded paints what load returns with nothing picked, receipt
// first.
func (b *Bot) repaintLoaded(ctx context.Context, in *request, load func(context.Context, *request, string) (*panel, error), receipt string) error {
	p, err := load(ctx, in, "")
	if err != nil {
		return err
	}
	p.receipt = append([]string{receipt}, p.receipt...)
	return b.paint(ctx, in, p)
}
