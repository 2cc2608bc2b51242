package postgres_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestDecisionsSeen: a proposer's approved and rejected proposals are
// unseen, most recently decided first, until the proposer marks them seen;
// open and withdrawn ones never are; another member, or the same ids under
// another server, marks nothing.
func TestDecisionsSeen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.insert(t, entry(b.server, 3, "", "The moon is cheese."))[0]
	propose := func(who, content string) lore.Proposal {
		c := e.Clone()
		c.Content = content
		p, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: b.server, Proposer: who, Kind: lore.ProposeUpdate, Lineage: 3, EntryID: e.ID, Proposed: &c})
		require.NoError(t, err)
		return p
	}
	rejected, approved, open, withdrawn := propose("701", "rock"), propose("701", "basalt"), propose("701", "dust"), propose("701", "glass")
	other := propose("702", "ice")
	_, err := b.store.ReviewProposal(b.ctx, b.server, rejected.ID, false, "user:900", "no", nil)
	require.NoError(t, err)
	_, err = b.store.ReviewProposal(b.ctx, b.server, approved.ID, true, "user:900", "yes", nil)
	require.NoError(t, err)
	_, err = b.store.ReviewProposal(b.ctx, b.server, other.ID, false, "user:900", "", nil)
	require.NoError(t, err)
	_, err = b.store.WithdrawProposal(b.ctx, b.server, withdrawn.ID, "701")
	require.NoError(t, err)

	ids := func(list []lore.Proposal) []int64 {
		out := []int64{}
		for _, p := range list {
			out = append(out, p.ID)
		}
		return out
	}
	list, more, err := b.store.UnseenDecisions(b.ctx, b.server, "701", 1)
	require.NoError(t, err)
	require.Equal(t, []int64{approved.ID}, ids(list), "the most recent decision first")
	require.True(t, more)
	list, more, err = b.store.UnseenDecisions(b.ctx, b.server, "701", 10)
	require.NoError(t, err)
	require.Equal(t, []int64{approved.ID, rejected.ID}, ids(list), "open and withdrawn proposals have no decision to show")
	require.False(t, more)
	require.Equal(t, "no", list[1].ReviewNote)

	all := []int64{rejected.ID, approved.ID, open.ID, withdrawn.ID, other.ID}
	n, err := b.store.MarkDecisionsSeen(b.ctx, b.server, "703", all)
	require.NoError(t, err)
	require.Zero(t, n, "another member marks nothing")
	n, err = b.store.MarkDecisionsSeen(b.ctx, "300000000000000999", "701", all)
	require.NoError(t, err)
	require.Zero(t, n, "another server's id marks nothing")
	n, err = b.store.MarkDecisionsSeen(b.ctx, b.server, "701", all)
	require.NoError(t, err)
	require.Equal(t, 2, n, "only the member's own decided proposals")
	n, err = b.store.MarkDecisionsSeen(b.ctx, b.server, "701", all)
	require.NoError(t, err)
	require.Zero(t, n, "marked once")
	list, _, err = b.store.UnseenDecisions(b.ctx, b.server, "701", 10)
	require.NoError(t, err)
	require.Empty(t, list)
	list, _, err = b.store.UnseenDecisions(b.ctx, b.server, "702", 10)
	require.NoError(t, err)
	require.Equal(t, []int64{other.ID}, ids(list), "the other member's decision is still unseen")

	_, err = b.store.MarkDecisionsSeen(b.ctx, b.server, "701", make([]int64, lore.MaxDecisionsMarked+1))
	requireInvalidField(t, err, "proposalIds")
}

// TestUnseenDecisionsOf: one read lists a proposer's unseen decisions on
// several servers, each as UnseenDecisions lists it (most recent first,
// first+1 at most), and nothing for a server without any or for another
// proposer's.
func TestUnseenDecisionsOf(t *testing.T) {
	t.Parallel()
	b := setup(t)
	second, third := snowflake(t), snowflake(t)
	for _, s := range []string{second, third} {
		_, err := b.store.UpsertServer(b.ctx, s, "Other Guild")
		require.NoError(t, err)
	}
	decide := func(server, who string, n int) []int64 {
		e := b.insert(t, entry(server, 3, "", "The moon is cheese."))[0]
		var ids []int64
		for i := range n {
			c := e.Clone()
			c.Content = fmt.Sprint("rock ", i)
			p, err := b.store.ProposeEntryChange(b.ctx, lore.Proposal{Server: server, Proposer: who, Kind: lore.ProposeUpdate, Lineage: 3, EntryID: e.ID, Proposed: &c})
			require.NoError(t, err)
			_, err = b.store.ReviewProposal(b.ctx, server, p.ID, false, "user:900", "", nil)
			require.NoError(t, err)
			ids = append([]int64{p.ID}, ids...) // the most recent first
		}
		return ids
	}
	first, sec := decide(b.server, "701", 3), decide(second, "701", 1)
	decide(third, "702", 2)
	got, err := b.store.UnseenDecisionsOf(b.ctx, []string{b.server, second, third}, "701", 2)
	require.NoError(t, err)
	ids := map[string][]int64{}
	for s, list := range got {
		for _, p := range list {
			require.Equal(t, s, p.Server)
			ids[s] = append(ids[s], p.ID)
		}
	}
	require.Equal(t, map[string][]int64{b.server: first, second: sec}, ids, "first+1 a server, the most recent first; none of another proposer")
	single, more, err := b.store.UnseenDecisions(b.ctx, b.server, "701", 2)
	require.NoError(t, err)
	require.True(t, more)
	require.Equal(t, got[b.server][:2], single)
	newest, more, err := b.store.UnseenDecisions(b.ctx, b.server, "701", 1)
	require.NoError(t, err)
	require.True(t, more)
	require.Equal(t, first[:1], []int64{newest[0].ID}, "the limit keeps the most recent")

	_, err = b.store.UnseenDecisionsOf(b.ctx, make([]string, lore.MaxDecisionServers+1), "701", 2)
	require.ErrorIs(t, err, lore.ErrInvalid)
}
