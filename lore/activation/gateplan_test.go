package activation

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestGatePlan runs a sequence of turns through one Matcher, each input
// four times in a row (the second leaves a gate plan that the others read;
// the base input before each other one) and changing one thing the gates
// read between inputs, and requires every
// turn's Result to be a freshly compiled engine's, with and without the
// trace: the plan must never answer for another channel, collection state,
// book setting, option, message count or entries array.
func TestGatePlan(t *testing.T) {
	lore7 := lore.Lineage(7)
	mk := func() []lore.Entry {
		var es []lore.Entry
		for id := int64(1); id <= 16; id++ {
			e := ent(id, []string{[]string{"storm", "glade", "tower", "{{user}}"}[id%4]}, "about river and storm")
			switch id % 5 {
			case 1:
				e.Collection = "North"
			case 2:
				e.Lineage = lore7
				e.ChannelIDs = []string{chanB}
			case 3:
				e.Delay = 3
			case 4:
				e.DelayUntilRecursion = 1
			}
			e.Constant = id == 6
			e.Enabled = id != 11
			es = append(es, e)
		}
		return es
	}
	base := baseInput(mk(), "a storm over the glade", "Ann climbs the tower")
	base.Collections = map[string]lore.Collection{
		lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true},
		"North":                {Name: "North", ID: 2, Enabled: true, ChannelIDs: []string{chanA}},
	}
	opts := Options{UserName: "Ann", Random: func() float64 { return 0.5 }}
	variant := func(f func(in *Input, o *Options)) func() (Input, Options) {
		return func() (Input, Options) {
			in, o := base, opts
			in.Collections = cloneCollections(base.Collections)
			f(&in, &o)
			return in, o
		}
	}
	inB := variant(func(in *Input, _ *Options) { in.Channel = chanB }) // the persona entries' channel
	steps := []struct {
		name string
		turn func() (Input, Options)
	}{
		{"base", variant(func(*Input, *Options) {})},
		{"other channel", variant(func(in *Input, _ *Options) { in.Channel = chanB })},
		{"thread of A", variant(func(in *Input, _ *Options) { in.Channel, in.ParentChannel = chanT, chanA })},
		{"scoping off", variant(func(in *Input, _ *Options) { in.ChannelScoping = false })},
		{"North disabled", variant(func(in *Input, _ *Options) {
			c := in.Collections["North"]
			c.Enabled = false
			in.Collections["North"] = c
		})},
		{"North in B", variant(func(in *Input, _ *Options) {
			c := in.Collections["North"]
			c.ChannelIDs = []string{chanB}
			in.Collections["North"] = c
		})},
		{"North gone", variant(func(in *Input, _ *Options) { delete(in.Collections, "North") })},
		{"North scan depth 1", variant(func(in *Input, _ *Options) {
			c := in.Collections["North"]
			c.Settings.ScanDepth = ptr(1)
			in.Collections["North"] = c
		})},
		{"book share", variant(func(in *Input, o *Options) {
			c := in.Collections[lore.DefaultCollection]
			c.Settings.MaxBudgetShare, o.CharBudget = ptr(5), 1000
			in.Collections[lore.DefaultCollection] = c
		})},
		{"persona book share", variant(func(in *Input, o *Options) {
			in.PersonaBook.MaxBudgetShare, o.CharBudget = ptr(5), 1000
		})},
		{"persona book recursive", variant(func(in *Input, _ *Options) { in.PersonaBook.Recursive = ptr(true) })},
		{"persona book scan depth 0", variant(func(in *Input, _ *Options) {
			in.Channel, in.PersonaBook.ScanDepth = chanB, ptr(0)
		})},
		{"recursive", variant(func(_ *Input, o *Options) { o.Recursive = true })},
		{"scan depth 1", variant(func(_ *Input, o *Options) { o.ScanDepth = ptr(1) })},
		{"budget", variant(func(_ *Input, o *Options) { o.CharBudget = 30 })},
		{"other lineage", variant(func(in *Input, _ *Options) { in.Lineage = 8 })},
		{"other server", variant(func(in *Input, _ *Options) { in.Server = "999" })},
		{"message count 5", variant(func(in *Input, _ *Options) { in.MessageCount = 5 })},
		{"other names", variant(func(_ *Input, o *Options) { o.UserName = "Bo" })},
		{"new entries array", variant(func(in *Input, _ *Options) {
			in.Entries = mk()
			in.Entries[0].Enabled = false
		})},
		{"base again", variant(func(*Input, *Options) {})},
	}
	// The turn whose plan a step must not read, when it is not base's: the
	// persona entries are pending only in their channel.
	before := map[string]func() (Input, Options){"persona book scan depth 0": inB}
	m := CompileInput(&base, opts.MatchOptions())
	turns := func(yield func(string, func() (Input, Options)) bool) {
		for _, st := range steps {
			// The base turns leave a plan that the step's first turn must
			// not read.
			prev := steps[0].turn
			if b, ok := before[st.name]; ok {
				prev = b
			}
			if !yield("before "+st.name, prev) || !yield(st.name, st.turn) {
				return
			}
		}
	}
	for name, turn := range turns {
		for _, trace := range []bool{false, true, true, false} {
			in, o := turn()
			o.SkipTrace = !trace
			fresh, err := Activate(context.Background(), in, o)
			require.NoError(t, err)
			got, err := m.Activate(context.Background(), in, o)
			require.NoError(t, err, name)
			require.Equal(t, viewOf(fresh), viewOf(got), "%s (trace %v)", name, trace)
		}
	}
	require.NotNil(t, m.plan.Load(), "the repeated turns left no plan")
}

func cloneCollections(c map[string]lore.Collection) map[string]lore.Collection {
	out := make(map[string]lore.Collection, len(c))
	for k, v := range c {
		v.ChannelIDs = slices.Clone(v.ChannelIDs)
		out[k] = v
	}
	return out
}

// TestCloneSettings: a plan's copy of book settings shares no pointer with
// the caller's, whatever fields BookSettings gains.
func TestCloneSettings(t *testing.T) {
	var s lore.BookSettings
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		require.Equal(t, reflect.Pointer, f.Kind(), "BookSettings.%s: cloneSettings copies pointer fields only", v.Type().Field(i).Name)
		f.Set(reflect.New(f.Type().Elem()))
	}
	c := reflect.ValueOf(cloneSettings(s))
	for i := range v.NumField() {
		require.NotEqual(t, v.Field(i).Pointer(), c.Field(i).Pointer(), "BookSettings.%s is shared", v.Type().Field(i).Name)
	}
	require.True(t, s.Equal(cloneSettings(s)))
}

// TestGatePlanChannels: where no list of channels can gate a turn, the
// turns of every channel share one plan (a bot's conversations in several
// channels at once no longer gate every entry again each turn); where a
// collection or a persona entry lists channels, each channel's turn still
// gets a fresh engine's Result.
func TestGatePlanChannels(t *testing.T) {
	persona := ent(4, []string{"storm"}, "d")
	persona.Lineage = 7
	for _, tc := range []struct {
		name   string
		colls  map[string]lore.Collection
		extra  []lore.Entry
		shared bool
	}{
		{"no lists", general(), nil, true},
		{"collection lists A", general(chanA), nil, false},
		{"persona entry lists B", general(), []lore.Entry{withChannels(persona, chanB)}, false},
		{"persona entry lists none", general(), []lore.Entry{persona}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := append([]lore.Entry{ent(1, []string{"storm"}, "a"), ent(2, []string{"glade"}, "b"), constant(3, "c")}, tc.extra...)
			in := baseInput(entries, "storm in the glade")
			in.Collections = tc.colls
			opts := Options{SkipTrace: true}
			m := CompileInput(&in, opts.MatchOptions())
			for k := range 8 {
				in.Channel = []string{chanA, chanB}[k%2]
				want, err := Activate(context.Background(), in, opts)
				require.NoError(t, err)
				got, err := m.Activate(context.Background(), in, opts)
				require.NoError(t, err)
				require.Equal(t, viewOf(want), viewOf(got), "turn %d in %s", k, in.Channel)
			}
			require.Equal(t, tc.shared, m.plan.Load() != nil, "a plan made over turns alternating between two channels")
		})
	}
}

func withChannels(e lore.Entry, channels ...string) lore.Entry {
	e.ChannelIDs = channels
	return e
}

// TestGatePlanConcurrent: turns in parallel over one Matcher, on two
// channels so that plans are made and replaced while others read them
// (run with -race), each give a fresh engine's Result.
func TestGatePlanConcurrent(t *testing.T) {
	in := baseInput([]lore.Entry{ent(1, []string{"storm"}, "a"), ent(2, []string{"glade"}, "b"), constant(3, "c")}, "storm in the glade")
	in.Collections = general(chanA)
	opts := Options{SkipTrace: true, CharBudget: 2}
	m := CompileInput(&in, opts.MatchOptions())
	want := map[string]Result{}
	for _, ch := range []string{chanA, chanB} {
		in.Channel = ch
		res, err := Activate(context.Background(), in, opts)
		require.NoError(t, err)
		want[ch] = res
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			in := in
			for k := range 60 {
				in.Channel = []string{chanA, chanB}[(k/3+g)%2]
				res, err := m.Activate(context.Background(), in, opts)
				if !assert.NoError(t, err) || !assert.Equal(t, viewOf(want[in.Channel]), viewOf(res)) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestChatMemo: turns over one Matcher whose messages repeat, shift and
// overflow the chat memo's bound give a fresh engine's Result, and the
// memo stays within its bound.
func TestChatMemo(t *testing.T) {
	in := baseInput([]lore.Entry{ent(1, []string{"storm"}, "a"), ent(2, []string{"glade"}, "b"), ent(3, []string{"Ann"}, "c")})
	in.ChannelScoping = false
	opts := Options{SkipTrace: true, ScanDepth: ptr(2)}
	m := CompileInput(&in, opts.MatchOptions())
	pad := strings.Repeat("x ", chatMemoBytes/40)
	msgs := []string{}
	for k := range 60 {
		msgs = append(msgs, pad+[]string{"storm", "quiet", "glade", "Ann"}[k%4]+" "+strconv.Itoa(k/3))
		in.Messages = msgs[max(0, len(msgs)-3):]
		for range 2 {
			want, err := Activate(context.Background(), in, opts)
			require.NoError(t, err)
			got, err := m.Activate(context.Background(), in, opts)
			require.NoError(t, err)
			require.Equal(t, viewOf(want), viewOf(got), "turn %d", k)
		}
		require.LessOrEqual(t, m.chat.bytes, chatMemoBytes)
	}
	// A window larger than the bound is scanned without the memo.
	big := strings.Repeat("y ", chatMemoBytes/4)
	in.Messages = []string{big + "storm", big + "glade"}
	for range 2 {
		want, err := Activate(context.Background(), in, opts)
		require.NoError(t, err)
		got, err := m.Activate(context.Background(), in, opts)
		require.NoError(t, err)
		require.Equal(t, viewOf(want), viewOf(got), "window over the bound")
		require.Len(t, got.Admitted(), 2)
	}
}
