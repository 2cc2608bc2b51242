package backup

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// notInBackup are the lore.Entry fields a backup entry does not carry:
// ids and times the importing store assigns, the scope (the backup's
// structure gives it) and a Serverwide entry's channels (its
// collection's). CategoryID comes back as the backup's id of the category,
// which the importer maps (lore/transfer's TestBackupCarriesBookOrganisation);
// ID travels as the source's id (Entry.ID), which orders the import and is
// never the imported entry's id (checked below).
var notInBackup = map[string]bool{"ID": true, "Server": true, "Lineage": true, "Collection": true,
	"CreatedAt": true, "UpdatedAt": true}

// TestEntryRoundTripEveryField sets every field of a persona entry to a
// value other than lore.NewEntry's and reads it back through the backup's
// JSON: each field a backup carries comes back, so a field added to
// lore.Entry and forgotten here fails this test.
func TestEntryRoundTripEveryField(t *testing.T) {
	depth, scan, yes := 7, 3, true
	e := lore.NewEntry()
	e.Lineage, e.Title, e.Content, e.Keys, e.SecondaryKeys = 4, "t", "c", []string{"k"}, []string{"s"}
	e.Logic, e.Constant, e.Enabled, e.ScanDepth, e.Probability = lore.NotAll, true, false, &scan, 40
	e.Order, e.Priority, e.Position, e.Depth, e.Role = 5, 9, lore.PositionOutlet, depth, lore.RoleAssistant
	e.Placement = lore.PositionOutlet.Placement()
	e.Outlet = "notes"
	e.Match = lore.MatchSources{Scenario: true}
	e.CharacterFilter = lore.CharacterFilter{Names: []string{"Alice"}, Exclude: true}
	e.GenerationTypes = []lore.GenerationType{lore.GenSwipe}
	e.CaseSensitive, e.WholeWords, e.IgnoreBudget = &yes, &yes, true
	e.ChannelIDs, e.LegacyChannelTags = []string{"500000000000000001"}, []string{"room"}
	e.Group, e.GroupOverride, e.GroupWeight, e.UseGroupScoring = "g", true, 30, &yes
	e.ExcludeRecursion, e.PreventRecursion, e.DelayUntilRecursion = true, true, 2
	e.Sticky, e.Cooldown, e.Delay, e.Vectorized, e.Note = 3, 4, 5, true, "ask the author"
	e.CategoryID, e.ID = 12, 99
	e.Extensions = map[string]json.RawMessage{"st/extra": json.RawMessage(`1`)}

	data, err := json.Marshal(fromEntry(e))
	require.NoError(t, err)
	var b Entry
	require.NoError(t, json.Unmarshal(data, &b))
	got := b.toEntry("111111111111111111", e.Lineage)
	require.Zero(t, got.ID, "a source id is never the imported entry's")

	fresh := lore.NewEntry()
	want, have, def := reflect.ValueOf(e), reflect.ValueOf(got), reflect.ValueOf(fresh)
	for i := range want.NumField() {
		name := want.Type().Field(i).Name
		if notInBackup[name] {
			continue
		}
		require.False(t, reflect.DeepEqual(want.Field(i).Interface(), def.Field(i).Interface()),
			"the test sets %s to a value other than NewEntry's", name)
		require.Equal(t, want.Field(i).Interface(), have.Field(i).Interface(), "%s survives a backup", name)
	}
}
