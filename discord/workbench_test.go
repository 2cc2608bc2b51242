package discord

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"

	"loregate/graph/client"
	"loregate/graph/model"
)

// workbenchGoldenPanels are the entry history, suggestion and review
// states of the golden renderings (TestGoldenRenderings).
func workbenchGoldenPanels(t tr, groups []lineageGroup) map[string]*panel {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	entry := model.Entry{ID: "300", Title: "The Glade", Enabled: true, Keys: []string{"glade", "clearing"}, Probability: 100, InsertionOrder: 100,
		Content: "A quiet clearing where {{char}} rests.", UpdatedAt: at}
	older := entry
	older.Content, older.Keys = "A clearing.", []string{"glade"}
	long := entry
	long.Content = strings.Repeat("A very long revision. ", 200)
	rev := func(id string, kind model.RevisionKind, e model.Entry, ago time.Duration, by string, changed ...string) model.EntryRevision {
		return model.EntryRevision{Entry: e, ID: id, EntryID: "300", Kind: kind, By: by, At: at.Add(-ago), ChangedFields: changed}
	}
	revs := []model.EntryRevision{
		rev("41", model.RevisionKindProposal, entry, 0, "user:"+testUser, "content", "keys"),
		rev("40", model.RevisionKindRestore, older, time.Hour, "user:"+testUser, "content"),
		rev("39", model.RevisionKindUpdate, long, 2*time.Hour, "service:dashboard", "content"),
		rev("38", model.RevisionKindImport, older, 3*time.Hour, "cli"),
		rev("37", model.RevisionKindCreate, older, 4*time.Hour, "user:"+testUser),
	}
	withEntry := func(p panel) *panel {
		p.t, p.guild, p.groups, p.persona, p.lineage = t, testGuild, groups, true, 7
		p.entries = []model.Entry{entry}
		p.entry = &p.entries[0]
		p.wb.on = true
		return &p
	}
	confirm := withEntry(panel{canManage: true, view: viewRevisionConfirm, wb: workbench{revisions: &revisionView{revs: revs, pick: &revs[2]}}})

	base := func(p panel) *panel {
		p.t, p.guild, p.groups = t, testGuild, groups
		p.wb.on = true
		return &p
	}
	lore := "Lore"
	upd := model.Proposal{ID: "12", Kind: model.ProposalKindUpdate, State: model.ProposalStateOpen, Proposer: testUser, LineageID: 7, EntryID: &entry.ID,
		Base: &older, Proposed: &entry, ChangedFields: []string{"content", "keys"}, Note: "The glade is where she *rests*, see chapter 3.", CreatedAt: at.Add(-time.Hour)}
	newEntry := model.Entry{Title: "The Old Mill", Keys: []string{"mill"}, Content: "A ruined mill by the river."}
	cre := model.Proposal{ID: "11", Kind: model.ProposalKindCreate, State: model.ProposalStateOpen, Proposer: testUser, Collection: &lore,
		Proposed: &newEntry, CreatedAt: at.Add(-2 * time.Hour)}
	del := model.Proposal{ID: "10", Kind: model.ProposalKindDelete, State: model.ProposalStateOpen, Proposer: testUser, LineageID: 7, EntryID: &entry.ID,
		Base: &entry, Note: "Duplicate of The Clearing.", CreatedAt: at.Add(-3 * time.Hour)}
	open := []model.Proposal{upd, cre, del}
	current := entry
	current.Content, current.Title = "A clearing, rewritten by a manager.", "The Glade (edited)"
	conflict := &model.ProposalConflict{Base: older, Current: &current, Proposed: &entry, ChangedSince: []string{"title", "content"}}
	approved, rejected := upd, cre
	approved.State, approved.Reviewer, approved.ReviewNote = model.ProposalStateApproved, "user:400000000000000009", "Thanks!"
	rejected.State, rejected.Reviewer, rejected.ReviewNote = model.ProposalStateRejected, "user:400000000000000009", "We already have the mill in *Places*."
	mine := []model.Proposal{approved, rejected, del}
	pick := func(i int, c *model.ProposalConflict) *panel {
		view := viewProposal
		if c != nil {
			view = viewProposalConflict
		}
		return base(panel{canManage: true, view: view, wb: workbench{on: true, open: 3, proposals: &proposalView{list: open, pick: &open[i], conflict: c}}})
	}
	member := withEntry(panel{canManage: false, view: viewEntry})
	member.wb.open = 1
	picker := base(panel{canManage: false, books: []model.Collection{{ID: "10", Name: "Lore", Enabled: true, EntryCount: 1}}, entries: []model.Entry{entry}})
	picker.book = &picker.books[0]
	picker.serverwideCount = 1
	l7, lorePtr := int64(7), &lore
	gone := func(id string, kind model.RevisionKind, e model.Entry, ago time.Duration, lineage *int64, collection *string) model.EntryRevision {
		e.LineageID, e.Collection = lineage, collection
		r := rev(id, kind, e, ago, "user:"+testUser)
		r.Deleted = true
		return r
	}
	deletedList := []model.EntryRevision{
		gone("52", model.RevisionKindDelete, entry, 0, &l7, nil),
		gone("51", model.RevisionKindBulk, newEntry, time.Hour, nil, lorePtr),
		gone("50", model.RevisionKindImport, long, 2*time.Hour, nil, lorePtr),
	}
	deleted := func(p panel) *panel {
		q := base(p)
		if q.view == 0 {
			q.view = viewDeleted
		}
		return q
	}
	decided := base(*picker)
	decided.wb.decisions = &decisionsView{list: []model.Proposal{approved, rejected}, more: true}
	return map[string]*panel{
		"revisions":         withEntry(panel{canManage: true, view: viewRevisions, wb: workbench{revisions: &revisionView{revs: revs, more: true}}}),
		"revisions-member":  withEntry(panel{canManage: false, view: viewRevisions, wb: workbench{revisions: &revisionView{revs: revs[:2]}}}),
		"revisions-confirm": confirm,
		"revisions-none":    withEntry(panel{canManage: true, view: viewRevisions, wb: workbench{revisions: &revisionView{}}}),
		"suggest-entry":     member,
		"suggest-picker":    picker,
		"proposals":         base(panel{canManage: true, view: viewProposals, wb: workbench{on: true, open: 3, proposals: &proposalView{list: open, more: true}}}),
		"proposals-empty":   base(panel{canManage: true, view: viewProposals, wb: workbench{on: true, proposals: &proposalView{}}}),
		"proposals-member":  base(panel{canManage: false, view: viewProposals, wb: workbench{on: true, open: 1, proposals: &proposalView{list: mine}}}),
		"proposal-update":   pick(0, nil),
		"proposal-create":   pick(1, nil),
		"proposal-delete":   pick(2, nil),
		"proposal-conflict": pick(0, conflict),
		"decisions":         decided,
		"deleted":           deleted(panel{canManage: true, wb: workbench{deleted: &deletedView{list: deletedList, more: true}}}),
		"deleted-last-page": deleted(panel{canManage: true, wb: workbench{deleted: &deletedView{page: 9, list: deletedList[2:], beyond: true}}}),
		"deleted-confirm":   deleted(panel{canManage: true, view: viewDeletedConfirm, wb: workbench{deleted: &deletedView{list: deletedList, pick: &deletedList[2]}}}),
		"deleted-member":    deleted(panel{canManage: false, wb: workbench{deleted: &deletedView{list: deletedList}}}),
		"deleted-none":      deleted(panel{canManage: true, wb: workbench{deleted: &deletedView{}}}),
	}
}

// TestGoldenModals renders the suggestion and review forms in each
// language, checks each against Discord's modal limits and compares it
// with its golden file (-update rewrites them).
func TestGoldenModals(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	for _, locale := range []discordgo.Locale{discordgo.EnglishUS, discordgo.PortugueseBR, discordgo.SpanishES} {
		tr := b.translator(locale)
		tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
		entry := model.Entry{ID: "300", Title: "The Glade", Keys: []string{"glade", "clearing"}, Content: "A quiet clearing where {{char}} rests."}
		p := &panel{t: tr, guild: testGuild, persona: true, lineage: 7, entries: []model.Entry{entry}, view: viewEntry}
		p.entry = &p.entries[0]
		reject := rejectModal(tr, route{action: actPropReject, page: 1, entry: 12})
		for name, m := range map[string]*discordgo.InteractionResponseData{
			"modal-suggest-entry":  suggestModal(tr, modalSuggestAdd, p),
			"modal-suggest-edit":   suggestModal(tr, modalSuggestEdit, p),
			"modal-suggest-delete": suggestModal(tr, modalSuggestDel, p),
			"modal-reject":         &reject,
		} {
			t.Run(name+"."+string(locale), func(t *testing.T) {
				got, err := json.MarshalIndent(discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: m}, "", "  ")
				require.NoError(t, err)
				require.Empty(t, payloadViolations(got, true), "the form breaks Discord's limits")
				path := filepath.Join("testdata", "golden", name+"."+string(locale)+".json")
				if *update {
					require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "golden file missing: run go test ./discord -run TestGoldenModals -update")
				require.JSONEq(t, string(want), string(got))
			})
		}
	}
}

// noticeTo returns the contents of the messages o posted to channel.
func noticeTo(o outcome, channel string) []string {
	var out []string
	for _, c := range o.calls {
		if c.Method == "POST" && c.Path == "/api/v9/channels/"+channel+"/messages" && c.Body.Content != nil {
			out = append(out, *c.Body.Content)
		}
	}
	return out
}

// entryAs opens the first entry of book Lore as perms.
func (h *harness) entryAs(perms int64) wireData {
	h.t.Helper()
	p := h.open(perms).panel()
	e := h.need(p, actEntryPick)
	return h.click(perms, e, e.Options[0].Value).panel()
}

// TestWorkbenchPanel: a member suggests an edit from the entry view (the
// notice goes to the managers' channel through the fake Discord), a
// manager reviews it under Proposals (1) and approves; a second
// suggestion whose entry a manager changed meanwhile shows the three
// states and needs Approve anyway; a suggested entry is rejected with a
// note the member reads under My suggestions; members cannot approve or
// restore; History lists the revisions and restores one; proposals off
// hides the suggest buttons.
func TestWorkbenchPanel(t *testing.T) {
	h := newHarness(t)
	seedScopes(h) // Lore: Entry 000, Entry 001
	// The manager names the notice channel in Settings (another server's
	// channel is refused) and the lore editor role.
	settings := h.clickID(permManager, route{action: actSettings}.encode()).panel()
	require.Contains(t, settings.text(), "**Suggestion notices** · none")
	chans := h.need(settings, actWBChannel)
	require.Contains(t, h.click(permManager, chans, chanOther).content(), "Not saved: `"+chanOther+"` is not a channel of this server.")
	o := h.click(permManager, chans, chanB)
	require.Contains(t, o.content(), "Suggestion notices now go to <#"+chanB+">.")
	require.Contains(t, o.content(), "**Suggestion notices** · <#"+chanB+">")
	require.Contains(t, h.click(permManager, h.need(o.panel(), actWBRole), editorRoleID).content(), "Members with <@&"+editorRoleID+"> now write lore.")
	t.Run("only managers change the workbench settings", func(t *testing.T) {
		h.roles = []string{editorRoleID}
		defer func() { h.roles = nil }()
		p := h.clickID(permMember, route{action: actSettings}.encode()).panel()
		require.True(t, h.need(p, actWBToggle).Disabled, "a lore editor sees the settings disabled")
		for _, id := range []string{route{action: actWBToggle}.encode(), route{action: actWBRole}.encode()} {
			require.Contains(t, h.clickID(permMember, id).content(), msgNeedSettings, "the API refuses a lore editor")
		}
		h.roles = nil
		require.Contains(t, h.clickID(permMember, route{action: actWBToggle}.encode()).content(), msgNeedSettings, "the adapter refuses a member")
		var data client.ServerData
		h.op(client.OpServer, map[string]any{"s": testGuild}, &data)
		w := data.Server.WorkbenchSettings
		require.True(t, w.ProposalsEnabled)
		require.Equal(t, []string{chanB, editorRoleID}, []string{*w.ProposalChannelID, *w.LoreEditorRoleID}, "nothing changed")
	})
	original := h.scope(0, "Lore")[0]

	// The member suggests an edit of Entry 000's content.
	ev := h.entryAs(permMember)
	m := h.click(permMember, h.need(ev, actSuggestEdit)).modal()
	require.Equal(t, []string{fieldTitle, fieldKeys, fieldContent, fieldNote}, fieldIDs(m))
	o = h.submit(permMember, m, map[string]string{fieldContent: "Rewritten by a member.", fieldNote: "Chapter 3 says so."})
	require.Contains(t, o.content(), "Sent your suggestion #")
	require.Equal(t, original.Content, h.scope(0, "Lore")[0].Content, "a suggestion writes nothing")
	notes := noticeTo(o, chanB)
	require.Len(t, notes, 1, "one notice in the managers' channel")
	require.Contains(t, notes[0], "New suggestion #")
	require.Contains(t, notes[0], "from <@"+testUser+">: an edit of **Entry 000** (content)")
	require.Contains(t, notes[0], "> Chapter 3 says so.")
	require.Equal(t, "My suggestions", h.need(o.panel(), actPropOpen).label())

	t.Run("member cannot approve", func(t *testing.T) {
		mine := h.clickID(permMember, route{action: actPropOpen}.encode()).panel()
		require.Contains(t, mine.text(), "## My suggestions")
		require.Contains(t, mine.text(), "an edit of **Entry 000**")
		_, ok := mine.find(actPropPick)
		require.False(t, ok, "members get no review select")
		before := h.snapshot()
		o := h.clickID(permMember, route{action: actPropApprove, entry: 1}.encode())
		require.Contains(t, o.content(), msgNeedLoreWrite)
		require.Equal(t, before, h.snapshot())
	})

	// The manager reviews and approves.
	list := h.clickID(permManager, route{action: actPropOpen}.encode()).panel()
	require.Equal(t, "Proposals (1)", h.need(list, actPropOpen).label())
	pick := h.need(list, actPropPick)
	require.Len(t, pick.Options, 1)
	view := h.click(permManager, pick, pick.Options[0].Value).panel()
	require.Contains(t, view.text(), "**content**\nNow:\n> "+original.Content+"\nSuggested:\n> Rewritten by a member.")
	o = h.click(permManager, h.need(view, actPropApprove))
	require.Contains(t, o.content(), "Approved suggestion #"+pick.Options[0].Value)
	require.Contains(t, o.content(), "No suggestions are waiting for review.")
	require.Equal(t, "Rewritten by a member.", h.scope(0, "Lore")[0].Content)

	// The member's next /memories shows the decision, once.
	shown := h.open(permMember).content()
	require.Contains(t, shown, "### Your suggestions were reviewed\n✅ **#"+pick.Options[0].Value+"** · an edit of **Entry 000** (content) · Approved by <@"+testUser+">")
	require.NotContains(t, h.open(permMember).content(), "Your suggestions were reviewed", "a decision shows once")

	t.Run("changed meanwhile: three states, approve anyway", func(t *testing.T) {
		m := h.click(permMember, h.need(h.entryAs(permMember), actSuggestEdit)).modal()
		h.submit(permMember, m, map[string]string{fieldContent: "Second suggestion."})
		view := h.click(permManager, h.need(h.clickID(permManager, route{action: actPropOpen}.encode()).panel(), actPropPick), h.openProposal()).panel()
		// A manager edits the title meanwhile.
		em := h.click(permManager, h.need(h.entryAs(permManager), actEntryEdit)).modal()
		h.submit(permManager, em, map[string]string{fieldTitle: "Entry 000 (renamed)"})
		o := h.click(permManager, h.need(view, actPropApprove))
		text := o.content()
		require.Contains(t, text, "The entry changed after this suggestion was made (title)")
		require.Contains(t, text, "**title**\nWhen suggested:\n> Entry 000\nNow:\n> Entry 000 (renamed)")
		require.Equal(t, "Rewritten by a member.", h.scope(0, "Lore")[0].Content, "nothing written before a fresh decision")
		o = h.click(permManager, h.need(o.panel(), actPropApprove))
		require.Contains(t, o.content(), "Approved suggestion #")
		e := h.scope(0, "Lore")[0]
		require.Equal(t, "Second suggestion.", e.Content)
		require.Equal(t, "Entry 000 (renamed)", e.Title, "the change made since stays")
	})

	t.Run("suggested entry rejected with a note", func(t *testing.T) {
		p := h.open(permMember).panel()
		require.Contains(t, optionValues(h.need(p, actEntryPick)), valueSuggest)
		m := h.click(permMember, h.need(p, actEntryPick), valueSuggest).modal()
		h.submit(permMember, m, map[string]string{fieldTitle: "The Old Mill", fieldKeys: "mill", fieldContent: "A ruined mill."})
		view := h.click(permManager, h.need(h.clickID(permManager, route{action: actPropOpen}.encode()).panel(), actPropPick), h.openProposal()).panel()
		require.Contains(t, view.text(), "New entry\n**The Old Mill**\nKeywords: mill\n> A ruined mill.")
		rm := h.click(permManager, h.need(view, actPropReject)).modal()
		o := h.submit(permManager, rm, map[string]string{fieldNote: "We have it in Places."})
		require.Contains(t, o.content(), "Rejected suggestion #")
		require.Len(t, h.scope(0, "Lore"), 2, "nothing added")
		mine := h.clickID(permMember, route{action: actPropOpen}.encode()).panel()
		require.Contains(t, mine.text(), "a new entry **The Old Mill**")
		require.Contains(t, mine.text(), "❌ Rejected by <@"+testUser+">: We have it in Places.")
		require.Contains(t, h.open(permMember).content(), "· a new entry **The Old Mill** · Rejected by <@"+testUser+">: We have it in Places.", "the decision with the note on the next opening")
	})

	t.Run("member withdraws an open suggestion", func(t *testing.T) {
		// A notice channel set through the API to another server's channel
		// gets no notice.
		setChannel := func(c string) {
			h.gql(`mutation($s: String!, $c: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, proposalChannelId: $c}) { error { code } } }`,
				map[string]any{"s": testGuild, "c": c}, nil)
		}
		setChannel(chanOther)
		defer setChannel(chanB)
		m := h.click(permMember, h.need(h.entryAs(permMember), actSuggestDelete)).modal()
		o := h.submit(permMember, m, map[string]string{fieldNote: "A duplicate."})
		require.Contains(t, o.content(), "Sent your suggestion #")
		require.Empty(t, noticeTo(o, chanOther), "never into another server's channel")
		id := h.openProposal()
		mine := h.clickID(permMember, route{action: actPropOpen}.encode()).panel()
		var withdraw []wireComponent
		for _, c := range mine.all() {
			if rt, err := parseRoute(c.CustomID); err == nil && rt.action == actPropWithdraw {
				withdraw = append(withdraw, c)
			}
		}
		require.Len(t, withdraw, 1, "Withdraw only on the open suggestion, not the approved or rejected ones")
		require.Equal(t, "Withdraw #"+id, withdraw[0].label())
		before := h.snapshot()
		o = h.click(permMember, withdraw[0])
		require.Contains(t, o.content(), "Withdrew your suggestion #"+id+".")
		require.Contains(t, o.content(), "## My suggestions")
		require.Contains(t, o.content(), "-# Withdrawn")
		_, ok := o.panel().find(actPropWithdraw)
		require.False(t, ok, "nothing open is left to withdraw")
		require.Equal(t, before, h.snapshot(), "a withdrawal writes no lore")
		var data client.ServerData
		h.op(client.OpProposals, map[string]any{"s": testGuild, "state": model.ProposalStateWithdrawn, "first": 5}, &data)
		require.Len(t, data.Server.Proposals.Edges, 1)
		require.Equal(t, id, data.Server.Proposals.Edges[0].Node.ID)
		require.Equal(t, model.ProposalStateWithdrawn, data.Server.Proposals.Edges[0].Node.State)

		// A second press (the panel as it was): refused, in the member's language.
		h.locale = "pt-BR"
		defer func() { h.locale = "en-US" }()
		o = h.click(permMember, withdraw[0])
		require.Contains(t, o.content(), "Essa sugestão não está mais aberta, então nada foi alterado.")
		require.Contains(t, o.content(), "## Minhas sugestões")
		require.Equal(t, before, h.snapshot())
	})

	t.Run("history and restore", func(t *testing.T) {
		ev := h.entryAs(permManager)
		hist := h.click(permManager, h.need(ev, actRevisions)).panel()
		text := hist.text()
		require.Contains(t, text, "## History · Entry 000 (renamed)")
		require.Contains(t, text, "Suggestion approved · changed: content")
		require.Contains(t, text, "Edited · changed: title")
		require.Contains(t, text, "Import")
		sel := h.need(hist, actRevPick)
		oldest := sel.Options[len(sel.Options)-1].Value // the import
		c := h.click(permManager, sel, oldest).panel()
		require.Contains(t, c.text(), "Restore this state?")
		require.Contains(t, c.text(), "> "+original.Content)

		member := h.click(permMember, h.need(h.entryAs(permMember), actRevisions)).panel()
		_, ok := member.find(actRevPick)
		require.False(t, ok, "members read the history but restore nothing")
		before := h.snapshot()
		require.Contains(t, h.click(permMember, h.need(c, actRevRestore)).content(), msgNeedLoreWrite)
		require.Equal(t, before, h.snapshot())

		o := h.click(permManager, h.need(c, actRevRestore))
		require.Contains(t, o.content(), "Restored **Entry 000** to revision #"+oldest)
		e := h.scope(0, "Lore")[0]
		require.Equal(t, original.Content, e.Content)
		require.Equal(t, original.Title, e.Title)
		hist = h.click(permManager, h.need(o.panel(), actRevisions)).panel()
		require.Contains(t, hist.text(), "Restored", "the restore is itself a revision")
	})

	t.Run("Portuguese", func(t *testing.T) {
		h.locale = "pt-BR"
		defer func() { h.locale = "en-US" }()
		ev := h.entryAs(permMember)
		require.Equal(t, "Sugerir uma edição", h.need(ev, actSuggestEdit).label())
		require.Contains(t, h.click(permMember, h.need(ev, actRevisions)).content(), "## Histórico · Entry 000")
	})

	t.Run("deleted entries and restore", func(t *testing.T) {
		gone := h.scope(0, "Lore")[1]
		ev := h.click(permManager, h.need(h.open(permManager).panel(), actEntryPick), gone.ID).panel()
		h.click(permManager, h.need(h.click(permManager, h.need(ev, actEntryDelete)).panel(), actEntryDelOK))
		require.Len(t, h.scope(0, "Lore"), 1)

		list := h.click(permManager, h.need(h.clickID(permManager, route{action: actBackups}.encode()).panel(), actDeleted)).panel()
		require.Contains(t, list.text(), "## Deleted entries")
		require.Contains(t, list.text(), "· Deleted · Serverwide › Lore · **"+gone.Title+"**")
		sel := h.need(list, actDeletedPick)
		require.Equal(t, "Restore "+gone.Title, sel.Options[0].Label, "the newest deleted entry first")
		rev := idOf(sel.Options[0].Value)

		require.True(t, h.need(h.clickID(permMember, route{action: actBackups}.encode()).panel(), actDeleted).Disabled, "members restore nothing")
		before := h.snapshot()
		o := h.clickID(permMember, route{action: actDeletedRestore, entry: rev}.encode())
		require.Contains(t, o.content(), msgNeedLoreWrite)
		require.Equal(t, before, h.snapshot())

		c := h.click(permManager, sel, sel.Options[0].Value).panel()
		require.Contains(t, c.text(), "Restore this entry?")
		require.Contains(t, c.text(), "> "+gone.Content)
		require.Len(t, h.scope(0, "Lore"), 1, "nothing changes before the confirmation")
		restore := h.need(c, actDeletedRestore)
		o = h.click(permManager, restore)
		require.Contains(t, o.content(), "Restored **"+gone.Title+"**: it is back in its book with its id")
		back := h.scope(0, "Lore")
		require.Len(t, back, 2)
		require.Contains(t, []string{back[0].ID, back[1].ID}, gone.ID, "it comes back with its id")
		require.NotContains(t, o.content(), "Serverwide › Lore · **"+gone.Title+"**", "no longer listed")

		before = h.snapshot()
		o = h.click(permManager, restore) // the stale confirmation
		require.Contains(t, o.content(), "That entry is no longer deleted (it may have been restored meanwhile), so nothing was changed.")
		require.Equal(t, before, h.snapshot())

		h.locale = "pt-BR"
		defer func() { h.locale = "en-US" }()
		require.Contains(t, h.clickID(permManager, route{action: actDeleted}.encode()).content(), "## Entradas excluídas")
	})

	t.Run("proposals off", func(t *testing.T) {
		toggle := func() string {
			return h.click(permManager, h.need(h.clickID(permManager, route{action: actSettings}.encode()).panel(), actWBToggle)).content()
		}
		require.Contains(t, toggle(), "Suggestions is now Off.")
		ev := h.entryAs(permMember)
		_, ok := ev.find(actSuggestEdit)
		require.False(t, ok, "no suggest buttons when the server takes none")
		require.NotContains(t, optionValues(h.need(h.open(permMember).panel(), actEntryPick)), valueSuggest)
		o := h.clickID(permMember, route{action: actSuggestEdit, entry: 1}.encode())
		require.Contains(t, o.content(), "This server does not take suggestions right now.")
		require.Contains(t, toggle(), "Suggestions is now On.")
		h.need(h.entryAs(permMember), actSuggestEdit)
	})
}

// openProposal is the id of the newest open proposal.
func (h *harness) openProposal() string {
	h.t.Helper()
	var data client.ServerData
	h.op(client.OpProposals, map[string]any{"s": testGuild, "state": model.ProposalStateOpen, "first": 1}, &data)
	require.NotNil(h.t, data.Server)
	require.NotEmpty(h.t, data.Server.Proposals.Edges)
	return data.Server.Proposals.Edges[0].Node.ID
}
