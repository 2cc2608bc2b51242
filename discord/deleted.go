package discord

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// The deleted entries view (docs/workbench.md#revisions): Deleted entries
// in the Backups view lists the server's deleted entries (the deleting
// revision of each, Server.deletedEntries), ten a page, newest first, with
// when, who, the kind of write that removed it and its book. A lore writer
// picks one, sees its last state and confirms Restore
// (restoreEntryRevision): the entry comes back with its id in its book.

// Routes: the Backups view's Deleted entries and the list's page buttons
// and Cancel (page: the list page), the entry select (value: revision id)
// and the confirmation's Restore (entry: the revision id).
const actDeleted, actDeletedPick, actDeletedRestore = "lore-de", "lore-dep", "lore-der"

// The deleted entries views (the list, the confirmation), how many a page
// lists and how far the list pages (older ones are in the dashboard and
// the API).
const (
	viewDeleted, viewDeletedConfirm viewKind = 400, 401
	deletedPageSize, deletedMax              = 10, 100
)

// deletedView is one page of deleted entries and the one picked.
type deletedView struct {
	page int
	list []model.EntryRevision
	more bool
	// beyond: older deleted entries exist past what the panel pages.
	beyond bool
	pick   *model.EntryRevision
}

// showDeleted answers Deleted entries, its page buttons and Cancel;
// pickDeleted the entry select, with the confirmation.
func (b *Bot) showDeleted(ctx context.Context, in *request) error {
	return b.paintLoaded(ctx, in, "", b.loadDeleted)
}

func (b *Bot) pickDeleted(ctx context.Context, in *request) error {
	return b.paintPicked(ctx, in, b.loadDeleted)
}

// loadDeleted loads the route's page of deleted entries and, when pick is
// set, the confirmation of that one (lore writers only; one restored
// meanwhile is no longer listed, so it is refused with a receipt).
func (b *Bot) loadDeleted(ctx context.Context, in *request, pick string) (*panel, error) {
	p, err := b.load(ctx, in, route{}, loadOpts{})
	if err != nil {
		return nil, err
	}
	page := min(max(in.rt.page, 0), deletedMax/deletedPageSize-1)
	var data client.ServerData
	if err := b.api.Do(ctx, in.p, client.OpDeletedEntries, map[string]any{"s": in.guild, "first": (page + 1) * deletedPageSize}, &data); err != nil {
		return nil, fmt.Errorf("read deleted entries: %w", err)
	}
	if data.Server == nil || data.Server.DeletedEntries == nil {
		return nil, fmt.Errorf("deleted entries: %w", errUnavailable)
	}
	all := make([]model.EntryRevision, 0, len(data.Server.DeletedEntries.Edges))
	for _, e := range data.Server.DeletedEntries.Edges {
		all = append(all, e.Node)
	}
	page = clampPage(page, len(all), deletedPageSize)
	start := page * deletedPageSize
	dv := &deletedView{page: page, list: all[start:min(start+deletedPageSize, len(all))]}
	hasNext := data.Server.DeletedEntries.PageInfo.HasNextPage
	dv.more = len(all) > start+deletedPageSize || (hasNext && (page+1)*deletedPageSize < deletedMax)
	dv.beyond = hasNext && !dv.more
	p.wb.deleted, p.view = dv, viewDeleted
	if pick != "" {
		i := slices.IndexFunc(all, func(r model.EntryRevision) bool { return r.ID == pick })
		switch {
		case i < 0:
			p.addReceipt("That entry is no longer deleted (it may have been restored meanwhile), so nothing was changed.")
		case !in.manage:
			p.addReceipt(msgNeedManage)
		default:
			dv.pick, p.view = &all[i], viewDeletedConfirm
		}
	}
	return p, nil
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
	title := p.wb.deleted.pick.Title
	var out model.EntryPayload
	e, err := b.mutate(ctx, in.p, client.OpRestoreEntryRevision, map[string]any{"serverDiscordId": in.guild, "revisionId": id, "idempotencyKey": in.i.ID}, &out)
	var receipt string
	switch {
	case forbidden(err):
		receipt = in.t.S(msgNeedManage)
	case err != nil:
		return err
	case e != nil:
		receipt = in.t.S("Not restored, nothing was changed: %s", reasonOf(in.t, e))
	default:
		receipt = in.t.S("Restored **%s**: it is back in its book with its id, and the restore is in its history.", escape(orUntitled(in.t, title)))
	}
	if p, err = b.loadDeleted(ctx, in, ""); err != nil {
		return err
	}
	p.receipt = append([]string{receipt}, p.receipt...)
	return b.paint(ctx, in, p)
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
	if len(dv.list) == 0 {
		w.text(t.S("No deleted entries are kept on this server."))
	} else {
		var s strings.Builder
		for _, r := range dv.list {
			s.WriteString(deletedLine(p, r) + "\n")
		}
		if dv.beyond {
			s.WriteString("-# " + t.S("Older deleted entries are in the dashboard and the API."))
		}
		w.text(s.String())
	}
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
	if dv.page > 0 || dv.more {
		w.row(
			discordgo.Button{Label: "◀ " + t.S("Newer"), Style: discordgo.SecondaryButton, CustomID: route{action: actDeleted, page: max(0, dv.page-1)}.encode(), Disabled: dv.page == 0},
			discordgo.Button{Label: t.S("Older") + " ▶", Style: discordgo.SecondaryButton, CustomID: route{action: actDeleted, page: dv.page + 1}.encode(), Disabled: !dv.more},
		)
	}
}
