package transfer_test

import (
	"testing"

	"loregate/lore"
	"loregate/lore/transfer"
)

// FuzzParseMemories: any input either fails with ErrInvalid or yields
// memories that each have a snowflake server and an id.
func FuzzParseMemories(f *testing.F) {
	f.Add([]byte(`{"id": "m1", "server_id": "123456789012345678", "content": "x", "tags": ["a", "#b"]}`))
	f.Add([]byte(`{"id": 7, "server_id": "123456789012345678", "persona_lineage_id": 2, "content": "y"}` + "\n\n" + `{"id": "8", "server_id": "123456789012345678"}`))
	f.Add([]byte(`{"format": "loregate-workspace-backup", "version": 1, "server": {"discord_id": "123456789012345678"}, "server_memories": [{"id": 1, "content": "z"}]}`))
	f.Add([]byte(`{"format": "loregate-workspace-backup", "version": 1, "personas": [{"lineage_id": 3, "settings": {"scanDepth": 1, "maxBudgetShare": 40}, "memories": [{"id": 2, "content": "w", "tags": ["k"]}]}], "serverwide_lorebooks": [{"name": "World", "enabled": true, "settings": {"scanDepth": "7"}}]}`))
	f.Add([]byte(`{"format": "loregate-workspace-backup", "version": 1, "server": {"discord_id": "123456789012345678", "settings": {"budgetUnit": "tokens", "budgetLimit": 50, "semantic": {"ranker": "x"}}, "workbench": {"loreEditorRoleId": "r"}}, "server_memories": [{"id": 1, "content": "z", "tags": ["k"]}]}`))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := transfer.ParseMemories(data)
		if err != nil {
			if _, ok := lore.Explain(err); !ok {
				t.Fatalf("error outside the contract: %v", err)
			}
			return
		}
		for i, m := range ms {
			if !lore.ValidSnowflake(m.ServerID) || m.SourceID() == "" {
				t.Fatalf("memory %d accepted without a server or an id: %+v", i, m)
			}
		}
	})
}
