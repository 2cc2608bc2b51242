package discord

import (
	"context"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
)

// The workbench settings in the Settings view (docs/workbench.md#proposals,
// docs/workbench.md#lore-editor-role): whether members may suggest, the
// channel where the bot posts a notice when a suggestion arrives, and the
// lore editor role. Managers change them (updateWorkbenchSettings, which
// re-checks Manage Server); everyone else sees them.

// Routes: the suggestions switch, the notice channel select and the lore
// editor role select (each select's one value, none to clear).
const actWBToggle, actWBChannel, actWBRole = "lore-wbt", "lore-wbc", "lore-wbr"

// noticeChannelTypes are the channels a notice can be posted in.
var noticeChannelTypes = [...]discordgo.ChannelType{
	discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews,
	discordgo.ChannelTypeGuildPublicThread, discordgo.ChannelTypeGuildPrivateThread, discordgo.ChannelTypeGuildNewsThread,
}

// renderWorkbenchSettings draws the three workbench settings below the
// server settings.
func renderWorkbenchSettings(w *builder, p *panel) {
	t := p.t
	state, meaning, action, style := t.S("Off"), t.S("Off: members cannot suggest; suggestions already made stay for review."), t.S("Turn suggestions on"), discordgo.SuccessButton
	if p.wb.on {
		state, meaning, action, style = t.S("On"), t.S("On: members who cannot write lore suggest new entries, edits and deletions from the panel; lore writers review them under **Proposals**."), t.S("Turn suggestions off"), discordgo.SecondaryButton
	}
	w.text("**" + t.S("Suggestions") + "** · " + state + "\n" + meaning)
	w.row(discordgo.Button{Label: action, Style: style, Disabled: !p.canSettings, CustomID: route{action: actWBToggle}.encode()})

	notice := t.S("none")
	if p.wb.noticeChannel != "" {
		notice = "<#" + p.wb.noticeChannel + ">"
	}
	w.text("**" + t.S("Suggestion notices") + "** · " + notice + "\n" + t.S("When a member suggests something, the bot posts a notice in this channel (no one is pinged). Clear the choice for no notice."))
	w.add(oneSelect(discordgo.ChannelSelectMenu, route{action: actWBChannel}, t.S("Channel for suggestion notices"), p.wb.noticeChannel, discordgo.SelectMenuDefaultValueChannel, !p.canSettings, noticeChannelTypes[:]))

	role := t.S("none")
	if p.wb.editorRole != "" {
		role = "<@&" + p.wb.editorRole + ">"
	}
	w.text("**" + t.S("Lore editor role") + "** · " + role + "\n" + t.S("Members with this role write lore here and in the dashboard (entries, books, imports, reviews), but not settings or backups. Clear the choice for managers only."))
	w.add(oneSelect(discordgo.RoleSelectMenu, route{action: actWBRole}, t.S("Lore editor role"), p.wb.editorRole, discordgo.SelectMenuDefaultValueRole, !p.canSettings, nil))
}

// oneSelect is a channel or role select of at most one value, preset to
// current ("" none), which the member may clear.
func oneSelect(kind discordgo.SelectMenuType, r route, placeholder, current string, dv discordgo.SelectMenuDefaultValueType, disabled bool, types []discordgo.ChannelType) discordgo.ActionsRow {
	zero := 0
	sel := discordgo.SelectMenu{MenuType: kind, CustomID: r.encode(), Placeholder: placeholder, MinValues: &zero, MaxValues: 1, Disabled: disabled, ChannelTypes: types}
	if current != "" {
		sel.DefaultValues = []discordgo.SelectMenuDefaultValue{{ID: current, Type: dv}}
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{sel}}
}

// workbenchToggle turns suggestions on or off.
func (b *Bot) workbenchToggle(ctx context.Context, in *request) error {
	return b.workbenchWrite(ctx, in, func(p *panel) (map[string]any, string) {
		on := !p.wb.on
		state := in.t.S("Off")
		if on {
			state = in.t.S("On")
		}
		return map[string]any{"proposalsEnabled": on}, in.t.S("%s is now %s.", in.t.S("Suggestions"), state)
	})
}

// workbenchChannel sets the notice channel: one of this server's channels
// (an id from another server is refused), or none.
func (b *Bot) workbenchChannel(ctx context.Context, in *request) error {
	id := first(in.values)
	if id != "" {
		existing, err := b.guildChannels(ctx, in.guild)
		switch {
		case err != nil:
			return b.workbenchRefuse(ctx, in, in.t.S("The server's channels could not be read right now, so nothing was saved."))
		case !existing[id]:
			return b.workbenchRefuse(ctx, in, in.t.S("Not saved: %s is not a channel of this server.", channelOrID(id)))
		}
	}
	return b.workbenchWrite(ctx, in, func(*panel) (map[string]any, string) {
		if id == "" {
			return map[string]any{"proposalChannelId": ""}, in.t.S("Suggestion notices are off.")
		}
		return map[string]any{"proposalChannelId": id}, in.t.S("Suggestion notices now go to %s.", "<#"+id+">")
	})
}

// workbenchRole sets the lore editor role, or none.
func (b *Bot) workbenchRole(ctx context.Context, in *request) error {
	id := first(in.values)
	return b.workbenchWrite(ctx, in, func(*panel) (map[string]any, string) {
		if id == "" {
			return map[string]any{"loreEditorRoleId": ""}, in.t.S("No lore editor role: only managers write lore.")
		}
		return map[string]any{"loreEditorRoleId": id}, in.t.S("Members with %s now write lore.", "<@&"+id+">")
	})
}

// workbenchRefuse repaints the settings view with a refusal.
func (b *Bot) workbenchRefuse(ctx context.Context, in *request, receipt string) error {
	in.rt = route{action: in.rt.action}
	return b.write(ctx, in, loadOpts{view: viewSettings}, nil, func(*panel) (route, loadOpts, string, error) {
		return in.rt, loadOpts{view: viewSettings}, receipt, nil
	})
}

// workbenchWrite runs updateWorkbenchSettings with change's fields and
// repaints the settings view with its receipt; a lore editor, who may not
// change settings, is refused by the API (FORBIDDEN) with nothing changed.
func (b *Bot) workbenchWrite(ctx context.Context, in *request, change func(*panel) (fields map[string]any, receipt string)) error {
	o := loadOpts{view: viewSettings}
	in.rt = route{action: in.rt.action}
	return b.write(ctx, in, o, nil, func(p *panel) (route, loadOpts, string, error) {
		fields, done := change(p)
		fields["serverDiscordId"], fields["idempotencyKey"] = in.guild, in.i.ID
		e, err := b.mutate(ctx, in.p, client.OpUpdateWorkbenchSettings, fields, nil)
		switch {
		case forbidden(err):
			return in.rt, o, forbiddenText(in.t, err), nil
		case err != nil || e != nil:
			return in.rt, o, receiptOf(in.t, e), err
		}
		return in.rt, o, done, nil
	})
}
