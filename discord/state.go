package discord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// Page sizes of the pickers (docs/contract.md: "Collection pages hold 23 books plus
// Add and Import; entry pages hold 23 entries plus Add and Import
// Entries"). The persona picker has no extra options, so it holds Discord's
// 25.
const (
	// maxScopeEntries is a scope's default entry limit; the deployment's
	// (Server.limits) is what the counters show.
	maxScopeEntries = lore.MaxEntriesPerScope
	bookPageSize    = 23
	entryPageSize   = 23
	personaPageSize = 25
)

// The adapter reads lists whole (at most 250 light rows: the operations
// OpPanelCollectionEntries and OpPanelPersonaEntries of graph/client) and
// pages them here, so page buttons never depend on cursor internals.

// lineageGroup is one persona lineage with the names of its active personas.
type lineageGroup struct {
	lineage int64
	// personaID is the lineage's first active persona.
	personaID int64
	names     []string
	entries   int
}

func (g lineageGroup) label() string { return strings.Join(g.names, " / ") }

// viewKind is what the panel's lower part shows.
type viewKind int

const (
	viewMain viewKind = iota
	viewEntry
	viewChannels
	viewConfirmBook
	viewConfirmEntry
	viewSettings
	viewBackups
	viewBackupPreview
)

// panel is the state one paint renders: everything read through the API
// for one member, plus the route position.
type panel struct {
	// t translates for the member's locale.
	t     tr
	guild string
	// canManage: the member may write lore (a manager or a lore editor);
	// canSettings: the member manages the server (settings, backups).
	canManage, canSettings bool
	// persona is true in Persona scope (lineage may still be 0 when the
	// server has no personas).
	persona   bool
	lineage   int64
	page      int
	entryPage int
	groups    []lineageGroup
	books     []model.Collection
	book      *model.Collection
	entries   []model.Entry
	entry     *model.Entry
	view      viewKind
	// stale is set when the route named a persona, collection or entry
	// that no longer exists; receipt then says what changed.
	stale   bool
	receipt []string
	// channels are the collection's existing channels, for the channel
	// view; chanPage is the page of them it shows (chanpage.go).
	channels []string
	chanPage int
	// serverwideCount is the Serverwide scope's entry count (all books).
	serverwideCount int
	// scopeLimit is the deployment's entries per scope (default 250).
	scopeLimit int
	// uploads are the deployment's upload limits the import forms show.
	uploads  uploadLimits
	settings model.ServerSettings
	// bookSettings are the selected book's settings.
	bookSettings model.BookSettings
	// last is the entry's last activation in this channel (entry view).
	last lastActivation
	// preview is the workspace backup preview shown before its import;
	// previewFailed is set after a failed import (only PreviewID is then
	// known): the upload is kept for a retry.
	preview       *model.BackupPreview
	previewFailed bool
	// history is the import history page (history views).
	history *historyView
	// wb is the workbench part: whether members may suggest, the open
	// proposals, and the revision and proposal views (revisions.go,
	// proposals.go).
	wb workbench
}

// route returns the panel position as a route with action act.
func (p *panel) route(act string) route {
	r := route{action: act, lineage: p.lineage, page: p.page, entryPage: p.entryPage}
	if p.book != nil && !p.persona {
		r.collection, _ = strconv.ParseInt(p.book.ID, 10, 64)
	}
	if p.entry != nil {
		r.entry, _ = strconv.ParseInt(p.entry.ID, 10, 64)
	}
	return r
}

// versioned is route(act) carrying the shown collection's updatedAt, for
// the channel view's saves (route.seen).
func (p *panel) versioned(act string) route {
	r := p.route(act)
	if p.book != nil && !p.persona && !p.book.UpdatedAt.IsZero() {
		r.seen = p.book.UpdatedAt.UnixMicro()
		if len(r.encode()) > MaxCustomIDLen {
			r.seen = 0 // no room: the save goes unchecked, as before
		}
	}
	return r
}

// addReceipt adds a translated line (format is a catalog key).
func (p *panel) addReceipt(format string, args ...any) {
	p.receipt = append(p.receipt, p.t.S(format, args...))
}

// loadOpts says what a paint needs beyond the position in the route.
type loadOpts struct {
	// persona forces Persona scope even with lineage 0.
	persona bool
	// full reads every entry field (entry view, modals).
	full bool
	// view opens a view other than the pickers (settings, backups).
	view viewKind
}

// load re-resolves the scope named by rt for principal p: the server (registered
// on first contact), its personas grouped by lineage, collections, the
// selected book's entries and, when rt names one, the entry. A persona,
// collection or entry that no longer exists marks the panel stale and falls
// back to a safe scope with a changed-state receipt.
func (b *Bot) load(ctx context.Context, in *request, rt route, o loadOpts) (*panel, error) {
	p, guild := in.p, in.guild
	var data client.ServerData
	vars := map[string]any{"s": guild}
	if err := b.api.Do(ctx, p, client.OpServer, vars, &data); err != nil {
		return nil, fmt.Errorf("read server: %w", err)
	}
	if data.Server == nil {
		if err := b.registerServer(ctx, guild); err != nil {
			return nil, err
		}
		if err := b.api.Do(ctx, p, client.OpServer, vars, &data); err != nil {
			return nil, fmt.Errorf("read server: %w", err)
		}
		if data.Server == nil {
			return nil, fmt.Errorf("server %s: %w", guild, errUnavailable)
		}
	}
	pn := &panel{t: in.t, guild: guild, canManage: data.Server.CanWriteLore, canSettings: data.Server.CanManage, lineage: rt.lineage, page: rt.page, entryPage: rt.entryPage, settings: data.Server.Settings}
	pn.persona = o.persona || rt.lineage != 0
	pn.scopeLimit = data.Server.Limits.EntriesPerScope
	pn.uploads = uploadLimitsOf(data.Server.Limits)
	if pn.scopeLimit <= 0 {
		pn.scopeLimit = maxScopeEntries
	}
	counts := map[int64]int{}
	for _, c := range data.Server.EntryCounts {
		if c.LineageID != nil {
			counts[*c.LineageID] = c.Count
		} else {
			pn.serverwideCount = c.Count
		}
	}
	pn.wb.fromServer(data.Server)
	pn.groups = groupPersonas(data.Server.Personas, counts)
	for _, e := range data.Server.Collections.Edges {
		pn.books = append(pn.books, e.Node)
	}

	var err error
	if pn.persona {
		err = b.loadPersona(ctx, p, pn, rt, o)
	} else {
		err = b.loadServerwide(ctx, p, pn, rt, o)
	}
	if err == nil && pn.view == viewEntry {
		b.loadLastActivation(ctx, in, pn)
	}
	return pn, err
}

func (b *Bot) loadPersona(ctx context.Context, p *auth.Principal, pn *panel, rt route, o loadOpts) error {
	if pn.lineage != 0 && !slices.ContainsFunc(pn.groups, func(g lineageGroup) bool { return g.lineage == pn.lineage }) {
		// A removed persona: its lore survives, but the route is stale.
		pn.stale = true
		pn.addReceipt("That persona is no longer on this server, so nothing was changed. Showing Serverwide lore.")
		pn.persona, pn.lineage, pn.page, pn.entryPage = false, 0, 0, 0
		return b.loadServerwide(ctx, p, pn, route{}, o)
	}
	pn.page = clampPage(pn.page, len(pn.groups), personaPageSize)
	if pn.lineage == 0 {
		if len(pn.groups) == 0 {
			return nil
		}
		pn.lineage = pn.groups[pn.page*personaPageSize].lineage
	}
	var data client.ServerData
	err := b.api.Do(ctx, p, client.OpPanelPersonaEntries, map[string]any{"s": pn.guild, "l": pn.lineage, "full": o.full || rt.entry != 0}, &data)
	if err != nil {
		return fmt.Errorf("read persona book: %w", err)
	}
	if data.Server == nil || data.Server.PersonaBook == nil {
		return fmt.Errorf("persona book %d: %w", pn.lineage, errUnavailable)
	}
	pn.bookSettings = data.Server.PersonaBook.BookSettings
	pn.setEntries(data.Server.PersonaBook.Entries, rt.entry)
	return nil
}

func (b *Bot) loadServerwide(ctx context.Context, p *auth.Principal, pn *panel, rt route, o loadOpts) error {
	if rt.collection != 0 {
		id := strconv.FormatInt(rt.collection, 10)
		i := slices.IndexFunc(pn.books, func(c model.Collection) bool { return c.ID == id })
		if i < 0 {
			pn.stale = true
			pn.addReceipt("That lorebook was deleted, so nothing was changed. Showing the current lorebooks.")
			pn.page, pn.entryPage = 0, 0
			rt.entry = 0
		} else {
			pn.book = &pn.books[i]
			// Keep the picker on the page that holds the selected book.
			pn.page = i / bookPageSize
		}
	}
	pn.page = clampPage(pn.page, len(pn.books), bookPageSize)
	if pn.book == nil && len(pn.books) > 0 {
		pn.book = &pn.books[pn.page*bookPageSize]
		pn.entryPage = 0
	}
	if pn.book == nil {
		return nil
	}
	var data client.ServerData
	err := b.api.Do(ctx, p, client.OpPanelCollectionEntries, map[string]any{"s": pn.guild, "n": pn.book.Name, "full": o.full || rt.entry != 0}, &data)
	if err != nil {
		return fmt.Errorf("read collection: %w", err)
	}
	if data.Server == nil || data.Server.Collection == nil {
		// Renamed or deleted between the two reads.
		pn.stale = true
		pn.addReceipt("That lorebook changed while the panel was loading. Nothing was changed.")
		pn.book = nil
		return nil
	}
	pn.bookSettings = pn.book.BookSettings
	pn.setEntries(data.Server.Collection.Entries, rt.entry)
	return nil
}

// setEntries stores a scope's entries and resolves the selected one.
func (pn *panel) setEntries(conn model.EntryConnection, entry int64) {
	pn.entries = make([]model.Entry, 0, len(conn.Edges))
	for _, e := range conn.Edges {
		pn.entries = append(pn.entries, e.Node)
	}
	if entry != 0 {
		id := strconv.FormatInt(entry, 10)
		i := slices.IndexFunc(pn.entries, func(e model.Entry) bool { return e.ID == id })
		if i < 0 {
			pn.stale = true
			pn.addReceipt("That entry was deleted, so nothing was changed.")
		} else {
			pn.entry = &pn.entries[i]
			pn.view = viewEntry
			pn.entryPage = i / entryPageSize
		}
	}
	pn.entryPage = clampPage(pn.entryPage, len(pn.entries), entryPageSize)
}

// groupPersonas groups active personas by lineage (personas sharing a
// lineage share its book), ordered by lineage id. Lineages whose personas
// were all removed are left out: their lore survives, but a route to them is
// stale.
func groupPersonas(ps []model.Persona, counts map[int64]int) []lineageGroup {
	idx := map[int64]int{}
	var out []lineageGroup
	for _, p := range ps {
		if p.Removed || p.LineageID <= 0 {
			continue
		}
		i, ok := idx[p.LineageID]
		if !ok {
			i = len(out)
			idx[p.LineageID] = i
			out = append(out, lineageGroup{lineage: p.LineageID, personaID: p.ID, entries: counts[p.LineageID]})
		}
		out[i].names = append(out[i].names, p.Name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lineage < out[j].lineage })
	return out
}

// clampPage keeps page inside [0, pages) for n items.
func clampPage(page, n, size int) int {
	last := max(0, (n-1)/size)
	return min(max(page, 0), last)
}

// errUnavailable marks a read that could not complete (store down, server
// not registered): the member sees a retry message, never an empty scope.
var errUnavailable = errors.New("lore is unavailable")

// registerServer registers a guild the first time a member opens the
// panel, as the bot's service principal (servers are registered by the
// bot, the one client that knows which guilds it is in).
func (b *Bot) registerServer(ctx context.Context, guild string) error {
	name := "Discord server " + guild
	if b.guildName != nil {
		if n := b.guildName(guild); n != "" {
			name = n
		}
	}
	e, err := refused(b.api.Mutate(ctx, servicePrincipal(), client.OpUpsertServer, map[string]any{"discordId": guild, "name": name}, nil))
	if err != nil {
		return fmt.Errorf("register server: %w", err)
	}
	if e != nil {
		return fmt.Errorf("register server: %s: %w", e.Code, errUnavailable)
	}
	return nil
}
