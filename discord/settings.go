package discord

import (
	"context"
	"loregate/graph/client"
	"loregate/graph/model"

	"github.com/bwmarrin/discordgo"
)

// Server settings the settings view switches. The route's entry field
// carries which one a toggle changes.
const (
	settingRegexKeys int64 = iota + 1
	settingChannelScoping
	settingMemoryTagging
)

// settingDefs lists the switches: the API field, the name and what each
// state means, in the order the view shows them.
var settingDefs = [...]struct {
	which   int64
	field   string
	name    string
	on, off string
	turnOn  string
	turnOff string
	get     func(model.ServerSettings) bool
}{
	{settingRegexKeys, "regexKeys", "Regex keys",
		"On: keys written as /pattern/flags act as regular expressions (RE2: no backreferences or lookaround, and no catastrophic backtracking). Regex keys in imported cards start matching; a pattern that does not compile stays inert and is reported.",
		"Off (the default for new servers): every key is literal text, so a key such as /a+/ matches only those characters. Turning it on makes keys written as /pattern/flags act as regular expressions, including the ones in imported cards.",
		"Turn regex keys on", "Turn regex keys off", func(s model.ServerSettings) bool { return s.RegexKeys }},
	{settingChannelScoping, "channelScoping", "Channel scoping",
		"On: Serverwide books and persona entries appear only in their channels (threads follow their parent).",
		"Off: channel restrictions are ignored; scope, keywords and enabled states still apply.",
		"Turn channel scoping on", "Turn channel scoping off", func(s model.ServerSettings) bool { return s.ChannelScoping }},
	{settingMemoryTagging, "memoryTagging", "Memory tagging",
		"On: older backups' keyword memories convert to keyword entries.",
		"Off: older backups' keyword memories convert to Always On entries.",
		"Turn memory tagging on", "Turn memory tagging off", func(s model.ServerSettings) bool { return s.MemoryTagging }},
}

// renderSettings draws the settings view: each switch with its state, what
// that state means, and (for managers) the button that flips it.
func renderSettings(w *builder, p *panel) {
	t := p.t
	w.text("## " + t.S("Settings"))
	if !p.canSettings {
		w.text("-# " + t.S("Only members with the Manage Server permission can change settings."))
	}
	for _, d := range settingDefs {
		on := d.get(p.settings)
		state, meaning, action := t.S("Off"), t.S(d.off), t.S(d.turnOn)
		style := discordgo.SuccessButton
		if on {
			state, meaning, action = t.S("On"), t.S(d.on), t.S(d.turnOff)
			style = discordgo.SecondaryButton
		}
		w.text("**" + t.S(d.name) + "** · " + state + "\n" + meaning)
		w.row(discordgo.Button{Label: action, Style: style, Disabled: !p.canSettings,
			CustomID: route{action: actSetToggle, entry: d.which}.encode()})
	}
	w.text("**" + t.S("Lore budget") + "** · " + budgetText(t, p.settings.BudgetLimit, p.settings.BudgetUnit, p.settings.Tokenizer) + "\n" +
		t.S("How much lore one turn may add, over every placement; a book can set its own in **Book Settings** (the highest book budget of a turn wins)."))
	w.row(discordgo.Button{Label: t.S("Change budget"), Style: discordgo.SecondaryButton, Disabled: !p.canSettings, CustomID: route{action: actBudget}.encode()})
	renderWorkbenchSettings(w, p)
}

// settingToggle flips one server setting (managers only; the API checks
// again) and repaints the settings view with a receipt.
func (b *Bot) settingToggle(ctx context.Context, in *request) error {
	o := loadOpts{view: viewSettings}
	// The route's entry field names the setting, not an entry.
	which := in.rt.entry
	in.rt = route{action: in.rt.action}
	return b.write(ctx, in, o, nil, func(p *panel) (route, loadOpts, string, error) {
		for _, d := range settingDefs {
			if d.which != which {
				continue
			}
			on := !d.get(p.settings)
			e, err := b.mutate(ctx, in.p, client.OpUpdateServerSettings, map[string]any{"serverDiscordId": in.guild, d.field: on}, nil)
			if err != nil || e != nil {
				return in.rt, o, receiptOf(in.t, e), err
			}
			state := in.t.S("Off")
			if on {
				state = in.t.S("On")
			}
			return in.rt, o, in.t.S("%s is now %s.", in.t.S(d.name), state), nil
		}
		return in.rt, o, in.t.S(msgOutdated), nil
	})
}
