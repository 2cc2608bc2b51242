package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// TestSchemaConstraints checks that the database itself refuses rows that
// break the contract, independently of the Go validation.
func TestSchemaConstraints(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "General")
	const insertEntry = `INSERT INTO lorebook_entries (server_id, lineage_id, lorebook_name, content, probability, scan_depth, channel_ids)
VALUES ($1, $2, $3, 'x', $4, $5, $6::text[])`
	type row struct {
		lineage    any
		collection any
		prob       int
		depth      any
		channels   []string
	}
	ok := row{lineage: nil, collection: "General", prob: 100, depth: nil, channels: []string{}}
	_, err := b.pool.Exec(b.ctx, insertEntry, b.server, ok.lineage, ok.collection, ok.prob, ok.depth, ok.channels)
	require.NoError(t, err, "a valid Serverwide row must be accepted")

	tests := []struct {
		name string
		mod  func(r *row)
		code string
	}{
		{"persona entry with collection", func(r *row) { r.lineage = int64(7) }, "23514"},
		{"serverwide entry without collection", func(r *row) { r.collection = nil }, "23514"},
		{"serverwide entry with channels", func(r *row) { r.channels = []string{"123456789012345678"} }, "23514"},
		{"lineage zero", func(r *row) { r.lineage, r.collection = int64(0), nil }, "23514"},
		{"negative lineage", func(r *row) { r.lineage, r.collection = int64(-3), nil }, "23514"},
		{"probability above 100", func(r *row) { r.prob = 101 }, "23514"},
		{"probability below 0", func(r *row) { r.prob = -1 }, "23514"},
		{"scan depth -1", func(r *row) { r.depth = -1 }, "23514"},
		{"scan depth 101", func(r *row) { r.depth = 101 }, "23514"},
		{"channel id not a snowflake", func(r *row) {
			r.lineage, r.collection, r.channels = int64(7), nil, []string{"12345"}
		}, "23514"},
		{"unknown collection", func(r *row) { r.collection = "Missing" }, "23503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.mod(&r)
			_, err := b.pool.Exec(b.ctx, insertEntry, b.server, r.lineage, r.collection, r.prob, r.depth, r.channels)
			var pgErr interface{ SQLState() string }
			require.ErrorAs(t, err, &pgErr)
			require.Equal(t, tt.code, pgErr.SQLState())
		})
	}

	t.Run("server id not a snowflake", func(t *testing.T) {
		_, err := b.pool.Exec(b.ctx, `INSERT INTO servers (id) VALUES ('0123456789012345678')`)
		require.Error(t, err)
	})
	t.Run("persona entry accepted with channels and no collection", func(t *testing.T) {
		_, err := b.pool.Exec(b.ctx, insertEntry, b.server, int64(7), nil, 0, 1, []string{"123456789012345678"})
		require.NoError(t, err)
	})
}

func TestServerAndSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)

	sv, err := b.store.GetServer(b.ctx, b.server)
	require.NoError(t, err)
	require.Equal(t, "Test Guild", sv.Name)
	require.Equal(t, lore.DefaultServerSettings(), sv.Settings)

	set := lore.ServerSettings{ChannelScoping: false, MemoryTagging: false, RegexKeys: true,
		BudgetUnit: lore.BudgetTokens, BudgetLimit: 500, Tokenizer: lore.TokenizerCL100k}
	sv, err = b.store.UpdateServerSettings(b.ctx, b.server, set)
	require.NoError(t, err)
	require.Equal(t, set, sv.Settings)
	require.Equal(t, int64(1), sv.LoreVersion, "settings change matching, so they bump the lore version")

	sv, err = b.store.UpsertServer(b.ctx, b.server, "Renamed Guild")
	require.NoError(t, err)
	require.Equal(t, "Renamed Guild", sv.Name)
	require.Equal(t, set, sv.Settings, "a rename keeps the settings")

	_, err = b.store.GetServer(b.ctx, snowflake(t))
	require.ErrorIs(t, err, lore.ErrNotFound)
	_, err = b.store.UpdateServerSettings(b.ctx, snowflake(t), set)
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.ErrorIs(t, b.store.DeleteServer(b.ctx, snowflake(t)), lore.ErrNotFound)
	_, err = b.store.UpsertServer(b.ctx, "42", "x")
	requireInvalidField(t, err, "server")
}

func TestPersonasAndLineageLore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const lineage lore.Lineage = 11

	p, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 1, Lineage: lineage, Name: "Aria"})
	require.NoError(t, err)
	require.Equal(t, lore.Persona{Server: b.server, ID: 1, Lineage: lineage, Name: "Aria"}, p)
	b.insert(t, entry(b.server, lineage, "", "persona fact"))

	p, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 1, Lineage: lineage, Name: "Aria II"})
	require.NoError(t, err)
	require.Equal(t, "Aria II", p.Name)

	require.NoError(t, b.store.RemovePersona(b.ctx, b.server, 1))
	ps, err := b.store.ListPersonas(b.ctx, b.server)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	require.True(t, ps[0].Removed)
	known, err := b.store.LineageKnown(b.ctx, b.server, lineage)
	require.NoError(t, err)
	require.True(t, known, "a removed persona's lineage stays known")

	got, err := b.store.ListScope(b.ctx, b.server, lineage, "")
	require.NoError(t, err)
	require.Equal(t, []string{"persona fact"}, contents(got), "lore survives persona removal")

	p, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 1, Lineage: lineage, Name: "Aria"})
	require.NoError(t, err)
	require.False(t, p.Removed, "re-registration restores the persona")
	got, err = b.store.ListScope(b.ctx, b.server, lineage, "")
	require.NoError(t, err)
	require.Len(t, got, 1, "and its lineage's lore is still there")

	known, err = b.store.LineageKnown(b.ctx, b.server, 999)
	require.NoError(t, err)
	require.False(t, known)

	require.ErrorIs(t, b.store.RemovePersona(b.ctx, b.server, 2), lore.ErrNotFound)
	_, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: snowflake(t), ID: 1, Lineage: 1, Name: "x"})
	require.ErrorIs(t, err, lore.ErrNotFound, "persona of an unknown server")
	_, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 1, Lineage: 0, Name: "x"})
	requireInvalidField(t, err, "lineage")
}

func TestServerDeleteCascades(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := snowflake(t)
	_, err := b.store.UpsertServer(b.ctx, other, "Other")
	require.NoError(t, err)
	otherEntry, err := b.store.InsertEntry(b.ctx, entry(other, 3, "", "other server"))
	require.NoError(t, err)

	b.collection(t, "General")
	_, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 1, Lineage: 3, Name: "P"})
	require.NoError(t, err)
	sw := entry(b.server, lore.Serverwide, "General", "sw")
	sw.LegacyChannelTags = []string{"general"}
	pe := entry(b.server, 3, "", "persona")
	pe.LegacyChannelTags = []string{"rp"}
	b.insert(t, sw, pe)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM legacy_channel_scope_tags`))

	require.NoError(t, b.store.DeleteServer(b.ctx, b.server))

	for _, q := range []string{
		`SELECT count(*) FROM lorebook_entries WHERE server_id = $1`,
		`SELECT count(*) FROM lorebooks WHERE server_id = $1`,
		`SELECT count(*) FROM personas WHERE server_id = $1`,
	} {
		require.Zero(t, b.count(t, q, b.server), q)
	}
	require.Zero(t, b.count(t, `SELECT count(*) FROM legacy_channel_scope_tags`))
	_, err = b.store.GetEntry(b.ctx, other, 3, otherEntry.ID)
	require.NoError(t, err, "other servers keep their lore")
}

func TestCollections(t *testing.T) {
	t.Parallel()
	b := setup(t)
	general := b.collection(t, "General")
	require.True(t, general.Enabled)
	require.Positive(t, general.ID)

	_, err := b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: "General", Enabled: true})
	require.ErrorIs(t, err, lore.ErrDuplicateName)
	_, err = b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: " padded "})
	requireInvalidField(t, err, "name")
	_, err = b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: "Bad", ChannelIDs: []string{"nope"}})
	requireInvalidField(t, err, "channelIds[0]")
	_, err = b.store.CreateCollection(b.ctx, lore.Collection{Server: snowflake(t), Name: "X"})
	require.ErrorIs(t, err, lore.ErrNotFound)

	b.collection(t, "Atlas")
	b.insert(t, entries(b.server, lore.Serverwide, "General", "g", 3)...)
	disabled := entry(b.server, lore.Serverwide, "General", "off")
	disabled.Enabled = false
	b.insert(t, disabled)

	list, err := b.store.ListCollections(b.ctx, b.server)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "Atlas", list[0].Name)
	require.Equal(t, 0, list[0].EntryCount)
	require.Equal(t, "General", list[1].Name)
	require.Equal(t, 4, list[1].EntryCount, "counts include disabled entries")

	channels := []string{"223456789012345678", "323456789012345678"}
	c, err := b.store.SetCollectionChannels(b.ctx, b.server, general.ID, channels)
	require.NoError(t, err)
	require.Equal(t, channels, c.ChannelIDs)
	_, err = b.store.SetCollectionChannels(b.ctx, b.server, general.ID, []string{"1"})
	requireInvalidField(t, err, "channelIds[0]")
	c, err = b.store.SetCollectionEnabled(b.ctx, b.server, general.ID, false)
	require.NoError(t, err)
	require.False(t, c.Enabled)
	require.Equal(t, channels, c.ChannelIDs)

	got, err := b.store.GetCollectionByName(b.ctx, b.server, "General")
	require.NoError(t, err)
	require.Equal(t, general.ID, got.ID)
	_, err = b.store.GetCollectionByName(b.ctx, b.server, "general")
	require.ErrorIs(t, err, lore.ErrNotFound, "names match exactly")
}

func TestRenameCollectionCascades(t *testing.T) {
	t.Parallel()
	b := setup(t)
	general := b.collection(t, "General")
	b.collection(t, "Taken")
	stored := b.insert(t, entries(b.server, lore.Serverwide, "General", "g", 3)...)

	_, err := b.store.RenameCollection(b.ctx, b.server, general.ID, "Taken")
	require.ErrorIs(t, err, lore.ErrDuplicateName, "the target name must be free")

	c, err := b.store.RenameCollection(b.ctx, b.server, general.ID, "World")
	require.NoError(t, err)
	require.Equal(t, "World", c.Name)
	require.Equal(t, general.ID, c.ID)
	require.Equal(t, 3, c.EntryCount)

	for _, e := range stored {
		got, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, e.ID)
		require.NoError(t, err)
		require.Equal(t, "World", got.Collection)
	}
	list, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "General")
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.Nil(t, list)
	list, err = b.store.ListScope(b.ctx, b.server, lore.Serverwide, "World")
	require.NoError(t, err)
	require.Len(t, list, 3)

	_, err = b.store.RenameCollection(b.ctx, b.server, 987654, "Nope")
	require.ErrorIs(t, err, lore.ErrNotFound)
}

func TestDeleteCollectionRemovesEntriesAndMarkers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	doomed := b.collection(t, "Doomed")
	b.collection(t, "Kept")
	e := entry(b.server, lore.Serverwide, "Doomed", "doomed")
	e.LegacyChannelTags = []string{"roleplay", "lore"}
	k := entry(b.server, lore.Serverwide, "Kept", "kept")
	k.LegacyChannelTags = []string{"kept-channel"}
	stored := b.insert(t, e, k)
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM legacy_channel_scope_tags`))

	require.NoError(t, b.store.DeleteCollection(b.ctx, b.server, doomed.ID))

	_, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, stored[0].ID)
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.Zero(t, b.count(t, `SELECT count(*) FROM legacy_channel_scope_tags WHERE entry_id = $1`, stored[0].ID))
	kept, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, stored[1].ID)
	require.NoError(t, err)
	require.Equal(t, []string{"kept-channel"}, kept.LegacyChannelTags)
	_, err = b.store.GetCollection(b.ctx, b.server, doomed.ID)
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.ErrorIs(t, b.store.DeleteCollection(b.ctx, b.server, doomed.ID), lore.ErrNotFound)
}

func TestWipeServerLore(t *testing.T) {
	t.Parallel()
	for _, preserve := range []bool{true, false} {
		t.Run(map[bool]string{true: "preserving personas", false: "everything"}[preserve], func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.collection(t, "General")
			b.collection(t, "Empty")
			sw := entry(b.server, lore.Serverwide, "General", "sw")
			sw.LegacyChannelTags = []string{"old"}
			pe := entry(b.server, 5, "", "persona")
			pe.LegacyChannelTags = []string{"rp"}
			stored := b.insert(t, sw, pe)

			require.NoError(t, b.store.WipeServerLore(b.ctx, b.server, preserve))

			list, err := b.store.ListCollections(b.ctx, b.server)
			require.NoError(t, err)
			require.Empty(t, list)
			require.Zero(t, b.scopeCount(t, lore.Serverwide))
			require.Zero(t, b.count(t, `SELECT count(*) FROM legacy_channel_scope_tags WHERE entry_id = $1`, stored[0].ID))
			got, err := b.store.GetEntry(b.ctx, b.server, 5, stored[1].ID)
			if preserve {
				require.NoError(t, err)
				require.Equal(t, []string{"rp"}, got.LegacyChannelTags, "persona lore keeps its markers")
			} else {
				require.ErrorIs(t, err, lore.ErrNotFound)
			}
		})
	}
}

// TestLoreVersion checks that successful lore writes bump the version and
// failed ones do not.
func TestLoreVersion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v0 := b.loreVersion(t)
	c := b.collection(t, "General")
	require.Equal(t, v0+1, b.loreVersion(t))
	e := b.insert(t, entry(b.server, lore.Serverwide, "General", "a"))[0]
	require.Equal(t, v0+2, b.loreVersion(t))

	_, err := b.store.InsertEntry(b.ctx, entry(b.server, lore.Serverwide, "Missing", "b"))
	require.ErrorIs(t, err, lore.ErrNotFound)
	_, err = b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: "General"})
	require.ErrorIs(t, err, lore.ErrDuplicateName)
	require.Equal(t, v0+2, b.loreVersion(t), "failed writes leave the version")

	_, err = b.store.SetEntryEnabled(b.ctx, b.server, lore.Serverwide, e.ID, false)
	require.NoError(t, err)
	_, err = b.store.SetCollectionEnabled(b.ctx, b.server, c.ID, false)
	require.NoError(t, err)
	require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, lore.Serverwide, e.ID))
	_, err = b.store.ReplacePersonaBook(b.ctx, b.server, 4, nil)
	require.NoError(t, err)
	require.Equal(t, v0+6, b.loreVersion(t))

	// The persona registry: a registration makes a lineage known and a
	// removal changes which persona a scope reads, so both bump it; a
	// refused move and an unknown persona do not.
	_, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 7, Lineage: 4, Name: "Aria"})
	require.NoError(t, err)
	_, err = b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 7, Lineage: 5, Name: "Aria"})
	requireInvalidField(t, err, "lineage")
	require.ErrorIs(t, b.store.RemovePersona(b.ctx, b.server, 8), lore.ErrNotFound)
	require.Equal(t, v0+7, b.loreVersion(t))
	require.NoError(t, b.store.RemovePersona(b.ctx, b.server, 7))
	require.Equal(t, v0+8, b.loreVersion(t))
}

func TestWithTx(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "General")
	errBoom := errors.New("boom")

	err := b.store.WithTx(b.ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		_, err := st.InsertEntry(ctx, entry(b.server, lore.Serverwide, "General", "rolled back"))
		require.NoError(t, err)
		return errBoom
	})
	require.ErrorIs(t, err, errBoom)
	require.Zero(t, b.scopeCount(t, lore.Serverwide), "a failed transaction writes nothing")

	err = b.store.WithTx(b.ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		// A failing write inside the transaction undoes only itself
		// (savepoint); the transaction stays usable.
		_, err := st.InsertEntry(ctx, entry(b.server, lore.Serverwide, "Missing", "x"))
		require.ErrorIs(t, err, lore.ErrNotFound)
		if _, err := st.InsertEntry(ctx, entry(b.server, lore.Serverwide, "General", "committed")); err != nil {
			return err
		}
		// Other writers share the transaction (e.g. River's InsertTx).
		_, err = tx.Exec(ctx, `CREATE TEMP TABLE probe (x int) ON COMMIT DROP`)
		return err
	})
	require.NoError(t, err)
	got, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "")
	require.NoError(t, err)
	require.Equal(t, []string{"committed"}, contents(got))

	// InTx binds to a caller-owned transaction.
	tx, err := b.pool.Begin(b.ctx)
	require.NoError(t, err)
	_, err = b.store.InTx(tx).InsertEntry(b.ctx, entry(b.server, lore.Serverwide, "General", "caller rolls back"))
	require.NoError(t, err)
	require.NoError(t, tx.Rollback(b.ctx))
	require.Equal(t, 1, b.scopeCount(t, lore.Serverwide))
}

// TestUnavailable checks that database failures are ErrUnavailable and that
// the per-turn read degrades to an empty snapshot.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	server := snowflake(t)
	ctx := context.Background()
	_, err := store.UpsertServer(ctx, server, "g")
	require.NoError(t, err)
	_, err = store.InsertEntry(ctx, entry(server, 2, "", "fact"))
	require.NoError(t, err)
	pool.Close()

	snap, err := store.LoadEnabledForScope(ctx, server, 2)
	require.ErrorIs(t, err, lore.ErrUnavailable)
	require.Empty(t, snap.Entries)
	require.Equal(t, server, snap.Server.ID)

	_, err = store.ListScope(ctx, server, 2, "")
	require.ErrorIs(t, err, lore.ErrUnavailable)
	counts, err := store.CountByScope(ctx, server)
	require.ErrorIs(t, err, lore.ErrUnavailable)
	require.Nil(t, counts)
	_, err = store.ListCollections(ctx, server)
	require.ErrorIs(t, err, lore.ErrUnavailable)
	_, err = store.InsertEntry(ctx, entry(server, 2, "", "more"))
	require.ErrorIs(t, err, lore.ErrUnavailable)
	require.NotErrorIs(t, err, lore.ErrNotFound)
}
