package postgres_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
)

func TestBlobsArtifactsReports(t *testing.T) {
	b := setup(t)
	now := time.Now()
	blob, err := b.store.PutBlob(b.ctx, postgres.Blob{Server: b.server, Kind: postgres.BlobLorebook, FileName: "f.json", Data: []byte("abc"), ExpiresAt: now.Add(-time.Second)})
	require.NoError(t, err)
	require.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", blob.SHA256)
	_, err = b.store.PutBlob(b.ctx, postgres.Blob{Server: b.server, Kind: "other", ExpiresAt: now})
	require.ErrorIs(t, err, lore.ErrInvalid)
	a, err := b.store.PutArtifact(b.ctx, postgres.Artifact{Server: b.server, JobID: 42, Kind: "backup", FileName: "b.json", ContentType: "application/json", Data: []byte("{}"), ExpiresAt: now.Add(time.Hour)})
	require.NoError(t, err)
	_, err = b.store.PutArtifact(b.ctx, postgres.Artifact{Server: b.server, JobID: 42, Kind: "backup", FileName: "b.json", ContentType: "application/json", Data: []byte("{}"), ExpiresAt: now})
	require.ErrorIs(t, err, lore.ErrDuplicateName, "one artifact per job")
	got, err := b.store.GetArtifactData(b.ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, []byte("{}"), got.Data)
	require.NoError(t, b.store.PutJobReport(b.ctx, postgres.JobReport{JobID: 42, Server: b.server, Kind: "k", Report: []byte(`{"a":1}`)}))
	require.ErrorIs(t, b.store.PutJobReport(b.ctx, postgres.JobReport{JobID: 42, Server: b.server, Kind: "k", Report: []byte(`{}`)}), lore.ErrDuplicateName, "a job reports once")

	c, err := b.store.DeleteExpired(b.ctx, now, time.Time{})
	require.NoError(t, err)
	require.Equal(t, postgres.CleanupCounts{Blobs: 1}, c, "only the expired blob")
	_, err = b.store.GetBlob(b.ctx, blob.ID)
	require.ErrorIs(t, err, lore.ErrNotFound)
	c, err = b.store.DeleteExpired(b.ctx, now.Add(2*time.Hour), now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, postgres.CleanupCounts{Artifacts: 1, Reports: 1}, c)
}

func TestResolveLegacyTags(t *testing.T) {
	b := setup(t)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content, e.ChannelIDs, e.LegacyChannelTags = b.server, 7, "t", "c", []string{"500000000000000001"}, []string{"a", "b"}
	e, err := b.store.InsertEntry(b.ctx, e)
	require.NoError(t, err)
	sw := lore.NewEntry()
	sw.Server, sw.Collection, sw.Title, sw.Content, sw.LegacyChannelTags = b.server, "General", "s", "c", []string{"a"}
	_, err = b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: "General", Enabled: true})
	require.NoError(t, err)
	sw, err = b.store.InsertEntry(b.ctx, sw)
	require.NoError(t, err)

	servers, err := b.store.PendingLegacyServers(b.ctx)
	require.NoError(t, err)
	require.Equal(t, []string{b.server}, servers)
	pending, err := b.store.PendingLegacyTags(b.ctx, b.server)
	require.NoError(t, err)
	require.Equal(t, []postgres.PendingTag{{EntryID: e.ID, Lineage: 7, Name: "a"}, {EntryID: e.ID, Lineage: 7, Name: "b"}}, pending, "Serverwide markers are not listed")

	n, err := b.store.ResolveLegacyTags(b.ctx, b.server, []postgres.TagResolution{
		{EntryID: e.ID, Name: "a", ChannelIDs: []string{"500000000000000001", "500000000000000002"}},
		{EntryID: sw.ID, Name: "a", ChannelIDs: []string{"500000000000000002"}}, // Serverwide: skipped
		{EntryID: e.ID, Name: "gone", ChannelIDs: []string{"500000000000000003"}},
	})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	got, err := b.store.GetEntry(b.ctx, b.server, 7, e.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"500000000000000001", "500000000000000002"}, got.ChannelIDs, "a set union")
	require.Equal(t, []string{"b"}, got.LegacyChannelTags)
	n, err = b.store.ResolveLegacyTags(b.ctx, b.server, []postgres.TagResolution{{EntryID: e.ID, Name: "a", ChannelIDs: []string{"500000000000000002"}}})
	require.NoError(t, err)
	require.Zero(t, n, "idempotent")
	_, err = b.store.ResolveLegacyTags(b.ctx, b.server, []postgres.TagResolution{{EntryID: e.ID, Name: "b"}})
	require.ErrorIs(t, err, lore.ErrInvalid)
}
