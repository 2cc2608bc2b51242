package dashboard

import (
	"context"
	"slices"

	"loregate/graph/auth"
	"loregate/graph/client"
)

// maxRoleReads bounds the Discord member reads of one sign-in (one per
// server that names a lore editor role and that the member does not
// manage); servers past it grant no lore editor role until a later
// sign-in.
const maxRoleReads = 10

// loreEditorGrants adds to memberships the lore editor role of every
// server (at most maxRoleReads) that names one, that the member does not
// manage and whose role the member holds, read from Discord with the
// sign-in's access token (guilds.members.read). token is the member's
// token without grants, used to ask the API which servers name a role.
// It reports whether a grant was added; a failed read grants nothing and
// is logged (the sign-in goes on).
// docs/workbench.md#lore-editor-role: the API re-checks the role on every
// write, so a grant outlives neither a changed role nor the session.
func (d *Dashboard) loreEditorGrants(ctx context.Context, u *discordUser, token string, memberships map[string]auth.Membership) bool {
	if u.roles == nil {
		return false
	}
	p, err := d.api.Principal(token)
	if err != nil {
		return false
	}
	wanted := map[string]string{}
	var after *string
	for range (len(memberships) + viewerPage - 1) / viewerPage {
		var out struct {
			Viewer struct {
				Servers struct {
					Edges []struct {
						Node struct {
							DiscordID         string `json:"discordId"`
							CanManage         bool   `json:"canManage"`
							WorkbenchSettings struct {
								LoreEditorRoleID *string `json:"loreEditorRoleId"`
							} `json:"workbenchSettings"`
						} `json:"node"`
					} `json:"edges"`
					PageInfo struct {
						HasNextPage bool    `json:"hasNextPage"`
						EndCursor   *string `json:"endCursor"`
					} `json:"pageInfo"`
				} `json:"servers"`
			} `json:"viewer"`
		}
		if err := d.api.Do(ctx, p, client.OpViewerLoreEditorRoles, map[string]any{"first": viewerPage, "after": after}, &out); err != nil {
			d.log.WarnContext(ctx, "dashboard sign-in: lore editor roles not read", "err", err)
			return false
		}
		for _, e := range out.Viewer.Servers.Edges {
			if r := e.Node.WorkbenchSettings.LoreEditorRoleID; r != nil && !e.Node.CanManage && len(wanted) < maxRoleReads {
				wanted[e.Node.DiscordID] = *r
			}
		}
		pi := out.Viewer.Servers.PageInfo
		if !pi.HasNextPage || pi.EndCursor == nil {
			break
		}
		after = pi.EndCursor
	}
	granted := false
	for guild, role := range wanted {
		roles, err := u.roles(ctx, guild)
		if err != nil {
			d.log.WarnContext(ctx, "dashboard sign-in: member roles not read", "guild", guild, "err", err)
			continue
		}
		if slices.Contains(roles, role) {
			m := memberships[guild]
			m.Roles = []string{role}
			memberships[guild] = m
			granted = true
		}
	}
	return granted
}
