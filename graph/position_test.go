package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

const entryPositionFields = `id placement role position { kind depth role outlet }
  matchCharacterDescription matchCharacterPersonality matchScenario matchCreatorNotes matchCharacterDepthPrompt matchPersonaDescription
  characterFilter { names tags exclude } generationTypes`

type positionEntry struct {
	ID        string
	Placement string
	Role      string
	Position  struct {
		Kind   string
		Depth  *int
		Role   *string
		Outlet *string
	}
	MatchScenario           bool
	MatchPersonaDescription bool
	CharacterFilter         struct {
		Names, Tags []string
		Exclude     bool
	}
	GenerationTypes []string
}

type positionPayload struct {
	Entry *positionEntry
	Error *struct {
		Code  string
		Field *string
	}
}

// TestEntryPositionMutations: the entry mutations set position, match
// flags, the character filter and generation types; placement alone sets
// BEFORE_CHAR/AFTER_CHAR on create (and on update when it changes the
// placement); position wins and derives the placement; inconsistent values
// are INVALID_INPUT on position; depth and role are reported only for
// AT_DEPTH, outlet only for OUTLET.
func TestEntryPositionMutations(t *testing.T) {
	a := newAPI(t)
	_, err := a.store.UpsertServer(t.Context(), serverA, "A")
	require.NoError(t, err)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 4, "n": "Iris"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	create := func(entry map[string]any) positionPayload {
		var p positionPayload
		a.must(serviceKey, `mutation($s: String!, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 4, entry: $e}) {
  entry { `+entryPositionFields+` } error { code field } } }`, map[string]any{"s": serverA, "e": entry}, "createEntry", &p)
		return p
	}
	update := func(id string, patch map[string]any) positionPayload {
		var p positionPayload
		a.must(serviceKey, `mutation($s: String!, $id: ID!, $p: EntryPatchInput!) { updateEntry(input: {serverDiscordId: $s, lineageId: 4, entryId: $id, patch: $p}) {
  entry { `+entryPositionFields+` } error { code field } } }`, map[string]any{"s": serverA, "id": id, "p": patch}, "updateEntry", &p)
		return p
	}

	plain := create(map[string]any{"content": "plain"})
	require.Nil(t, plain.Error)
	require.Equal(t, "AFTER_CHAR", plain.Entry.Position.Kind, "a new entry is AFTER_CHAR")
	require.Nil(t, plain.Entry.Position.Depth)
	require.Nil(t, plain.Entry.Position.Role)
	require.Nil(t, plain.Entry.Position.Outlet)
	before := create(map[string]any{"content": "before", "placement": "BEFORE"})
	require.Equal(t, "BEFORE_CHAR", before.Entry.Position.Kind, "placement alone sets the kind")

	deep := create(map[string]any{"content": "deep", "position": map[string]any{"kind": "AT_DEPTH", "depth": 1, "role": "ASSISTANT"},
		"matchScenario": true, "characterFilter": map[string]any{"names": []string{"Alice"}}, "generationTypes": []string{"CONTINUE", "CONTINUE"}})
	require.Nil(t, deep.Error)
	require.Equal(t, "BEFORE", deep.Entry.Placement, "the placement is derived")
	require.Equal(t, "ASSISTANT", deep.Entry.Role)
	require.Equal(t, 1, *deep.Entry.Position.Depth)
	require.Equal(t, "ASSISTANT", *deep.Entry.Position.Role)
	require.Nil(t, deep.Entry.Position.Outlet)
	require.True(t, deep.Entry.MatchScenario)
	require.Equal(t, []string{"Alice"}, deep.Entry.CharacterFilter.Names)
	require.Equal(t, []string{}, deep.Entry.CharacterFilter.Tags)
	require.Equal(t, []string{"CONTINUE"}, deep.Entry.GenerationTypes, "repeats collapse")

	outlet := create(map[string]any{"content": "out", "position": map[string]any{"kind": "OUTLET", "outlet": " mood "}})
	require.Nil(t, outlet.Error)
	require.Equal(t, "mood", *outlet.Entry.Position.Outlet)
	require.Nil(t, outlet.Entry.Position.Depth)

	bad := []struct {
		name  string
		entry map[string]any
	}{
		{"placement disagrees", map[string]any{"content": "x", "placement": "AFTER", "position": map[string]any{"kind": "AN_TOP"}}},
		{"depth on another kind", map[string]any{"content": "x", "position": map[string]any{"kind": "EM_TOP", "depth": 2}}},
		{"role on another kind", map[string]any{"content": "x", "position": map[string]any{"kind": "OUTLET", "outlet": "o", "role": "USER"}}},
		{"two roles", map[string]any{"content": "x", "role": "USER", "position": map[string]any{"kind": "AT_DEPTH", "role": "ASSISTANT"}}},
		{"outlet on another kind", map[string]any{"content": "x", "position": map[string]any{"kind": "AN_TOP", "outlet": "o"}}},
		{"outlet without a name", map[string]any{"content": "x", "position": map[string]any{"kind": "OUTLET"}}},
	}
	for _, tt := range bad {
		p := create(tt.entry)
		require.Nil(t, p.Entry, tt.name)
		require.Equal(t, "INVALID_INPUT", p.Error.Code, tt.name)
		require.Equal(t, "position", *p.Error.Field, tt.name)
	}
	p := create(map[string]any{"content": "x", "position": map[string]any{"kind": "AT_DEPTH", "depth": 10001}})
	require.Equal(t, "INVALID_INPUT", p.Error.Code)
	require.Equal(t, "position.depth", *p.Error.Field)

	// Updates: an unchanged placement keeps the position (a client that
	// knows only placements never loses one); a changed one sets the kind.
	kept := update(deep.Entry.ID, map[string]any{"placement": "BEFORE", "matchPersonaDescription": true})
	require.Nil(t, kept.Error)
	require.Equal(t, "AT_DEPTH", kept.Entry.Position.Kind)
	require.True(t, kept.Entry.MatchScenario, "omitted flags keep their value")
	require.True(t, kept.Entry.MatchPersonaDescription)
	moved := update(deep.Entry.ID, map[string]any{"placement": "AFTER"})
	require.Equal(t, "AFTER_CHAR", moved.Entry.Position.Kind)
	back := update(deep.Entry.ID, map[string]any{"position": map[string]any{"kind": "AT_DEPTH"}, "generationTypes": []string{}})
	require.Equal(t, 1, *back.Entry.Position.Depth, "the stored depth is kept")
	require.Empty(t, back.Entry.GenerationTypes)
	wrong := update(deep.Entry.ID, map[string]any{"placement": "AFTER", "position": map[string]any{"kind": "EM_BOTTOM"}})
	require.Equal(t, "INVALID_INPUT", wrong.Error.Code)
	require.Equal(t, "position", *wrong.Error.Field)

	// The entry read back through a query has the same shape.
	var srv struct {
		PersonaBook struct {
			Entries struct {
				Edges []struct{ Node json.RawMessage }
			}
		}
	}
	a.must(serviceKey, `query($s: String!) { server(discordId: $s) { personaBook(lineageId: 4) { entries(first: 50) { edges { node { `+entryPositionFields+` } } } } } }`,
		map[string]any{"s": serverA}, "server", &srv)
	require.Len(t, srv.PersonaBook.Entries.Edges, 4)
}
