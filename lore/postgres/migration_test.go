package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres/postgrestest"
	"loregate/migrations"
)

// TestLoreMigrationDownUp checks that 000001_lore.down.sql drops exactly
// what the up file creates (nothing of it is left, nothing else is
// touched) and that the up file applies again afterwards.
func TestLoreMigrationDownUp(t *testing.T) {
	t.Parallel()
	pool := postgrestest.NewPool(t)
	ctx := t.Context()
	all, err := migrations.All()
	require.NoError(t, err)
	require.Equal(t, 1, all[0].Version)
	m := all[0]

	// Later migrations (jobs tables) depend on the lore tables: undo them
	// first, as `loregate migrate down 1` would, newest first.
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = migrations.Down(ctx, conn.Conn(), 2)
	require.NoError(t, err)

	const objects = `SELECT
    (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace
        AND (relname IN ('servers', 'personas', 'lorebooks', 'lorebook_entries', 'legacy_channel_scope_tags')
             OR relname LIKE 'lorebook%' OR relname LIKE 'servers%' OR relname LIKE 'personas%'
             OR relname LIKE 'legacy_channel_scope_tags%'))
  + (SELECT count(*) FROM pg_type WHERE typname IN ('snowflake', '_snowflake'))
  + (SELECT count(*) FROM pg_proc WHERE proname = 'lore_set_updated_at')`
	const others = `SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace`
	var before, othersBefore int
	require.NoError(t, pool.QueryRow(ctx, objects).Scan(&before))
	require.NoError(t, pool.QueryRow(ctx, others).Scan(&othersBefore))
	require.Greater(t, before, 10, "the up migration created the lore objects")

	_, err = pool.Exec(ctx, m.Down)
	require.NoError(t, err)
	var after, othersAfter int
	require.NoError(t, pool.QueryRow(ctx, objects).Scan(&after))
	require.NoError(t, pool.QueryRow(ctx, others).Scan(&othersAfter))
	require.Zero(t, after, "down leaves nothing of the lore schema")

	_, err = pool.Exec(ctx, m.Up)
	require.NoError(t, err)
	var again, othersAgain int
	require.NoError(t, pool.QueryRow(ctx, objects).Scan(&again))
	require.NoError(t, pool.QueryRow(ctx, others).Scan(&othersAgain))
	require.Equal(t, before, again)
	require.Equal(t, othersBefore, othersAgain, "down and up touch only the lore schema")
	_, err = migrations.Up(ctx, conn.Conn())
	require.NoError(t, err, "the later migrations apply again on top")
}

// TestActivationSettingsMigrationsDownUp checks 000011-000014 (entry
// activation fields, book settings, server budget, regex keys default): down
// removes exactly their columns and table and keeps the lore (an explicit
// scan depth 0 becomes 1, the nearest value the old range holds), and up
// applies again with the defaults.
func TestActivationSettingsMigrationsDownUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.ctx
	e := entry(b.server, 5, "", "kept")
	e.ScanDepth, e.Group = ptr(0), "g"
	b.insert(t, e)
	_, err := b.store.UpdatePersonaBookSettings(ctx, b.server, 5, lore.BookSettingsPatch{Recursive: ptr(ptr(true))})
	require.NoError(t, err)

	const added = `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()
  AND ((table_name = 'lorebook_entries' AND column_name IN ('group_names', 'group_override', 'group_weight',
        'use_group_scoring', 'exclude_recursion', 'prevent_recursion', 'delay_until_recursion', 'sticky', 'cooldown', 'delay'))
    OR (table_name = 'lorebooks' AND column_name IN ('scan_depth', 'budget_limit', 'recursive', 'max_recursion_steps',
        'case_sensitive', 'whole_words'))
    OR (table_name = 'servers' AND column_name IN ('budget_unit', 'budget_limit', 'tokenizer'))
    OR table_name = 'persona_books')`
	require.Equal(t, 10+6+3+12, b.count(t, added)) // persona_books has 000062's max_budget_share and 000068's semantic_all_entries too

	conn, err := b.pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	done, err := migrations.Down(ctx, conn.Conn(), 11)
	require.NoError(t, err)
	versions := map[int]bool{}
	for _, m := range done {
		versions[m.Version] = true
	}
	require.True(t, versions[11] && versions[12] && versions[13] && versions[14], "undid %v", versions)
	require.Zero(t, b.count(t, added), "down removes exactly what 000011-000014 add")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM lorebook_entries WHERE server_id = $1 AND scan_depth = 1`, b.server),
		"the entry is kept; scan depth 0 becomes 1")
	var regexDefault string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT column_default FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = 'servers' AND column_name = 'regex_keys_enabled'`).Scan(&regexDefault))
	require.Equal(t, "true", regexDefault)

	_, err = migrations.Up(ctx, conn.Conn())
	require.NoError(t, err)
	require.Equal(t, 10+6+3+12, b.count(t, added)) // persona_books has 000062's max_budget_share and 000068's semantic_all_entries too
	got, err := b.store.GetEntry(ctx, b.server, 5, int64(b.count(t, `SELECT id FROM lorebook_entries WHERE server_id = $1`, b.server)))
	require.NoError(t, err)
	require.Equal(t, lore.DefaultGroupWeight, got.GroupWeight, "up gives existing entries the defaults")
	require.Empty(t, got.Group)
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT column_default FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = 'servers' AND column_name = 'regex_keys_enabled'`).Scan(&regexDefault))
	require.Equal(t, "false", regexDefault)
}
