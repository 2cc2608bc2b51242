package discord

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// Receipts shown to members.
const (
	msgOutdated = "This panel was out of date, so nothing was changed. Here is the current view."
)

// permissionOf is the reason key of the permission a route action needs
// (docs/api.md "Reason keys"), as the API checks it: the server's
// settings, workspace backups and workbench settings need Manage Server
// (forbidden_settings; the lore editor role does not grant them), an
// export is forbidden_export, every other action a lore write.
func permissionOf(action string) i18n.Key {
	switch action {
	case actSetToggle, actBudget, modalBudget, actBackupExp, actBackupImp, modalBackup, actBackupOK,
		actWBToggle, actWBChannel, actWBRole:
		return i18n.ForbiddenSettings
	case actExport:
		return i18n.ForbiddenExport
	}
	return i18n.ForbiddenLoreWrite
}

// refusal is the receipt of a call the member may not make, in the
// member's language: "Nothing was changed: " and the text of the reason
// key naming the permission it needs (lore/i18n), the shape of the
// adapter's other reason-key receipts.
func refusal(t tr, key i18n.Key, params map[string]any) string {
	return t.S("Nothing was changed: %s", reasonText(t, key, params))
}

// reasonText is a permission's reason key rendered in the member's
// language with its params; the lore write's for a key this adapter does
// not know (none, from an older server, or a newer server's).
func reasonText(t tr, key i18n.Key, params map[string]any) string {
	if !i18n.Known(key) {
		key, params = i18n.ForbiddenLoreWrite, nil
	}
	return i18n.Text(t.lang, key, params)
}

// forbiddenReason is the text of the permission the API's FORBIDDEN err
// names (its extensions.reason; reasonText).
func forbiddenReason(t tr, err error) string {
	var e *client.Error
	if errors.As(err, &e) {
		return reasonText(t, e.Reason, e.Params)
	}
	return reasonText(t, i18n.ForbiddenLoreWrite, nil)
}

// forbiddenText is the receipt of the API's FORBIDDEN err: "Nothing was
// changed: " and the text of the permission it names (forbiddenReason).
func forbiddenText(t tr, err error) string {
	return t.S("Nothing was changed: %s", forbiddenReason(t, err))
}

// notAllowed is the receipt of a request the adapter refuses before
// calling the API (the member may not write lore): the refusal of the
// permission its action needs (permissionOf).
func (in *request) notAllowed() string { return refusal(in.t, permissionOf(in.rt.action), nil) }

// Mutations the panel makes. Every one re-resolves scope and permission in
// the resolver; the payload's typed error becomes the receipt.
const ()

// routeTable maps route actions to handlers.
func (b *Bot) routeTable() map[string]handlerFunc {
	t := map[string]handlerFunc{
		actServerwide:  b.navigate(func(r *route) { *r = route{} }, loadOpts{}),
		actPersona:     b.navigate(func(r *route) { *r = route{} }, loadOpts{persona: true}),
		actPersonaPage: b.navigate(nil, loadOpts{persona: true}),
		actBookPage:    b.navigate(nil, loadOpts{}),
		actEntryPage:   b.navigate(nil, loadOpts{}),
		actBack:        b.navigate(func(r *route) { r.entry = 0 }, loadOpts{}),
		actPersonaPick: b.personaPick,
		actBookPick:    b.bookPick,
		actEntryPick:   b.entryPick,
		actBookToggle:  b.bookToggle,
		actBookChans:   b.bookChannels,
		actBookChanSet: b.bookChannelSet,
		actBookChanAll: b.bookChannelSet,
		actBookRename:  b.openModal(modalRename),
		actBookDelete:  b.confirm(viewConfirmBook),
		actBookDelOK:   b.bookDelete,
		actExport:      b.export,
		actEntryEdit:   b.openModal(modalEntryEdit),
		actEntryRules:  b.openModal(modalRules),
		actEntryToggle: b.entryToggle,
		actEntryDelete: b.confirm(viewConfirmEntry),
		actEntryDelOK:  b.entryDelete,
		modalBookAdd:   b.submitBookAdd,
		modalRename:    b.submitRename,
		modalEntryAdd:  b.submitEntryAdd,
		modalEntryEdit: b.submitEntryEdit,
		modalRules:     b.submitRules,
		modalImport:    b.submitImport,
		actSettings:    b.navigate(func(r *route) { *r = route{action: actSettings} }, loadOpts{view: viewSettings}),
		actSetToggle:   b.settingToggle,
		actBackups:     b.navigate(func(r *route) { *r = route{action: actBackups} }, loadOpts{view: viewBackups}),
		actBackupExp:   b.backupExport,
		actBackupImp:   b.openModal(modalBackup),
		actBackupOK:    b.backupConfirm,
		actCardImport:  b.openModal(modalCard),
		modalCard:      b.submitCard,
		modalBackup:    b.submitBackup,
		actBookSet:     b.openModal(modalBookSet),
		modalBookSet:   b.submitBookSettings,
		actBudget:      b.openModal(modalBudget),
		modalBudget:    b.submitBudget,
		actHistory:     b.showHistory,
		actHistoryPick: b.pickHistory,
		actHistoryUndo: b.undoHistory,
		// The workbench (revisions.go, proposals.go).
		actRevisions:     b.showRevisions,
		actRevPick:       b.pickRevision,
		actRevRestore:    b.restoreRevision,
		actProposals:     b.showProposals,
		actPropOpen:      b.showProposals,
		actPropPick:      b.pickProposal,
		actPropApprove:   b.approveProposal,
		actPropReject:    b.openReject,
		modalPropReject:  b.submitReject,
		actPropWithdraw:  b.withdrawProposal,
		actSuggestEdit:   b.openSuggest(modalSuggestEdit),
		actSuggestDelete: b.openSuggest(modalSuggestDel),
		modalSuggestAdd:  b.submitSuggest,
		modalSuggestEdit: b.submitSuggest,
		modalSuggestDel:  b.submitSuggest,
		// Deleted entries (revisions.go).
		actDeleted:        b.shows(b.loadDeleted),
		actDeletedPick:    b.picks(b.loadDeleted),
		actDeletedRestore: b.restoreDeleted,
		// The workbench settings (wbsettings.go).
		actWBToggle:  b.workbenchToggle,
		actWBChannel: b.workbenchChannel,
		actWBRole:    b.workbenchRole,
	}
	b.addChannelPageRoutes(t)
	return t
}

// openPanel answers /memories with the Lorebooks tab in Serverwide scope,
// and the decisions on the member's suggestions not shown yet, which are
// marked seen once the panel is sent (decisions.go).
func (b *Bot) openPanel(ctx context.Context, in *request) error {
	p, err := b.load(ctx, in, route{}, loadOpts{})
	if err != nil {
		return err
	}
	b.loadDecisions(ctx, in, p)
	if err := b.paint(ctx, in, p); err != nil {
		return err
	}
	b.markDecisionsSeen(ctx, in, p)
	return nil
}

// outdated repaints the Serverwide scope for a route from another version
// or an unknown action.
func (b *Bot) outdated(ctx context.Context, in *request) error {
	p, err := b.load(ctx, in, route{}, loadOpts{})
	if err != nil {
		return err
	}
	p.addReceipt(msgOutdated)
	return b.paint(ctx, in, p)
}

// navigate returns a read-only handler: adjust the route, reload, repaint.
func (b *Bot) navigate(adjust func(*route), o loadOpts) handlerFunc {
	return func(ctx context.Context, in *request) error {
		rt := in.rt
		if adjust != nil {
			adjust(&rt)
		}
		if rt.action == actPersonaPage {
			o.persona = true
		}
		p, err := b.load(ctx, in, rt, o)
		if err != nil {
			return err
		}
		if o.view != viewMain && !p.stale {
			p.view = o.view
		}
		return b.paint(ctx, in, p)
	}
}

func (b *Bot) personaPick(ctx context.Context, in *request) error {
	rt := in.rt
	l, ok := pickedID(in.values)
	if !ok {
		return b.outdated(ctx, in)
	}
	rt.lineage, rt.entry, rt.entryPage = l, 0, 0
	in.rt = rt
	return b.navigate(nil, loadOpts{persona: true})(ctx, in)
}

func (b *Bot) bookPick(ctx context.Context, in *request) error {
	switch first(in.values) {
	case valueAdd:
		return b.openModalAt(ctx, in, modalBookAdd, in.rt)
	case valueImport:
		rt := in.rt
		rt.collection = 0 // a new book
		return b.openModalAt(ctx, in, modalImport, rt)
	}
	id, ok := pickedID(in.values)
	if !ok {
		return b.outdated(ctx, in)
	}
	rt := in.rt
	rt.collection, rt.entry, rt.entryPage = id, 0, 0
	in.rt = rt
	return b.navigate(nil, loadOpts{})(ctx, in)
}

func (b *Bot) entryPick(ctx context.Context, in *request) error {
	switch first(in.values) {
	case valueAdd:
		return b.openModalAt(ctx, in, modalEntryAdd, in.rt)
	case valueImport:
		return b.openModalAt(ctx, in, modalImport, in.rt)
	case valueSuggest:
		return b.openSuggest(modalSuggestAdd)(ctx, in)
	}
	rt := in.rt
	if len(in.values) > 0 { // Cancel on the delete confirmation keeps rt.entry
		id, ok := pickedID(in.values)
		if !ok {
			return b.outdated(ctx, in)
		}
		rt.entry = id
	}
	p, err := b.load(ctx, in, rt, loadOpts{full: true})
	if err != nil {
		return err
	}
	return b.paint(ctx, in, p)
}

// confirm shows a delete confirmation (lore writers only).
func (b *Bot) confirm(view viewKind) handlerFunc {
	return func(ctx context.Context, in *request) error {
		p, err := b.load(ctx, in, in.rt, loadOpts{full: view == viewConfirmEntry})
		if err != nil {
			return err
		}
		switch {
		case p.stale:
		case !in.manage:
			p.receipt = append(p.receipt, in.notAllowed())
		case view == viewConfirmBook && p.book != nil:
			p.view = view
		case view == viewConfirmEntry && p.entry != nil:
			p.view = view
		}
		return b.paint(ctx, in, p)
	}
}

// write runs a routed write: defer (type 6), re-resolve the scope from the
// route, repaint a stale route with its receipt instead of writing, refuse
// non-managers, then run op and repaint at the route op returns with the
// receipt of the write or of its failure.
func (b *Bot) write(ctx context.Context, in *request, o loadOpts, need func(*panel) bool, op func(*panel) (route, loadOpts, string, error)) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	p, err := b.load(ctx, in, in.rt, o)
	if err != nil {
		return err
	}
	if o.view != viewMain && !p.stale {
		p.view = o.view
	}
	if !p.stale && need != nil && !need(p) {
		p.stale = true
		p.addReceipt("That item changed meanwhile, so nothing was changed.")
	}
	if p.stale {
		return b.paint(ctx, in, p)
	}
	if !in.manage {
		p.receipt = append(p.receipt, in.notAllowed())
		return b.paint(ctx, in, p)
	}
	next, no, receipt, err := op(p)
	switch {
	case errors.Is(err, client.ErrForbidden):
		receipt, next, no = forbiddenText(in.t, err), in.rt, o
	case err != nil:
		return err
	}
	np, err := b.load(ctx, in, next, no)
	if err != nil {
		return err
	}
	if no.view != viewMain && !np.stale {
		np.view = no.view
	}
	if receipt != "" {
		np.receipt = append([]string{receipt}, np.receipt...)
	}
	return b.paint(ctx, in, np)
}

// mutate runs one mutation with input $in as principal p and returns the
// payload's typed error apart from the other failures.
func (b *Bot) mutate(ctx context.Context, p *auth.Principal, op client.Op, input map[string]any, out any) (*client.Error, error) {
	return refused(b.api.Mutate(ctx, p, op, input, out))
}

// fieldReasons is an invalid write's failing fields, "field: text" each in
// the member's language from the reason keys (the API's English message
// when it gave no key), joined with "; ".
func fieldReasons(t tr, e *client.Error) string {
	one := func(field, reason string, params map[string]any, msg string) string {
		text := msg
		if reason != "" {
			text = i18n.Text(t.lang, reason, params)
		}
		if field == "" || field == "file" {
			return text
		}
		return field + ": " + text
	}
	if len(e.Fields) == 0 {
		return one(e.Field, e.Reason, e.Params, e.Message)
	}
	parts := make([]string, 0, len(e.Fields))
	for _, f := range e.Fields {
		parts = append(parts, one(f.Field, f.Reason, f.Params, f.Message))
	}
	return strings.Join(parts, "; ")
}

// refused splits a client error: a payload's typed error (nothing was
// written; the member gets a receipt) apart from every other failure.
func refused(err error) (*client.Error, error) {
	var e *client.Error
	if errors.As(err, &e) && e.Payload {
		return e, nil
	}
	return nil, err
}

// failure turns a payload error into a receipt, in the member's language:
// INVALID_INPUT lists every failing field with its reason key's text
// (lore/i18n); a cancelled job's reason is the API's English message.
func failure(t tr, e *client.Error) string {
	switch model.ErrorCode(e.Code) {
	case model.ErrorCodeInvalidInput:
		return t.S("Not saved: %s", fieldReasons(t, e))
	case model.ErrorCodeScopeFull:
		return t.S("Not saved: this scope already holds its maximum of %d entries.", scopeLimitOf(e))
	case model.ErrorCodeDuplicateName:
		return t.S("Not saved: a lorebook with that name already exists on this server.")
	case codeJobCancelled:
		return t.S("Not imported, nothing was changed: %s", lore.ClipRunes(e.Message, 300))
	case model.ErrorCodeNotFound, model.ErrorCodeStaleTarget:
		return t.S("Not saved: it was changed or deleted meanwhile.")
	default:
		return t.S("Not saved: the lore store is unavailable. Try again in a moment.")
	}
}

func hasBook(p *panel) bool  { return p.book != nil && !p.persona }
func hasEntry(p *panel) bool { return p.entry != nil }

func (b *Bot) bookToggle(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{}, hasBook, func(p *panel) (route, loadOpts, string, error) {
		enabled := !p.book.Enabled
		e, err := b.mutate(ctx, in.p, client.OpSetCollectionEnabled, map[string]any{"serverDiscordId": in.guild, "collectionId": p.book.ID, "enabled": enabled}, nil)
		if err != nil || e != nil {
			return in.rt, loadOpts{}, receiptOf(in.t, e), err
		}
		state := in.t.S("Active")
		if !enabled {
			state = in.t.S("Disabled: its entries stay out of the prompt")
		}
		return in.rt, loadOpts{}, in.t.S("**%s** is now %s.", escape(p.book.Name), state), nil
	})
}

func receiptOf(t tr, e *client.Error) string {
	if e == nil {
		return ""
	}
	return failure(t, e)
}

// bookChannels opens the channel view: a channel select preselecting the
// book's channels that still exist in the guild.
func (b *Bot) bookChannels(ctx context.Context, in *request) error {
	p, err := b.load(ctx, in, in.rt, loadOpts{})
	if err != nil {
		return err
	}
	switch {
	case p.stale || p.book == nil:
	case !in.manage:
		p.receipt = append(p.receipt, in.notAllowed())
	default:
		existing, err := b.guildChannels(ctx, in.guild)
		if err != nil {
			p.addReceipt("The server's channels could not be read right now. Try again in a moment.")
			break
		}
		p.view = viewChannels
		p.channels = filterExisting(p.book.ChannelIds, existing)
		p.chanPage = min(chanPageOf(in.rt.action, actBookChans), channelPages(len(p.channels))-1)
	}
	return b.paint(ctx, in, p)
}

// bookChannelSet saves the channel select's choice (or All channels): the
// select shows one page of the collection's channels, and the choice
// replaces that page only (chanpage.go).
// Every id is checked against the guild's channels first: one from another
// server refuses the whole write with a receipt. A save from a view whose
// collection changed since it was shown (route.seen) is refused with a
// receipt, here and by the API under the server lock (expectedUpdatedAt):
// of two concurrent saves the stale one never overwrites the other.
func (b *Bot) bookChannelSet(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{}, hasBook, func(p *panel) (route, loadOpts, string, error) {
		input := map[string]any{"serverDiscordId": in.guild, "collectionId": p.book.ID}
		if v := in.rt.seen; v != 0 {
			if p.book.UpdatedAt.UnixMicro() != v {
				return in.rt, loadOpts{}, in.t.S(msgChannelsChanged), nil
			}
			input["expectedUpdatedAt"] = time.UnixMicro(v).UTC()
		}
		ids := []string{}
		if in.rt.action != actBookChanAll && (len(in.values) > 0 || len(p.book.ChannelIds) > 0) {
			existing, err := b.guildChannels(ctx, in.guild)
			if err != nil {
				return in.rt, loadOpts{}, in.t.S("The server's channels could not be read right now, so nothing was saved."), nil
			}
			if bad := foreign(in.values, existing); len(bad) > 0 {
				return in.rt, loadOpts{}, in.t.S("Not saved: %s is not a channel of this server.", channelOrID(bad[0])), nil
			}
			// The select showed one page of the channels: the others stay.
			ids = mergeChannelPage(filterExisting(p.book.ChannelIds, existing), chanPageOf(in.rt.action, actBookChanSet), in.values)
		}
		input["channelIds"] = ids
		e, err := b.mutate(ctx, in.p, client.OpSetCollectionChannels, input, nil)
		if e != nil && e.Code == string(model.ErrorCodeStaleTarget) {
			return in.rt, loadOpts{}, in.t.S(msgChannelsChanged), err
		}
		if err != nil || e != nil {
			return in.rt, loadOpts{}, receiptOf(in.t, e), err
		}
		return in.rt, loadOpts{}, in.t.S("**%s** now appears in %s.", escape(p.book.Name), channelList(in.t, ids)), nil
	})
}

// msgChannelsChanged is the receipt of a channel save refused because the
// book changed since its channel view was shown.
const msgChannelsChanged = "Not saved: this book was changed since its channels were shown. Open Channels again to see the current list."

func (b *Bot) bookDelete(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{}, hasBook, func(p *panel) (route, loadOpts, string, error) {
		e, err := b.mutate(ctx, in.p, client.OpDeleteCollection, map[string]any{"serverDiscordId": in.guild, "collectionId": p.book.ID}, nil)
		if err != nil || e != nil {
			return in.rt, loadOpts{}, receiptOf(in.t, e), err
		}
		return route{}, loadOpts{}, in.t.S("Deleted **%s** and its entries.", escape(p.book.Name)), nil
	})
}

func (b *Bot) entryToggle(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{full: true}, hasEntry, func(p *panel) (route, loadOpts, string, error) {
		enabled := !p.entry.Enabled
		e, err := b.mutate(ctx, in.p, client.OpSetEntryEnabled, map[string]any{"serverDiscordId": in.guild, "lineageId": p.lineage, "entryId": p.entry.ID, "enabled": enabled}, nil)
		if err != nil || e != nil {
			return in.rt, loadOpts{full: true}, receiptOf(in.t, e), err
		}
		state := in.t.S("enabled")
		if !enabled {
			state = in.t.S("disabled: it stays saved and out of the prompt")
		}
		return in.rt, loadOpts{full: true}, in.t.S("**%s** is now %s.", escape(orUntitled(in.t, p.entry.Title)), state), nil
	})
}

func (b *Bot) entryDelete(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{full: true}, hasEntry, func(p *panel) (route, loadOpts, string, error) {
		e, err := b.mutate(ctx, in.p, client.OpDeleteEntry, map[string]any{"serverDiscordId": in.guild, "lineageId": p.lineage, "entryId": p.entry.ID}, nil)
		if err != nil || e != nil {
			return in.rt, loadOpts{full: true}, receiptOf(in.t, e), err
		}
		next := in.rt
		next.entry = 0
		return next, loadOpts{persona: p.persona}, in.t.S("Deleted **%s**.", escape(orUntitled(in.t, p.entry.Title))), nil
	})
}

// export answers Export Lorebook with the selected book as SillyTavern
// world info JSON, attached to an ephemeral message (lore writers only:
// Manage Server or the lore editor role, docs/contract.md#permissions).
func (b *Bot) export(ctx context.Context, in *request) error {
	p, err := b.load(ctx, in, in.rt, loadOpts{})
	if err != nil {
		return err
	}
	if p.stale || (!p.persona && p.book == nil) || (p.persona && p.lineage == 0) {
		return b.paint(ctx, in, p)
	}
	if !in.manage {
		p.receipt = append(p.receipt, in.notAllowed())
		return b.paint(ctx, in, p)
	}
	input := map[string]any{"serverDiscordId": in.guild, "lineageId": p.lineage}
	if !p.persona {
		input["collectionId"] = p.book.ID
	}
	var data struct {
		ExportLorebook model.ExportPayload `json:"exportLorebook"`
	}
	if err := b.api.Do(ctx, in.p, client.OpExportLorebook, map[string]any{"in": input}, &data); err != nil {
		if errors.Is(err, client.ErrForbidden) {
			p.receipt = append(p.receipt, forbiddenText(in.t, err))
			return b.paint(ctx, in, p)
		}
		return err
	}
	ex := data.ExportLorebook
	if ex.Error != nil || ex.JSON == nil || ex.FileName == nil {
		receipt := "" // a file-less answer: the panel repaints as it was
		if ex.Error != nil {
			receipt = failure(in.t, client.PayloadError(client.OpExportLorebook, ex.Error))
		}
		p.receipt = append(p.receipt, receipt)
		return b.paint(ctx, in, p)
	}
	return b.respond(ctx, in, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content: lore.ClipRunes(in.t.S("Exported %s as SillyTavern world info. Channel scope and collection state are not part of this format.", in.t.N("%d entries", ex.Entries)), maxContentLen),
			Flags:   discordgo.MessageFlagsEphemeral,
			Files:   []*discordgo.File{{Name: *ex.FileName, ContentType: "application/json", Reader: stringsReader(*ex.JSON)}},
		},
	})
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// pickedID parses a select's single positive id value.
func pickedID(vs []string) (int64, bool) {
	if len(vs) != 1 {
		return 0, false
	}
	id, err := strconv.ParseInt(vs[0], 10, 64)
	return id, err == nil && id > 0
}
