package discord

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Discord limits the renderer stays within (discord.md §1).
const (
	maxContentLen = 2000 // message content, characters
	maxLabelLen   = 100  // select option label, value and description
	maxButtonLen  = 80   // button label
	separator     = "──────────────"
)

// Select option values besides ids.
const (
	valueAdd    = "add"
	valueImport = "import"
)

// render draws the Lorebooks tab for p: message content and at most five
// action rows. Serverwide: heading, collection picker (23 books + Add +
// Import Lorebook), the selected book's controls (Active/Disabled,
// Channels, Rename, Delete), its channel scope and a separator, then the
// entry picker (23 entries + Add + Import Entries) and Export Lorebook.
// Persona: persona picker, heading, entry picker (23 + Add + Import
// Lorebook) and Export. Legacy messages put all text above the rows, so the
// heading sits in the content in both scopes.
func render(p *panel) (string, []discordgo.MessageComponent) {
	var text strings.Builder
	rows := []discordgo.MessageComponent{scopeRow(p)}
	switch {
	case p.view == viewEntry || p.view == viewConfirmEntry:
		writeEntry(&text, p)
		rows = append(rows, entryActionRow(p))
	case p.persona:
		writePersona(&text, p)
		if len(p.groups) > 0 {
			rows = append(rows, personaPicker(p))
			rows = append(rows, entryPicker(p, "+ Import Lorebook"))
			rows = append(rows, entryNavRow(p))
		}
	default:
		writeServerwide(&text, p)
		rows = append(rows, bookPicker(p))
		if p.book != nil {
			switch p.view {
			case viewChannels:
				rows = append(rows, channelSelect(p), channelViewRow(p))
			case viewConfirmBook:
				rows = append(rows, confirmBookRow(p))
			default:
				rows = append(rows, bookControls(p), entryPicker(p, "+ Import Entries"), entryNavRow(p))
			}
		}
	}
	content := text.String()
	if len(p.receipt) > 0 {
		var r strings.Builder
		for _, line := range p.receipt {
			r.WriteString("> " + strings.ReplaceAll(line, "\n", "\n> ") + "\n")
		}
		content = clip(r.String(), maxContentLen/2) + "\n" + content
	}
	return clip(content, maxContentLen), rows
}

func writeServerwide(w *strings.Builder, p *panel) {
	w.WriteString("## Lorebooks · Serverwide\n")
	if p.book == nil {
		w.WriteString("No lorebooks yet. Choose **+ Add Lorebook** or **+ Import Lorebook** in the list below.\n")
		return
	}
	state := "Active"
	if !p.book.Enabled {
		state = "Disabled"
	}
	fmt.Fprintf(w, "**%s** · %s · %s\n", escape(p.book.Name), state, plural(len(p.entries), "entry", "entries"))
	fmt.Fprintf(w, "Channels: %s\n", channelList(p.book.ChannelIDs))
	w.WriteString(separator + "\n")
	switch p.view {
	case viewChannels:
		w.WriteString("Pick the channels this book may appear in. Threads follow their parent channel; **All channels** removes the restriction.\n")
	case viewConfirmBook:
		fmt.Fprintf(w, "Delete **%s** and its %s? This cannot be undone.\n", escape(p.book.Name), plural(len(p.entries), "entry", "entries"))
	default:
		writeEntryRange(w, p)
	}
}

func writePersona(w *strings.Builder, p *panel) {
	w.WriteString("## Lorebooks · Persona\n")
	if len(p.groups) == 0 {
		w.WriteString("No personas on this server yet.\n")
		return
	}
	for _, g := range p.groups {
		if g.lineage == p.lineage {
			fmt.Fprintf(w, "**%s** · %s\n", escape(g.label()), plural(len(p.entries), "entry", "entries"))
		}
	}
	writeEntryRange(w, p)
}

func writeEntryRange(w *strings.Builder, p *panel) {
	if len(p.entries) == 0 {
		w.WriteString("No entries yet. Choose **+ Add Entry** or import a file.\n")
		return
	}
	start := p.entryPage * entryPageSize
	end := min(start+entryPageSize, len(p.entries))
	fmt.Fprintf(w, "Entries %d–%d of %d\n", start+1, end, len(p.entries))
}

func writeEntry(w *strings.Builder, p *panel) {
	e := p.entry
	scope := "Persona"
	if !p.persona && p.book != nil {
		scope = "Serverwide › " + escape(p.book.Name)
	}
	fmt.Fprintf(w, "## Lorebooks · %s\n**%s**\n", scope, escape(orUntitled(e.Title)))
	state := "Enabled"
	if !e.Enabled {
		state = "Disabled"
	}
	if e.Constant || len(e.Keys) == 0 {
		fmt.Fprintf(w, "%s · Always On\n", state)
	} else {
		fmt.Fprintf(w, "%s · Keywords: %s\n", state, escape(clip(strings.Join(e.Keys, ", "), 300)))
	}
	if len(e.SecondaryKeys) > 0 {
		fmt.Fprintf(w, "Secondary (%s): %s\n", logicLabel(e.SelectiveLogic), escape(clip(strings.Join(e.SecondaryKeys, ", "), 200)))
	}
	depth := "default"
	if e.ScanDepth != nil {
		depth = strconv.Itoa(*e.ScanDepth)
	}
	placement := "after persona"
	if e.Placement == "BEFORE" {
		placement = "before persona"
	}
	fmt.Fprintf(w, "Scan depth %s · Chance %d%% · Order %d · %s\n", depth, e.Probability, e.InsertionOrder, placement)
	if p.persona {
		fmt.Fprintf(w, "Channels: %s\n", channelList(e.ChannelIDs))
	}
	// Pending names widen persona entries only; a Serverwide entry follows
	// its collection's channels whatever names it carries.
	if p.persona && len(e.LegacyChannelTags) > 0 {
		fmt.Fprintf(w, "⚠ Unresolved channel names (%s): active in every channel until channels are saved.\n", escape(clip(strings.Join(e.LegacyChannelTags, ", "), 200)))
	}
	w.WriteString(separator + "\n")
	if p.view == viewConfirmEntry {
		w.WriteString("Delete this entry? This cannot be undone.\n")
		return
	}
	w.WriteString(clip(e.Content, 1000) + "\n")
}

func scopeRow(p *panel) discordgo.ActionsRow {
	base := route{}
	sw := discordgo.Button{Label: "Serverwide", Style: discordgo.SecondaryButton, CustomID: base.with(actServerwide).encode()}
	pe := discordgo.Button{Label: "Persona", Style: discordgo.SecondaryButton, CustomID: base.with(actPersona).encode()}
	if p.persona {
		pe.Style = discordgo.PrimaryButton
	} else {
		sw.Style = discordgo.PrimaryButton
	}
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{sw, pe}}
	if p.view != viewMain {
		return row
	}
	// Page buttons of the first picker when there is more than one page.
	n, size, act, what := len(p.books), bookPageSize, actBookPage, "Books"
	if p.persona {
		n, size, act, what = len(p.groups), personaPageSize, actPersonaPage, "Personas"
	}
	if n > size {
		row.Components = append(row.Components, pageButtons(p, act, what, p.page, n, size)...)
	}
	return row
}

// pageButtons returns previous/next buttons for the picker whose page field
// act changes.
func pageButtons(p *panel, act, what string, page, n, size int) []discordgo.MessageComponent {
	last := (n - 1) / size
	prev, next := p.route(act), p.route(act)
	// Disabled buttons still need distinct custom ids: prev never goes
	// below page 0 and next past the last page stays disabled.
	if act == actEntryPage {
		prev.entryPage, next.entryPage = max(0, page-1), page+1
	} else {
		prev.page, next.page = max(0, page-1), page+1
		// A new picker page selects that page's first book or persona.
		prev.collection, next.collection, prev.entryPage, next.entryPage = 0, 0, 0, 0
		if act == actPersonaPage {
			prev.lineage, next.lineage = 0, 0
		}
	}
	prev.entry, next.entry = 0, 0
	label := fmt.Sprintf("%s %d/%d", what, page+1, last+1)
	return []discordgo.MessageComponent{
		discordgo.Button{Label: "◀ " + label, Style: discordgo.SecondaryButton, CustomID: prev.encode(), Disabled: page == 0},
		discordgo.Button{Label: label + " ▶", Style: discordgo.SecondaryButton, CustomID: next.encode(), Disabled: page >= last},
	}
}

func bookPicker(p *panel) discordgo.ActionsRow {
	start := p.page * bookPageSize
	end := min(start+bookPageSize, len(p.books))
	opts := make([]discordgo.SelectMenuOption, 0, end-start+2)
	for _, c := range p.books[start:end] {
		state := "Active"
		if !c.Enabled {
			state = "Disabled"
		}
		opts = append(opts, discordgo.SelectMenuOption{
			Label:       clip(c.Name, maxLabelLen),
			Value:       c.ID,
			Description: clip(fmt.Sprintf("%s · %s", state, plural(c.EntryCount, "entry", "entries")), maxLabelLen),
			Default:     p.book != nil && p.book.ID == c.ID,
		})
	}
	opts = append(opts,
		discordgo.SelectMenuOption{Label: "+ Add Lorebook", Value: valueAdd},
		discordgo.SelectMenuOption{Label: "+ Import Lorebook", Value: valueImport})
	return selectRow(p.route(actBookPick), "Choose a lorebook", opts)
}

func personaPicker(p *panel) discordgo.ActionsRow {
	start := p.page * personaPageSize
	end := min(start+personaPageSize, len(p.groups))
	opts := make([]discordgo.SelectMenuOption, 0, end-start)
	for _, g := range p.groups[start:end] {
		opts = append(opts, discordgo.SelectMenuOption{
			Label:       clip(g.label(), maxLabelLen),
			Value:       strconv.FormatInt(g.lineage, 10),
			Description: clip(fmt.Sprintf("Lineage %d · %s", g.lineage, plural(g.entries, "entry", "entries")), maxLabelLen),
			Default:     g.lineage == p.lineage,
		})
	}
	return selectRow(p.route(actPersonaPick), "Choose a persona", opts)
}

func entryPicker(p *panel, importLabel string) discordgo.ActionsRow {
	start := p.entryPage * entryPageSize
	end := min(start+entryPageSize, len(p.entries))
	opts := make([]discordgo.SelectMenuOption, 0, end-start+2)
	for _, e := range p.entries[start:end] {
		desc := "Always On"
		if !e.Constant && len(e.Keys) > 0 {
			desc = "Keywords: " + strings.Join(e.Keys, ", ")
		}
		if !e.Enabled {
			desc = "Disabled · " + desc
		}
		opts = append(opts, discordgo.SelectMenuOption{Label: clip(orUntitled(e.Title), maxLabelLen), Value: e.ID, Description: clip(desc, maxLabelLen)})
	}
	opts = append(opts,
		discordgo.SelectMenuOption{Label: "+ Add Entry", Value: valueAdd},
		discordgo.SelectMenuOption{Label: importLabel, Value: valueImport})
	return selectRow(p.route(actEntryPick), "Choose an entry to view or edit", opts)
}

func entryNavRow(p *panel) discordgo.ActionsRow {
	row := discordgo.ActionsRow{}
	if len(p.entries) > entryPageSize {
		row.Components = append(row.Components, pageButtons(p, actEntryPage, "Entries", p.entryPage, len(p.entries), entryPageSize)...)
	}
	row.Components = append(row.Components, discordgo.Button{Label: "Export Lorebook", Style: discordgo.SecondaryButton, CustomID: p.route(actExport).encode()})
	return row
}

func bookControls(p *panel) discordgo.ActionsRow {
	toggle := discordgo.Button{Label: "Active", Style: discordgo.SuccessButton, CustomID: p.route(actBookToggle).encode()}
	if !p.book.Enabled {
		toggle.Label, toggle.Style = "Disabled", discordgo.SecondaryButton
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		toggle,
		discordgo.Button{Label: "Channels", Style: discordgo.SecondaryButton, CustomID: p.route(actBookChans).encode()},
		discordgo.Button{Label: "Rename", Style: discordgo.SecondaryButton, CustomID: p.route(actBookRename).encode()},
		discordgo.Button{Label: "Delete", Style: discordgo.DangerButton, CustomID: p.route(actBookDelete).encode()},
	}}
}

func confirmBookRow(p *panel) discordgo.ActionsRow {
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: clip("Delete "+p.book.Name, maxButtonLen), Style: discordgo.DangerButton, CustomID: p.route(actBookDelOK).encode()},
		discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: p.route(actBack).encode()},
	}}
}

// channelTypes are the channels lore can be scoped to; threads follow
// their parent, so they are offered too.
var channelTypes = [...]discordgo.ChannelType{
	discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews, discordgo.ChannelTypeGuildForum,
	discordgo.ChannelTypeGuildPublicThread, discordgo.ChannelTypeGuildPrivateThread, discordgo.ChannelTypeGuildNewsThread,
}

// maxSelectValues is Discord's max_values ceiling for any select.
const maxSelectValues = 25

func channelSelect(p *panel) discordgo.ActionsRow {
	zero := 0
	sel := discordgo.SelectMenu{
		MenuType:     discordgo.ChannelSelectMenu,
		CustomID:     p.route(actBookChanSet).encode(),
		Placeholder:  "Channels this book may appear in",
		MinValues:    &zero,
		MaxValues:    maxSelectValues,
		ChannelTypes: channelTypes[:],
	}
	for _, id := range p.channels[:min(len(p.channels), maxSelectValues)] {
		sel.DefaultValues = append(sel.DefaultValues, discordgo.SelectMenuDefaultValue{ID: id, Type: discordgo.SelectMenuDefaultValueChannel})
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{sel}}
}

func channelViewRow(p *panel) discordgo.ActionsRow {
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "All channels", Style: discordgo.SecondaryButton, CustomID: p.route(actBookChanAll).encode()},
		discordgo.Button{Label: "Back", Style: discordgo.SecondaryButton, CustomID: p.route(actBack).encode()},
	}}
}

func entryActionRow(p *panel) discordgo.ActionsRow {
	if p.view == viewConfirmEntry {
		return discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Delete entry", Style: discordgo.DangerButton, CustomID: p.route(actEntryDelOK).encode()},
			discordgo.Button{Label: "Cancel", Style: discordgo.SecondaryButton, CustomID: p.route(actEntryPick).encode()},
		}}
	}
	toggle := discordgo.Button{Label: "Enabled", Style: discordgo.SuccessButton, CustomID: p.route(actEntryToggle).encode()}
	if !p.entry.Enabled {
		toggle.Label, toggle.Style = "Disabled", discordgo.SecondaryButton
	}
	back := p.route(actBack)
	back.entry = 0
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Edit", Style: discordgo.PrimaryButton, CustomID: p.route(actEntryEdit).encode()},
		discordgo.Button{Label: "Activation Rules", Style: discordgo.SecondaryButton, CustomID: p.route(actEntryRules).encode()},
		toggle,
		discordgo.Button{Label: "Delete", Style: discordgo.DangerButton, CustomID: p.route(actEntryDelete).encode()},
		discordgo.Button{Label: "Back", Style: discordgo.SecondaryButton, CustomID: back.encode()},
	}}
}

func selectRow(r route, placeholder string, opts []discordgo.SelectMenuOption) discordgo.ActionsRow {
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		MenuType:    discordgo.StringSelectMenu,
		CustomID:    r.encode(),
		Placeholder: placeholder,
		Options:     opts,
	}}}
}

func channelList(ids []string) string {
	if len(ids) == 0 {
		return "all channels"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "<#" + id + ">"
	}
	return clip(strings.Join(parts, " "), 500)
}

func logicLabel(l string) string {
	for _, m := range logicNames {
		if m.api == l {
			return m.panel
		}
	}
	return "OR"
}

// logicNames maps the panel's secondary-key logic words to the API's.
var logicNames = [...]struct{ panel, api string }{
	{"OR", "AND_ANY"}, {"AND", "AND_ALL"}, {"NOR", "NOT_ANY"}, {"NAND", "NOT_ALL"},
}

func orUntitled(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(untitled)"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// clip cuts s to at most n characters (runes), ending with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// escape neutralises markdown and mentions in member-written names.
func escape(s string) string {
	r := strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "~", "\\~", "|", "\\|", ">", "\\>", "@", "@\u200b")
	return r.Replace(s)
}
