package postgres_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestProposalLifeCycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.insert(t, entry(b.server, 3, "", "The moon is cheese."))[0]
	change := e.Clone()
	change.Content = "The moon is rock."
	p, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "501", Kind: lore.ProposeUpdate,
		Lineage: 3, EntryID: e.ID, Proposed: &change, Note: "it is rock"})
	require.NoError(t, err)
	require.Equal(t, lore.ProposalOpen, p.State)
	require.True(t, e.UpdatedAt.Equal(p.Base.UpdatedAt))

	// Approved: written as the reviewer's write, revision kind proposal.
	got, err := b.store.ReviewProposal(b.ctx, b.server, p.ID, true, "user:900", "thanks", nil)
	require.NoError(t, err)
	require.Equal(t, lore.ProposalApproved, got.State)
	require.Equal(t, "user:900", got.Reviewer)
	cur, err := b.store.GetEntry(b.ctx, b.server, 3, e.ID)
	require.NoError(t, err)
	require.Equal(t, "The moon is rock.", cur.Content)
	rev := b.revisions(t, e.ID)[0]
	require.Equal(t, lore.RevisionProposal, rev.Kind)
	require.Equal(t, "user:900", rev.Actor)
	_, err = b.store.ReviewProposal(b.ctx, b.server, p.ID, false, "user:900", "", nil)
	requireInvalidField(t, err, "proposalId")

	// The entry changed meanwhile: a three-way conflict, then a fresh decision.
	title := cur.Clone()
	title.Title = "Luna"
	p, err = b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "501", Kind: lore.ProposeUpdate,
		Lineage: 3, EntryID: e.ID, Proposed: &title})
	require.NoError(t, err)
	cur, err = b.store.UpdateEntry(b.ctx, b.server, 3, e.ID, lore.EntryPatch{Content: ptr("The moon is basalt.")})
	require.NoError(t, err)
	_, err = b.store.ReviewProposal(b.ctx, b.server, p.ID, true, "user:900", "", nil)
	var conflict *lore.ProposalConflictError
	require.ErrorAs(t, err, &conflict)
	require.ErrorIs(t, err, lore.ErrStaleTarget)
	require.Equal(t, "The moon is rock.", conflict.Base.Content)
	require.Equal(t, "The moon is basalt.", conflict.Current.Content)
	require.Equal(t, "Luna", conflict.Proposed.Title)
	_, err = b.store.ReviewProposal(b.ctx, b.server, p.ID, true, "user:900", "", &cur.UpdatedAt)
	require.NoError(t, err)
	cur, err = b.store.GetEntry(b.ctx, b.server, 3, e.ID)
	require.NoError(t, err)
	require.Equal(t, "Luna", cur.Title, "the proposer's change")
	require.Equal(t, "The moon is basalt.", cur.Content, "the change made since stays")

	// Create and delete proposals; reject; withdraw.
	b.collection(t, "World")
	ne := lore.NewEntry()
	ne.Content, ne.Keys = "Stars sing.", []string{"stars"}
	pc, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "502", Kind: lore.ProposeCreate,
		Collection: "World", Proposed: &ne})
	require.NoError(t, err)
	pc, err = b.store.ReviewProposal(b.ctx, b.server, pc.ID, true, "user:900", "", nil)
	require.NoError(t, err)
	made, err := b.store.GetEntry(b.ctx, b.server, 0, pc.EntryID)
	require.NoError(t, err)
	require.Equal(t, "Stars sing.", made.Content)
	pd, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "502", Kind: lore.ProposeDelete, EntryID: made.ID})
	require.NoError(t, err)
	pd, err = b.store.ReviewProposal(b.ctx, b.server, pd.ID, false, "user:900", "keep it", nil)
	require.NoError(t, err)
	require.Equal(t, lore.ProposalRejected, pd.State)
	require.Equal(t, "keep it", pd.ReviewNote)
	pd, err = b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "502", Kind: lore.ProposeDelete, EntryID: made.ID})
	require.NoError(t, err)
	_, err = b.store.WithdrawProposal(b.ctx, b.server, pd.ID, "501")
	require.ErrorIs(t, err, lore.ErrNotFound, "another member's proposal")
	pd, err = b.store.WithdrawProposal(b.ctx, b.server, pd.ID, "502")
	require.NoError(t, err)
	require.Equal(t, lore.ProposalWithdrawn, pd.State)

	list, _, err := b.store.Proposals(b.ctx, b.server, "", "502", 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 3)
	open, _, err := b.store.Proposals(b.ctx, b.server, lore.ProposalOpen, "", 10, 0)
	require.NoError(t, err)
	require.Empty(t, open)
}

func TestProposalLimitsAndSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.insert(t, entry(b.server, 3, "", "base"))[0]
	propose := func(who string, i int) error {
		c := e.Clone()
		c.Content = fmt.Sprintf("change %d", i)
		_, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: who, Kind: lore.ProposeUpdate, Lineage: 3, EntryID: e.ID, Proposed: &c})
		return err
	}
	for i := range lore.MaxOpenProposalsPerMember {
		require.NoError(t, propose("601", i))
	}
	requireInvalidField(t, propose("601", 9), "proposer")
	require.NoError(t, propose("602", 0), "another member still may")

	// A change that changes nothing, an invalid one, an unknown entry.
	same := e.Clone()
	_, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "603", Kind: lore.ProposeUpdate, Lineage: 3, EntryID: e.ID, Proposed: &same})
	requireInvalidField(t, err, "patch")
	bad := e.Clone()
	bad.Probability = 300
	_, err = b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "603", Kind: lore.ProposeUpdate, Lineage: 3, EntryID: e.ID, Proposed: &bad})
	requireInvalidField(t, err, "patch.probability")
	_, err = b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "603", Kind: lore.ProposeDelete, Lineage: 4, EntryID: e.ID})
	require.ErrorIs(t, err, lore.ErrNotFound, "the entry is not in that scope")

	// A create into a full scope.
	st := b.store.WithLimits(lore.Limits{ScopeEntries: 1})
	ne := lore.NewEntry()
	ne.Content = "more"
	_, err = st.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: "603", Kind: lore.ProposeCreate, Lineage: 3, Proposed: &ne})
	require.ErrorIs(t, err, lore.ErrScopeFull)

	// Proposals off.
	off := false
	ws, err := b.store.UpdateWorkbenchSettings(b.ctx, b.server, lore.WorkbenchSettingsPatch{ProposalsEnabled: &off, ProposalChannelID: ptr("323456789012345678")})
	require.NoError(t, err)
	require.False(t, ws.ProposalsEnabled)
	require.Equal(t, "323456789012345678", ws.ProposalChannelID)
	require.ErrorIs(t, propose("604", 0), lore.ErrProposalsOff)
	ws, err = b.store.UpdateWorkbenchSettings(b.ctx, b.server, lore.WorkbenchSettingsPatch{ProposalChannelID: ptr("")})
	require.NoError(t, err)
	require.Empty(t, ws.ProposalChannelID)
	require.False(t, ws.ProposalsEnabled, "unset fields keep their value")
	_, err = b.store.UpdateWorkbenchSettings(b.ctx, b.server, lore.WorkbenchSettingsPatch{LoreEditorRoleID: ptr("role")})
	requireInvalidField(t, err, "loreEditorRoleId")
}
