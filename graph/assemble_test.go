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
