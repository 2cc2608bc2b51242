package postgres_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
)

func TestLoadEnabledForScope(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const chA = "223456789012345678"
	active := b.collection(t, "Active")
	_, err := b.store.SetCollectionChannels(b.ctx, b.server, active.ID, []string{chA})
	require.NoError(t, err)
	off := b.collection(t, "Off")
	b.collection(t, "Empty")

	mk := func(lineage lore.Lineage, collection, content string, order int, enabled bool) lore.Entry {
		e := entry(b.server, lineage, collection, content)
		e.Order, e.Enabled = order, enabled
		return e
	}
	tagged := mk(5, "", "persona tagged", 1, true)
	tagged.LegacyChannelTags = []string{"rp"}
	b.insert(t,
		mk(lore.Serverwide, "Active", "sw b", 20, true),
		mk(lore.Serverwide, "Active", "sw a", 10, true),
		mk(lore.Serverwide, "Active", "sw disabled", 1, false),
		mk(lore.Serverwide, "Off", "in disabled book", 1, true),
		mk(5, "", "persona", 15, true),
		tagged,
		mk(5, "", "persona disabled", 2, false),
		mk(6, "", "other lineage", 3, true),
	)
	_, err = b.store.SetCollectionEnabled(b.ctx, b.server, off.ID, false)
	require.NoError(t, err)

	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, 5)
	require.NoError(t, err)
	require.Equal(t, []string{"persona tagged", "sw a", "persona", "sw b"}, contents(snap.Entries),
		"enabled entries of enabled books and of the lineage, in insertion order")
	require.Equal(t, []string{"rp"}, snap.Entries[0].LegacyChannelTags)
	require.Equal(t, lore.Lineage(5), snap.Lineage)
	require.Equal(t, b.server, snap.Server.ID)
	require.Equal(t, "Test Guild", snap.Server.Name)
	require.Equal(t, lore.DefaultServerSettings(), snap.Server.Settings)
	require.Equal(t, b.loreVersion(t), snap.Server.LoreVersion)
	require.Len(t, snap.Collections, 1)
	require.Equal(t, active.ID, snap.Collections["Active"].ID)
	require.Equal(t, []string{chA}, snap.Collections["Active"].ChannelIDs)
	require.True(t, snap.Collections["Active"].Enabled)

	snap, err = b.store.LoadEnabledForScope(b.ctx, b.server, lore.Serverwide)
	require.NoError(t, err)
	require.Equal(t, []string{"sw a", "sw b"}, contents(snap.Entries), "Serverwide reads no persona lore")

	// Re-enabling the book restores its entries with their own flags.
	_, err = b.store.SetCollectionEnabled(b.ctx, b.server, off.ID, true)
	require.NoError(t, err)
	snap, err = b.store.LoadEnabledForScope(b.ctx, b.server, 6)
	require.NoError(t, err)
	require.Equal(t, []string{"in disabled book", "other lineage", "sw a", "sw b"}, contents(snap.Entries))
	list, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "Active")
	require.NoError(t, err)
	require.Equal(t, []string{"sw disabled", "sw a", "sw b"}, contents(list), "ListScope includes disabled entries")

	// An empty scope of a known server is an empty snapshot with the
	// server's settings; an unknown server is ErrNotFound.
	snap, err = b.store.LoadEnabledForScope(b.ctx, b.server, 77)
	require.NoError(t, err)
	require.Equal(t, 3, len(snap.Entries), "an unknown lineage reads the Serverwide entries")
	require.NoError(t, b.store.WipeServerLore(b.ctx, b.server, false))
	snap, err = b.store.LoadEnabledForScope(b.ctx, b.server, 77)
	require.NoError(t, err)
	require.Empty(t, snap.Entries)
	require.Equal(t, "Test Guild", snap.Server.Name)

	snap, err = b.store.LoadEnabledForScope(b.ctx, snowflake(t), 5)
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.Empty(t, snap.Entries)
}

func TestListScopeAndCounts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "A")
	b.collection(t, "B")
	b.insert(t, entries(b.server, lore.Serverwide, "A", "a", 3)...)
	b.insert(t, entries(b.server, lore.Serverwide, "B", "b", 2)...)
	b.insert(t, entries(b.server, 4, "", "p", 4)...)

	all, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "")
	require.NoError(t, err)
	require.Len(t, all, 5)
	onlyB, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "B")
	require.NoError(t, err)
	require.Equal(t, []string{"b-0", "b-1"}, contents(onlyB))
	persona, err := b.store.ListScope(b.ctx, b.server, 4, "")
	require.NoError(t, err)
	require.Len(t, persona, 4)
	_, err = b.store.ListScope(b.ctx, b.server, 4, "A")
	requireInvalidField(t, err, "collection")
	empty, err := b.store.ListScope(b.ctx, b.server, 99, "")
	require.NoError(t, err)
	require.Empty(t, empty)

	counts, err := b.store.CountByScope(b.ctx, b.server)
	require.NoError(t, err)
	require.Equal(t, lore.ScopeCounts{lore.Serverwide: 5, 4: 4}, counts)

	other := snowflake(t)
	_, err = b.store.UpsertServer(b.ctx, other, "Other")
	require.NoError(t, err)
	counts, err = b.store.CountByScope(b.ctx, other)
	require.NoError(t, err)
	require.Equal(t, lore.ScopeCounts{lore.Serverwide: 0}, counts, "the Serverwide key is always present")
}

// TestPerTurnReadUsesScopeIndex checks with EXPLAIN that the per-turn read
// reaches lorebook_entries only through lorebook_entries_scope_idx, on a
// database holding many servers so that the planner has a real choice.
func TestPerTurnReadUsesScopeIndex(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// 40 servers x (100 Serverwide + 100 persona) = 8,000 entries.
	_, err := b.pool.Exec(b.ctx, `
INSERT INTO servers (id) SELECT (100000000000000000 + g)::text FROM generate_series(1, 40) g;
INSERT INTO lorebooks (server_id, name) SELECT id, 'General' FROM servers;
INSERT INTO lorebook_entries (server_id, lineage_id, lorebook_name, content, enabled)
SELECT s.id, CASE WHEN g % 2 = 0 THEN NULL ELSE 1 + g % 3 END,
       CASE WHEN g % 2 = 0 THEN 'General' END, 'content ' || g, g % 10 <> 0
FROM servers s, generate_series(1, 200) g;
ANALYZE servers; ANALYZE lorebooks; ANALYZE lorebook_entries; ANALYZE legacy_channel_scope_tags;`)
	require.NoError(t, err)

	plan := explainLoad(t, b, "100000000000000007", int64(2))
	require.Contains(t, plan, "lorebook_entries_scope_idx")
	require.NotContains(t, plan, "Seq Scan on lorebook_entries", plan)
	require.Contains(t, plan, "Nested Loop Left Join", "one statement: server row joined to both branches")
	serverwideOnly := explainLoad(t, b, "100000000000000007", nil)
	require.Regexp(t, `Index (Only )?Scan using lorebook_entries_\w+_idx on lorebook_entries|Bitmap Index Scan on lorebook_entries_`, serverwideOnly)
	require.NotContains(t, serverwideOnly, "Seq Scan on lorebook_entries", serverwideOnly)

	// The query still answers correctly on that data.
	snap, err := b.store.LoadEnabledForScope(b.ctx, "100000000000000007", 2)
	require.NoError(t, err)
	// Serverwide: even g, minus g%10 == 0 = 80; lineage 2: odd g with g%3 == 1 = 34.
	require.Equal(t, 80+34, len(snap.Entries))
	t.Logf("per-turn plan:\n%s", plan)
}

// explainLoad returns the EXPLAIN output of the per-turn statement the
// store runs, with the given parameters.
func explainLoad(t testing.TB, b *testBundle, server string, lineage any) string {
	t.Helper()
	rows, err := b.pool.Query(b.ctx, "EXPLAIN "+postgres.LoadEnabledSQL, server, lineage)
	require.NoError(t, err)
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		lines = append(lines, line)
	}
	require.NoError(t, rows.Err())
	return strings.Join(lines, "\n")
}
