package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

const (
	qPropose = `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { proposal { id kind state proposer changedFields proposed { content } } error { code message } } }`
	qReview  = `mutation($in: ReviewProposalInput!) { reviewProposal(input: $in) { proposal { id state reviewer reviewNote entryId }
		conflict { base { content } current { content updatedAt } proposed { title content } changedSince } error { code message } } }`
	qProposals = `query($s: String!, $st: ProposalState) { server(discordId: $s) { proposals(state: $st) { edges { node { id state proposer kind } } } } }`
	qWBSet     = `mutation($in: UpdateWorkbenchSettingsInput!) { updateWorkbenchSettings(input: $in) { settings { proposalsEnabled proposalChannelId } error { code message } } }`
)

type proposalPayloadT struct {
	Proposal *struct {
		ID, Kind, State, Proposer, Reviewer, ReviewNote string
		EntryID                                         *string
		ChangedFields                                   []string
	}
	Conflict *struct {
		Base         struct{ Content string }
		Current      *struct{ Content, UpdatedAt string }
		Proposed     *struct{ Title, Content string }
		ChangedSince []string
	}
	Error *mutationError
}

// TestProposalsAPI: a member proposes a change, the manager approves it;
// the entry changed meanwhile answers STALE_TARGET with the three states
// and a fresh decision approves; reject; members see only their own; a
// member cannot approve; a member of another server is refused; proposals
// off refuses new ones.
func TestProposalsAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 4, "n": "Mira"}, "upsertPersona", &pp)
	manager := a.member("900000000000000021", map[string]auth.Membership{serverA: {Manage: true}})
	member := a.member("900000000000000022", map[string]auth.Membership{serverA: {}})
	other := a.member("900000000000000023", map[string]auth.Membership{serverA: {}})
	outsider := a.member("900000000000000024", map[string]auth.Membership{serverB: {}})
	var c entryPayloadT
	a.must(manager, qCreatePersonaEntry, map[string]any{"s": serverA, "l": 4, "c": "The moon is cheese.", "t": "Moon"}, "createEntry", &c)
	id := c.Entry.ID
	propose := func(bearer string, patch map[string]any) proposalPayloadT {
		var p proposalPayloadT
		a.must(bearer, qPropose, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "UPDATE", "lineageId": 4,
			"entryId": id, "patch": patch, "note": "fix"}}, "proposeEntryChange", &p)
		return p
	}
	p := propose(member, map[string]any{"content": "The moon is rock."})
	require.Nil(t, p.Error)
	require.Equal(t, "OPEN", p.Proposal.State)
	require.Equal(t, []string{"content"}, p.Proposal.ChangedFields)
	require.Equal(t, "900000000000000022", p.Proposal.Proposer)

	var out proposalPayloadT
	r := a.do(member, qReview, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalId": p.Proposal.ID, "decision": "APPROVE"}})
	require.NotEmpty(t, r.Errors, "a member cannot approve")
	r = a.do(outsider, qPropose, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "DELETE", "lineageId": 4, "entryId": id}})
	require.Empty(t, r.Errors)
	require.Contains(t, string(r.Data["proposeEntryChange"]), "NOT_FOUND", "a member of another server")

	a.must(manager, qReview, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalId": p.Proposal.ID, "decision": "APPROVE", "note": "thanks"}}, "reviewProposal", &out)
	require.Nil(t, out.Error)
	require.Equal(t, "APPROVED", out.Proposal.State)
	require.Equal(t, "user:900000000000000021", out.Proposal.Reviewer)

	// Stale: the entry changes after the proposal.
	p = propose(other, map[string]any{"title": "Luna"})
	require.Nil(t, p.Error)
	var u entryPayloadT
	a.must(manager, qUpdateContent, map[string]any{"s": serverA, "l": 4, "id": id, "c": "The moon is basalt."}, "updateEntry", &u)
	out = proposalPayloadT{}
	a.must(manager, qReview, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalId": p.Proposal.ID, "decision": "APPROVE"}}, "reviewProposal", &out)
	require.NotNil(t, out.Error)
	require.Equal(t, "STALE_TARGET", out.Error.Code)
	require.Equal(t, "The moon is rock.", out.Conflict.Base.Content)
	require.Equal(t, "The moon is basalt.", out.Conflict.Current.Content)
	require.Equal(t, "Luna", out.Conflict.Proposed.Title)
	require.Equal(t, []string{"content"}, out.Conflict.ChangedSince)
	out2 := proposalPayloadT{}
	a.must(manager, qReview, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalId": p.Proposal.ID, "decision": "APPROVE",
		"expectedUpdatedAt": out.Conflict.Current.UpdatedAt}}, "reviewProposal", &out2)
	require.Nil(t, out2.Error)

	// Reject, and who sees what.
	p = propose(member, map[string]any{"priority": 5})
	a.must(manager, qReview, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalId": p.Proposal.ID, "decision": "REJECT", "note": "no"}}, "reviewProposal", &out)
	require.Equal(t, "REJECTED", out.Proposal.State)
	require.Equal(t, "no", out.Proposal.ReviewNote)
	count := func(bearer string) int {
		var s struct {
			Proposals struct {
				Edges []struct{ Node struct{ ID string } }
			}
		}
		a.must(bearer, qProposals, map[string]any{"s": serverA}, "server", &s)
		return len(s.Proposals.Edges)
	}
	require.Equal(t, 3, count(manager))
	require.Equal(t, 2, count(member))
	require.Equal(t, 1, count(other))

	// A proposed new entry reads whole (its times are the proposal's).
	var cr struct {
		Proposal *struct {
			Kind     string
			Proposed struct{ Content, CreatedAt, UpdatedAt string }
		}
		Error *mutationError
	}
	a.must(member, `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { proposal { kind proposed { content createdAt updatedAt } } error { code message } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "CREATE", "lineageId": 4, "entry": map[string]any{"title": "Sun", "content": "The sun is hot.", "keys": []string{"sun"}}}},
		"proposeEntryChange", &cr)
	require.Nil(t, cr.Error)
	require.Equal(t, "CREATE", cr.Proposal.Kind)
	require.Equal(t, "The sun is hot.", cr.Proposal.Proposed.Content)
	require.NotEmpty(t, cr.Proposal.Proposed.UpdatedAt)
	require.Equal(t, 3, count(member), "the new entry is among the member's own")

	// Refusals carry reason keys (en, pt-BR, es in lore/i18n).
	var nothing struct {
		Error *struct{ Code, Field, Reason string }
	}
	a.must(member, `mutation($in: ProposeEntryChangeInput!) { proposeEntryChange(input: $in) { error { code field reason } } }`,
		map[string]any{"in": map[string]any{"serverDiscordId": serverA, "kind": "UPDATE", "lineageId": 4, "entryId": id, "patch": map[string]any{"title": "Luna"}}},
		"proposeEntryChange", &nothing)
	require.NotNil(t, nothing.Error)
	require.Equal(t, []string{"INVALID_INPUT", "patch", "changes_nothing"}, []string{nothing.Error.Code, nothing.Error.Field, nothing.Error.Reason}, "the entry's title is Luna already")

	// The decisions shown to the proposer once (graph/decision.graphqls).
	unseen := func(bearer string) []struct{ ID, State, ReviewNote string } {
		var s struct {
			UnseenDecisions []struct{ ID, State, ReviewNote string }
		}
		a.must(bearer, `query($s: String!) { server(discordId: $s) { unseenDecisions(first: 10) { id state reviewNote } } }`, map[string]any{"s": serverA}, "server", &s)
		return s.UnseenDecisions
	}
	mine := unseen(member)
	require.Len(t, mine, 2, "the member's approval and rejection, not the open proposal")
	require.Equal(t, []string{"REJECTED", "no"}, []string{mine[0].State, mine[0].ReviewNote}, "the most recent decision first")
	require.Equal(t, "APPROVED", mine[1].State)
	require.Len(t, unseen(other), 1)
	const qSeen = `mutation($in: MarkDecisionsSeenInput!) { markDecisionsSeen(input: $in) { count error { code } } }`
	var seen struct {
		Count int
		Error *mutationError
	}
	ids := []string{mine[0].ID, mine[1].ID, unseen(other)[0].ID}
	a.must(outsider, qSeen, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalIds": ids}}, "markDecisionsSeen", &seen)
	require.Equal(t, "NOT_FOUND", seen.Error.Code, "a member of another server")
	a.must(member, qSeen, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalIds": ids}}, "markDecisionsSeen", &seen)
	require.Nil(t, seen.Error)
	require.Equal(t, 2, seen.Count, "only the member's own")
	require.Empty(t, unseen(member), "shown once")
	require.Len(t, unseen(other), 1, "another member's decision stays unseen")

	// Proposals off.
	var ws struct {
		Settings *struct{ ProposalsEnabled bool }
		Error    *mutationError
	}
	r = a.do(member, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalsEnabled": false}})
	require.NotEmpty(t, r.Errors, "a member cannot change the settings")
	a.must(manager, qWBSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "proposalsEnabled": false}}, "updateWorkbenchSettings", &ws)
	require.False(t, ws.Settings.ProposalsEnabled)
	p = propose(member, map[string]any{"title": "Selene"})
	require.NotNil(t, p.Error)
	require.Equal(t, "INVALID_INPUT", p.Error.Code)
}
