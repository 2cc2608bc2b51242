package activation

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestFastPathsSameTurn: the per-turn fast paths (Options.SkipTrace,
// litOnly entries decided from the scan's touched nodes, gateFree entries
// skipping preGate) give the Result of the old code path on turns that mix
// what the fuzz tests leave out: decorators (@@dont_activate,
// @@activate_only_every/after, @@is_greeting, @@(dont|keep)_activate_after_match,
// @@exclude_keys, @@activate, @@scan_depth), Delay, sticky, cooldown and
// matched state, chance, constant and disabled entries, secondary keys,
// macro keys, channel scoping and per-book case and whole-word settings,
// min activations (the sweep's candidate list and key depths) and context
// sources.
func TestFastPathsSameTurn(t *testing.T) {
	words := []string{"storm", "Storm", "glade", "gladed", "tower", "{{user}}", "ann", "river"}
	decorators := []string{"", "@@dont_activate\n", "@@activate_only_every 2\n", "@@activate_only_after 3\n",
		"@@is_greeting\n", "@@dont_activate_after_match\n", "@@keep_activate_after_match\n",
		"@@exclude_keys river\n", "@@activate\n", "@@scan_depth 1\n"}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 14))
		pick := func() string { return words[r.IntN(len(words))] }
		set := func() *bool {
			if r.IntN(3) == 0 {
				v := r.IntN(2) == 0
				return &v
			}
			return nil
		}
		in := baseInput(nil)
		in.Collections = map[string]lore.Collection{
			lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true, Settings: lore.BookSettings{CaseSensitive: set(), WholeWords: set()}},
		}
		in.State = map[int64]EntryState{}
		for id := int64(1); id <= 12; id++ {
			e := ent(id, nil, decorators[r.IntN(len(decorators))]+"about "+pick())
			for range r.IntN(3) {
				e.Keys = append(e.Keys, pick())
			}
			if r.IntN(4) == 0 {
				e.SecondaryKeys = []string{pick()}
				e.Logic = []lore.SelectiveLogic{lore.AndAny, lore.AndAll, lore.NotAny, lore.NotAll}[r.IntN(4)]
			}
			e.Constant = r.IntN(8) == 0
			e.Enabled = r.IntN(10) != 0
			e.Probability = []int{100, 100, 50, 0}[r.IntN(4)]
			e.Delay = []int{0, 0, 2, 5}[r.IntN(4)]
			e.CaseSensitive, e.WholeWords = set(), set()
			e.Match.CharacterDescription = r.IntN(4) == 0
			if r.IntN(5) == 0 {
				e.ChannelIDs = []string{chanA}
			}
			in.Entries = append(in.Entries, e)
			in.State[id] = EntryState{Sticky: r.IntN(6) == 0, Cooldown: r.IntN(5) == 0, Matched: r.IntN(3) == 0}
		}
		for range 1 + r.IntN(4) {
			in.Messages = append(in.Messages, "we saw "+pick()+" and "+pick())
		}
		in.MessageCount = r.IntN(6)
		draw := float64(r.IntN(10)) / 10
		opts := Options{Recursive: r.IntN(2) == 0, UserName: "Ann", Random: func() float64 { return draw }}
		if r.IntN(2) == 0 {
			opts.ScanDepth = ptr(r.IntN(2))
			opts.MinActivations, opts.MinActivationsDepthMax = 1+r.IntN(6), r.IntN(5)
		}
		if r.IntN(2) == 0 {
			in.Character = &Character{Name: "Vex", Description: "keeper of the " + pick()}
		}
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			m := CompileInput(&in, opts.MatchOptions())
			res, err := m.Activate(context.Background(), in, opts)
			require.NoError(t, err)
			requireSameTurn(t, m, in, opts, func() func() float64 { return opts.Random }, res)
		})
	}
}
