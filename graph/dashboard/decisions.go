package dashboard

import (
	"loregate/graph/client"
	"loregate/graph/model"
)

// decisionsShown is how many decisions on the member's own proposals the
// server page shows at once; the rest show the next time it opens.
const decisionsShown = 10

// decisionsView is the decisions the server page shows the member: their
// own proposals approved or rejected since they last saw one
// (docs/workbench.md#decisions), the most recently decided first, and
// whether more are waiting.
type decisionsView struct {
	List []model.Proposal
	More bool
}

// Title names the entry a decided proposal is about: the proposed title,
// else the title it had, else its id.
func (decisionsView) Title(p model.Proposal) string {
	for _, e := range []*model.Entry{p.Proposed, p.Base} {
		if e != nil && e.Title != "" {
			return e.Title
		}
	}
	if p.EntryID != nil {
		return "#" + *p.EntryID
	}
	return ""
}

// loadDecisions reads the decisions on the member's own proposals not
// shown yet (Server.unseenDecisions); nil when there are none, or when
// they cannot be read (logged: they show the next time).
func (d *Dashboard) loadDecisions(rq *req) *decisionsView {
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpUnseenDecisions, map[string]any{"s": rq.sid, "first": decisionsShown + 1}, &out); err != nil {
		d.log.WarnContext(rq.ctx(), "dashboard: read unseen decisions", "server", rq.sid, "err", err)
		return nil
	}
	if out.Server == nil || len(out.Server.UnseenDecisions) == 0 {
		return nil
	}
	list := out.Server.UnseenDecisions
	return &decisionsView{List: list[:min(len(list), decisionsShown)], More: len(list) > decisionsShown}
}

// markDecisionsSeen marks the decisions v showed as seen
// (markDecisionsSeen), so that they show once, here or in the Discord
// panel. A failure is logged: they show again the next time, which loses
// nothing.
func (d *Dashboard) markDecisionsSeen(rq *req, v *decisionsView) {
	if v == nil {
		return
	}
	ids := make([]string, 0, len(v.List))
	for _, p := range v.List {
		ids = append(ids, p.ID)
	}
	var out model.MarkDecisionsSeenPayload
	err := d.api.Mutate(rq.ctx(), rq.p, client.OpMarkDecisionsSeen, map[string]any{"serverDiscordId": rq.sid, "proposalIds": ids}, &out)
	if err != nil {
		d.log.WarnContext(rq.ctx(), "dashboard: mark decisions seen", "server", rq.sid, "err", err)
	}
}
