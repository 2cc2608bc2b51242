package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// assembled is assemblePrompt's answer as the tests read it.
type assembled struct {
	Messages []struct {
		Role, Content string
		Tag           *string
	}
	Activation struct {
		Blocks []struct {
			Tag, Role string
			Entries   []struct{ ID, Title, Content, Role string }
		}
		Injections []struct {
			Kind     string
			Depth    *int
			Role     *string
			Outlet   *string
			Text     string
			EntryIds []string
		}
	}
}

// labels renders messages as role:content, or role:TAG for tagged
// lore messages.
func (p assembled) labels() []string {
	var out []string
	for _, m := range p.Messages {
		label := m.Role + ":" + m.Content
		if m.Tag != nil && (*m.Tag == "KNOWLEDGE_LOREBOOK_BEFORE" || *m.Tag == "KNOWLEDGE_LOREBOOK_AFTER" || *m.Tag == "DOCUMENT") {
			label = m.Role + ":" + *m.Tag
		}
		out = append(out, label)
	}
	return out
}

func history(texts ...string) []map[string]any {
	out := make([]map[string]any, len(texts))
	for i, c := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = map[string]any{"role": role, "content": c}
	}
	return out
}

// TestAssembleAuthorsNoteAndExamples: the caller's author's note goes to
// the authorsNote marker, else 4 messages before the end as system; the
// dialogue examples to the dialogueExamples marker, else just before the
// history; both resolve identity macros; blocks list their entries.
func TestAssembleAuthorsNoteAndExamples(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	create := `mutation($s: String!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: $e}) { entry { id } error { code message } } }`
	var ep struct {
		Entry *struct{ ID string }
		Error *mutationError
	}
	a.must(serviceKey, create, map[string]any{"s": serverA, "c": cp.Collection.ID, "e": map[string]any{"title": "Sky", "content": "The sky is green, {{user}}.", "constant": true, "placement": "BEFORE"}}, "createEntry", &ep)
	require.Nil(t, ep.Error)
	sky := ep.Entry.ID
	const q = `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { messages { role content tag }
		activation { blocks { tag role entries { id title content role } } } } }`
	input := map[string]any{
		"activation":       map[string]any{"serverDiscordId": serverA, "messages": history("m0", "m1", "m2", "m3", "m4", "m5"), "names": map[string]any{"user": "Ann", "char": "Seraphina"}},
		"systemPrompt":     "You are {{char}}.",
		"authorsNote":      "Keep {{user}} safe.",
		"dialogueExamples": "<START>\n{{char}}: Hello.",
	}
	var out assembled
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	require.Equal(t, []string{
		"system:You are Seraphina.",
		"system:KNOWLEDGE_LOREBOOK_BEFORE",
		"system:<START>\nSeraphina: Hello.",
		"user:m0", "assistant:m1",
		"system:Keep Ann safe.",
		"user:m2", "assistant:m3", "user:m4", "assistant:m5",
	}, out.labels())
	require.Equal(t, "DIALOGUE_EXAMPLES", *out.Messages[2].Tag)
	require.Equal(t, "AUTHORS_NOTE", *out.Messages[5].Tag)
	require.Len(t, out.Activation.Blocks, 1)
	require.Equal(t, []struct{ ID, Title, Content, Role string }{{sky, "Sky", "The sky is green, Ann.", "system"}}, out.Activation.Blocks[0].Entries)

	// At their markers.
	input["presetMarkers"] = []string{"main", "chatHistory", "dialogueExamples", "authorsNote"}
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	require.Equal(t, []string{
		"system:You are Seraphina.",
		"system:KNOWLEDGE_LOREBOOK_BEFORE",
		"user:m0", "assistant:m1", "user:m2", "assistant:m3", "user:m4", "assistant:m5",
		"system:<START>\nSeraphina: Hello.",
		"system:Keep Ann safe.",
	}, out.labels())

	// Neutral: without the two texts the messages are exactly those of a
	// request that never had them.
	delete(input, "authorsNote")
	delete(input, "dialogueExamples")
	delete(input, "presetMarkers")
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	require.Equal(t, []string{
		"system:You are Seraphina.",
		"system:KNOWLEDGE_LOREBOOK_BEFORE",
		"user:m0", "assistant:m1", "user:m2", "assistant:m3", "user:m4", "assistant:m5",
	}, out.labels())
}

// TestAssemblePlacementOverGraphQL: entries written with positions
// through the API are placed by assemblePrompt: depth 0/1 with their
// roles, AN lore around the caller's author's note, an outlet in the
// system prompt and nowhere else; a real depth book (Date a Live: 9
// depth entries) imported over GraphQL keeps its depth entries out of
// the Lorebook blocks.
func TestAssemblePlacementOverGraphQL(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var cp struct {
		Collection *struct{ ID string }
		Error      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "World"}) { collection { id } error { code } } }`, map[string]any{"s": serverA}, "createCollection", &cp)
	create := `mutation($s: String!, $c: ID, $e: EntryInput!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: $e}) { entry { id } error { code message } } }`
	add := func(content string, position map[string]any) {
		var ep struct{ Error *mutationError }
		a.must(serviceKey, create, map[string]any{"s": serverA, "c": cp.Collection.ID, "e": map[string]any{"content": content, "constant": true, "position": position}}, "createEntry", &ep)
		require.Nil(t, ep.Error)
	}
	add("Depth zero, user.", map[string]any{"kind": "AT_DEPTH", "depth": 0, "role": "USER"})
	add("Depth one, assistant.", map[string]any{"kind": "AT_DEPTH", "depth": 1, "role": "ASSISTANT"})
	add("Above the note.", map[string]any{"kind": "AN_TOP"})
	add("Below the note.", map[string]any{"kind": "AN_BOTTOM"})
	add("The mood is grim.", map[string]any{"kind": "OUTLET", "outlet": "mood"})
	add("Plain lore.", map[string]any{"kind": "BEFORE_CHAR"})
	const q = `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { messages { role content tag } } }`
	input := map[string]any{
		"activation":   map[string]any{"serverDiscordId": serverA, "messages": history("m0", "m1", "m2")},
		"systemPrompt": "Narrate. {{outlet::mood}}",
		"authorsNote":  "Be brief.",
	}
	var out assembled
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	require.Equal(t, []string{
		"system:Narrate. The mood is grim.",
		"system:KNOWLEDGE_LOREBOOK_BEFORE",
		"system:Above the note.\nBe brief.\nBelow the note.", // depth 4 > 3 messages: before the first
		"user:m0", "assistant:m1",
		"assistant:Depth one, assistant.",
		"user:m2",
		"user:Depth zero, user.",
	}, out.labels())
	require.Equal(t, "[Lorebook (Before)]\nPlain lore.", out.Messages[1].Content, "no injected entry in the block")

	// Without an author's note the AN entries are not placed; without the
	// macro the outlet goes nowhere.
	delete(input, "authorsNote")
	input["systemPrompt"] = "Narrate."
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	require.Equal(t, []string{
		"system:Narrate.", "system:KNOWLEDGE_LOREBOOK_BEFORE",
		"user:m0", "assistant:m1", "assistant:Depth one, assistant.", "user:m2", "user:Depth zero, user.",
	}, out.labels())

	// A real depth book over GraphQL.
	r := a.upload(serviceKey, `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { added error { code message } } }`,
		map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "DAL"}, "dal.json", corpus(t, "st-worldinfo/archkrrr__Date_a_Live_12.0.0.json"))
	require.Empty(t, r.Errors)
	input["activation"] = map[string]any{"serverDiscordId": serverA, "messages": history("m0", "m1", "m2", "m3", "m4", "m5"),
		"overrides": map[string]any{"budget": 200000}}
	a.must(serviceKey, q, map[string]any{"input": input}, "assemblePrompt", &out)
	// Its Always On depth entries (depth 0 and depth 4, role system) are
	// two system messages in the history, one before m2 and one at the
	// end (after the user one of depth 0: system is nearest the end), with
	// the depth entries made above.
	var around, roles []string
	for i, m := range out.Messages {
		if m.Tag != nil && *m.Tag == "KNOWLEDGE_LOREBOOK_AT_DEPTH" {
			require.NotContains(t, out.Messages[1].Content, m.Content[:16], "a depth entry in the Before block")
			around, roles = append(around, out.Messages[i-1].Content), append(roles, m.Role)
		}
	}
	require.Equal(t, []string{"m1", "m4", "m5", "Depth zero, user."}, around)
	require.Equal(t, []string{"system", "assistant", "user", "system"}, roles)
}
