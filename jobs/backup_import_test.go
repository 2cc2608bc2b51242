package jobs_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// olderBackup is a backup from before lorebooks: keyword-tagged server
// memories, some channel-only, one untagged, one Serverwide.
const olderBackup = `{
  "export_type": "all_personas",
  "personas": [
    {"persona_id": 1, "lineage_id": 7, "name": "Seraphina", "memories": [
      {"id": 101, "content": "The tavern is called The Gilded Goose.", "keyword_tags": [" tavern ", "#roleplay", "goose", "tavern", ""], "channel_disc_ids": ["500000000000000009"]},
      {"id": 102, "content": "Only for the roleplay channel.", "keyword_tags": ["#roleplay"]},
      {"id": 103, "content": "No tags at all."}
    ]}
  ],
  "server_memories": [
    {"id": "s1", "content": "The kingdom is Eldoria.", "tags": ["eldoria"], "channel_disc_ids": ["500000000000000009"]},
    {"id": "s2", "content": "Channel-scoped only.", "channel_disc_ids": ["500000000000000009"]}
  ]
}`

func importBackup(t *testing.T, pool *pgxpool.Pool, store *postgres.Store, server string, data []byte) (*rivertype.JobRow, jobs.BackupImportReport) {
	t.Helper()
	ctx := context.Background()
	b, err := store.PutBlob(ctx, postgres.Blob{Server: server, Kind: postgres.BlobBackup, FileName: "old.json", Data: data, ExpiresAt: farFuture})
	require.NoError(t, err)
	client := startClient(t, pool, jobs.Config{})
	res, err := client.Insert(ctx, jobs.BackupImportArgs{BlobID: b.ID, ServerID: server}, nil)
	require.NoError(t, err)
	row := waitFinal(t, client, res.Job.ID)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "errors %v", row.Errors)
	rep, err := store.GetJobReport(ctx, row.ID)
	require.NoError(t, err)
	var out jobs.BackupImportReport
	require.NoError(t, json.Unmarshal(rep.Report, &out))
	// Recorded in the import's transaction, with what it created.
	rec, err := store.HistoryRecord(ctx, server, out.ImportID)
	require.NoError(t, err)
	require.Equal(t, lore.HistoryBackup, rec.Kind)
	require.Equal(t, "old.json", rec.SourceName)
	require.Len(t, rec.CreatedIDs, countRows(t, pool, "SELECT count(*) FROM lorebook_entries WHERE server_id = $1 AND id = ANY($2)", server, rec.CreatedIDs))
	return row, out
}

// TestLegacyMemoryMapping imports an older backup twice into servers with
// memory tagging on and off (docs/contract.md#migration and
// docs/contract.md#backups: older backups convert with the migration
// mapping).
func TestLegacyMemoryMapping(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tagging  bool
		constant bool
	}{
		{"memory tagging on: keyword entries", true, false},
		{"memory tagging off: Always On", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pool := postgrestest.NewPool(t)
			store := postgres.New(pool)
			_, err := store.UpsertServer(ctx, serverA, "A")
			require.NoError(t, err)
			set := lore.DefaultServerSettings()
			set.MemoryTagging = tc.tagging
			_, err = store.UpdateServerSettings(ctx, serverA, set)
			require.NoError(t, err)
			// Existing lore the older backup does not carry: preserved.
			e := lore.NewEntry()
			e.Server, e.Lineage, e.Title, e.Content = serverA, 7, "existing", "hand-written"
			_, err = store.InsertEntry(ctx, e)
			require.NoError(t, err)

			_, rep := importBackup(t, pool, store, serverA, []byte(olderBackup))
			require.False(t, rep.ServerSettings.Included, "an older backup carries no server settings")
			require.False(t, rep.ServerSettings.Changed)
			sv, err := store.GetServer(ctx, serverA)
			require.NoError(t, err)
			require.True(t, set.Equal(sv.Settings), "the destination keeps its settings")
			require.Equal(t, 5, rep.Memories.Total)
			require.Equal(t, 2, rep.Memories.Converted)
			require.Equal(t, 2, rep.Memories.ChannelOnly, "channel-only rows are reported as not converted")
			require.Equal(t, 1, rep.Memories.Untagged)
			require.Equal(t, 1, rep.Memories.ServerwideChannelsDropped)
			require.Len(t, rep.Memories.NotConverted, 3)
			require.Equal(t, 2, rep.ConvertedAdded)

			persona, err := store.ListScope(ctx, serverA, 7, "")
			require.NoError(t, err)
			require.Len(t, persona, 2, "the absent book is preserved and the conversion appended")
			var conv lore.Entry
			for _, x := range persona {
				if x.Title != "existing" {
					conv = x
				}
			}
			require.Equal(t, []string{"tavern", "goose"}, conv.Keys, "#channel names are never keywords")
			require.Equal(t, []string{"roleplay"}, conv.LegacyChannelTags, "#channel names stay markers")
			require.Equal(t, []string{"500000000000000009"}, conv.ChannelIDs)
			require.NotNil(t, conv.ScanDepth)
			require.Equal(t, 5, *conv.ScanDepth)
			require.Equal(t, tc.constant, conv.Constant)
			require.JSONEq(t, `{"source_id": 101}`, string(conv.Extensions["loregate.legacy_memory"]))

			sw, err := store.ListScope(ctx, serverA, lore.Serverwide, "")
			require.NoError(t, err)
			require.Len(t, sw, 1)
			require.Equal(t, lore.DefaultCollection, sw[0].Collection)
			require.Equal(t, []string{"eldoria"}, sw[0].Keys)
			require.Empty(t, sw[0].ChannelIDs)
			require.Equal(t, tc.constant, sw[0].Constant)

			// Again: deduplicated, nothing added.
			_, rep = importBackup(t, pool, store, serverA, []byte(olderBackup))
			require.Equal(t, 0, rep.ConvertedAdded)
			require.Equal(t, 2, rep.ConvertedDuplicates)
			counts, err := store.CountByScope(ctx, serverA)
			require.NoError(t, err)
			require.Equal(t, lore.ScopeCounts{0: 1, 7: 2}, counts)
		})
	}
}

// TestBackupImportFailureKeepsEverything: a backup whose book breaks a
// limit is cancelled; the destination is untouched and the blob kept for a
// corrected retry.
func TestBackupImportFailureKeepsEverything(t *testing.T) {
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	_, err := store.UpsertServer(ctx, serverA, "A")
	require.NoError(t, err)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content = serverA, 7, "keep", "kept"
	_, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)
	var book []map[string]any
	for i := 0; i < lore.MaxEntriesPerScope+1; i++ {
		book = append(book, map[string]any{"title": "t", "content": "c", "enabled": true, "probability": 100})
	}
	doc, err := json.Marshal(map[string]any{"format": "loregate-workspace-backup", "version": 1,
		"personas": []any{map[string]any{"lineage_id": 7, "lorebook_entries": book}}, "serverwide_lorebook_entries": []any{}})
	require.NoError(t, err)
	b, err := store.PutBlob(ctx, postgres.Blob{Server: serverA, Kind: postgres.BlobBackup, Data: doc, ExpiresAt: farFuture})
	require.NoError(t, err)
	client := startClient(t, pool, jobs.Config{})
	res, err := client.Insert(ctx, jobs.BackupImportArgs{BlobID: b.ID, ServerID: serverA}, nil)
	require.NoError(t, err)
	row := waitFinal(t, client, res.Job.ID)
	require.Equal(t, rivertype.JobStateCancelled, row.State)
	require.Contains(t, row.Errors[len(row.Errors)-1].Error, "scope full")
	counts, err := store.CountByScope(ctx, serverA)
	require.NoError(t, err)
	require.Equal(t, lore.ScopeCounts{0: 0, 7: 1}, counts)
	_, err = store.GetBlob(ctx, b.ID)
	require.NoError(t, err)
}

// TestBackupJobsCarryServerSettings runs the export job and the import job
// (docs/contract.md#backups): the server's settings and workbench
// settings come back onto the server the backup came from, Discord ids
// included; onto another server the settings come and its own proposal
// channel and lore editor role stay, named in the job's report.
func TestBackupJobsCarryServerSettings(t *testing.T) {
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	for _, tc := range []struct {
		name, dest string
		skipped    []string
	}{
		{name: "same server", dest: serverA},
		{name: "another server", dest: serverB, skipped: []string{"proposalChannelId", "loreEditorRoleId"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []string{serverA, serverB} {
				_, err := store.UpsertServer(ctx, s, "S")
				require.NoError(t, err)
			}
			want := lore.ServerSettings{ChannelScoping: false, MemoryTagging: true, RegexKeys: true, BudgetUnit: lore.BudgetTokens,
				BudgetLimit: 1500, Tokenizer: lore.TokenizerCL100k, Selection: lore.Selection{MaxEntries: 4, IncludeNames: true}}
			_, err := store.UpdateServerSettings(ctx, serverA, want)
			require.NoError(t, err)
			no, role, channel := false, "600000000000000001", "600000000000000002"
			_, err = store.UpdateWorkbenchSettings(ctx, serverA, lore.WorkbenchSettingsPatch{ProposalsEnabled: &no, LoreEditorRoleID: &role, ProposalChannelID: &channel})
			require.NoError(t, err)

			client := startClient(t, pool, jobs.Config{})
			res, err := client.Insert(ctx, jobs.BackupExportArgs{ServerID: serverA}, nil)
			require.NoError(t, err)
			row := waitFinal(t, client, res.Job.ID)
			require.Equal(t, rivertype.JobStateCompleted, row.State, "errors %v", row.Errors)
			a, err := store.GetArtifactByJob(ctx, row.ID)
			require.NoError(t, err)
			a, err = store.GetArtifactData(ctx, a.ID)
			require.NoError(t, err)

			// The destination changes after the backup.
			yes, otherRole, otherChannel := true, "600000000000000003", "600000000000000004"
			_, err = store.UpdateServerSettings(ctx, tc.dest, lore.DefaultServerSettings())
			require.NoError(t, err)
			_, err = store.UpdateWorkbenchSettings(ctx, tc.dest, lore.WorkbenchSettingsPatch{ProposalsEnabled: &yes, LoreEditorRoleID: &otherRole, ProposalChannelID: &otherChannel})
			require.NoError(t, err)

			_, rep := importBackup(t, pool, store, tc.dest, a.Data)
			require.True(t, rep.ServerSettings.Included)
			require.True(t, rep.ServerSettings.Changed)
			require.Equal(t, tc.skipped, rep.ServerSettings.Skipped)
			sv, err := store.GetServer(ctx, tc.dest)
			require.NoError(t, err)
			require.True(t, want.Equal(sv.Settings), "settings restored: want %+v, got %+v", want, sv.Settings)
			w, err := store.GetWorkbenchSettings(ctx, tc.dest)
			require.NoError(t, err)
			require.False(t, w.ProposalsEnabled)
			if tc.skipped == nil {
				require.Equal(t, []string{role, channel}, []string{w.LoreEditorRoleID, w.ProposalChannelID})
			} else {
				require.Equal(t, []string{otherRole, otherChannel}, []string{w.LoreEditorRoleID, w.ProposalChannelID})
			}
		})
	}
}
