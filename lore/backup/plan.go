package backup

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"loregate/lore"
	"loregate/lore/i18n"
)

// LegacyScanDepth is the scan depth of entries converted from keyword
// memories (docs/contract.md#migration: they scan five recent
// messages).
const LegacyScanDepth = 5

// LegacyExtension is the Extensions key under which a converted entry keeps
// its source memory's id and creation time ({"source_id":..,"created_at":..}).
const LegacyExtension = "loregate.legacy_memory"

// maxNotConverted bounds the per-memory list in a MemoryReport.
const maxNotConverted = 100

// LineageMapping maps one source lineage of a backup to a destination
// lineage (the bucket mapping; docs/contract.md "Workspace backups").
type LineageMapping struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Options are the destination facts a plan depends on.
type Options struct {
	// Server is the destination guild snowflake.
	Server string
	// LineageMap maps a source lineage (> 0) to its destination lineage
	// (> 0); unmapped lineages keep their id (the bucket mapping of seed
	// 000). Serverwide is never mapped.
	LineageMap map[lore.Lineage]lore.Lineage
	// MemoryTagging is the destination's memory-tagging setting: when false
	// converted memories become Always On. (Plan uses the backup's own, and
	// its budget unit below, when the backup carries the server's
	// settings: the import applies them first.)
	MemoryTagging bool
	// Current are the destination's entry counts per scope (for the
	// preview); nil means unknown (counted as 0).
	Current lore.ScopeCounts
	// BudgetUnit is the destination's budget unit: a book's settings are
	// validated in it (lore.BookSettings.Validate), as the API's settings
	// mutation does.
	BudgetUnit lore.BudgetUnit
	// SemanticRanker is the destination's semantic ranker ("" is AUTO).
	// A restore never widens where lore goes: when it never sends lore
	// out (LEXICAL, OFF) and the backup's would (AUTO, EMBEDDINGS), the
	// destination keeps it (SettingsPlan.Skipped names semanticRanker).
	SemanticRanker lore.SemanticRanker
}

// ScopePlan is what an import does to one destination scope.
type ScopePlan struct {
	Lineage lore.Lineage `json:"lineage"`
	// Included: the backup carries this scope's book, which replaces the
	// whole scope. Otherwise the scope is preserved.
	Included bool `json:"included"`
	// Incoming is the number of entries of the included book.
	Incoming int `json:"incoming"`
	// Current is the number of entries the destination holds now (all of
	// them are replaced when Included).
	Current int `json:"current"`
	// Converted is the number of legacy keyword memories appended to the
	// scope after any replacement (duplicates are skipped at commit).
	Converted int `json:"converted"`
}

// NotConverted names a memory that stays a memory, and why.
type NotConverted struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// MemoryReport counts what the legacy-memory mapping did.
type MemoryReport struct {
	// Total memories read; Converted became entries (before deduplication).
	Total     int `json:"total"`
	Converted int `json:"converted"`
	// ChannelOnly memories had only #channel tags (or channel ids) and no
	// keyword: not converted (docs/contract.md#migration: channel-only memories stay out).
	ChannelOnly int `json:"channel_only"`
	// Untagged memories had no tag at all: not converted.
	Untagged int `json:"untagged"`
	// ServerwideChannelsDropped counts converted Serverwide memories whose
	// channel ids were dropped (Serverwide entries take their collection's
	// channels; docs/contract.md#migration).
	ServerwideChannelsDropped int `json:"serverwide_channels_dropped"`
	// NotConverted lists the first 100 memories left as memories.
	NotConverted []NotConverted `json:"not_converted"`
}

// ImportPlan is a previewed backup import.
type ImportPlan struct {
	// Replace holds the included scopes for lore.Store.ReplaceScopes.
	Replace []lore.ScopeReplacement `json:"-"`
	// Conversions holds, per destination scope, the converted memories to
	// append (Append mode, deduplicated against the scope).
	Conversions map[lore.Lineage][]lore.Entry `json:"-"`
	// Scopes lists every scope the import includes, converts into, or
	// preserves (Serverwide first, then by lineage).
	Scopes   []ScopePlan  `json:"scopes"`
	Memories MemoryReport `json:"memories"`
	// Books holds the organisation of every included book that has any
	// (categories, a written description or tags, settings), Serverwide
	// first. The entries of Replace name their category by its id in the
	// backup (Category.ID of their BookPlan); the importer maps them.
	Books []BookPlan `json:"-"`
	// Settings is what the import does with the server's settings.
	Settings SettingsPlan `json:"server_settings"`
	// OtherServerChannels counts, onto another server than the backup's,
	// the restored lore whose channel lists name the source server's
	// channels (zero onto the same server).
	OtherServerChannels OtherChannels `json:"other_server_channels"`
}

// OtherChannels counts restored lore whose channel lists name channels of
// the server a backup was exported from, when it is imported onto another
// server (docs/contract.md#backups). The lists are restored as they are:
// Discord channel ids belong to one server, so while channel scoping is
// on that lore is admitted in no channel of the destination until a
// manager chooses its channels. Restoring them keeps where lore shows
// from widening (a list restricts lore to some channels for a reason);
// the preview and the report say so, since the lore is silent otherwise.
type OtherChannels struct {
	// Collections are the Serverwide collections with a channel list.
	Collections int `json:"collections"`
	// Entries are the persona entries with channel ids, converted
	// memories included (Serverwide entries follow their collection's).
	Entries int `json:"entries"`
}

// countOtherChannels sets p.OtherServerChannels when the backup comes
// from another server than the destination.
func (p *ImportPlan) countOtherChannels() {
	if p.Settings.SameServer {
		return
	}
	var oc OtherChannels
	for _, r := range p.Replace {
		named := map[string]bool{}
		for _, c := range r.Collections {
			if len(c.ChannelIDs) > 0 && !named[c.Name] {
				named[c.Name] = true
				oc.Collections++
			}
		}
		for _, e := range r.Entries {
			if !r.Lineage.IsServerwide() && len(e.ChannelIDs) > 0 {
				oc.Entries++
			}
		}
	}
	for l, es := range p.Conversions {
		for _, e := range es {
			if !l.IsServerwide() && len(e.ChannelIDs) > 0 {
				oc.Entries++
			}
		}
	}
	p.OtherServerChannels = oc
}

// SettingsPlan is what a backup import does with the server's settings
// and workbench settings (docs/contract.md#backups).
type SettingsPlan struct {
	// Included: the backup carries the server's settings; they replace
	// the destination's, every field (one the backup leaves out takes its
	// default). False for backups written before them: the destination
	// keeps its own.
	Included bool `json:"included"`
	// Workbench: the backup carries the workbench settings; its proposals
	// switch replaces the destination's, and onto the same server its
	// proposal channel and lore editor role too.
	Workbench bool `json:"workbench"`
	// SameServer: the backup was exported from the destination server.
	SameServer bool `json:"same_server"`
	// Skipped names the settings the import leaves as they are although
	// the backup carries them: the Discord ids of the source server
	// (proposalChannelId, loreEditorRoleId), which mean nothing on
	// another server, and the semantic ranker when the backup's would
	// send lore out and the destination's does not (semanticRanker).
	Skipped []string `json:"skipped,omitempty"`
	// SkippedReason says why Skipped were left, in words: the distinct
	// reasons of SkippedReasons joined by "; ".
	SkippedReason string `json:"skipped_reason,omitempty"`
	// SkippedReasons gives each of Skipped its reason, in the same order.
	SkippedReasons []SkippedSetting `json:"skipped_reasons,omitempty"`
	// Changed: the import changed the destination's settings (set by the
	// importer, false in a preview).
	Changed bool `json:"changed,omitempty"`
	// Server is what the importer stores as the server's settings (nil:
	// keep them); WorkbenchPatch what it applies of the workbench
	// settings (nil: nothing).
	Server         *lore.ServerSettings         `json:"-"`
	WorkbenchPatch *lore.WorkbenchSettingsPatch `json:"-"`
}

// SkippedOtherServer is SettingsPlan.SkippedReason for a backup of
// another server (the text of SkipOtherServer).
const SkippedOtherServer = "the backup was exported from another server: its channel and role ids mean nothing here"

// SkippedKeepsLoreLocal is the text of SkipKeepsLoreLocal.
const SkippedKeepsLoreLocal = "this server's semantic ranker never sends lore out and the backup's would send it to the embeddings provider: a restore never widens where lore goes"

// SkipReason says why an import leaves a setting the backup carries.
type SkipReason string

// The reasons of SkippedSetting.
const (
	// SkipOtherServer: a Discord id of the server the backup came from,
	// which means nothing on another server.
	SkipOtherServer SkipReason = "other_server"
	// SkipKeepsLoreLocal: the destination's semantic ranker never sends
	// lore out (LEXICAL, OFF) and the backup's would (AUTO, EMBEDDINGS).
	SkipKeepsLoreLocal SkipReason = "keeps_lore_local"
)

// Text is the reason in words (SettingsPlan.SkippedReason).
func (r SkipReason) Text() string {
	if r == SkipKeepsLoreLocal {
		return SkippedKeepsLoreLocal
	}
	return SkippedOtherServer
}

// SkippedSetting is one setting an import leaves as it is, and why.
type SkippedSetting struct {
	// Setting is the API's name of the setting (semanticRanker,
	// proposalChannelId, loreEditorRoleId).
	Setting string     `json:"setting"`
	Reason  SkipReason `json:"reason"`
}

// skip adds settings to the skipped ones with reason (none: nothing).
func (sp *SettingsPlan) skip(reason SkipReason, settings ...string) {
	if len(settings) == 0 {
		return
	}
	for _, s := range settings {
		sp.Skipped = append(sp.Skipped, s)
		sp.SkippedReasons = append(sp.SkippedReasons, SkippedSetting{Setting: s, Reason: reason})
	}
	if !strings.Contains(sp.SkippedReason, reason.Text()) {
		if sp.SkippedReason != "" {
			sp.SkippedReason += "; "
		}
		sp.SkippedReason += reason.Text()
	}
}

// planSettings plans the server's settings of doc into opts.Server and
// returns the budget unit and memory tagging the rest of the import works
// with: the backup's when it carries settings (they are applied first),
// else the destination's. The destination keeps a semantic ranker that
// never sends lore out when the backup's would (Options.SemanticRanker).
// Settings out of range refuse the file
// (lore.ErrInvalid, field "server.settings.<field>"), as do workbench ids
// that are no snowflakes ("server.workbench.<field>").
func planSettings(doc Document, opts Options) (SettingsPlan, lore.BudgetUnit, bool, error) {
	sp := SettingsPlan{SameServer: doc.Server.DiscordID != "" && doc.Server.DiscordID == opts.Server}
	unit, tagging := opts.BudgetUnit, opts.MemoryTagging
	if set := doc.Server.Settings; set != nil {
		if err := set.Validate(); err != nil {
			return SettingsPlan{}, "", false, lore.WithFieldPrefix("server.settings", err)
		}
		s := *set
		s.BudgetUnit, s.Tokenizer = s.Unit(), s.TokenizerOrDefault()
		if s.Semantic.Ranker.SendsOut() && !opts.SemanticRanker.SendsOut() {
			s.Semantic.Ranker = opts.SemanticRanker
			sp.skip(SkipKeepsLoreLocal, "semanticRanker")
		}
		sp.Included, sp.Server = true, &s
		unit, tagging = s.BudgetUnit, s.MemoryTagging
	}
	if w := doc.Server.Workbench; w != nil {
		for _, f := range []struct{ name, v string }{{"proposalChannelId", w.ProposalChannelID}, {"loreEditorRoleId", w.LoreEditorRoleID}} {
			if f.v != "" && !lore.ValidSnowflake(f.v) {
				return SettingsPlan{}, "", false, lore.Reject("server.workbench."+f.name, i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(f.v, 40)})
			}
		}
		enabled, channel, role := w.ProposalsEnabled, w.ProposalChannelID, w.LoreEditorRoleID
		sp.Workbench, sp.WorkbenchPatch = true, &lore.WorkbenchSettingsPatch{ProposalsEnabled: &enabled}
		if sp.SameServer {
			sp.WorkbenchPatch.ProposalChannelID, sp.WorkbenchPatch.LoreEditorRoleID = &channel, &role
		} else {
			// Only the ids the backup carries are skipped: an empty one
			// has nothing to apply.
			var carried []string
			for _, f := range []struct{ name, v string }{{"proposalChannelId", channel}, {"loreEditorRoleId", role}} {
				if f.v != "" {
					carried = append(carried, f.name)
				}
			}
			sp.skip(SkipOtherServer, carried...)
		}
	}
	return sp, unit, tagging, nil
}

// BookPlan is one included book's organisation: a persona lineage's book
// (Collection "") or a Serverwide collection by name.
type BookPlan struct {
	Lineage    lore.Lineage
	Collection string
	Book
}

// Plan computes the import of doc into opts.Server without writing: which
// scopes are replaced and with what, which memories convert, and the
// per-scope counts the preview shows. Entries are not validated here
// (ReplaceScopes validates the whole batch before deleting anything).
// Errors wrap lore.ErrInvalid: a bucket or mapping with a lineage <= 0,
// two buckets mapped to one lineage with different books, or a book's
// settings out of range (the field names the book, e.g.
// "serverwide_lorebooks[0].settings.scanDepth"), or the server's settings
// out of range ("server.settings.<field>"). A backup that carries the
// server's settings is planned with them (its books' settings are checked
// in its budget unit, its memories converted with its memory tagging),
// since the import applies them first.
func Plan(doc Document, opts Options) (ImportPlan, error) {
	plan := ImportPlan{Conversions: map[lore.Lineage][]lore.Entry{}, Memories: MemoryReport{NotConverted: []NotConverted{}}}
	for from, to := range opts.LineageMap {
		if from <= 0 || to <= 0 {
			return ImportPlan{}, lore.Reject("lineageMap", i18n.LineageMapPositive, nil)
		}
	}
	dest := func(src lore.Lineage) lore.Lineage {
		if to, ok := opts.LineageMap[src]; ok {
			return to
		}
		return src
	}
	var err error
	if plan.Settings, opts.BudgetUnit, opts.MemoryTagging, err = planSettings(doc, opts); err != nil {
		return ImportPlan{}, err
	}
	if err := checkSettings(doc, opts.BudgetUnit); err != nil {
		return ImportPlan{}, err
	}
	books := map[lore.Lineage][]lore.Entry{}
	positions := map[lore.Lineage][]int{}
	bookFrom := map[lore.Lineage]int{}
	var order []lore.Lineage
	for i, b := range doc.Personas {
		src := lore.Lineage(b.LineageID)
		if src <= 0 {
			return ImportPlan{}, lore.Reject(fmt.Sprintf("personas[%d].lineage_id", i), i18n.MustBePositive, nil)
		}
		dst := dest(src)
		if b.LorebookEntries != nil {
			entries := make([]lore.Entry, len(*b.LorebookEntries))
			sorted, pos := inIDOrder(*b.LorebookEntries)
			for j, be := range sorted {
				entries[j] = be.toEntry(opts.Server, dst)
			}
			if prev, ok := books[dst]; ok {
				if !sameBook(prev, entries) {
					return ImportPlan{}, lore.Reject(fmt.Sprintf("personas[%d]", i), i18n.PersonaBookConflict,
						lore.Params{"lineage": int64(dst), "other": bookFrom[dst]})
				}
			} else {
				books[dst], positions[dst], bookFrom[dst] = entries, pos, i
				order = append(order, dst)
				plan.addBook(BookPlan{Lineage: dst, Book: b.Book})
			}
		}
		for _, m := range b.Memories {
			plan.convert(m, dst, opts)
		}
	}
	for _, l := range order {
		plan.Replace = append(plan.Replace, lore.ScopeReplacement{Lineage: l, Entries: books[l], Positions: positions[l]})
	}
	if doc.ServerwideLorebookEntries != nil {
		sc := lore.ScopeReplacement{Lineage: lore.Serverwide}
		var org []BookPlan
		for _, c := range doc.ServerwideLorebooks {
			sc.Collections = append(sc.Collections, lore.Collection{Name: c.Name, Enabled: c.Enabled, ChannelIDs: c.ChannelDiscIDs})
			if c.Book.written() {
				org = append(org, BookPlan{Lineage: lore.Serverwide, Collection: c.Name, Book: c.Book})
			}
		}
		plan.Books = append(org, plan.Books...)
		var sorted []Entry
		sorted, sc.Positions = inIDOrder(*doc.ServerwideLorebookEntries)
		for _, be := range sorted {
			e := be.toEntry(opts.Server, lore.Serverwide)
			sc.Entries = append(sc.Entries, e)
			if be.LorebookEnabled != nil || be.LorebookChannelDiscIDs != nil {
				enabled := be.LorebookEnabled == nil || *be.LorebookEnabled
				sc.Collections = append(sc.Collections, lore.Collection{Name: e.Collection, Enabled: enabled, ChannelIDs: be.LorebookChannelDiscIDs})
			}
		}
		plan.Replace = append([]lore.ScopeReplacement{sc}, plan.Replace...)
	}
	for _, m := range doc.ServerMemories {
		l := lore.Serverwide
		if m.PersonaLineageID != nil && *m.PersonaLineageID > 0 {
			l = dest(lore.Lineage(*m.PersonaLineageID))
		}
		plan.convert(m, l, opts)
	}

	scopes := map[lore.Lineage]*ScopePlan{}
	get := func(l lore.Lineage) *ScopePlan {
		if s, ok := scopes[l]; ok {
			return s
		}
		s := &ScopePlan{Lineage: l, Current: opts.Current[l]}
		scopes[l] = s
		return s
	}
	for _, r := range plan.Replace {
		s := get(r.Lineage)
		s.Included, s.Incoming = true, len(r.Entries)
	}
	for l, es := range plan.Conversions {
		get(l).Converted = len(es)
	}
	for l, n := range opts.Current {
		if n > 0 || l.IsServerwide() {
			get(l)
		}
	}
	ls := make([]lore.Lineage, 0, len(scopes))
	for l := range scopes {
		ls = append(ls, l)
	}
	sortLineages(ls)
	for _, l := range ls {
		plan.Scopes = append(plan.Scopes, *scopes[l])
	}
	plan.countOtherChannels()
	return plan, nil
}

// inIDOrder returns a scope's backup entries in their source ids' order
// (Entry.ID), the order the import writes them in so that their new ids
// keep the source's order, and each one's position in the file (nil when
// the file's order is kept), which an invalid entry's field names
// (lore.ScopeReplacement.Positions). When an entry has no id (a backup
// written before them) or two share one, the file's order is kept.
func inIDOrder(es []Entry) ([]Entry, []int) {
	seen := make(map[int64]bool, len(es))
	for _, e := range es {
		if e.ID <= 0 || seen[e.ID] {
			return es, nil
		}
		seen[e.ID] = true
	}
	pos := make([]int, len(es))
	for i := range pos {
		pos[i] = i
	}
	slices.SortFunc(pos, func(a, b int) int { return cmp.Compare(es[a].ID, es[b].ID) })
	out := make([]Entry, len(es))
	for j, i := range pos {
		out[j] = es[i]
	}
	return out, pos
}

// addBook adds b to the plan when it has anything to write.
func (p *ImportPlan) addBook(b BookPlan) {
	if b.written() {
		p.Books = append(p.Books, b)
	}
}

// written reports whether b carries anything an import writes.
func (b Book) written() bool {
	return b.Categories != nil || b.Description != nil || b.Tags != nil || b.Settings != nil
}

// checkSettings validates the settings of every book of doc in unit with
// lore.BookSettings.Validate, the API's settings rules; the error's field
// names the book ("personas[i].settings.<field>" or
// "serverwide_lorebooks[i].settings.<field>").
func checkSettings(doc Document, unit lore.BudgetUnit) error {
	for i, b := range doc.Personas {
		if b.Settings != nil {
			if err := b.Settings.Validate(unit); err != nil {
				return lore.WithFieldPrefix(fmt.Sprintf("personas[%d].settings", i), err)
			}
		}
	}
	for i, c := range doc.ServerwideLorebooks {
		if c.Settings != nil {
			if err := c.Settings.Validate(unit); err != nil {
				return lore.WithFieldPrefix(fmt.Sprintf("serverwide_lorebooks[%d].settings", i), err)
			}
		}
	}
	return nil
}

func sameBook(a, b []lore.Entry) bool {
	if len(a) != len(b) {
		return false
	}
	// Whole entries: two buckets mapped to one lineage agree only when every
	// field does (channels, flags, activation settings, pending names).
	for i := range a {
		ja, errA := json.Marshal(a[i])
		jb, errB := json.Marshal(b[i])
		if errA != nil || errB != nil || !bytes.Equal(ja, jb) {
			return false
		}
	}
	return true
}

func (p *ImportPlan) convert(m Memory, lineage lore.Lineage, opts Options) {
	p.Memories.Total++
	e, outcome := ConvertMemory(m, opts.Server, lineage, !opts.MemoryTagging)
	switch outcome {
	case Converted:
		p.Memories.Converted++
		if lineage.IsServerwide() && len(m.ChannelDiscIDs) > 0 {
			p.Memories.ServerwideChannelsDropped++
		}
		p.Conversions[lineage] = append(p.Conversions[lineage], e)
		return
	case ChannelOnly:
		p.Memories.ChannelOnly++
	default:
		p.Memories.Untagged++
	}
	if len(p.Memories.NotConverted) < maxNotConverted {
		src := strings.Trim(string(m.ID), `"`)
		if src == "" {
			src = fmt.Sprintf("memory %d", p.Memories.Total)
		}
		p.Memories.NotConverted = append(p.Memories.NotConverted, NotConverted{Source: lore.ClipBytes(src, 64), Reason: outcome.String()})
	}
}

// Outcome is what ConvertMemory did with a memory.
type Outcome int

// The outcomes of ConvertMemory.
const (
	// Converted: the memory had at least one keyword tag.
	Converted Outcome = iota
	// ChannelOnly: only #channel tags or channel ids; stays a memory.
	ChannelOnly
	// Untagged: no tags at all; stays a memory.
	Untagged
)

func (o Outcome) String() string {
	switch o {
	case Converted:
		return "converted"
	case ChannelOnly:
		return "channel-only memory: no keyword tag, not converted"
	default:
		return "no keyword tags: not converted"
	}
}

// ConvertMemory maps a keyword-tagged server memory to a lorebook entry of
// lineage on server, following docs/contract.md#migration
// and docs/contract.md#backups: tags are trimmed and blank ones dropped; a tag starting with
// '#' is a legacy channel name (kept, without '#', as a pending
// LegacyChannelTags marker) and never a keyword; the remaining tags, in
// order and without repeats, are the keys. A memory with no keyword is not
// converted (ChannelOnly or Untagged). The entry scans LegacyScanDepth
// messages, is Always On when alwaysOn (the destination's memory tagging is
// off), keeps the memory's channel ids (persona lineages only: Serverwide
// entries take their collection's channels and go to
// lore.DefaultCollection), and records the source id and creation time
// under LegacyExtension; the memory's creation time is the entry's
// CreatedAt. Its title is derived from the content, so the same
// memory converts to the same duplicate identity (lore.DuplicateKey) every
// time and repeated imports add it once. No text is truncated to fit a
// limit: an over-long memory fails validation at commit.
func ConvertMemory(m Memory, server string, lineage lore.Lineage, alwaysOn bool) (lore.Entry, Outcome) {
	tags := m.KeywordTags
	if tags == nil {
		tags = m.Tags
	}
	var keys, channels []string
	seenKey, seenChan := map[string]bool{}, map[string]bool{}
	for _, t := range tags {
		t = normalizeTag(t)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			name := strings.TrimSpace(strings.TrimLeft(t, "#"))
			if name != "" && !seenChan[name] {
				seenChan[name] = true
				channels = append(channels, name)
			}
			continue
		}
		if !seenKey[t] {
			seenKey[t] = true
			keys = append(keys, t)
		}
	}
	if len(keys) == 0 {
		if len(channels) > 0 || len(m.ChannelDiscIDs) > 0 {
			return lore.Entry{}, ChannelOnly
		}
		return lore.Entry{}, Untagged
	}
	e := lore.NewEntry()
	e.Server, e.Lineage = server, lineage
	e.Title = memoryTitle(m.Content)
	e.Content = m.Content
	e.Keys = keys
	depth := LegacyScanDepth
	e.ScanDepth = &depth
	e.Constant = alwaysOn
	e.LegacyChannelTags = channels
	if lineage.IsServerwide() {
		e.Collection = lore.DefaultCollection
	} else if len(m.ChannelDiscIDs) > 0 {
		e.ChannelIDs = append([]string(nil), m.ChannelDiscIDs...)
	}
	ext := map[string]any{}
	if len(m.ID) > 0 {
		ext["source_id"] = m.ID
	}
	if !m.CreatedAt.IsZero() {
		ext["created_at"] = m.CreatedAt.UTC().Format(time.RFC3339Nano)
		e.CreatedAt = m.CreatedAt // the entry is as old as the memory
	}
	if len(ext) > 0 {
		raw, _ := json.Marshal(ext)
		e.Extensions = map[string]json.RawMessage{LegacyExtension: raw}
	}
	return e, Converted
}

// memoryTitle is the first line of content, at most 60 characters.
func memoryTitle(content string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	return lore.ClipBytes(strings.TrimSpace(line), 60)
}
