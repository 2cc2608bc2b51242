package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"

	"loregate/graph/model"
	"loregate/lore/turn"
)

// jsonTricky are strings that need every escape encoding/json writes.
var jsonTricky = []string{"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\r\x01\x1f\x7f", "\b\f", "ünï 漢字 🐉",
	"bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate", "</script>&amp;", "\u2028 and \u2029", "é\u2028", "\U0010ffff"}

// TestTurnJSONMatchesEncodingJSON: the hand-written encodings of
// turnjson.go write what encoding/json writes, byte for byte: strings
// (every escape), floats, the bot's turn input (every optional field set
// and unset) and a stored result's Activation with every field set, and
// refuse the shapes they do not know.
func TestTurnJSONMatchesEncodingJSON(t *testing.T) {
	var all []string
	for c := range 256 {
		all = append(all, string([]byte{byte(c)}), "a"+string(rune(c))+"z")
	}
	for _, s := range append(all, jsonTricky...) {
		want, _ := json.Marshal(s)
		require.Equal(t, string(want), string(appendJSONString(nil, s)), "%q", s)
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -2.5, 0.8125, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125, 5e-324, math.MaxFloat64, -1e-9} {
		want, _ := json.Marshal(f)
		got, ok := appendJSONFloat(nil, f)
		require.True(t, ok)
		require.Equal(t, string(want), string(got), "%v", f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, ok := appendJSONFloat(nil, f)
		require.False(t, ok)
	}
	for i, in := range turnInputShapes() {
		want, err := turnInputJSON(in)
		require.NoError(t, err)
		got, ok := appendTurnInput(nil, in)
		require.True(t, ok, "shape %d", i)
		require.Equal(t, string(want), string(got), "shape %d", i)
		key, err := turnInputKey(new(sync.Pool), in, inputKey)
		require.NoError(t, err)
		require.Equal(t, inputKey(want), key)
		legacy, err := turnInputKey(new(sync.Pool), in, inputSHA256)
		require.NoError(t, err)
		sum := sha256.Sum256(want)
		require.Equal(t, hex.EncodeToString(sum[:]), legacy)
	}
	in := turnInputShapes()[0]
	in.Overrides = graphql.OmittableOf(&turn.Overrides{})
	_, ok := appendTurnInput(nil, in)
	require.False(t, ok, "overrides go to encoding/json")
	key, err := turnInputKey(new(sync.Pool), in, inputKey)
	require.NoError(t, err)
	want, _ := turnInputJSON(in)
	require.Equal(t, inputKey(want), key)

	for i, a := range activationShapes() {
		want, err := json.Marshal(a)
		require.NoError(t, err)
		got, ok := appendActivationJSON([]byte("x"), a)
		require.True(t, ok, "shape %d", i)
		require.Equal(t, "x"+string(want), string(got), "shape %d", i)
	}
	a := activationShapes()[0]
	nan := math.NaN()
	a.Admitted[0].Score = &nan
	_, ok = appendActivationJSON(nil, a)
	require.False(t, ok, "json.Marshal refuses NaN")
	_, err = marshalActivationHead(nil, a)
	require.Error(t, err)
	a = activationShapes()[0]
	a.Trace = []*model.TraceItem{}
	_, ok = appendActivationJSON(nil, a)
	require.False(t, ok, "a trace goes to encoding/json")
	a = activationShapes()[0]
	a.Notices = []*model.ActivationNotice{{Reason: "r", Params: map[string]any{"lineage": 1}}}
	_, ok = appendActivationJSON(nil, a)
	require.False(t, ok, "notices go to encoding/json")

	// Every field of the encoded types is one the encoders write: a
	// field added to the schema fails here until they write it too.
	for typ, n := range map[reflect.Type]int{reflect.TypeFor[model.ActivateTurnInput](): 11, reflect.TypeFor[model.MessageInput](): 3,
		reflect.TypeFor[model.Activation](): 9, reflect.TypeFor[model.AdmittedEntry](): 10, reflect.TypeFor[model.EntryPosition](): 4,
		reflect.TypeFor[model.PromptBlock](): 4, reflect.TypeFor[model.PromptBlockEntry](): 4, reflect.TypeFor[model.Budget](): 4,
		reflect.TypeFor[model.BookBudget](): 6, reflect.TypeFor[model.Injection](): 6, reflect.TypeFor[model.Outlet](): 2} {
		require.Equal(t, n, typ.NumField(), "%v", typ)
	}
}

// turnInputShapes are the bot's turn inputs, each optional field set,
// set to null and unset, with strings that need escapes.
func turnInputShapes() []*model.ActivateTurnInput {
	lineage, zero, ch, parent, name, role := int64(9_007_199_254_740_993), int64(0), "123456789012345678", "223456789012345678", "Ann <b>", "user"
	g := model.GenerationTypeSwipe
	msgs := []*model.MessageInput{{Content: "hello"}, {Name: graphql.OmittableOf(&name), Role: graphql.OmittableOf(&role), Content: jsonTricky[4]},
		{Name: graphql.OmittableOf[*string](nil), Content: jsonTricky[7]}, nil}
	for _, s := range jsonTricky {
		msgs = append(msgs, &model.MessageInput{Content: s})
	}
	return []*model.ActivateTurnInput{
		{ServerDiscordID: "111111111111111111", TurnID: "t1", MessageCount: 4, Messages: []*model.MessageInput{{Content: "hello"}}},
		{ServerDiscordID: "111111111111111111", LineageID: graphql.OmittableOf(&lineage), ChannelID: graphql.OmittableOf(&ch),
			ParentChannelID: graphql.OmittableOf(&parent), Messages: msgs, TurnID: "t-\"é\u2028", MessageCount: -3,
			GenerationType: graphql.OmittableOf(&g)},
		{ServerDiscordID: "x", LineageID: graphql.OmittableOf(&zero), ChannelID: graphql.OmittableOf[*string](nil),
			Names: graphql.OmittableOf[*model.NamesInput](nil), Overrides: graphql.OmittableOf[*turn.Overrides](nil),
			Context: graphql.OmittableOf[*model.ActivationContextInput](nil), GenerationType: graphql.OmittableOf[*model.GenerationType](nil),
			Messages: []*model.MessageInput{}},
		{ServerDiscordID: "111111111111111111", TurnID: "t1", Messages: nil},
	}
}

// activationShapes are stored results' Activations: every field and
// optional field set, and empty.
func activationShapes() []*model.Activation {
	tokens, depth, score, small, big, lineage, limit := 12, 3, 0.8125, 1e-9, 1e22, int64(7), 250
	col, outlet, by := "5", "notes <x>", "41"
	roleU := model.RoleUser
	full := &model.Activation{
		Admitted: []*model.AdmittedEntry{
			{ID: "40", Title: jsonTricky[9], Placement: model.PlacementAfter, Group: model.ActivationGroupAlwaysOn, Content: jsonTricky[6],
				Tokens: &tokens, Pass: 2, TriggeredBy: &by, Position: model.EntryPosition{Kind: model.PositionKindAtDepth, Depth: &depth, Role: &roleU},
				Score: &score},
			{ID: "41", Title: jsonTricky[7], Content: jsonTricky[4], Position: model.EntryPosition{Kind: model.PositionKindOutlet, Outlet: &outlet}, Score: &small},
			{ID: "42", Score: &big}, nil,
		},
		Blocks: []*model.PromptBlock{{Tag: "KNOWLEDGE_LOREBOOK_AFTER", Role: "user", Text: jsonTricky[10],
			Entries: []*model.PromptBlockEntry{{ID: "40", Title: "t", Content: jsonTricky[2], Role: "user"}, nil}}, {Tag: "x"}, nil},
		Budget: model.Budget{Unit: "utf16", Limit: 8000, Used: 18, ByBook: []*model.BookBudget{{CollectionID: &col, Name: "Book", Used: 9, Entries: 1, Limit: &limit},
			{LineageID: &lineage, Name: jsonTricky[3], Used: -1}, {}, nil}},
		Passes: 3,
		Injections: []*model.Injection{{Kind: model.PositionKindAtDepth, Depth: &depth, Role: &roleU, Text: "a\nb", EntryIds: []string{"40", "4\"1"}},
			{Kind: model.PositionKindOutlet, Outlet: &outlet, Text: ""}, {EntryIds: []string{}}, nil},
		Outlets:          []*model.Outlet{{Name: outlet, Text: jsonTricky[8]}, nil},
		StoreUnavailable: true,
	}
	return []*model.Activation{full, {}, {Admitted: []*model.AdmittedEntry{}, Blocks: []*model.PromptBlock{}, Injections: []*model.Injection{},
		Outlets: []*model.Outlet{}, Budget: model.Budget{ByBook: []*model.BookBudget{}}}}
}

// FuzzTurnJSONString: appendJSONString writes what encoding/json writes
// for any string.
func FuzzTurnJSONString(f *testing.F) {
	for _, s := range jsonTricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		require.Equal(t, string(want), string(appendJSONString(nil, s)))
	})
}
