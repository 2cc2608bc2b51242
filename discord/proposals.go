package discord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// Suggestions and their review (docs/workbench.md#proposals). A member who
// cannot write lore suggests a new entry (the entry picker's "+ Suggest an
// entry"), an edit or a deletion (the entry view's buttons), each with a
// note; proposeEntryChange checks it like a write, and the bot posts a
// notice to the channel the managers chose. Lore writers open Proposals
// (N) in the scope row: the open proposals, newest first; picking one
// shows what it changes, with Approve and Reject (a note for the
// proposer). An approval whose entry changed after the proposal shows the
// three states (when suggested, now, suggested) and needs a fresh
// decision. Members open the same button to see their own suggestions
// with the decision and the reviewer's note.

// Routes. The review: the scope row's Proposals / My suggestions (the
// first page), the list's page buttons and Back, the proposal select
// (value: proposal id), Approve and Reject (which opens the note modal)
// and that modal. On these the page field is the list page and the entry
// field the proposal id; Approve after a conflict carries the entry's
// version it was shown (updatedAt in Unix microseconds, the store's
// precision) in the collection field, which these server-level views do
// not otherwise use. Withdraw (a member's own open proposal under My
// suggestions) carries the list page and the proposal id the same way.
const (
	actPropOpen, actProposals, actPropPick = "lore-pro", "lore-pr", "lore-prp"
	actPropApprove, actPropReject          = "lore-pra", "lore-prr"
	actPropWithdraw                        = "lore-prw"
	modalPropReject                        = "lore-mpr"
)

// Routes of the suggestions: the entry view's Suggest an edit and Suggest
// deletion (each opens its modal), the three modals (a new entry, an edit,
// a deletion's note), the entry picker's option for members and the note
// field of every suggestion and review modal.
const (
	actSuggestEdit, actSuggestDelete                   = "lore-sge", "lore-sgd"
	modalSuggestAdd, modalSuggestEdit, modalSuggestDel = "lore-msa", "lore-mse", "lore-msd"
	valueSuggest, fieldNote                            = "suggest", "note"
)

// The review's views (the list, one proposal, one after a conflict), how
// many proposals a page lists, how far the list pages (the API's 100
// open proposals per server) and the API's note limit.
const (
	viewProposals, viewProposal, viewProposalConflict viewKind = 300, 301, 302
	proposalPageSize, proposalMax, maxNoteLen                  = 10, 100, 1000
)

// workbench is the panel's workbench state: read with the server on every
// paint (suggestions on, the open proposals the member sees) and the
// revision and proposal views when one is open.
type workbench struct {
	// on: the server takes suggestions.
	on bool
	// open is the number of open proposals the member sees (theirs, or
	// all for lore writers); openMore when there are more than counted.
	open     int
	openMore bool
	// noticeChannel is where a new proposal's notice goes ("" none).
	noticeChannel string
	// editorRole is the lore editor role ("" none).
	editorRole string
	revisions  *revisionView
	proposals  *proposalView
	// decisions are the member's decisions not shown before, shown on
	// opening the panel (decisions.go).
	decisions *decisionsView
	// deleted is the deleted entries view (revisions.go).
	deleted *deletedView
}

// proposalView is one page of proposals and the one picked.
type proposalView struct {
	page int
	list []model.Proposal
	more bool
	pick *model.Proposal
	// conflict is set after an approval found the entry changed.
	conflict *model.ProposalConflict
}

// fromServer reads the workbench part of OpServer's answer.
func (w *workbench) fromServer(s *client.Server) {
	if s.WorkbenchSettings != nil {
		w.on = s.WorkbenchSettings.ProposalsEnabled
		if c := s.WorkbenchSettings.ProposalChannelID; c != nil {
			w.noticeChannel = *c
		}
		if r := s.WorkbenchSettings.LoreEditorRoleID; r != nil {
			w.editorRole = *r
		}
	}
	if s.OpenProposals != nil {
		w.open, w.openMore = len(s.OpenProposals.Edges), s.OpenProposals.PageInfo.HasNextPage
	}
}

// proposalsButton is the scope row's Proposals (N) for lore writers and
// My suggestions for members; nil when the server takes no suggestions
// and none is open.
func proposalsButton(p *panel, on bool) *discordgo.Button {
	if !p.wb.on && p.wb.open == 0 {
		return nil
	}
	n := fmt.Sprint(p.wb.open)
	if p.wb.openMore {
		n += "+"
	}
	label := p.t.S("Proposals (%s)", n)
	if !p.canManage {
		label = p.t.S("My suggestions")
	}
	b := discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: route{action: actPropOpen}.encode()}
	if on {
		b.Style = discordgo.PrimaryButton
	}
	return &b
}

// inProposals reports whether p shows a proposal view.
func inProposals(p *panel) bool {
	return (p.view == viewProposals || p.view == viewProposal || p.view == viewProposalConflict) && p.wb.proposals != nil
}

// showProposals answers Proposals, its page buttons and Back;
// pickProposal the proposal select, with its view.
func (b *Bot) showProposals(ctx context.Context, in *request) error {
	return b.paintLoaded(ctx, in, "", b.loadProposalsAt)
}

func (b *Bot) pickProposal(ctx context.Context, in *request) error {
	return b.paintPicked(ctx, in, b.loadProposalsAt)
}

// loadProposalsAt is loadProposals at the route's page.
func (b *Bot) loadProposalsAt(ctx context.Context, in *request, pick string) (*panel, error) {
	return b.loadProposals(ctx, in, in.rt.page, pick)
}

// loadProposals loads the proposals page (open ones for lore writers, the
// member's own in every state otherwise) and, when pick is set, that
// proposal's view.
func (b *Bot) loadProposals(ctx context.Context, in *request, page int, pick string) (*panel, error) {
	p, err := b.load(ctx, in, route{}, loadOpts{})
	if err != nil {
		return nil, err
	}
	page = min(max(page, 0), proposalMax/proposalPageSize-1)
	vars := map[string]any{"s": in.guild, "first": (page + 1) * proposalPageSize}
	if p.canManage {
		vars["state"] = model.ProposalStateOpen
	}
	srv, err := b.readServer(ctx, in, client.OpProposals, vars, "proposals", func(s *client.Server) bool { return s.Proposals != nil })
	if err != nil {
		return nil, err
	}
	var all []model.Proposal
	for _, e := range srv.Proposals.Edges {
		all = append(all, e.Node)
	}
	pv := &proposalView{}
	pv.list, pv.page, pv.more = pageWindow(all, page, proposalPageSize, proposalMax, srv.Proposals.PageInfo.HasNextPage)
	p.wb.proposals, p.view = pv, viewProposals
	if pick != "" {
		i := slices.IndexFunc(all, func(x model.Proposal) bool { return x.ID == pick })
		switch {
		case i < 0 || (p.canManage && all[i].State != model.ProposalStateOpen):
			p.addReceipt("That suggestion is no longer open, so nothing was changed.")
		default:
			pv.pick, p.view = &all[i], viewProposal
		}
	}
	return p, nil
}

// approveProposal approves the proposal of the route: the receipt says
// what was written, or the three states when the entry changed since.
func (b *Bot) approveProposal(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	return b.review(ctx, in, model.ProposalDecisionApprove, "")
}

// submitReject rejects the proposal of the route with the modal's note.
func (b *Bot) submitReject(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	return b.review(ctx, in, model.ProposalDecisionReject, strings.TrimSpace(in.fields[fieldNote]))
}

// review runs reviewProposal for the route's proposal and repaints the
// list with the receipt (the conflict view after STALE_TARGET).
func (b *Bot) review(ctx context.Context, in *request, decision model.ProposalDecision, note string) error {
	id := fmt.Sprint(in.rt.entry)
	if !in.manage {
		p, err := b.loadProposals(ctx, in, in.rt.page, "")
		if err != nil {
			return err
		}
		p.receipt = append([]string{in.notAllowed()}, p.receipt...)
		return b.paint(ctx, in, p)
	}
	input := map[string]any{"serverDiscordId": in.guild, "proposalId": id, "decision": decision, "idempotencyKey": in.i.ID}
	if note != "" {
		input["note"] = note
	}
	if v := in.rt.version(); v != nil && decision == model.ProposalDecisionApprove {
		input["expectedUpdatedAt"] = *v
	}
	var out model.ProposalPayload
	e, err := b.mutate(ctx, in.p, client.OpReviewProposal, input, &out)
	var receipt string
	switch {
	case forbidden(err):
		receipt = forbiddenText(in.t, err)
	case err != nil:
		return err
	case e != nil && e.Code == string(model.ErrorCodeStaleTarget) && out.Conflict != nil:
		p, err := b.loadProposals(ctx, in, in.rt.page, id)
		if err != nil {
			return err
		}
		if p.wb.proposals.pick != nil {
			p.wb.proposals.conflict, p.view = out.Conflict, viewProposalConflict
		}
		return b.paint(ctx, in, p)
	case e != nil:
		receipt = in.t.S("Nothing was changed: %s", reasonOf(in.t, e))
	case decision == model.ProposalDecisionApprove:
		receipt = in.t.S("Approved suggestion #%s: it is written, recorded in the entry's history.", id)
	default:
		receipt = in.t.S("Rejected suggestion #%s. The member sees your note under My suggestions.", id)
	}
	p, err := b.loadProposals(ctx, in, in.rt.page, "")
	if err != nil {
		return err
	}
	p.receipt = append([]string{receipt}, p.receipt...)
	return b.paint(ctx, in, p)
}

// withdrawProposal withdraws the route's proposal, one of the member's
// own (withdrawProposal re-checks that it is theirs and still open), and
// repaints My suggestions with the receipt: a refusal when it was
// approved, rejected or withdrawn meanwhile.
func (b *Bot) withdrawProposal(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	id := fmt.Sprint(in.rt.entry)
	input := map[string]any{"serverDiscordId": in.guild, "proposalId": id, "idempotencyKey": in.i.ID}
	var out model.ProposalPayload
	e, err := b.mutate(ctx, in.p, client.OpWithdrawProposal, input, &out)
	var receipt string
	switch {
	case err != nil:
		return err
	case e != nil && (e.Code == string(model.ErrorCodeNotFound) || e.Reason == string(i18n.ProposalNotOpen)):
		receipt = in.t.S("That suggestion is no longer open, so nothing was changed.")
	case e != nil:
		receipt = in.t.S("Nothing was changed: %s", reasonOf(in.t, e))
	default:
		receipt = in.t.S("Withdrew your suggestion #%s. The lore keepers no longer see it.", id)
	}
	p, err := b.loadProposals(ctx, in, in.rt.page, "")
	if err != nil {
		return err
	}
	p.receipt = append([]string{receipt}, p.receipt...)
	return b.paint(ctx, in, p)
}

// withdrawRow is My suggestions' Withdraw buttons, one per open proposal
// of the page (at most 5 open per member, Discord's 5 buttons a row);
// nil when none.
func withdrawRow(p *panel) []discordgo.MessageComponent {
	pv := p.wb.proposals
	var row []discordgo.MessageComponent
	for _, pr := range pv.list {
		if pr.State != model.ProposalStateOpen || len(row) == 5 {
			continue
		}
		row = append(row, discordgo.Button{Label: lore.ClipRunes(p.t.S("Withdraw #%s", pr.ID), maxButtonLen), Style: discordgo.SecondaryButton,
			CustomID: route{action: actPropWithdraw, page: pv.page, entry: idOf(pr.ID)}.encode()})
	}
	return row
}

// openReject opens the rejection note modal (lore writers only).
func (b *Bot) openReject(ctx context.Context, in *request) error {
	if !in.manage {
		p, err := b.loadProposals(ctx, in, in.rt.page, "")
		if err != nil {
			return err
		}
		p.receipt = append(p.receipt, in.notAllowed())
		return b.paint(ctx, in, p)
	}
	m := rejectModal(in.t, in.rt)
	return b.respond(ctx, in, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: &m})
}

// rejectModal is the form of a rejection: a note for the member.
func rejectModal(t tr, rt route) discordgo.InteractionResponseData {
	return modal(rt.with(modalPropReject), t.S("Reject suggestion #%d", rt.entry),
		input(fieldNote, t.S("A note for the member (optional)"), "", discordgo.TextInputParagraph, false, maxNoteLen))
}

// openSuggest returns the handler opening a suggestion modal of kind at
// the route: refused with a receipt when the server takes no suggestions
// or the route is stale.
func (b *Bot) openSuggest(kind string) handlerFunc {
	return func(ctx context.Context, in *request) error {
		p, err := b.load(ctx, in, in.rt, loadOpts{full: kind != modalSuggestAdd, persona: in.rt.lineage != 0})
		if err != nil {
			return err
		}
		switch {
		case p.stale:
		case !p.wb.on:
			p.addReceipt("This server does not take suggestions right now. Nothing was sent.")
		case kind != modalSuggestAdd && p.entry == nil, kind == modalSuggestAdd && !p.persona && p.book == nil, p.persona && p.lineage == 0:
			p.addReceipt("That item changed meanwhile, so nothing was changed.")
		case kind == modalSuggestEdit && tooLong(p.entry):
			p.addReceipt("This entry is longer than the %d characters a Discord form holds, so it is read-only here. Edit it through the loregate API or a dashboard.", maxInputLen)
		default:
			return b.respond(ctx, in, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: suggestModal(in.t, kind, p)})
		}
		return b.paint(ctx, in, p)
	}
}

// suggestModal is the form of a suggestion: the entry's title, keywords
// and content (prefilled for an edit) and a note; a deletion asks only for
// the note.
func suggestModal(t tr, kind string, p *panel) *discordgo.InteractionResponseData {
	r := p.route(kind)
	note := input(fieldNote, t.S("Why? A note for the lore keepers"), "", discordgo.TextInputParagraph, kind == modalSuggestDel, maxNoteLen)
	if kind == modalSuggestDel {
		m := modal(r, t.S("Suggest deleting this entry"), note)
		return &m
	}
	var e model.Entry
	title := t.S("Suggest an entry")
	if kind == modalSuggestEdit {
		e, title = *p.entry, t.S("Suggest an edit")
	}
	m := modal(r, title,
		input(fieldTitle, t.S("Title"), e.Title, discordgo.TextInputShort, false, lore.MaxTitleLen),
		input(fieldKeys, t.S("Keywords, comma-separated (blank = Always On)"), strings.Join(e.Keys, ", "), discordgo.TextInputParagraph, false, maxInputLen),
		input(fieldContent, t.S("Content"), e.Content, discordgo.TextInputParagraph, true, maxInputLen),
		note)
	return &m
}

// submitSuggest sends a suggestion modal as proposeEntryChange: a new
// entry, an edit holding only the fields the member changed, or a
// deletion; on success the notice goes to the managers' channel.
func (b *Bot) submitSuggest(ctx context.Context, in *request) error {
	if err := b.deferUpdate(ctx, in); err != nil {
		return err
	}
	kind := in.rt.action
	p, err := b.load(ctx, in, in.rt, loadOpts{full: true, persona: in.rt.lineage != 0})
	if err != nil {
		return err
	}
	if p.stale || (kind != modalSuggestAdd && p.entry == nil) {
		return b.paint(ctx, in, p)
	}
	input := map[string]any{"serverDiscordId": in.guild, "lineageId": p.lineage, "idempotencyKey": in.i.ID}
	if note := strings.TrimSpace(in.fields[fieldNote]); note != "" {
		input["note"] = note
	}
	keys := splitList(in.fields[fieldKeys])
	switch kind {
	case modalSuggestAdd:
		input["kind"] = model.ProposalKindCreate
		input["entry"] = map[string]any{"title": in.fields[fieldTitle], "content": in.fields[fieldContent], "keys": keys,
			"constant": len(keys) == 0, "placement": model.PlacementAfter}
		if !p.persona && p.book != nil {
			input["collectionId"] = p.book.ID
		}
	case modalSuggestEdit:
		patch := suggestedPatch(in, p.entry, keys)
		if len(patch) == 0 {
			p.addReceipt("Nothing was sent: the suggestion changes nothing.")
			return b.paint(ctx, in, p)
		}
		input["kind"], input["entryId"], input["patch"] = model.ProposalKindUpdate, p.entry.ID, patch
	default:
		input["kind"], input["entryId"] = model.ProposalKindDelete, p.entry.ID
	}
	var out model.ProposalPayload
	e, err := b.mutate(ctx, in.p, client.OpProposeEntryChange, input, &out)
	switch {
	case err != nil:
		return err
	case e != nil:
		p.receipt = append([]string{in.t.S("Not sent, nothing was changed: %s", reasonOf(in.t, e))}, p.receipt...)
	case out.Proposal != nil:
		p.receipt = append([]string{in.t.S("Sent your suggestion #%s to the lore keepers. Their decision shows under **My suggestions**.", out.Proposal.ID)}, p.receipt...)
		b.proposalNotice(ctx, in, p.wb.noticeChannel, out.Proposal)
		p.wb.open++
	}
	return b.paint(ctx, in, p)
}

// suggestedPatch is the edit modal's change: only the fields that differ
// from the entry as it was prefilled.
func suggestedPatch(in *request, e *model.Entry, keys []string) map[string]any {
	patch := map[string]any{}
	if t := in.fields[fieldTitle]; t != strings.TrimSpace(e.Title) {
		patch["title"] = t
	}
	if c := in.fields[fieldContent]; c != strings.TrimSpace(lore.ClipRunes(e.Content, maxInputLen)) {
		patch["content"] = c
	}
	if !slices.Equal(keys, e.Keys) && strings.Join(keys, ", ") != lore.ClipRunes(strings.Join(e.Keys, ", "), maxInputLen) {
		patch["keys"] = keys
	}
	if constant := len(keys) == 0; constant != e.Constant {
		patch["constant"] = constant
	}
	return patch
}

// proposalNotice posts the notice of a new proposal to the managers'
// channel in the server's language (no mentions are pinged), when that
// channel is one of this server's. A failure is logged: the proposal is
// stored either way.
func (b *Bot) proposalNotice(ctx context.Context, in *request, channel string, pr *model.Proposal) {
	if channel == "" {
		return
	}
	// The API takes any snowflake: post only into this server's channels,
	// never another server's the bot is also in.
	if existing, err := b.guildChannels(ctx, in.guild); err != nil || !existing[channel] {
		b.log.WarnContext(ctx, "discord: proposal notice channel is not a channel of this server", "guild", in.guild, "channel", channel, "err", redact(err))
		return
	}
	t := in.t
	if in.i.GuildLocale != nil {
		t = b.translator(*in.i.GuildLocale)
	}
	text := t.S("New suggestion #%s from %s: %s. Lore keepers review it in `/memories` → **Proposals**.", pr.ID, actorText(t, "user:"+pr.Proposer), proposalWhat(t, *pr))
	if pr.Note != "" {
		text += "\n> " + strings.ReplaceAll(escape(lore.ClipRunes(pr.Note, 300)), "\n", "\n> ")
	}
	msg := &discordgo.MessageSend{Content: lore.ClipRunes(text, maxContentLen), AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}}
	if _, err := b.session.ChannelMessageSendComplex(channel, msg, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false)); err != nil {
		b.logDiscord(ctx, "send proposal notice", err)
	}
}

// proposalWhat says what a proposal does: a new entry, an edit or a
// deletion, with the entry's title.
func proposalWhat(t tr, pr model.Proposal) string {
	title := func(e *model.Entry) string {
		if e == nil {
			return "**" + t.S("(untitled)") + "**"
		}
		return "**" + escape(lore.ClipRunes(orUntitled(t, e.Title), 80)) + "**"
	}
	switch pr.Kind {
	case model.ProposalKindCreate:
		return t.S("a new entry %s", title(pr.Proposed))
	case model.ProposalKindDelete:
		return t.S("deleting %s", title(pr.Base))
	}
	return t.S("an edit of %s (%s)", title(pr.Base), lore.ClipRunes(strings.Join(pr.ChangedFields, ", "), 80))
}

// proposalLine is one proposal of the list: number, when, who, what and
// the note; for a member's own, the decision and the reviewer's note.
func proposalLine(p *panel, pr model.Proposal) string {
	t := p.t
	parts := []string{"**#" + pr.ID + "**", fmt.Sprintf("<t:%d:R>", pr.CreatedAt.Unix()), actorText(t, "user:"+pr.Proposer), proposalWhat(t, pr)}
	if pr.LineageID != 0 {
		parts = append(parts, targetText(p, model.ImportRecord{LineageID: pr.LineageID}))
	} else if pr.Collection != nil {
		parts = append(parts, targetText(p, model.ImportRecord{CollectionName: pr.Collection}))
	}
	line := strings.Join(parts, " · ")
	if pr.Note != "" {
		line += "\n-# " + t.S("Note: %s", escape(lore.ClipRunes(strings.ReplaceAll(pr.Note, "\n", " "), 150)))
	}
	switch pr.State {
	case model.ProposalStateApproved:
		line += "\n-# ✅ " + t.S("Approved by %s", actorText(t, pr.Reviewer))
	case model.ProposalStateRejected:
		line += "\n-# ❌ " + t.S("Rejected by %s", actorText(t, pr.Reviewer))
	case model.ProposalStateWithdrawn:
		line += "\n-# " + t.S("Withdrawn")
	}
	if pr.ReviewNote != "" {
		line += ": " + escape(lore.ClipRunes(strings.ReplaceAll(pr.ReviewNote, "\n", " "), 150))
	}
	return line
}

// renderProposals draws the list, one proposal or its conflict.
func renderProposals(w *builder, p *panel) {
	t := p.t
	pv := p.wb.proposals
	heading := t.S("Proposals")
	if !p.canManage {
		heading = t.S("My suggestions")
	}
	w.text("## " + heading)
	if pv.pick != nil && (p.view == viewProposal || p.view == viewProposalConflict) {
		renderProposal(w, p)
		return
	}
	if len(pv.list) == 0 {
		if p.canManage {
			w.text(t.S("No suggestions are waiting for review."))
		} else {
			w.text(t.S("You have not suggested anything yet. Open an entry and press **Suggest an edit**, or choose **+ Suggest an entry** in the entry list."))
		}
		return
	}
	var s strings.Builder
	for _, pr := range pv.list {
		s.WriteString(proposalLine(p, pr) + "\n")
	}
	w.text(s.String())
	if p.canManage {
		opts := make([]discordgo.SelectMenuOption, 0, len(pv.list))
		for _, pr := range pv.list {
			opts = append(opts, discordgo.SelectMenuOption{
				Label:       lore.ClipRunes(t.S("Review #%s", pr.ID), maxLabelLen),
				Value:       pr.ID,
				Description: lore.ClipRunes(stripMarkup(proposalWhat(t, pr)), maxLabelLen),
			})
		}
		w.add(selectRow(route{action: actPropPick, page: pv.page}, t.S("Choose a suggestion to review"), opts))
	} else if row := withdrawRow(p); len(row) > 0 {
		w.row(row...)
	}
	w.row(newerOlderRow(t, actProposals, pv.page, pv.more)...)
}

// renderProposal shows what the picked proposal changes (or, after a
// conflict, the three states) with Approve, Reject and Back.
func renderProposal(w *builder, p *panel) {
	t := p.t
	pv := p.wb.proposals
	pr := pv.pick
	w.text(proposalLine(p, *pr))
	approve := route{action: actPropApprove, page: pv.page, entry: idOf(pr.ID)}
	approveLabel := t.S("Approve")
	if c := pv.conflict; c != nil {
		w.text(conflictText(t, pr, c))
		if c.Current != nil {
			approve = approve.withVersion(c.Current.UpdatedAt)
		}
		approveLabel = t.S("Approve anyway")
	} else {
		w.text(changeText(t, pr))
	}
	row := []discordgo.MessageComponent{}
	if p.canManage && pr.State == model.ProposalStateOpen {
		row = append(row,
			discordgo.Button{Label: approveLabel, Style: discordgo.SuccessButton, CustomID: approve.encode(), Disabled: pv.conflict != nil && pv.conflict.Current == nil && pr.Kind != model.ProposalKindCreate},
			discordgo.Button{Label: t.S("Reject"), Style: discordgo.DangerButton, CustomID: route{action: actPropReject, page: pv.page, entry: idOf(pr.ID)}.encode()})
	}
	row = append(row, discordgo.Button{Label: t.S("Back"), Style: discordgo.SecondaryButton, CustomID: route{action: actProposals, page: pv.page}.encode()})
	w.row(row...)
}

// changeText is what a proposal does: the new entry, each changed field
// as it is and as suggested, or the entry it deletes.
func changeText(t tr, pr *model.Proposal) string {
	switch {
	case pr.Kind == model.ProposalKindCreate && pr.Proposed != nil:
		return t.S("New entry") + "\n" + stateText(t, pr.Proposed, 900)
	case pr.Kind == model.ProposalKindDelete && pr.Base != nil:
		return t.S("Delete this entry:") + "\n" + stateText(t, pr.Base, 900)
	case pr.Base == nil || pr.Proposed == nil:
		return ""
	}
	var s strings.Builder
	for _, f := range pr.ChangedFields {
		was, now := fieldText(pr.Base, f), fieldText(pr.Proposed, f)
		fmt.Fprintf(&s, "**%s**\n%s\n%s\n%s\n%s\n", escape(f), t.S("Now:"), quote(lore.ClipRunes(was, 450)), t.S("Suggested:"), quote(lore.ClipRunes(now, 450)))
	}
	return s.String()
}

// conflictText shows the three states of every field the proposal or the
// changes since touched.
func conflictText(t tr, pr *model.Proposal, c *model.ProposalConflict) string {
	var s strings.Builder
	s.WriteString("⚠ " + t.S("The entry changed after this suggestion was made (%s). Compare and decide again: approving writes the suggested fields over the entry as it is now.", lore.ClipRunes(strings.Join(c.ChangedSince, ", "), 100)) + "\n")
	if c.Current == nil {
		s.WriteString(t.S("The entry was deleted since, so the suggestion can only be rejected.") + "\n")
	}
	fields := slices.Clone(pr.ChangedFields)
	for _, f := range c.ChangedSince {
		if !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	for _, f := range fields {
		fmt.Fprintf(&s, "**%s**\n%s\n%s\n", escape(f), t.S("When suggested:"), quote(lore.ClipRunes(fieldText(&c.Base, f), 250)))
		if c.Current != nil {
			fmt.Fprintf(&s, "%s\n%s\n", t.S("Now:"), quote(lore.ClipRunes(fieldText(c.Current, f), 250)))
		}
		if c.Proposed != nil {
			fmt.Fprintf(&s, "%s\n%s\n", t.S("Suggested:"), quote(lore.ClipRunes(fieldText(c.Proposed, f), 250)))
		}
	}
	return s.String()
}

// fieldText is one field of an entry as text (model.EntryFieldText).
func fieldText(e *model.Entry, field string) string { return model.EntryFieldText(e, field) }

// stripMarkup removes the bold markers of a text shown in a select.
func stripMarkup(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "**", ""), "\\", "")
}

// forbidden reports whether err is the API's FORBIDDEN (the member may
// not do this).
func forbidden(err error) bool { return errors.Is(err, client.ErrForbidden) }

// suggestRow is the entry view's second row: History for everyone, and
// Suggest an edit and Suggest deletion for members who cannot write lore
// when the server takes suggestions.
func suggestRow(p *panel) []discordgo.MessageComponent {
	t := p.t
	var row []discordgo.MessageComponent
	if !p.canManage && p.wb.on {
		row = append(row,
			discordgo.Button{Label: t.S("Suggest an edit"), Style: discordgo.PrimaryButton, CustomID: p.route(actSuggestEdit).encode(), Disabled: tooLong(p.entry)},
			discordgo.Button{Label: t.S("Suggest deletion"), Style: discordgo.SecondaryButton, CustomID: p.route(actSuggestDelete).encode()})
	}
	return append(row, discordgo.Button{Label: t.S("History"), Style: discordgo.SecondaryButton, CustomID: p.route(actRevisions).encode()})
}
