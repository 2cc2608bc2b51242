package transfer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

// TestImportRevisionsNameActor: the entry revisions a file import or a
// workspace backup import writes name who asked (the request's actor),
// also when the import runs without a request principal in its context,
// as a background job does: a backup restored from the dashboard once
// recorded revisions by "" (the history showed "Imported ·" and nobody).
func TestImportRevisionsNameActor(t *testing.T) {
	b := setup(t)
	ctx := context.Background() // a job's context: no principal
	const actor = "user:700000000000000007"
	src := b.server(t)
	b.collection(t, src, "World")
	b.hand(t, src, lore.Serverwide, "World", "world one", "world two")
	ws, err := b.store.ReadWorkspace(ctx, src)
	require.NoError(t, err)
	data, err := backup.Encode(backup.Build(ws.Server, ws.Personas, ws.Collections, ws.Entries, ws.Books(), time.Now()))
	require.NoError(t, err)
	world := []byte(`{"entries": {"0": {"uid": 0, "comment": "The glade", "content": "A quiet glade.", "key": ["glade"]}}}`)
	for _, tc := range []struct {
		name string
		run  func(server string) error
	}{
		{"file import", func(server string) error {
			_, err := transfer.Import(ctx, b.store, transfer.Request{Target: lore.ImportTarget{Server: server, Lineage: lore.Serverwide,
				NewName: "World", Mode: lore.Append}, FileName: "World.json", Data: world, Actor: actor})
			return err
		}},
		{"backup import", func(server string) error {
			_, err := transfer.ImportBackup(ctx, b.store, server, "backup.json", data, nil, actor)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := b.server(t)
			require.NoError(t, tc.run(dst))
			es, err := b.store.ListServerEntries(ctx, dst)
			require.NoError(t, err)
			require.NotEmpty(t, es)
			for _, e := range es {
				revs, _, err := b.store.EntryRevisions(ctx, dst, e.ID, 10, 0)
				require.NoError(t, err)
				require.NotEmpty(t, revs)
				require.Equal(t, actor, revs[0].Actor, "entry %q", e.Title)
			}
		})
	}
}
