package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"loregate/graph/client"
	"loregate/graph/model"
)

// The workbench pages (docs/workbench.md), all through the public API: an
// entry's history (each revision with the fields it changed, content as a
// line diff, and Restore), the server's deleted entries (Restore), the
// proposals review (each changed field now and proposed; Approve, Reject;
// after a conflict the three states and Approve anyway), and the bulk
// actions of a book's entry list (enable, disable, delete, move the
// selected entries).

// revisionsShown is how many revisions the history page lists.
const revisionsShown = 50

// revisionRow is one revision of the history page: the revision, its
// changes against the older one, and the content diff when the content
// changed.
type revisionRow struct {
	model.EntryRevision
	Diff []diffLine
}

// revisionsPage is an entry's history (GET .../e/{entry}/history).
func (d *Dashboard) revisionsPage(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	e, err := d.bookEntry(rq, b, rq.r.PathValue("entry"))
	if err != nil {
		return err
	}
	if e == nil {
		return fail(http.StatusNotFound, rq.t.S("This entry does not exist in this book."))
	}
	var data struct {
		Server *struct {
			Entry *struct {
				Revisions model.EntryRevisionConnection `json:"revisions"`
			} `json:"entry"`
		} `json:"server"`
	}
	err = d.api.Do(rq.ctx(), rq.p, client.OpEntryRevisions, map[string]any{"s": rq.sid, "l": b.LineageID, "id": e.ID, "first": revisionsShown}, &data)
	if err != nil {
		return err
	}
	var rows []revisionRow
	if data.Server != nil && data.Server.Entry != nil {
		edges := data.Server.Entry.Revisions.Edges
		for i, edge := range edges {
			row := revisionRow{EntryRevision: edge.Node}
			if i+1 < len(edges) && slices.Contains(edge.Node.ChangedFields, "content") {
				row.Diff = lineDiff(edges[i+1].Node.Content, edge.Node.Content)
			}
			rows = append(rows, row)
		}
	}
	d.page(rq, "revisions", rq.t.S("History of %s", titleOf(e)), map[string]any{"Book": b, "Entry": e, "Revisions": rows})
	return nil
}

// titleOf is an entry's title, or its id when it has none.
func titleOf(e *model.Entry) string {
	if strings.TrimSpace(e.Title) != "" {
		return e.Title
	}
	return "#" + e.ID
}

// restoreRevision writes a revision's state as a new write (POST
// revisions/{id}/restore) and opens the entry.
func (d *Dashboard) restoreRevision(rq *req) error {
	var out model.EntryPayload
	err := d.api.Mutate(rq.ctx(), rq.p, client.OpRestoreEntryRevision, map[string]any{"serverDiscordId": rq.sid, "revisionId": rq.r.PathValue("id")}, &out)
	if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Payload {
		return fail(http.StatusUnprocessableEntity, rq.t.S("Not restored, nothing was changed: %s", apiMessage(rq.t, err)))
	}
	if err != nil {
		return err
	}
	http.Redirect(rq.w, rq.r, d.entryURL(rq, out.Entry)+"?done=restored", http.StatusSeeOther)
	return nil
}

// entryURL is the editor page of a stored entry (the server page when its
// book is not listed).
func (d *Dashboard) entryURL(rq *req, e *model.Entry) string {
	base := "/dashboard/s/" + rq.sid + "/"
	if e == nil {
		return base
	}
	if e.LineageID != nil && *e.LineageID != 0 {
		return fmt.Sprintf("%sb/p%d/e/%s", base, *e.LineageID, e.ID)
	}
	for _, b := range rq.srv.CollectionBooks() {
		if e.Collection != nil && b.Name == *e.Collection {
			return base + "b/" + b.Ref + "/e/" + e.ID
		}
	}
	return base
}

// deletedPage lists the server's deleted entries, newest first, with
// Restore for lore writers (GET deleted).
func (d *Dashboard) deletedPage(rq *req) error {
	vars := map[string]any{"s": rq.sid, "first": revisionsShown, "after": nil}
	if a := rq.r.URL.Query().Get("after"); a != "" {
		vars["after"] = a
	}
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpDeletedEntries, vars, &out); err != nil {
		return err
	}
	var revs []model.EntryRevision
	next := ""
	if out.Server != nil && out.Server.DeletedEntries != nil {
		for _, e := range out.Server.DeletedEntries.Edges {
			revs = append(revs, e.Node)
		}
		if pi := out.Server.DeletedEntries.PageInfo; pi.HasNextPage && pi.EndCursor != nil {
			next = "?after=" + *pi.EndCursor
		}
	}
	d.page(rq, "deleted", rq.t.S("Deleted entries"), map[string]any{"Revisions": revs, "Next": next,
		"Books": rq.srv.PersonaBookNames()})
	return nil
}

// proposalRow is one proposal of the review page with its fields now and
// as proposed, and after a refused approval the conflict.
type proposalRow struct {
	model.Proposal
	Fields   []fieldChange
	Conflict *model.ProposalConflict
	// Expected is the current entry's version the conflict showed.
	Expected string
}

// fieldChange is one field of a proposal: as it is (or was) and as
// proposed; Now is the current state after a conflict.
type fieldChange struct {
	Name, Base, Now, Proposed string
}

// proposalsPage lists the open proposals for lore writers (the member's
// own, every state, for other members), GET proposals.
func (d *Dashboard) proposalsPage(rq *req) error {
	rows, err := d.proposalRows(rq)
	if err != nil {
		return err
	}
	d.page(rq, "proposals", rq.t.S("Proposals"), map[string]any{"Proposals": rows})
	return nil
}

func (d *Dashboard) proposalRows(rq *req) ([]proposalRow, error) {
	vars := map[string]any{"s": rq.sid, "first": 100}
	if rq.srv.CanManage {
		vars["state"] = model.ProposalStateOpen
	}
	var out client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpProposals, vars, &out); err != nil {
		return nil, err
	}
	var rows []proposalRow
	if out.Server != nil && out.Server.Proposals != nil {
		for _, e := range out.Server.Proposals.Edges {
			rows = append(rows, proposalRow{Proposal: e.Node, Fields: proposalFields(e.Node, nil)})
		}
	}
	return rows, nil
}

// proposalFields are the fields a proposal shows: the changed ones (every
// shown field of a new entry or a deletion), with the current state after
// a conflict.
func proposalFields(p model.Proposal, c *model.ProposalConflict) []fieldChange {
	names := p.ChangedFields
	if p.Kind != model.ProposalKindUpdate {
		names = []string{"title", "keys", "content"}
	}
	if c != nil {
		for _, f := range c.ChangedSince {
			if !slices.Contains(names, f) {
				names = append(slices.Clip(names), f)
			}
		}
	}
	out := make([]fieldChange, 0, len(names))
	for _, n := range names {
		fc := fieldChange{Name: n, Base: entryField(p.Base, n), Proposed: entryField(p.Proposed, n)}
		if c != nil {
			fc.Base, fc.Now, fc.Proposed = entryField(&c.Base, n), entryField(c.Current, n), entryField(c.Proposed, n)
		}
		out = append(out, fc)
	}
	return out
}

// entryField is one field of an entry as text (model.EntryFieldText).
func entryField(e *model.Entry, name string) string { return model.EntryFieldText(e, name) }

// reviewProposal approves or rejects a proposal (POST proposals/{id}/review:
// decision, note, expectedUpdatedAt after a conflict). A conflict renders
// the page again with the three states.
func (d *Dashboard) reviewProposal(rq *req) error {
	id := rq.r.PathValue("id")
	decision := model.ProposalDecisionReject
	if rq.r.PostFormValue("decision") == "approve" {
		decision = model.ProposalDecisionApprove
	}
	in := map[string]any{"serverDiscordId": rq.sid, "proposalId": id, "decision": decision}
	if n := strings.TrimSpace(rq.r.PostFormValue("note")); n != "" {
		in["note"] = n
	}
	if v := rq.r.PostFormValue("expectedUpdatedAt"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fail(http.StatusBadRequest, rq.t.S("Unknown action."))
		}
		in["expectedUpdatedAt"] = t
	}
	var out model.ProposalPayload
	err := d.api.Mutate(rq.ctx(), rq.p, client.OpReviewProposal, in, &out)
	switch {
	case client.Is(err, model.ErrorCodeStaleTarget) && out.Conflict != nil:
		rows, err := d.proposalRows(rq)
		if err != nil {
			return err
		}
		for i := range rows {
			if rows[i].ID == id {
				rows[i].Conflict, rows[i].Fields = out.Conflict, proposalFields(rows[i].Proposal, out.Conflict)
				if out.Conflict.Current != nil {
					rows[i].Expected = out.Conflict.Current.UpdatedAt.Format(time.RFC3339Nano)
				}
			}
		}
		d.render(rq, "proposals", rq.t.S("Proposals"), http.StatusConflict, map[string]any{"Proposals": rows})
		return nil
	case err != nil:
		if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Payload {
			return fail(http.StatusUnprocessableEntity, rq.t.S("Nothing was changed: %s", apiMessage(rq.t, err)))
		}
		return err
	}
	done := "rejected"
	if decision == model.ProposalDecisionApprove {
		done = "approved"
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/proposals?done="+done, http.StatusSeeOther)
	return nil
}

// bulkAction applies the entry list's bulk form to the selected entries
// (POST b/{book}/bulk: entry = ids, action = enable, disable, delete or
// move, target = a book ref for move): one API call, one transaction.
func (d *Dashboard) bulkAction(rq *req) error {
	b, err := bookFromURL(rq)
	if err != nil {
		return err
	}
	ids := rq.r.PostForm["entry"]
	if len(ids) == 0 {
		return fail(http.StatusUnprocessableEntity, rq.t.S("Select at least one entry."))
	}
	sel := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		sel = append(sel, map[string]any{"entryId": id})
	}
	in := map[string]any{"serverDiscordId": rq.sid, "lineageId": b.LineageID, "entries": sel}
	op, done, next := client.OpSetEntriesEnabled, "bulk", bookURL(rq.sid, b)
	switch rq.r.PostFormValue("action") {
	case "enable":
		in["enabled"] = true
	case "disable":
		in["enabled"] = false
	case "delete":
		op = client.OpDeleteEntries
	case "move":
		t, ok := rq.srv.findBook(rq.r.PostFormValue("target"))
		if !ok {
			return fail(http.StatusUnprocessableEntity, rq.t.S("Choose the book to move the entries to."))
		}
		target := map[string]any{"lineageId": t.LineageID}
		if t.Collection != nil {
			target["collectionId"] = t.Collection.ID
		}
		in["target"], op, done, next = target, client.OpMoveEntries, "moved", bookURL(rq.sid, t)
	default:
		return fail(http.StatusBadRequest, rq.t.S("Unknown action."))
	}
	err = d.api.Mutate(rq.ctx(), rq.p, op, in, nil)
	if ce := (*client.Error)(nil); errors.As(err, &ce) && ce.Payload {
		return fail(http.StatusUnprocessableEntity, rq.t.S("Nothing was changed: %s", apiMessage(rq.t, err)))
	}
	if err != nil {
		return err
	}
	http.Redirect(rq.w, rq.r, next+"?done="+done, http.StatusSeeOther)
	return nil
}

// diffLine is one line of a content diff: Op is "=", "-" or "+".
type diffLine struct{ Op, Text string }

// maxDiffLines bounds the line diff (its table is lines × lines); longer
// texts show as removed and added whole.
const maxDiffLines = 400

// lineDiff is the line diff of a to b (a longest common subsequence).
func lineDiff(a, b string) []diffLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(x) > maxDiffLines || len(y) > maxDiffLines {
		out := make([]diffLine, 0, len(x)+len(y))
		for _, l := range x {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range y {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out = append(out, diffLine{"=", x[i]})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, diffLine{"+", y[j]})
			j++
		default:
			out = append(out, diffLine{"-", x[i]})
			i++
		}
	}
	return out
}
