package transfer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

// exampleServers are the servers of docs/legacy-migration.example.jsonl.
const (
	exampleA = "123456789012345678"
	exampleB = "323456789012345678"
)

func exampleMemories(t *testing.T) ([]transfer.LegacyMemory, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "legacy-migration.example.jsonl"))
	require.NoError(t, err)
	ms, err := transfer.ParseMemories(data)
	require.NoError(t, err)
	return ms, data
}

func byTitle(es []lore.Entry) map[string]lore.Entry {
	out := map[string]lore.Entry{}
	for _, e := range es {
		out[e.Title] = e
	}
	return out
}

// TestMigrateWorkedExample runs the operator page's worked example: the
// preview equals the apply, the mapping is the documented one, a rerun
// skips every recorded id, and an undo of one server's block removes its
// entries (edited or not) and lets a later run migrate them again.
func TestMigrateWorkedExample(t *testing.T) {
	b := setup(t)
	for _, s := range []string{exampleA, exampleB} {
		_, err := b.store.UpsertServer(b.ctx, s, "Guild")
		require.NoError(t, err)
	}
	ms, data := exampleMemories(t)
	require.Len(t, ms, 5)
	opts := transfer.MigrateOptions{Actor: "cli", SourceName: "legacy-migration.example.jsonl", SourceSHA256: transfer.Hash(data)}

	preview, err := transfer.MigrateMemories(b.ctx, b.store, ms, opts)
	require.NoError(t, err)
	require.Empty(t, b.all(t, exampleA), "a preview writes nothing")
	require.Zero(t, b.historyLen(t, exampleA))

	opts.Apply = true
	var progress []int
	opts.Progress = func(done, total int) { progress = append(progress, done*10+total) }
	rep, err := transfer.MigrateMemories(b.ctx, b.store, ms, opts)
	require.NoError(t, err)
	require.Equal(t, []int{12, 22}, progress)
	require.Len(t, rep.Servers, 2)
	for i := range rep.Servers {
		p, a := preview.Servers[i], rep.Servers[i]
		require.NotZero(t, a.ImportID)
		p.ImportID = a.ImportID
		require.Equal(t, p, a, "preview equals apply for %s", a.Server)
	}
	require.Equal(t, 3, rep.Added)
	require.Equal(t, 1, rep.ChannelOnly)
	require.Equal(t, 1, rep.Untagged)

	got := byTitle(b.all(t, exampleA))
	require.Len(t, got, 2)
	var harbor lore.Entry
	for title, e := range got { // the title is the first line, clipped
		if strings.HasPrefix(title, "The Old Harbor") {
			harbor = e
		}
	}
	require.NotZero(t, harbor.ID)
	require.Equal(t, []string{"harbor", "flood"}, harbor.Keys)
	require.Equal(t, []string{"lore-channel"}, harbor.LegacyChannelTags, "a #channel tag is a marker, never a key")
	require.Equal(t, lore.DefaultCollection, harbor.Collection)
	require.NotNil(t, harbor.ScanDepth)
	require.Equal(t, backup.LegacyScanDepth, *harbor.ScanDepth)
	require.False(t, harbor.Constant, "memory tagging is on")
	var ext map[string]string
	require.NoError(t, json.Unmarshal(harbor.Extensions[backup.LegacyExtension], &ext))
	require.Equal(t, "mem-1001", ext["source_id"])
	require.Equal(t, "2024-03-02T18:04:05Z", ext["created_at"], "timestamps kept")
	var mira lore.Entry
	for _, e := range got {
		if e.Lineage == 7 {
			mira = e
		}
	}
	require.Equal(t, []string{"Mira", "Kade", "smuggler"}, mira.Keys)
	require.Equal(t, []string{"223456789012345678"}, mira.ChannelIDs)
	guild := b.all(t, exampleB)
	require.Len(t, guild, 1)
	require.Equal(t, []string{"Guild of Lanterns", "clock tower"}, guild[0].Keys)

	// A rerun skips every recorded id and records nothing.
	again, err := transfer.MigrateMemories(b.ctx, b.store, ms, opts)
	require.NoError(t, err)
	require.Zero(t, again.Added)
	require.Equal(t, 3, again.AlreadyMigrated)
	require.Equal(t, 1, b.historyLen(t, exampleA))

	// Undo server A's block after an edit: its entries go, B's stay, and
	// the ids are forgotten so the next run migrates them again.
	edited := "edited after the migration"
	_, err = b.store.UpdateEntry(b.ctx, exampleA, lore.Serverwide, harbor.ID, lore.EntryPatch{Content: &edited})
	require.NoError(t, err)
	u, err := transfer.Undo(b.ctx, b.store, exampleA, rep.Servers[0].ImportID, "cli")
	require.NoError(t, err)
	require.Equal(t, 2, u.Removed)
	require.Empty(t, b.all(t, exampleA))
	require.Len(t, b.all(t, exampleB), 1)
	cols, err := b.store.ListCollections(b.ctx, exampleA)
	require.NoError(t, err)
	require.Empty(t, cols, "the General collection the migration created went with it")
	third, err := transfer.MigrateMemories(b.ctx, b.store, ms, opts)
	require.NoError(t, err)
	require.Equal(t, 2, third.Added)
	require.Equal(t, 1, third.AlreadyMigrated, "server B's memory stays recorded")
}

// TestMigrateBlocks: memory tagging off makes entries Always On; a memory
// over the content limit aborts its server's block (named, nothing of the
// block written, nothing truncated) while other servers go on; an unknown
// server is reported.
func TestMigrateBlocks(t *testing.T) {
	b := setup(t)
	off, ok, bad := b.server(t), b.server(t), b.server(t)
	tagging := false
	_, err := b.store.PatchServerSettings(b.ctx, off, lore.SettingsPatch{MemoryTagging: &tagging})
	require.NoError(t, err)
	line := func(id, server, content string) string {
		return fmt.Sprintf(`{"id": %q, "server_id": %q, "content": %q, "tags": ["k-%s"]}`, id, server, content, id)
	}
	input := strings.Join([]string{
		line("1", off, "always on now"),
		line("2", ok, "fine"),
		line("3", bad, "fits"),
		line("4", bad, strings.Repeat("x", lore.MaxContentLen+1)),
		line("5", "999999999999999999", "no such server"),
	}, "\n")
	ms, err := transfer.ParseMemories([]byte(input))
	require.NoError(t, err)
	rep, err := transfer.MigrateMemories(b.ctx, b.store, ms, transfer.MigrateOptions{Apply: true})
	require.NoError(t, err)
	require.Equal(t, 2, rep.Failed)
	require.Equal(t, 2, rep.Added)
	for _, s := range rep.Servers {
		switch s.Server {
		case bad:
			require.Contains(t, s.Error, "memory 4")
			require.Zero(t, s.ImportID)
		case "999999999999999999":
			require.Contains(t, s.Error, "not registered")
		default:
			require.Empty(t, s.Error)
		}
	}
	require.Empty(t, b.all(t, bad), "the whole block was aborted")
	es := b.all(t, off)
	require.Len(t, es, 1)
	require.True(t, es[0].Constant, "Always On when memory tagging is off")
	require.False(t, b.all(t, ok)[0].Constant)
}

// TestParseMemories: JSON lines and backup bundles; bad lines are named.
func TestParseMemories(t *testing.T) {
	_, err := transfer.ParseMemories([]byte(`{"id": "1", "server_id": "123456789012345678", "content": "a"}` + "\n" + `{"server_id": "123456789012345678", "content": "b"}`))
	require.ErrorIs(t, err, lore.ErrInvalid)
	require.ErrorContains(t, err, "line 2.id")
	_, err = transfer.ParseMemories([]byte(`{"id": "1", "server_id": "12", "content": "a"}`))
	require.ErrorContains(t, err, "line 1.server_id")
	_, err = transfer.ParseMemories([]byte("{not json"))
	require.ErrorContains(t, err, "line 1")

	lineage := int64(3)
	doc := backup.Document{Format: backup.FormatName, Version: backup.Version, Server: backup.Server{DiscordID: exampleA},
		Personas:       []backup.Bucket{{LineageID: 3, Memories: []backup.Memory{{ID: json.RawMessage(`"p1"`), Content: "persona", Tags: []string{"k"}}}}},
		ServerMemories: []backup.Memory{{ID: json.RawMessage(`7`), Content: "server", Tags: []string{"k"}}}}
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	ms, err := transfer.ParseMemories(raw)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, "p1", ms[0].SourceID())
	require.Equal(t, &lineage, ms[0].PersonaLineageID)
	require.Equal(t, "7", ms[1].SourceID())
	require.Equal(t, exampleA, ms[1].ServerID)
}
