package postgres_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/migrations"
)

// TestPositionFieldsStored: position, depth, role, outlet, match flags,
// character filter and generation types are stored, read by every read
// (the per-turn read included) and edited field by field; a placement
// alone sets BEFORE_CHAR/AFTER_CHAR only when it changes the placement;
// a position and a placement that disagree are refused on "position".
func TestPositionFieldsStored(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := entry(b.server, 3, "", "deep")
	e.Position, e.Placement, e.Depth, e.Role = lore.PositionAtDepth, lore.Before, 0, lore.RoleUser
	e.Outlet = "kept"
	e.Match = lore.MatchSources{Scenario: true, PersonaDescription: true}
	e.CharacterFilter = lore.CharacterFilter{Names: []string{"Alice"}, Tags: []string{"fantasy"}, Exclude: true}
	e.GenerationTypes = []lore.GenerationType{lore.GenContinue, lore.GenSwipe}
	got := b.insert(t, e)[0]
	read, err := b.store.GetEntry(b.ctx, b.server, 3, got.ID)
	require.NoError(t, err)
	for _, r := range []lore.Entry{got, read} {
		require.Equal(t, lore.PositionAtDepth, r.Position)
		require.Equal(t, 0, r.Depth)
		require.Equal(t, lore.RoleUser, r.Role)
		require.Equal(t, "kept", r.Outlet)
		require.Equal(t, e.Match, r.Match)
		require.Equal(t, e.CharacterFilter, r.CharacterFilter)
		require.Equal(t, e.GenerationTypes, r.GenerationTypes)
	}
	snap, err := b.store.LoadEnabledForScope(b.ctx, b.server, 3)
	require.NoError(t, err)
	require.Len(t, snap.Entries, 1)
	require.Equal(t, lore.PositionAtDepth, snap.Entries[0].Position)
	require.Equal(t, e.CharacterFilter, snap.Entries[0].CharacterFilter)

	tests := []struct {
		name  string
		patch lore.EntryPatch
		check func(t *testing.T, r lore.Entry)
		field string
	}{
		{"unchanged placement keeps the position", lore.EntryPatch{Placement: ptr(lore.Before), Title: ptr("t2")}, func(t *testing.T, r lore.Entry) {
			require.Equal(t, lore.PositionAtDepth, r.Position)
			require.Equal(t, "t2", r.Title)
		}, ""},
		{"one match flag", lore.EntryPatch{Match: lore.MatchPatch{Scenario: ptr(false), CreatorNotes: ptr(true)}}, func(t *testing.T, r lore.Entry) {
			require.Equal(t, lore.MatchSources{CreatorNotes: true, PersonaDescription: true}, r.Match)
		}, ""},
		{"filter names only", lore.EntryPatch{CharacterFilter: lore.CharacterFilterPatch{Names: &[]string{}}}, func(t *testing.T, r lore.Entry) {
			require.Equal(t, lore.CharacterFilter{Tags: []string{"fantasy"}, Exclude: true}, r.CharacterFilter)
		}, ""},
		{"position and depth", lore.EntryPatch{Position: ptr(lore.PositionAtDepth), Depth: ptr(7)}, func(t *testing.T, r lore.Entry) {
			require.Equal(t, 7, r.Depth)
		}, ""},
		{"disagreeing placement", lore.EntryPatch{Position: ptr(lore.PositionANTop), Placement: ptr(lore.After)}, nil, "position"},
		{"depth out of range", lore.EntryPatch{Depth: ptr(10001)}, nil, "position.depth"},
		{"bad generation type", lore.EntryPatch{GenerationTypes: &[]lore.GenerationType{"dream"}}, nil, "generationTypes[0]"},
		{"changed placement sets AFTER_CHAR", lore.EntryPatch{Placement: ptr(lore.After)}, func(t *testing.T, r lore.Entry) {
			require.Equal(t, lore.PositionAfterChar, r.Position)
			require.Equal(t, lore.After, r.Placement)
			require.Equal(t, 7, r.Depth, "the depth is kept for a later AT_DEPTH")
		}, ""},
		{"position alone derives the placement", lore.EntryPatch{Position: ptr(lore.PositionEMBottom)}, func(t *testing.T, r lore.Entry) {
			require.Equal(t, lore.Before, r.Placement)
		}, ""},
		{"clear generation types", lore.EntryPatch{GenerationTypes: &[]lore.GenerationType{}}, func(t *testing.T, r lore.Entry) {
			require.Empty(t, r.GenerationTypes)
		}, ""},
	}
	for _, tt := range tests {
		r, err := b.store.UpdateEntry(b.ctx, b.server, 3, got.ID, tt.patch)
		if tt.field != "" {
			requireInvalidField(t, err, tt.field)
			continue
		}
		require.NoError(t, err, tt.name)
		tt.check(t, r)
	}
}

// TestPositionMigrationLifts: migration 000060 fills the new columns from
// the extensions where imports kept them (world info "st/<field>", card
// "card/extensions/<field>"), drops the world info copies, and its down
// puts the values back so up finds them again.
func TestPositionMigrationLifts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.ctx
	conn, err := b.pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = migrations.Down(ctx, conn.Conn(), 60)
	require.NoError(t, err)
	ins := func(placement string, ext map[string]any) int64 {
		raw, err := json.Marshal(ext)
		require.NoError(t, err)
		var id int64
		require.NoError(t, b.pool.QueryRow(ctx, `INSERT INTO lorebook_entries (server_id, lineage_id, content, placement, extensions, insertion_order)
VALUES ($1, 9, 'c', $2, $3, 42) RETURNING id`, b.server, placement, raw).Scan(&id))
		return id
	}
	wi := ins("before", map[string]any{"st/position": 4, "st/depth": 2, "st/outletName": "", "st/matchScenario": true,
		"st/triggers": []string{"continue"}, "st/characterFilter": map[string]any{"isExclude": false, "names": []string{"Alice"}, "tags": []string{}},
		"st/uid": 7})
	card := ins("before", map[string]any{"card/extensions/position": 7, "card/extensions/outlet_name": "mood",
		"card/extensions/depth": 3, "card/extensions/triggers": []string{"quiet", "bogus"}})
	native := ins("after", map[string]any{})
	_, err = migrations.Up(ctx, conn.Conn())
	require.NoError(t, err)

	e, err := b.store.GetEntry(ctx, b.server, 9, wi)
	require.NoError(t, err)
	require.Equal(t, lore.PositionAtDepth, e.Position)
	require.Equal(t, lore.Before, e.Placement)
	require.Equal(t, 2, e.Depth)
	require.True(t, e.Match.Scenario)
	require.Equal(t, []lore.GenerationType{lore.GenContinue}, e.GenerationTypes)
	require.Equal(t, lore.CharacterFilter{Names: []string{"Alice"}}, e.CharacterFilter)
	require.Equal(t, map[string]json.RawMessage{"st/uid": json.RawMessage("7"), lore.KeyPriorityFromOrder: json.RawMessage("true")},
		e.Extensions, "the lifted copies are gone")
	require.Equal(t, 42, e.Priority, "000061: a world info entry's priority follows its order")

	c, err := b.store.GetEntry(ctx, b.server, 9, card)
	require.NoError(t, err)
	require.Equal(t, lore.PositionOutlet, c.Position)
	require.Equal(t, "mood", c.Outlet)
	require.Equal(t, 3, c.Depth)
	require.Empty(t, c.GenerationTypes, "an unknown trigger leaves the list in extensions")
	require.Contains(t, c.Extensions, "card/extensions/outlet_name", "a card's extensions object is kept whole")

	n, err := b.store.GetEntry(ctx, b.server, 9, native)
	require.NoError(t, err)
	require.Equal(t, lore.PositionAfterChar, n.Position)
	require.Equal(t, lore.DefaultDepth, n.Depth)
	require.Equal(t, lore.DefaultPriority, n.Priority, "a native entry keeps the default priority")
	require.Equal(t, lore.DefaultPriority, c.Priority, "a card entry without _fields is not known to lack a priority")

	// Down puts the values back into extensions; up lifts them again.
	_, err = migrations.Down(ctx, conn.Conn(), 60)
	require.NoError(t, err)
	_, err = migrations.Up(ctx, conn.Conn())
	require.NoError(t, err)
	again, err := b.store.GetEntry(ctx, b.server, 9, wi)
	require.NoError(t, err)
	require.Equal(t, e.Position, again.Position)
	require.Equal(t, e.Depth, again.Depth)
	require.Equal(t, e.Match, again.Match)
	require.Equal(t, e.CharacterFilter, again.CharacterFilter)
	require.Equal(t, e.GenerationTypes, again.GenerationTypes)
}

// TestNormalizePositionLiftsSnapshots: an entry written before positions
// (a snapshot or backup: Position "") takes what its extensions kept, and
// a copy of its extensions map is changed, not the caller's.
func TestNormalizePositionLiftsSnapshots(t *testing.T) {
	t.Parallel()
	ext := map[string]json.RawMessage{"st/position": json.RawMessage("2"), "st/depth": json.RawMessage("9")}
	e := lore.Entry{Placement: lore.Before, Extensions: ext}
	e.NormalizePosition()
	require.Equal(t, lore.PositionANTop, e.Position)
	require.Equal(t, 9, e.Depth)
	require.Empty(t, e.Extensions)
	require.Len(t, ext, 2, "the caller's map is untouched")

	plain := lore.Entry{Placement: lore.After}
	plain.NormalizePosition()
	require.Equal(t, lore.PositionAfterChar, plain.Position)
	require.Equal(t, lore.DefaultDepth, plain.Depth)
}

// TestPriorityFollowsOrderEdit: an edit of the order of an entry whose
// priority follows its order (an imported world info entry) moves the
// priority too; an explicit priority, or one that no longer follows, stays.
func TestPriorityFollowsOrderEdit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := entry(b.server, 2, "", "st")
	e.Order, e.Extensions = 30, map[string]json.RawMessage{}
	e.SetPriorityFromOrder()
	got := b.insert(t, e)[0]
	moved, err := b.store.UpdateEntry(b.ctx, b.server, 2, got.ID, lore.EntryPatch{Order: ptr(70)})
	require.NoError(t, err)
	require.Equal(t, 70, moved.Priority)
	set, err := b.store.UpdateEntry(b.ctx, b.server, 2, got.ID, lore.EntryPatch{Order: ptr(80), Priority: ptr(5)})
	require.NoError(t, err)
	require.Equal(t, 5, set.Priority, "an explicit priority wins")
	kept, err := b.store.UpdateEntry(b.ctx, b.server, 2, got.ID, lore.EntryPatch{Order: ptr(90)})
	require.NoError(t, err)
	require.Equal(t, 5, kept.Priority, "a priority that no longer follows the order stays")
}
