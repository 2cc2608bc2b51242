package discord

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// Modal limits (docs/discord.md): title of at most 45 characters, 1-5 rows,
// text inputs of at most 4,000 characters.
const (
	maxModalTitle = 45
	maxInputLen   = 4000
)

// Text input custom ids.
const (
	fieldName     = "name"
	fieldTitle    = "title"
	fieldKeys     = "keys"
	fieldContent  = "content"
	fieldChannels = "channels"
	fieldSecKeys  = "secondary"
	fieldLogic    = "logic"
	fieldDepth    = "depth"
	fieldChance   = "chance"
	fieldOrder    = "order"
	fieldMode     = "mode"
	fieldFile     = "file"
)

// openModal returns a handler opening the modal kind at the request's
// route.
func (b *Bot) openModal(kind string) handlerFunc {
	return func(ctx context.Context, in *request) error { return b.openModalAt(ctx, in, kind, in.rt) }
}

// openModalAt answers with modal kind (type 9, the first and only
// response). The scope is re-resolved first; a stale route or a member
// without Manage Server gets a repaint with a receipt instead. Channel
// fields are prefilled with stored channels that still exist in the guild,
// so a deleted channel never makes the form invalid.
func (b *Bot) openModalAt(ctx context.Context, in *request, kind string, rt route) error {
	full := kind == modalEntryEdit || kind == modalRules
	p, err := b.load(ctx, in, rt, loadOpts{full: full, persona: rt.lineage != 0 || kind == modalCard})
	if err != nil {
		return err
	}
	if !p.stale && !in.manage {
		p.receipt = append(p.receipt, in.notAllowed())
	}
	needBook := kind == modalRename || ((kind == modalEntryAdd || kind == modalBookSet) && !p.persona)
	if !p.stale && ((full && p.entry == nil) || (needBook && p.book == nil) || (p.persona && p.lineage == 0 && kind != modalCard)) {
		p.stale = true
		p.addReceipt("That item changed meanwhile, so nothing was changed.")
	}
	if !p.stale && kind == modalEntryEdit && tooLong(p.entry) {
		p.addReceipt("This entry is longer than the %d characters a Discord form holds, so it is read-only here. Edit it through the loregate API or a dashboard.", maxInputLen)
		return b.paint(ctx, in, p)
	}
	if p.stale || !in.manage {
		return b.paint(ctx, in, p)
	}
	t := in.t
	r := p.route(kind)
	var m discordgo.InteractionResponseData
	switch kind {
	case modalBookAdd:
		m = modal(r, t.S("New lorebook"), input(fieldName, t.S("Name"), "", discordgo.TextInputShort, true, lore.MaxCollectionNameLen))
	case modalRename:
		m = modal(r, t.S("Rename lorebook"), input(fieldName, t.S("Name"), p.book.Name, discordgo.TextInputShort, true, lore.MaxCollectionNameLen))
	case modalImport:
		title := t.S("Import Entries")
		fields := []discordgo.MessageComponent{fileField(t.S("Lorebook file"), p.uploads.bookText(t))}
		switch {
		case p.persona:
			title = t.S("Import Lorebook")
			fields = append(fields, modeField(t))
		case rt.collection == 0:
			title = t.S("Import a new lorebook")
			r.collection = 0
			fields = append(fields, input(fieldName, t.S("Name (optional)"), "", discordgo.TextInputShort, false, lore.MaxCollectionNameLen))
		default:
			fields = append(fields, modeField(t))
		}
		m = modal(r, title, fields...)
	case modalCard:
		fields := []discordgo.MessageComponent{
			fileField(t.S("Character card"), p.uploads.cardText(t)),
			input(fieldName, t.S("Name of the new persona (optional)"), "", discordgo.TextInputShort, false, lore.MaxTitleLen),
		}
		if p.persona && p.lineage != 0 {
			opts := []discordgo.SelectMenuOption{{Label: t.S("A new persona (alter)"), Value: valueNew, Default: true}}
			for _, g := range p.groups {
				if g.lineage == p.lineage {
					opts = append(opts, discordgo.SelectMenuOption{Label: lore.ClipRunes(t.S("Replace the book of %s", g.label()), maxLabelLen), Value: valueReplace})
				}
			}
			fields = append(fields, label{Label: t.S("Import as"), Component: modalSelect{CustomID: fieldMode, Options: opts}})
		}
		m = modal(r, t.S("Import Persona Card"), fields...)
	case modalBookSet:
		name := ""
		if p.persona {
			for _, g := range p.groups {
				if g.lineage == p.lineage {
					name = g.label()
				}
			}
		} else {
			name = p.book.Name
		}
		m = bookSettingsModal(t, r, name, p.bookSettings)
	case modalBudget:
		m = budgetModal(t, p.settings)
	case modalBackup:
		m = modal(r, t.S("Import a workspace backup"), fileField(t.S("Backup file"), t.S("A workspace backup (All Personas). You see what it replaces before anything changes.")))
	case modalEntryAdd, modalEntryEdit:
		var e model.Entry
		title := t.S("New entry")
		if kind == modalEntryEdit {
			e, title = *p.entry, t.S("Edit entry")
		}
		rows := []discordgo.MessageComponent{
			input(fieldTitle, t.S("Title"), e.Title, discordgo.TextInputShort, false, lore.MaxTitleLen),
			input(fieldKeys, t.S("Keywords, comma-separated (blank = Always On)"), strings.Join(e.Keys, ", "), discordgo.TextInputParagraph, false, maxInputLen),
			input(fieldContent, t.S("Content"), e.Content, discordgo.TextInputParagraph, true, lore.MaxContentLen),
		}
		if p.persona {
			var prefill []string
			if kind == modalEntryEdit {
				existing, err := b.guildChannels(ctx, in.guild)
				if err != nil {
					p.addReceipt("The server's channels could not be read right now. Try again in a moment.")
					return b.paint(ctx, in, p)
				}
				prefill = filterExisting(e.ChannelIds, existing)
			}
			rows = append(rows, input(fieldChannels, t.S("Channel ids (blank = every channel)"), strings.Join(prefill, ", "), discordgo.TextInputParagraph, false, maxInputLen))
		}
		m = modal(r, title, rows...)
	case modalRules:
		e := p.entry
		depth := ""
		if e.ScanDepth != nil {
			depth = strconv.Itoa(*e.ScanDepth)
		}
		m = modal(r, t.S("Activation Rules"),
			input(fieldSecKeys, t.S("Secondary keywords, comma-separated"), strings.Join(e.SecondaryKeys, ", "), discordgo.TextInputParagraph, false, maxInputLen),
			logicField(t, logicLabel(e.SelectiveLogic)),
			input(fieldDepth, t.S("Scan depth, 1-100 (blank = default)"), depth, discordgo.TextInputShort, false, 3),
			input(fieldChance, t.S("Chance, 0-100 %%"), strconv.Itoa(e.Probability), discordgo.TextInputShort, false, 4),
			input(fieldOrder, t.S("Insertion order (lower appears earlier)"), strconv.Itoa(e.InsertionOrder), discordgo.TextInputShort, false, 11),
		)
	default:
		return fmt.Errorf("unknown modal %q", kind)
	}
	return b.respond(ctx, in, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: &m})
}

func modal(r route, title string, fields ...discordgo.MessageComponent) discordgo.InteractionResponseData {
	return discordgo.InteractionResponseData{CustomID: r.encode(), Title: lore.ClipRunes(title, maxModalTitle), Components: fields}
}

// input is one labelled text input. Values longer than maxLen (an
// imported key list, say) are cut so Discord accepts the form; the edit
// keeps stored fields the member did not change by comparing against the
// stored value, not the cut one.
func input(id, text, value string, style discordgo.TextInputStyle, required bool, maxLen int) label {
	return label{Label: lore.ClipRunes(text, maxLabelText), Component: textInput{
		CustomID: id, Style: style, Value: lore.ClipRunes(value, maxLen), Required: required, MaxLength: maxLen,
	}}
}

// fileField is a labelled single-file upload.
func fileField(text, description string) label {
	return label{Label: lore.ClipRunes(text, maxLabelText), Description: lore.ClipRunes(description, maxLabelDesc),
		Component: fileUpload{CustomID: fieldFile, MinValues: 1, MaxValues: 1, Required: true}}
}

// logicField is the secondary-keyword logic as a select, with the user
// guide's wording, current preselected.
func logicField(t tr, current string) label {
	texts := map[string]string{
		"OR": t.S("OR: any secondary keyword matches"), "AND": t.S("AND: all of them match"),
		"NOR": t.S("NOR: none of them matches"), "NAND": t.S("NAND: fewer than all match"),
	}
	opts := make([]discordgo.SelectMenuOption, 0, len(logicNames))
	for _, l := range logicNames {
		opts = append(opts, discordgo.SelectMenuOption{Label: texts[l.panel], Value: l.panel, Default: l.panel == current})
	}
	return label{Label: t.S("Secondary logic"), Component: modalSelect{CustomID: fieldLogic, Options: opts}}
}

// modeField is the replace checkbox of an import into an existing book:
// unticked appends (the default), ticked replaces only the selected book.
func modeField(t tr) label {
	return label{Label: t.S("Replace this lorebook"), Description: lore.ClipRunes(t.S("Only the selected book; other books stay intact. Unticked, entries not already present are appended."), maxLabelDesc),
		Component: checkbox{CustomID: fieldMode}}
}

func (b *Bot) submitBookAdd(ctx context.Context, in *request) error {
	// Adding a book does not depend on the book or entry the panel showed:
	// a selection deleted meanwhile must not make the add look stale.
	in.rt.collection, in.rt.entry, in.rt.entryPage = 0, 0, 0
	return b.write(ctx, in, loadOpts{}, nil, func(p *panel) (route, loadOpts, string, error) {
		var out model.CollectionPayload
		name := in.fields[fieldName]
		e, err := b.mutate(ctx, in.p, client.OpCreateCollection, map[string]any{"serverDiscordId": in.guild, "name": name}, &out)
		if err != nil || e != nil {
			return in.rt, loadOpts{}, receiptOf(in.t, e), err
		}
		var id int64
		if out.Collection != nil {
			id, _ = strconv.ParseInt(out.Collection.ID, 10, 64)
		}
		return route{collection: id}, loadOpts{}, in.t.S("Created **%s**.", escape(name)), nil
	})
}

func (b *Bot) submitRename(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{}, hasBook, func(p *panel) (route, loadOpts, string, error) {
		name := in.fields[fieldName]
		if name == p.book.Name {
			return in.rt, loadOpts{}, in.t.S("The name is unchanged."), nil
		}
		e, err := b.mutate(ctx, in.p, client.OpRenameCollection, map[string]any{"serverDiscordId": in.guild, "collectionId": p.book.ID, "name": name}, nil)
		if err != nil || e != nil {
			return in.rt, loadOpts{}, receiptOf(in.t, e), err
		}
		return in.rt, loadOpts{}, in.t.S("Renamed **%s** to **%s**.", escape(p.book.Name), escape(name)), nil
	})
}

// submitEntryAdd creates an entry: placed after the persona, Always On
// when the keywords are blank; Serverwide entries carry no channels
// (their book's apply), persona entries keep the submitted ones.
func (b *Bot) submitEntryAdd(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{}, func(p *panel) bool { return p.persona && p.lineage != 0 || hasBook(p) }, func(p *panel) (route, loadOpts, string, error) {
		keys := splitList(in.fields[fieldKeys])
		entry := map[string]any{
			"title": in.fields[fieldTitle], "content": in.fields[fieldContent], "keys": keys,
			"constant": len(keys) == 0, "placement": model.PlacementAfter,
		}
		input := map[string]any{"serverDiscordId": in.guild, "lineageId": p.lineage, "entry": entry}
		if p.persona {
			ids, msg, err := b.checkChannels(ctx, in, in.fields[fieldChannels])
			if err != nil || msg != "" {
				return in.rt, loadOpts{persona: true}, msg, err
			}
			entry["channelIds"] = ids
		} else {
			input["collectionId"] = p.book.ID
		}
		var out model.EntryPayload
		e, err := b.mutate(ctx, in.p, client.OpCreateEntry, input, &out)
		if err != nil || e != nil {
			return in.rt, loadOpts{persona: p.persona}, receiptOf(in.t, e), err
		}
		next := p.route("")
		if out.Entry != nil {
			next.entry, _ = strconv.ParseInt(out.Entry.ID, 10, 64)
		}
		return next, loadOpts{full: true}, in.t.S("Added **%s**.", escape(orUntitled(in.t, in.fields[fieldTitle]))), nil
	})
}

// submitEntryEdit saves the edit modal as a patch holding only what the
// member changed; constant follows whether the keywords are blank and the
// imported placement is never touched. A persona entry's channels are sent
// only when the submitted set differs from the prefilled one, so unchanged
// channels keep their pending legacy names.
func (b *Bot) submitEntryEdit(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{full: true}, hasEntry, func(p *panel) (route, loadOpts, string, error) {
		e := p.entry
		patch := map[string]any{}
		if t := in.fields[fieldTitle]; t != strings.TrimSpace(e.Title) {
			patch["title"] = t
		}
		if c := in.fields[fieldContent]; c != strings.TrimSpace(e.Content) {
			patch["content"] = c
		}
		keys := splitList(in.fields[fieldKeys])
		if !slices.Equal(keys, e.Keys) && strings.Join(keys, ", ") != lore.ClipRunes(strings.Join(e.Keys, ", "), maxInputLen) {
			patch["keys"] = keys
		}
		if constant := len(keys) == 0; constant != e.Constant {
			patch["constant"] = constant
		}
		if p.persona {
			existing, err := b.guildChannels(ctx, in.guild)
			if err != nil {
				return in.rt, loadOpts{full: true}, in.t.S("The server's channels could not be read right now, so nothing was saved."), nil
			}
			ids, msg, err := b.checkChannels(ctx, in, in.fields[fieldChannels])
			if err != nil || msg != "" {
				return in.rt, loadOpts{full: true}, msg, err
			}
			if !sameSet(ids, filterExisting(e.ChannelIds, existing)) {
				patch["channelIds"] = ids
			}
		}
		return b.patchEntry(ctx, in, p, patch)
	})
}

// submitRules saves the activation-rules modal, again only the fields the
// member changed.
func (b *Bot) submitRules(ctx context.Context, in *request) error {
	return b.write(ctx, in, loadOpts{full: true}, hasEntry, func(p *panel) (route, loadOpts, string, error) {
		e := p.entry
		patch := map[string]any{}
		// Like the keywords of the edit modal: a list that comes back as it
		// was prefilled (keys holding commas split, a long list clipped) is
		// unchanged, so saving other rules never rewrites it.
		if sk := splitList(in.fields[fieldSecKeys]); !slices.Equal(sk, e.SecondaryKeys) &&
			strings.Join(sk, ", ") != lore.ClipRunes(strings.Join(e.SecondaryKeys, ", "), maxInputLen) {
			patch["secondaryKeys"] = sk
		}
		picked := first(in.modal.Values[fieldLogic])
		if picked == "" {
			picked = in.fields[fieldLogic] // a form from before the select
		}
		logic, ok := parseLogic(picked)
		if !ok {
			return in.rt, loadOpts{full: true}, in.t.S("Not saved: secondary logic must be OR, AND, NOR or NAND."), nil
		}
		if logic != e.SelectiveLogic && !(e.SelectiveLogic == "" && logic == model.SelectiveLogicAndAny) {
			patch["selectiveLogic"] = logic
		}
		if d := in.fields[fieldDepth]; d == "" {
			if e.ScanDepth != nil {
				patch["scanDepth"] = nil
			}
		} else {
			n, err := strconv.Atoi(d)
			if err != nil || n < lore.MinScanDepth || n > lore.MaxScanDepth {
				return in.rt, loadOpts{full: true}, in.t.S("Not saved: scan depth must be a whole number from 1 to 100, or blank for the default."), nil
			}
			if e.ScanDepth == nil || *e.ScanDepth != n {
				patch["scanDepth"] = n
			}
		}
		chance, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(in.fields[fieldChance], "%")))
		if err != nil || chance < 0 || chance > 100 {
			return in.rt, loadOpts{full: true}, in.t.S("Not saved: chance must be a whole number from 0 to 100."), nil
		}
		if chance != e.Probability {
			patch["probability"] = chance
		}
		order, err := strconv.Atoi(in.fields[fieldOrder])
		if err != nil {
			return in.rt, loadOpts{full: true}, in.t.S("Not saved: insertion order must be a whole number."), nil
		}
		if order != e.InsertionOrder {
			patch["insertionOrder"] = order
		}
		return b.patchEntry(ctx, in, p, patch)
	})
}

func (b *Bot) patchEntry(ctx context.Context, in *request, p *panel, patch map[string]any) (route, loadOpts, string, error) {
	if len(patch) == 0 {
		return in.rt, loadOpts{full: true}, in.t.S("Nothing changed."), nil
	}
	input := map[string]any{"serverDiscordId": in.guild, "lineageId": p.lineage, "entryId": p.entry.ID, "patch": patch}
	e, err := b.mutate(ctx, in.p, client.OpUpdateEntry, input, nil)
	if err != nil || e != nil {
		return in.rt, loadOpts{full: true}, receiptOf(in.t, e), err
	}
	return in.rt, loadOpts{full: true}, in.t.S("Saved **%s**.", escape(orUntitled(in.t, p.entry.Title))), nil
}

// checkChannels parses a channel field (ids or <#id> mentions, separated
// by commas or spaces) and checks every id against the guild's channels. A
// receipt is returned, and nothing may be written, when a token is not a
// channel id or names a channel of another server.
func (b *Bot) checkChannels(ctx context.Context, in *request, field string) (ids []string, receipt string, err error) {
	ids = []string{}
	for _, tok := range strings.FieldsFunc(field, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		id := strings.TrimSuffix(strings.TrimPrefix(tok, "<#"), ">")
		if !lore.ValidSnowflake(id) {
			return nil, in.t.S("Not saved: %q is not a channel id or channel mention.", lore.ClipRunes(tok, 40)), nil
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ids, "", nil
	}
	existing, err := b.guildChannels(ctx, in.guild)
	if err != nil {
		return nil, in.t.S("The server's channels could not be read right now, so nothing was saved."), nil
	}
	if bad := foreign(ids, existing); len(bad) > 0 {
		return nil, in.t.S("Not saved: %s is not a channel of this server.", channelOrID(bad[0])), nil
	}
	return ids, "", nil
}

// guildChannels returns the ids of the guild's channels and active threads.
func (b *Bot) guildChannels(ctx context.Context, guild string) (map[string]bool, error) {
	// The gateway's cache (Guilds intent: channel and thread events) answers
	// at once; REST is the fallback, bounded and without rate-limit sleeps,
	// because a modal must be opened within Discord's 3-second window.
	if st := b.session.State; st != nil {
		if g, err := st.Guild(guild); err == nil && g != nil && len(g.Channels) > 0 {
			out := make(map[string]bool, len(g.Channels)+len(g.Threads))
			for _, c := range g.Channels {
				out[c.ID] = true
			}
			for _, t := range g.Threads {
				out[t.ID] = true
			}
			return out, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, channelLookupTimeout)
	defer cancel()
	opts := []discordgo.RequestOption{discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0)}
	chans, err := b.session.GuildChannels(guild, opts...)
	if err != nil {
		b.logDiscord(ctx, "guild channels", err)
		return nil, fmt.Errorf("guild channels: %w", err)
	}
	out := make(map[string]bool, len(chans))
	for _, c := range chans {
		out[c.ID] = true
	}
	threads, err := b.session.GuildThreadsActive(guild, opts...)
	if err != nil {
		b.logDiscord(ctx, "guild threads", err)
		return nil, fmt.Errorf("guild threads: %w", err)
	}
	for _, t := range threads.Threads {
		out[t.ID] = true
	}
	return out, nil
}

// channelLookupTimeout bounds the REST fallback of guildChannels.
const channelLookupTimeout = 1500 * time.Millisecond

func filterExisting(ids []string, existing map[string]bool) []string {
	out := []string{}
	for _, id := range ids {
		if existing[id] {
			out = append(out, id)
		}
	}
	return out
}

func foreign(ids []string, existing map[string]bool) []string {
	var out []string
	for _, id := range ids {
		if !existing[id] {
			out = append(out, id)
		}
	}
	return out
}

func channelOrID(id string) string { return "`" + lore.ClipRunes(id, 25) + "`" }

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// splitList splits a comma-separated field, trimming items and dropping
// empty ones.
func splitList(s string) []string {
	out := []string{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// parseLogic maps OR/AND/NOR/NAND (blank = OR) to the API's selective
// logic.
func parseLogic(s string) (model.SelectiveLogic, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		s = "OR"
	}
	for _, m := range logicNames {
		if m.panel == s {
			return m.api, true
		}
	}
	return "", false
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
