package discord

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/model"
	"loregate/lore"
)

// Discord limits the renderer stays within (docs/discord.md).
const (
	maxContentLen = 2000 // legacy message content, characters
	maxLabelLen   = 100  // select option label, value and description
	maxButtonLen  = 80   // button label
	// textBudget is what one paint's text displays may hold together
	// (Discord: 4,000), kept below the limit for the receipt's quote marks.
	textBudget = 3800
)

// Select option values besides ids.
const (
	valueAdd     = "add"
	valueImport  = "import"
	valueReplace = "replace"
	valueNew     = "new"
)

// render draws the Lorebooks tab for p as one Components V2 container, in
// the order of docs/discord.md ("Panel"): the scope row (Serverwide,
// Persona, Settings, Backups), the receipt, then
//
//   - Serverwide: heading, collection picker (23 books + Add + Import
//     Lorebook) and its page buttons, the selected book with its controls
//     (Active/Disabled, Channels, Rename, Delete), the book's channel scope
//     and a separator, the entry counter (n of 250), the entry picker (23
//     entries + Add + Import Entries) and Export Lorebook;
//   - Persona: persona picker above the heading, the counter, the entry
//     picker (23 + Add + Import Lorebook), Export and Import Persona Card;
//   - an entry, the settings view, the backups view or the import history
//     (discord/history.go) instead of the pickers when one is open.
func render(p *panel) []discordgo.MessageComponent {
	w := &builder{t: p.t}
	w.row(scopeRow(p)...)
	if len(p.receipt) > 0 {
		var r strings.Builder
		for _, line := range p.receipt {
			r.WriteString("> " + strings.ReplaceAll(line, "\n", "\n> ") + "\n")
		}
		w.text(lore.ClipRunes(r.String(), textBudget/3))
	}
	if p.wb.decisions != nil {
		w.text(lore.ClipRunes(decisionsText(p), textBudget/3))
	}
	switch {
	case p.view == viewSettings:
		renderSettings(w, p)
	case p.view == viewBackups || p.view == viewBackupPreview:
		renderBackups(w, p)
	case (p.view == viewHistory || p.view == viewHistoryConfirm) && p.history != nil:
		renderHistory(w, p)
	case (p.view == viewRevisions || p.view == viewRevisionConfirm) && p.wb.revisions != nil && p.entry != nil:
		renderRevisions(w, p)
	case inProposals(p):
		renderProposals(w, p)
	case inDeleted(p):
		renderDeleted(w, p)
	case p.view == viewEntry || p.view == viewConfirmEntry:
		renderEntry(w, p)
	case p.persona:
		renderPersona(w, p)
	default:
		renderServerwide(w, p)
	}
	return []discordgo.MessageComponent{discordgo.Container{Components: w.fit()}}
}

// builder collects a container's components, keeping the text within
// the message's text budget.
type builder struct {
	t     tr
	comps []discordgo.MessageComponent
}

func (w *builder) text(s string) {
	if s = strings.TrimSpace(s); s != "" {
		w.comps = append(w.comps, discordgo.TextDisplay{Content: s})
	}
}

func (w *builder) row(cs ...discordgo.MessageComponent) {
	if len(cs) > 0 {
		w.comps = append(w.comps, discordgo.ActionsRow{Components: cs})
	}
}

// add appends a built component (an action row holding a select).
func (w *builder) add(c discordgo.MessageComponent) { w.comps = append(w.comps, c) }

func (w *builder) separator() {
	divider := true
	w.comps = append(w.comps, discordgo.Separator{Divider: &divider})
}

// fit cuts the longest text displays until all text fits the budget.
func (w *builder) fit() []discordgo.MessageComponent {
	for {
		total, longest := 0, -1
		for i, c := range w.comps {
			if td, ok := c.(discordgo.TextDisplay); ok {
				n := utf8.RuneCountInString(td.Content)
				total += n
				if longest < 0 || n > utf8.RuneCountInString(w.comps[longest].(discordgo.TextDisplay).Content) {
					longest = i
				}
			}
		}
		if total <= textBudget || longest < 0 {
			return w.comps
		}
		td := w.comps[longest].(discordgo.TextDisplay)
		n := utf8.RuneCountInString(td.Content)
		w.comps[longest] = discordgo.TextDisplay{Content: lore.ClipRunes(td.Content, max(1, n-(total-textBudget)))}
	}
}

func renderServerwide(w *builder, p *panel) {
	t := p.t
	w.text("## " + t.S("Lorebooks · Serverwide"))
	w.add(bookPicker(p))
	if len(p.books) > bookPageSize {
		w.row(pageButtons(p, actBookPage, t.S("Books"), p.page, len(p.books), bookPageSize)...)
	}
	if p.book == nil {
		w.text(t.S("No lorebooks yet. Choose **+ Add Lorebook** or **+ Import Lorebook** in the list above."))
		return
	}
	w.text(fmt.Sprintf("**%s** · %s · %s", escape(p.book.Name), bookState(t, p.book.Enabled), t.N("%d entries", len(p.entries))) +
		"\n-# " + bookSettingsText(t, p.bookSettings))
	switch p.view {
	case viewChannels:
		w.text(t.S("Pick the channels this book may appear in. Threads follow their parent channel; **All channels** removes the restriction."))
		if line := channelPageText(p); line != "" {
			w.text(line)
		}
		w.add(channelSelect(p))
		w.row(channelViewRow(p)...)
		return
	case viewConfirmBook:
		w.text(t.S("Delete **%s** and its %s? This cannot be undone.", escape(p.book.Name), t.N("%d entries", len(p.entries))))
		w.row(confirmBookRow(p)...)
		return
	}
	w.row(bookControls(p)...)
	w.text(t.S("Channels: %s", channelList(t, p.book.ChannelIds)))
	w.separator()
	writeEntryRange(w, p, p.serverwideCount)
	w.add(entryPicker(p, t.S("+ Import Entries")))
	w.row(entryNavRow(p)...)
}

func renderPersona(w *builder, p *panel) {
	t := p.t
	if len(p.groups) > 0 {
		w.add(personaPicker(p))
		if len(p.groups) > personaPageSize {
			w.row(pageButtons(p, actPersonaPage, t.S("Personas"), p.page, len(p.groups), personaPageSize)...)
		}
	}
	w.text("## " + t.S("Lorebooks · Persona"))
	if len(p.groups) == 0 {
		w.text(t.S("No personas on this server yet."))
		if p.canManage {
			w.row(discordgo.Button{Label: t.S("Import Persona Card"), Style: discordgo.SecondaryButton, CustomID: p.route(actCardImport).encode()})
		}
		return
	}
	for _, g := range p.groups {
		if g.lineage == p.lineage {
			w.text(fmt.Sprintf("**%s** · %s", escape(g.label()), t.N("%d entries", len(p.entries))) +
				"\n-# " + bookSettingsText(t, p.bookSettings))
		}
	}
	writeEntryRange(w, p, len(p.entries))
	w.add(entryPicker(p, t.S("+ Import Lorebook")))
	nav := entryNavRow(p)
	nav = append(nav, discordgo.Button{Label: t.S("Import Persona Card"), Style: discordgo.SecondaryButton, CustomID: p.route(actCardImport).encode()}, settingsButton(p))
	w.row(nav...)
}

// writeEntryRange writes the entry counter: the page's range and the
// scope's use of its 250 entries (Serverwide books share one limit).
func writeEntryRange(w *builder, p *panel, scopeCount int) {
	t := p.t
	limit := p.scopeLimit
	if limit <= 0 {
		limit = maxScopeEntries
	}
	used := t.S("%d/%d entries in this scope", scopeCount, limit)
	if len(p.entries) == 0 {
		w.text(t.S("No entries yet. Choose **+ Add Entry** or import a file.") + "\n-# " + used)
		return
	}
	start := p.entryPage * entryPageSize
	end := min(start+entryPageSize, len(p.entries))
	w.text(t.S("Entries %d–%d of %d", start+1, end, len(p.entries)) + "\n-# " + used)
}

func renderEntry(w *builder, p *panel) {
	t := p.t
	e := p.entry
	scope := t.S("Persona")
	if !p.persona && p.book != nil {
		scope = t.S("Serverwide") + " › " + escape(p.book.Name)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "## %s · %s\n**%s**\n", t.S("Lorebooks"), scope, escape(orUntitled(t, e.Title)))
	state := t.S("Enabled")
	if !e.Enabled {
		state = t.S("Disabled")
	}
	if e.Constant || len(e.Keys) == 0 {
		fmt.Fprintf(&s, "%s · %s\n", state, t.S("Always On"))
	} else {
		fmt.Fprintf(&s, "%s · %s\n", state, t.S("Keywords: %s", escape(lore.ClipRunes(strings.Join(e.Keys, ", "), 300))))
	}
	if len(e.SecondaryKeys) > 0 {
		s.WriteString(t.S("Secondary (%s): %s", logicLabel(e.SelectiveLogic), escape(lore.ClipRunes(strings.Join(e.SecondaryKeys, ", "), 200))) + "\n")
	}
	depth := t.S("default")
	if e.ScanDepth != nil {
		depth = strconv.Itoa(*e.ScanDepth)
	}
	placement := t.S("after persona")
	if e.Placement == model.PlacementBefore {
		placement = t.S("before persona")
	}
	s.WriteString(t.S("Scan depth %s · Chance %d%% · Order %d · %s", depth, e.Probability, e.InsertionOrder, placement) + "\n")
	if p.persona {
		s.WriteString(t.S("Channels: %s", channelList(t, e.ChannelIds)) + "\n")
	}
	// Pending names widen persona entries only; a Serverwide entry follows
	// its collection's channels whatever names it carries.
	if p.persona && len(e.LegacyChannelTags) > 0 {
		s.WriteString("⚠ " + t.S("Unresolved channel names (%s): active in every channel until channels are saved.", escape(lore.ClipRunes(strings.Join(e.LegacyChannelTags, ", "), 200))) + "\n")
	}
	if l := lastActivationText(t, p.last); l != "" {
		s.WriteString("-# " + l + "\n")
	}
	w.text(s.String())
	w.separator()
	if p.view == viewConfirmEntry {
		w.text(t.S("Delete this entry? This cannot be undone."))
		w.row(entryActionRow(p)...)
		return
	}
	if tooLong(e) {
		w.text("-# " + t.S("This entry is longer than the %d characters a Discord form holds, so it is read-only here. Edit it through the loregate API or a dashboard.", maxInputLen))
	}
	w.text(lore.ClipRunes(e.Content, 1500))
	w.row(entryActionRow(p)...)
	w.row(suggestRow(p)...)
}

// tooLong reports whether an entry's content or keys do not fit Discord's
// text inputs (4,000 characters, counted in UTF-16 code units as Discord's
// clients count): such an entry is read-only in the panel.
func tooLong(e *model.Entry) bool {
	return lore.UTF16Len(e.Content) > maxInputLen || lore.UTF16Len(strings.Join(e.Keys, ", ")) > maxInputLen
}

func scopeRow(p *panel) []discordgo.MessageComponent {
	t := p.t
	base := route{}
	button := func(label, act string, on bool) discordgo.Button {
		b := discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: base.with(act).encode()}
		if on {
			b.Style = discordgo.PrimaryButton
		}
		return b
	}
	inSettings := p.view == viewSettings
	inBackups := p.view == viewBackups || p.view == viewBackupPreview || p.view == viewHistory || p.view == viewHistoryConfirm || inDeleted(p)
	inProps := inProposals(p)
	row := []discordgo.MessageComponent{
		button(t.S("Serverwide"), actServerwide, !p.persona && !inSettings && !inBackups && !inProps),
		button(t.S("Persona"), actPersona, p.persona && !inSettings && !inBackups && !inProps),
		button(t.S("Settings"), actSettings, inSettings),
		button(t.S("Backups"), actBackups, inBackups),
	}
	if b := proposalsButton(p, inProps); b != nil {
		row = append(row, *b)
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

func bookState(t tr, enabled bool) string {
	if enabled {
		return t.S("Active")
	}
	return t.S("Disabled")
}

func bookPicker(p *panel) discordgo.ActionsRow {
	t := p.t
	start := p.page * bookPageSize
	end := min(start+bookPageSize, len(p.books))
	opts := make([]discordgo.SelectMenuOption, 0, end-start+2)
	for _, c := range p.books[start:end] {
		opts = append(opts, discordgo.SelectMenuOption{
			Label:       lore.ClipRunes(c.Name, maxLabelLen),
			Value:       c.ID,
			Description: lore.ClipRunes(fmt.Sprintf("%s · %s", bookState(t, c.Enabled), t.N("%d entries", c.EntryCount)), maxLabelLen),
			Default:     p.book != nil && p.book.ID == c.ID,
		})
	}
	opts = append(opts,
		discordgo.SelectMenuOption{Label: t.S("+ Add Lorebook"), Value: valueAdd},
		discordgo.SelectMenuOption{Label: t.S("+ Import Lorebook"), Value: valueImport})
	return selectRow(p.route(actBookPick), t.S("Choose a lorebook"), opts)
}

func personaPicker(p *panel) discordgo.ActionsRow {
	t := p.t
	start := p.page * personaPageSize
	end := min(start+personaPageSize, len(p.groups))
	opts := make([]discordgo.SelectMenuOption, 0, end-start)
	for _, g := range p.groups[start:end] {
		opts = append(opts, discordgo.SelectMenuOption{
			Label:       lore.ClipRunes(g.label(), maxLabelLen),
			Value:       strconv.FormatInt(g.lineage, 10),
			Description: lore.ClipRunes(t.S("Lineage %s", strconv.FormatInt(g.lineage, 10))+" · "+t.N("%d entries", g.entries), maxLabelLen),
			Default:     g.lineage == p.lineage,
		})
	}
	return selectRow(p.route(actPersonaPick), t.S("Choose a persona"), opts)
}

func entryPicker(p *panel, importLabel string) discordgo.ActionsRow {
	t := p.t
	start := p.entryPage * entryPageSize
	end := min(start+entryPageSize, len(p.entries))
	opts := make([]discordgo.SelectMenuOption, 0, end-start+2)
	for _, e := range p.entries[start:end] {
		desc := t.S("Always On")
		if !e.Constant && len(e.Keys) > 0 {
			desc = t.S("Keywords: %s", strings.Join(e.Keys, ", "))
		}
		if !e.Enabled {
			desc = t.S("Disabled") + " · " + desc
		}
		opts = append(opts, discordgo.SelectMenuOption{Label: lore.ClipRunes(orUntitled(t, e.Title), maxLabelLen), Value: e.ID, Description: lore.ClipRunes(desc, maxLabelLen)})
	}
	add := discordgo.SelectMenuOption{Label: t.S("+ Add Entry"), Value: valueAdd}
	if !p.canManage && p.wb.on {
		// Members suggest entries instead (proposals.go).
		add = discordgo.SelectMenuOption{Label: t.S("+ Suggest an entry"), Value: valueSuggest}
	}
	opts = append(opts, add, discordgo.SelectMenuOption{Label: importLabel, Value: valueImport})
	return selectRow(p.route(actEntryPick), t.S("Choose an entry to view or edit"), opts)
}

func entryNavRow(p *panel) []discordgo.MessageComponent {
	var row []discordgo.MessageComponent
	if len(p.entries) > entryPageSize {
		row = append(row, pageButtons(p, actEntryPage, p.t.S("Entries"), p.entryPage, len(p.entries), entryPageSize)...)
	}
	return append(row, discordgo.Button{Label: p.t.S("Export Lorebook"), Style: discordgo.SecondaryButton, CustomID: p.route(actExport).encode()})
}

func bookControls(p *panel) []discordgo.MessageComponent {
	t := p.t
	toggle := discordgo.Button{Label: t.S("Active"), Style: discordgo.SuccessButton, CustomID: p.route(actBookToggle).encode()}
	if !p.book.Enabled {
		toggle.Label, toggle.Style = t.S("Disabled"), discordgo.SecondaryButton
	}
	return []discordgo.MessageComponent{
		toggle,
		discordgo.Button{Label: t.S("Channels"), Style: discordgo.SecondaryButton, CustomID: p.route(actBookChans).encode()},
		discordgo.Button{Label: t.S("Rename"), Style: discordgo.SecondaryButton, CustomID: p.route(actBookRename).encode()},
		discordgo.Button{Label: t.S("Delete"), Style: discordgo.DangerButton, CustomID: p.route(actBookDelete).encode()},
		settingsButton(p),
	}
}

func confirmBookRow(p *panel) []discordgo.MessageComponent {
	return []discordgo.MessageComponent{
		discordgo.Button{Label: lore.ClipRunes(p.t.S("Delete %s", p.book.Name), maxButtonLen), Style: discordgo.DangerButton, CustomID: p.route(actBookDelOK).encode()},
		discordgo.Button{Label: p.t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: p.route(actBack).encode()},
	}
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
		CustomID:     p.versioned(chanAction(actBookChanSet, p.chanPage)).encode(),
		Placeholder:  p.t.S("Channels this book may appear in"),
		MinValues:    &zero,
		MaxValues:    maxSelectValues,
		ChannelTypes: channelTypes[:],
	}
	lo, hi := channelPageBounds(p.chanPage, len(p.channels))
	for _, id := range p.channels[lo:hi] {
		sel.DefaultValues = append(sel.DefaultValues, discordgo.SelectMenuDefaultValue{ID: id, Type: discordgo.SelectMenuDefaultValueChannel})
	}
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{sel}}
}

func channelViewRow(p *panel) []discordgo.MessageComponent {
	return append([]discordgo.MessageComponent{
		discordgo.Button{Label: p.t.S("All channels"), Style: discordgo.SecondaryButton, CustomID: p.versioned(actBookChanAll).encode()},
		discordgo.Button{Label: p.t.S("Back"), Style: discordgo.SecondaryButton, CustomID: p.route(actBack).encode()},
	}, channelPageRow(p)...)
}

func entryActionRow(p *panel) []discordgo.MessageComponent {
	t := p.t
	if p.view == viewConfirmEntry {
		return []discordgo.MessageComponent{
			discordgo.Button{Label: t.S("Delete entry"), Style: discordgo.DangerButton, CustomID: p.route(actEntryDelOK).encode()},
			discordgo.Button{Label: t.S("Cancel"), Style: discordgo.SecondaryButton, CustomID: p.route(actEntryPick).encode()},
		}
	}
	toggle := discordgo.Button{Label: t.S("Enabled"), Style: discordgo.SuccessButton, CustomID: p.route(actEntryToggle).encode()}
	if !p.entry.Enabled {
		toggle.Label, toggle.Style = t.S("Disabled"), discordgo.SecondaryButton
	}
	back := p.route(actBack)
	back.entry = 0
	return []discordgo.MessageComponent{
		discordgo.Button{Label: t.S("Edit"), Style: discordgo.PrimaryButton, CustomID: p.route(actEntryEdit).encode(), Disabled: tooLong(p.entry)},
		discordgo.Button{Label: t.S("Activation Rules"), Style: discordgo.SecondaryButton, CustomID: p.route(actEntryRules).encode()},
		toggle,
		discordgo.Button{Label: t.S("Delete"), Style: discordgo.DangerButton, CustomID: p.route(actEntryDelete).encode()},
		discordgo.Button{Label: t.S("Back"), Style: discordgo.SecondaryButton, CustomID: back.encode()},
	}
}

func selectRow(r route, placeholder string, opts []discordgo.SelectMenuOption) discordgo.ActionsRow {
	return discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{
		MenuType:    discordgo.StringSelectMenu,
		CustomID:    r.encode(),
		Placeholder: placeholder,
		Options:     opts,
	}}}
}

func channelList(t tr, ids []string) string {
	if len(ids) == 0 {
		return t.S("all channels")
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "<#" + id + ">"
	}
	return lore.ClipRunes(strings.Join(parts, " "), 500)
}

func logicLabel(l model.SelectiveLogic) string {
	for _, m := range logicNames {
		if m.api == l {
			return m.panel
		}
	}
	return "OR"
}

// logicNames maps the panel's secondary-key logic words to the API's.
var logicNames = [...]struct {
	panel string
	api   model.SelectiveLogic
}{
	{"OR", model.SelectiveLogicAndAny}, {"AND", model.SelectiveLogicAndAll}, {"NOR", model.SelectiveLogicNotAny}, {"NAND", model.SelectiveLogicNotAll},
}

func orUntitled(t tr, s string) string {
	if strings.TrimSpace(s) == "" {
		return t.S("(untitled)")
	}
	return s
}

// escape neutralises markdown and mentions in member-written names.
func escape(s string) string {
	r := strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "~", "\\~", "|", "\\|", ">", "\\>", "@", "@\u200b", "#", "\\#")
	return r.Replace(s)
}
