package graph_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// countingDecisions counts the store's reads of unseen decisions.
type countingDecisions struct {
	*postgres.Store
	single, batch atomic.Int32
}

func (s *countingDecisions) UnseenDecisions(ctx context.Context, server, proposer string, first int) ([]lore.Proposal, bool, error) {
	s.single.Add(1)
	return s.Store.UnseenDecisions(ctx, server, proposer, first)
}

func (s *countingDecisions) UnseenDecisionsOf(ctx context.Context, servers []string, proposer string, first int) (map[string][]lore.Proposal, error) {
	s.batch.Add(1)
	return s.Store.UnseenDecisionsOf(ctx, servers, proposer, first)
}

// TestUnseenDecisionsListed: Viewer.servers with each server's
// unseenDecisions reads the decisions of every listed server in one query
// (not one per server), and answers what the one-server query answers.
func TestUnseenDecisionsListed(t *testing.T) {
	store := &countingDecisions{Store: postgres.New(postgrestest.NewPool(t))}
	a := newAPIWithStore(t, store)
	const serverC = "333333333333333333"
	servers := []string{serverA, serverB, serverC}
	for _, s := range servers {
		setupServer(t, a, s)
		var pp struct{ Error *mutationError }
		a.must(serviceKey, qUpsertPersona, map[string]any{"s": s, "id": 1, "l": 4, "n": "Mira"}, "upsertPersona", &pp)
	}
	member := a.member("900000000000000041", map[string]auth.Membership{serverA: {}, serverB: {}, serverC: {}})
	decided := map[string]int{serverA: 3, serverB: 1} // serverC: none
	for s, n := range decided {
		var c entryPayloadT
		a.must(serviceKey, qCreatePersonaEntry, map[string]any{"s": s, "l": 4, "c": "The moon is cheese.", "t": "Moon"}, "createEntry", &c)
		for range n {
			var p, out proposalPayloadT
			a.must(member, qPropose, map[string]any{"in": map[string]any{"serverDiscordId": s, "kind": "DELETE", "lineageId": 4,
				"entryId": c.Entry.ID}}, "proposeEntryChange", &p)
			require.Nil(t, p.Error)
			a.must(serviceKey, qReview, map[string]any{"in": map[string]any{"serverDiscordId": s, "proposalId": p.Proposal.ID,
				"decision": "REJECT"}}, "reviewProposal", &out)
			require.Nil(t, out.Error)
		}
	}
	type decisions []struct{ ID, State string }
	var v struct {
		Servers struct {
			Edges []struct {
				Node struct {
					DiscordID       string
					UnseenDecisions decisions
				}
			}
		}
	}
	store.single.Store(0)
	a.must(member, `{ viewer { servers { edges { node { discordId unseenDecisions(first: 2) { id state } } } } } }`, nil, "viewer", &v)
	require.Len(t, v.Servers.Edges, 3)
	require.Equal(t, int32(1), store.batch.Load(), "one read for the listed servers")
	require.Zero(t, store.single.Load())
	for _, e := range v.Servers.Edges {
		var one struct{ UnseenDecisions decisions }
		a.must(member, `query($s: String!) { server(discordId: $s) { unseenDecisions(first: 2) { id state } } }`,
			map[string]any{"s": e.Node.DiscordID}, "server", &one)
		require.Equal(t, one.UnseenDecisions, e.Node.UnseenDecisions, e.Node.DiscordID)
		require.Len(t, e.Node.UnseenDecisions, min(decided[e.Node.DiscordID], 2), e.Node.DiscordID)
	}
	require.Equal(t, int32(3), store.single.Load(), "a server read alone reads its own")
}
