package transfer

import (
	"context"

	"loregate/lore"
	"loregate/lore/backup"
)

// applyServerSettings stores the server's settings and workbench settings
// a backup carries (docs/contract.md#backups), first in the import, so
// that the books' settings that follow are checked in the restored budget
// unit. It runs inside the import's transaction, under the server lock
// Atomic took, through the settings writes of the API (validated; a
// settings write bumps lore_version); settings already as the backup has
// them are not written. What it changed goes into snap for the undo, and
// sp.Changed says so in the report. Onto another server the plan leaves
// the workbench ids out, and it keeps a ranker that never sends lore out
// against the backup's that would (SettingsPlan.Skipped).
func applyServerSettings(ctx context.Context, st lore.HistoryStore, server string, sp *backup.SettingsPlan, snap *lore.HistorySnapshot) error {
	if sp.Server != nil {
		cur, err := st.GetServer(ctx, server)
		if err != nil {
			return err
		}
		if !cur.Settings.Equal(*sp.Server) {
			after, err := st.UpdateServerSettings(ctx, server, *sp.Server)
			if err != nil {
				return lore.WithFieldPrefix("server.settings", err)
			}
			snap.ServerSettings = &lore.ServerSettingsSnapshot{Before: cur.Settings, After: after.Settings}
			sp.Changed = true
		}
	}
	if sp.WorkbenchPatch != nil {
		cur, err := st.GetWorkbenchSettings(ctx, server)
		if err != nil {
			return err
		}
		if !cur.Same(sp.WorkbenchPatch.Apply(cur)) {
			after, err := st.UpdateWorkbenchSettings(ctx, server, *sp.WorkbenchPatch)
			if err != nil {
				return lore.WithFieldPrefix("server.workbench", err)
			}
			snap.Workbench = &lore.WorkbenchSnapshot{Before: cur, After: after}
			sp.Changed = true
		}
	}
	return nil
}
