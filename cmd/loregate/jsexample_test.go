package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
)

// exampleBook is the world info file the JavaScript example imports.
const exampleBook = `{"name": "Kingdom", "entries": {
 "0": {"uid": 0, "comment": "Kingdom", "content": "{{char}}'s kingdom is at war.", "key": ["kingdom"], "order": 10},
 "1": {"uid": 1, "comment": "Weather", "content": "It always rains.", "constant": true, "order": 5},
 "2": {"uid": 2, "comment": "Dragon", "content": "A dragon sleeps.", "key": ["dragon"], "order": 20}
}}`

// TestJavaScriptExample runs the bot-side client of docs/examples (plain
// JavaScript on Node's fetch) against a real `loregate serve`: it
// registers a server, imports a book, runs activateTurn (and its retry)
// and assemblePrompt, and reads a MutationError. Without node it is
// skipped, except under CI, where it fails (.ci/run installs nodejs).
func TestJavaScriptExample(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed: the JavaScript example must run in CI (.ci/run installs nodejs)")
		}
		t.Skip("node is not installed: skipping the JavaScript example")
	}
	dbURL := postgrestest.NewDatabase(t)
	const key = "js-example-test-key-0123456789"
	p := startServe(t, loregateBinary(t), []string{"DATABASE_URL=" + dbURL, "LOREGATE_SERVICE_KEYS=" + key})
	book := filepath.Join(t.TempDir(), "kingdom.json")
	require.NoError(t, os.WriteFile(book, []byte(exampleBook), 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "docs", "examples", "bot.mjs"), book)
	cmd.Env = append(os.Environ(), "LOREGATE_URL=http://"+p.addr+"/graphql", "LOREGATE_KEY="+key)
	out, err := cmd.Output()
	var stderr []byte
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "node bot.mjs: %s\nserve:\n%s", stderr, p.output())
	var got struct {
		Imported struct {
			Added      int
			Collection string
		}
		Turn struct {
			Admitted []string
			Used     int
		}
		RetrySame bool
		Prompt    []struct {
			Role, Content string
			Tag           *string
		}
		BadInput *struct{ Code, Field string }
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Equal(t, 3, got.Imported.Added)
	require.Equal(t, "Kingdom", got.Imported.Collection)
	require.Equal(t, []string{"Weather", "Kingdom"}, got.Turn.Admitted, "the constant and the keyed entry, in insertion order")
	require.Positive(t, got.Turn.Used)
	require.True(t, got.RetrySame, "a retried turn id returns the recorded result")
	require.NotEmpty(t, got.Prompt)
	require.Equal(t, "system", got.Prompt[0].Role)
	require.Equal(t, "You are Mira.", got.Prompt[0].Content, "the system prompt's macros resolve to the turn's names")
	var lore, history []string
	for _, m := range got.Prompt {
		switch {
		case m.Tag != nil:
			lore = append(lore, m.Content)
		case m.Role == "user":
			history = append(history, m.Content)
		}
	}
	require.Equal(t, []string{"Tell me about the kingdom."}, history)
	require.Equal(t, []string{"[Lorebook (Before)]\nIt always rains.", "[Lorebook (Before)]\nMira's kingdom is at war."}, lore,
		"the lore blocks, {{char}} resolved in admitted content")
	require.NotNil(t, got.BadInput)
	require.Equal(t, "INVALID_INPUT", got.BadInput.Code)
	require.Equal(t, "channelId", got.BadInput.Field)
}
