package activation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestGatePlanListsAdded: a Matcher whose turns share one plan over every
// channel (no list of channels) gives a fresh engine's Result once a
// collection lists channels, once channel scoping is turned off and on,
// and once the turns read a new entries array whose persona entry lists a
// channel (as after an entry write), each over turns alternating between
// channels and a thread.
func TestGatePlanListsAdded(t *testing.T) {
	persona := ent(4, []string{"storm"}, "d")
	persona.Lineage = 7
	entries := []lore.Entry{ent(1, []string{"storm"}, "a"), ent(2, []string{"glade"}, "b"), constant(3, "c"), persona}
	in := baseInput(entries, "storm in the glade")
	opts := Options{SkipTrace: true}
	m := CompileInput(&in, opts.MatchOptions())
	turns := func(step string) {
		for k := range 8 {
			in.Channel, in.ParentChannel = []string{chanA, chanB, chanT, chanB}[k%4], ""
			if in.Channel == chanT {
				in.ParentChannel = chanA
			}
			want, err := Activate(context.Background(), in, opts)
			require.NoError(t, err)
			got, err := m.Activate(context.Background(), in, opts)
			require.NoError(t, err)
			require.Equal(t, viewOf(want), viewOf(got), "%s: turn %d in %s", step, k, in.Channel)
		}
	}
	turns("no lists")
	require.NotNil(t, m.plan.Load(), "one plan over every channel")
	in.Collections = general(chanA)
	turns("the collection lists A")
	in.ChannelScoping = false
	turns("scoping off")
	in.ChannelScoping = true
	turns("scoping on again")
	in.Collections = general()
	turns("the collection's list removed")
	listed := append([]lore.Entry(nil), entries...)
	listed[3].ChannelIDs = []string{chanB}
	in.Entries = listed
	turns("a persona entry lists B")
}
