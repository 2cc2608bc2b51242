package graph

import (
	"loregate/graph/generated"
	"loregate/graph/model"
)

// complexity prices list fields by the page size they may return, so that
// MaxComplexity bounds the rows an operation can make the server produce.
// A nil first takes the schema default (gqlgen passes the default when the
// argument is omitted, but a client may send an explicit null).
func complexity() generated.ComplexityRoot {
	var c generated.ComplexityRoot
	pageCost := func(child int, first *int, def int) int {
		n := def
		if first != nil && *first > 0 {
			n = *first
		}
		return 1 + n*child
	}
	c.Server.Collections = func(child int, first *int, _ *string, _ *string) int { return pageCost(child, first, 25) }
	c.Collection.Entries = func(child int, first *int, _ *string, _ *bool, _ *string, _ *model.EntryOrder) int {
		return pageCost(child, first, 50)
	}
	c.PersonaBook.Entries = func(child int, first *int, _ *string, _ *bool, _ *string, _ *model.EntryOrder) int {
		return pageCost(child, first, 50)
	}
	c.Entry.Revisions = func(child int, first *int, _ *string) int { return pageCost(child, first, 10) }
	c.Server.DeletedEntries = func(child int, first *int, _ *string) int { return pageCost(child, first, 20) }
	c.Server.Proposals = func(child int, _ *model.ProposalState, first *int, _ *string) int { return pageCost(child, first, 20) }
	c.Server.UnseenDecisions = func(child int, first *int) int { return pageCost(child, first, 5) }
	c.Server.EntriesByID = func(child int, ids []string) int { return 1 + len(ids)*child }
	c.Viewer.Servers = func(child int, first *int, _ *string) int { return pageCost(child, first, 100) }
	return c
}
