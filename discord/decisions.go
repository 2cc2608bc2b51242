package discord

import (
	"context"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// The decisions shown to a proposer (docs/workbench.md#decisions): when a
// member opens the panel with /memories, the approvals and rejections of
// their suggestions not shown yet are listed under the scope row, with the
// reviewer and the reviewer's note, and then marked seen through the API
// (markDecisionsSeen), so each shows once. Past decisionsShown the rest
// show the next time; all stay under My suggestions.

// decisionsShown is how many decisions one opening of the panel shows.
const decisionsShown = 5

// decisionsView is the decisions one paint shows; more when there are
// others not shown yet.
type decisionsView struct {
	list []model.Proposal
	more bool
}

// loadDecisions reads the member's decisions not shown yet into p. A
// failure is logged and the panel opens without them (they stay unseen).
func (b *Bot) loadDecisions(ctx context.Context, in *request, p *panel) {
	if in.p.UserID == "" {
		return
	}
	var data client.ServerData
	if err := b.api.Do(ctx, in.p, client.OpUnseenDecisions, map[string]any{"s": in.guild, "first": decisionsShown + 1}, &data); err != nil {
		b.log.WarnContext(ctx, "discord: read unseen decisions", "guild", in.guild, "err", redact(err))
		return
	}
	if data.Server == nil || len(data.Server.UnseenDecisions) == 0 {
		return
	}
	list := data.Server.UnseenDecisions
	p.wb.decisions = &decisionsView{list: list[:min(len(list), decisionsShown)], more: len(list) > decisionsShown}
}

// markDecisionsSeen marks the decisions p showed as seen. A failure is
// logged: they show again the next time, which loses nothing.
func (b *Bot) markDecisionsSeen(ctx context.Context, in *request, p *panel) {
	if p.wb.decisions == nil {
		return
	}
	ids := make([]string, 0, len(p.wb.decisions.list))
	for _, d := range p.wb.decisions.list {
		ids = append(ids, d.ID)
	}
	var out model.MarkDecisionsSeenPayload
	e, err := b.mutate(ctx, in.p, client.OpMarkDecisionsSeen, map[string]any{"serverDiscordId": in.guild, "proposalIds": ids, "idempotencyKey": in.i.ID}, &out)
	if err == nil && e != nil {
		err = e
	}
	if err != nil {
		b.log.WarnContext(ctx, "discord: mark decisions seen", "guild", in.guild, "err", redact(err))
	}
}

// decisionsText is the block of decisions: each suggestion's number, what
// it did, the decision with the reviewer and the reviewer's note.
func decisionsText(p *panel) string {
	t, d := p.t, p.wb.decisions
	var s strings.Builder
	s.WriteString("### " + t.S("Your suggestions were reviewed") + "\n")
	for _, pr := range d.list {
		mark, verdict := "✅", t.S("Approved by %s", actorText(t, pr.Reviewer))
		if pr.State == model.ProposalStateRejected {
			mark, verdict = "❌", t.S("Rejected by %s", actorText(t, pr.Reviewer))
		}
		line := mark + " **#" + pr.ID + "** · " + proposalWhat(t, pr) + " · " + verdict
		if pr.ReviewNote != "" {
			line += ": " + escape(lore.ClipRunes(strings.ReplaceAll(pr.ReviewNote, "\n", " "), 200))
		}
		s.WriteString(line + "\n")
	}
	if d.more {
		s.WriteString("-# " + t.S("More decisions show the next time you open the panel; every one is under **My suggestions**.") + "\n")
	}
	return s.String()
}
