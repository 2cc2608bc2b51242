// Package backup encodes and decodes loregate's workspace backups — the
// "All Personas" bundle of docs/contract.md#backups — and plans their
// import. It is pure: no I/O, no database; the jobs package reads the store,
// calls [Build] and [Plan], and writes the result in one transaction.
//
// # Document
//
// A backup is one JSON object ([Document]) with snake_case fields:
//
//   - personas: one bucket per persona of the registry (removed ones too)
//     plus one per lore-only lineage (a lineage with lore and no persona).
//     Each bucket carries its lineage's complete book in lorebook_entries.
//   - serverwide_lorebook_entries: every Serverwide entry with its
//     lorebook_name, lorebook_enabled and lorebook_channel_disc_ids (the
//     seed's per-entry collection grouping and settings);
//     serverwide_lorebooks also lists every collection with its settings,
//     so empty collections survive a round trip.
//   - Entries carry their channel ids (persona scope) and pending legacy
//     channel names (legacy_channel_tags) until the backfill resolves them,
//     and their id in the source (id), which only orders the import:
//     restored entries get new ids (docs/contract.md#backups).
//   - Each book (a bucket, an entry of serverwide_lorebooks) carries its
//     categories (with their ids in the source, which its entries'
//     category_id name) and, once a lore writer wrote them, its
//     description and tags (docs/workbench.md#categories), and its
//     settings (an object with lore.BookSettings' field names; absent in
//     older backups, whose import keeps the destination's).
//   - server carries the source server's id and name, its settings
//     (settings, with lore.ServerSettings' field names) and its workbench
//     settings (workbench); both are absent in older backups, whose import
//     keeps the destination's.
//   - Older backups carry keyword-tagged server memories (memories in a
//     bucket, server_memories at the top); see [ConvertMemory].
//
// # Import semantics
//
// A present book array (even empty) replaces its entire scope; an absent
// one preserves the destination's lore (docs/contract.md#backups: "Included books replace
// their entire scopes even with memory Merge. Absent books preserve existing
// lore."). Bucket mapping chooses each source lineage's destination lineage;
// Serverwide stays Serverwide.
package backup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"loregate/lore"
)

// FormatName is the value of Document.Format.
const FormatName = "loregate-workspace-backup"

// Version is the document version Build writes and Decode accepts (1).
const Version = 1

// MaxBytes bounds a backup file, the same bound for export and import (the
// API's upload limit), so that every backup loregate writes can be read
// back. Compact JSON of a server with its Serverwide scope and a dozen full
// persona books (250 entries of 4,000 characters each) fits.
const MaxBytes = 16 << 20

// MaxBuckets bounds the persona buckets of one backup.
const MaxBuckets = 1000

// ErrNotBackup reports a file that is not a workspace backup (wrong format
// marker or version, malformed JSON). It matches lore.ErrInvalid too.
var ErrNotBackup = fmt.Errorf("not a loregate workspace backup: %w", lore.ErrInvalid)

// Document is a workspace backup.
type Document struct {
	// Format is FormatName; Version is Version.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// ExportType is "all_personas" for the bundles Build writes.
	ExportType string    `json:"export_type"`
	ExportedAt time.Time `json:"exported_at"`
	Server     Server    `json:"server"`
	Personas   []Bucket  `json:"personas"`
	// ServerwideLorebookEntries: nil (absent) preserves the destination's
	// Serverwide lore; non-nil (even empty) replaces it.
	ServerwideLorebookEntries *[]Entry `json:"serverwide_lorebook_entries,omitempty"`
	// ServerwideLorebooks lists collection settings, empty collections too.
	ServerwideLorebooks []Collection `json:"serverwide_lorebooks,omitempty"`
	// ServerMemories are an older backup's server memories (not persona
	// bucketed); PersonaLineageID nil means Serverwide.
	ServerMemories []Memory `json:"server_memories,omitempty"`
}

// Server describes the source server.
type Server struct {
	DiscordID      string `json:"discord_id"`
	Name           string `json:"name"`
	ChannelScoping *bool  `json:"channel_memory_enabled,omitempty"`
	MemoryTagging  *bool  `json:"memory_tagging_enabled,omitempty"`
	// Settings are the server's settings with the API's field names
	// (lore.ServerSettings: channelScoping, memoryTagging, regexKeys,
	// budgetUnit, budgetLimit, tokenizer, semantic, minActivations,
	// minActivationsDepthMax, maxEntries, includeNames; an absent field
	// takes its default). Build writes them; nil (backups written before
	// them) keeps the destination's settings.
	Settings *lore.ServerSettings `json:"settings,omitempty"`
	// Workbench are the server's workbench settings (Workbench); nil in
	// backups written before them keeps the destination's.
	Workbench *Workbench `json:"workbench,omitempty"`
}

// UnmarshalJSON decodes a backup's server object. The fields its
// settings and workbench leave out take their defaults
// (lore.DefaultServerSettings: channel scoping and memory tagging on; the
// proposals switch on), not Go's zero values, as docs/contract.md#backups
// says: a file whose "settings" lack channelScoping must not turn channel
// scoping off on the destination (lore would show in every channel). A
// wrong type is named from the server object (settings.budgetLimit).
func (s *Server) UnmarshalJSON(data []byte) error {
	type plain Server
	var raw struct {
		plain
		Settings  json.RawMessage `json:"settings"`
		Workbench json.RawMessage `json:"workbench"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			te.Field = strings.TrimPrefix(te.Field, "plain.") // the embedding is no field of the file
		}
		return err
	}
	*s = Server(raw.plain)
	if given(raw.Settings) {
		set := lore.DefaultServerSettings()
		if err := decodeField("settings", raw.Settings, &set); err != nil {
			return err
		}
		s.Settings = &set
	}
	if given(raw.Workbench) {
		w := Workbench{ProposalsEnabled: true}
		if err := decodeField("workbench", raw.Workbench, &w); err != nil {
			return err
		}
		s.Workbench = &w
	}
	return nil
}

// given reports whether a member is present and not null.
func given(raw json.RawMessage) bool { return len(raw) > 0 && !bytes.Equal(raw, []byte("null")) }

// decodeField decodes member field's raw value onto v, naming field in a
// wrong type's path.
func decodeField(field string, raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		te.Field = strings.TrimSuffix(field+"."+te.Field, ".")
	}
	return err
}

// Workbench are a server's workbench settings (lore.WorkbenchSettings,
// docs/workbench.md): the proposals switch, and the Discord ids of the
// proposal channel and the lore editor role ("" = none). The ids name
// things of the source server: an import applies them only onto that same
// server (ImportPlan.Settings).
type Workbench struct {
	ProposalsEnabled  bool   `json:"proposalsEnabled"`
	ProposalChannelID string `json:"proposalChannelId"`
	LoreEditorRoleID  string `json:"loreEditorRoleId"`
}

// Bucket is one persona (or lore-only lineage) of the bundle.
type Bucket struct {
	// PersonaID is 0 for a lore-only lineage.
	PersonaID int64  `json:"persona_id,omitempty"`
	LineageID int64  `json:"lineage_id"`
	Name      string `json:"name,omitempty"`
	Removed   bool   `json:"removed,omitempty"`
	// LorebookEntries: nil (absent) preserves the destination lineage's
	// book; non-nil (even empty) replaces it.
	LorebookEntries *[]Entry `json:"lorebook_entries,omitempty"`
	// Book is the lineage's book's organisation.
	Book
	// Memories are an older backup's memories of this persona.
	Memories []Memory `json:"memories,omitempty"`
}

// Collection is a Serverwide collection's settings.
type Collection struct {
	Name           string   `json:"name"`
	Enabled        bool     `json:"enabled"`
	ChannelDiscIDs []string `json:"channel_disc_ids"`
	// Book is the collection's organisation.
	Book
}

// Book is how a book is organised (docs/workbench.md#categories; none of
// it is sent to the model) and its settings. Absent in backups written
// before it.
type Book struct {
	// Categories of the book, with their ids in the source server: the
	// book's entries name them in category_id.
	Categories []Category `json:"categories,omitempty"`
	// Description and Tags are carried once a lore writer wrote them (nil:
	// none written; the destination's are kept).
	Description *string  `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Settings are the book's settings with the API's field names
	// (lore.BookSettings: scanDepth, budgetLimit, maxBudgetShare,
	// recursive, maxRecursionSteps, caseSensitive, wholeWords,
	// semanticAllEntries; an absent field inherits). Build writes them for
	// every book; nil (backups written before them) keeps the
	// destination's settings.
	Settings *lore.BookSettings `json:"settings,omitempty"`
}

// Category is one category of a book.
type Category struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	SortOrder int    `json:"sort_order"`
	Enabled   bool   `json:"enabled"`
}

// BookData is what Build writes of each book's organisation: the server's
// categories (lore.Category: CollectionID or Lineage) and the info written
// for its books.
type BookData struct {
	Categories []lore.Category
	// Info holds the written description and tags of books, by BookKey.
	Info map[BookKey]lore.BookInfo
	// PersonaSettings holds the stored book settings of persona lineages
	// (a lineage without any has none set). Collections carry their own
	// (lore.Collection.Settings).
	PersonaSettings map[lore.Lineage]lore.BookSettings
	// Workbench is the server's workbench settings (nil: not written).
	Workbench *lore.WorkbenchSettings
}

// BookKey addresses a book: a collection id, or (CollectionID 0) a persona
// lineage.
type BookKey struct {
	CollectionID int64
	Lineage      lore.Lineage
}

// book is the Book of the book at k.
func (d BookData) book(k BookKey) Book {
	var b Book
	for _, c := range d.Categories {
		if c.CollectionID == k.CollectionID && (k.CollectionID != 0 || c.Lineage == k.Lineage) {
			b.Categories = append(b.Categories, Category{ID: c.ID, Name: c.Name, SortOrder: c.SortOrder, Enabled: c.Enabled})
		}
	}
	if info, ok := d.Info[k]; ok {
		desc := info.Description
		b.Description, b.Tags = &desc, nonNil(info.Tags)
	}
	if k.CollectionID == 0 {
		set := d.PersonaSettings[k.Lineage].Clone()
		b.Settings = &set
	}
	return b
}

// Entry is one lorebook entry as a backup carries it. Missing fields take
// the canonical defaults (lore.NewEntry): enabled, probability 100, default
// priority, AND_ANY, after the persona, system role.
type Entry struct {
	// ID is the entry's id in the source server. An import gives entries
	// new ids (ids are one sequence for every server) and uses these only
	// to write each scope's entries in the source's id order, so entries
	// of equal insertion order keep their relative order (ties by id);
	// absent in backups written before it, whose entries are written in
	// the file's order.
	ID             int64    `json:"id,omitempty"`
	Title          string   `json:"title"`
	Content        string   `json:"content"`
	Keys           []string `json:"keys"`
	SecondaryKeys  []string `json:"secondary_keys"`
	SelectiveLogic string   `json:"selective_logic"`
	Constant       bool     `json:"constant"`
	Enabled        *bool    `json:"enabled"`
	ScanDepth      *int     `json:"scan_depth"`
	Probability    *int     `json:"probability"`
	InsertionOrder int      `json:"insertion_order"`
	Priority       *int     `json:"priority"`
	Placement      string   `json:"placement"`
	Role           string   `json:"role"`
	// Position fields (docs/authoring.md "Positions"); absent in backups
	// written before them, whose entries take the position their source
	// kept in extensions (lore.Entry.NormalizePosition).
	Position          string                     `json:"position,omitempty"`
	Depth             *int                       `json:"depth,omitempty"`
	Outlet            string                     `json:"outlet,omitempty"`
	MatchSources      *lore.MatchSources         `json:"match_sources,omitempty"`
	CharacterFilter   *lore.CharacterFilter      `json:"character_filter,omitempty"`
	GenerationTypes   []string                   `json:"generation_types,omitempty"`
	CaseSensitive     *bool                      `json:"case_sensitive"`
	WholeWords        *bool                      `json:"whole_words"`
	ChannelDiscIDs    []string                   `json:"channel_disc_ids,omitempty"`
	LegacyChannelTags []string                   `json:"legacy_channel_tags,omitempty"`
	Extensions        map[string]json.RawMessage `json:"extensions,omitempty"`
	// Budget, inclusion group, recursion, timed effect and retrieval
	// fields, and the creator's note (docs/authoring.md); absent in
	// backups written before them, whose entries take lore.NewEntry's
	// defaults.
	IgnoreBudget        bool   `json:"ignore_budget,omitempty"`
	Group               string `json:"group,omitempty"`
	GroupOverride       bool   `json:"group_override,omitempty"`
	GroupWeight         *int   `json:"group_weight,omitempty"`
	UseGroupScoring     *bool  `json:"use_group_scoring,omitempty"`
	ExcludeRecursion    bool   `json:"exclude_recursion,omitempty"`
	PreventRecursion    bool   `json:"prevent_recursion,omitempty"`
	DelayUntilRecursion int    `json:"delay_until_recursion,omitempty"`
	Sticky              int    `json:"sticky,omitempty"`
	Cooldown            int    `json:"cooldown,omitempty"`
	Delay               int    `json:"delay,omitempty"`
	Vectorized          bool   `json:"vectorized,omitempty"`
	Note                string `json:"note,omitempty"`
	// CategoryID is the id of one of its book's Categories (0: none).
	CategoryID int64 `json:"category_id,omitempty"`
	// Serverwide grouping (docs/contract.md#backups): collection name and settings.
	LorebookName           *string  `json:"lorebook_name,omitempty"`
	LorebookEnabled        *bool    `json:"lorebook_enabled,omitempty"`
	LorebookChannelDiscIDs []string `json:"lorebook_channel_disc_ids,omitempty"`
}

// Memory is a server memory of an older backup. Only memories with
// non-empty cleaned keyword tags become lore (ConvertMemory).
type Memory struct {
	// ID is the source memory id (any JSON scalar), kept in the entry's
	// extensions.
	ID json.RawMessage `json:"id,omitempty"`
	// PersonaLineageID (top-level server_memories only): nil = Serverwide.
	PersonaLineageID *int64 `json:"persona_lineage_id,omitempty"`
	Content          string `json:"content"`
	// KeywordTags are the memory's tags; "#name" tags are legacy channel
	// names. Older exports call the field "tags"; both are read.
	KeywordTags    []string  `json:"keyword_tags,omitempty"`
	Tags           []string  `json:"tags,omitempty"`
	ChannelDiscIDs []string  `json:"channel_disc_ids,omitempty"`
	CreatedAt      time.Time `json:"created_at,omitzero"`
}

// Build makes the All Personas bundle of a server: a bucket per persona
// (removed ones included, by persona id) with its lineage's book, a bucket
// per lore-only lineage, every Serverwide entry with its collection
// settings, and every collection, each book with its categories, written
// description and tags, and settings (org; a collection's own), and the
// server's settings and workbench settings (org.Workbench). entries are
// the server's entries of both scopes; collections its collections.
func Build(server lore.Server, personas []lore.Persona, collections []lore.Collection, entries []lore.Entry, org BookData, now time.Time) Document {
	set := server.Settings
	set.BudgetUnit, set.Tokenizer = set.Unit(), set.TokenizerOrDefault()
	doc := Document{
		Format: FormatName, Version: Version, ExportType: "all_personas", ExportedAt: now.UTC(),
		Server: Server{DiscordID: server.ID, Name: server.Name,
			ChannelScoping: &server.Settings.ChannelScoping, MemoryTagging: &server.Settings.MemoryTagging, Settings: &set},
	}
	if w := org.Workbench; w != nil {
		doc.Server.Workbench = &Workbench{ProposalsEnabled: w.ProposalsEnabled, ProposalChannelID: w.ProposalChannelID,
			LoreEditorRoleID: w.LoreEditorRoleID}
	}
	cols := map[string]lore.Collection{}
	for _, c := range collections {
		cols[c.Name] = c
		book := org.book(BookKey{CollectionID: c.ID})
		set := c.Settings.Clone()
		book.Settings = &set
		doc.ServerwideLorebooks = append(doc.ServerwideLorebooks, Collection{Name: c.Name, Enabled: c.Enabled,
			ChannelDiscIDs: nonNil(c.ChannelIDs), Book: book})
	}
	serverwide := []Entry{}
	books := map[lore.Lineage][]Entry{}
	for _, e := range entries {
		if e.Lineage.IsServerwide() {
			be := fromEntry(e)
			c, ok := cols[e.Collection]
			if !ok {
				c = lore.Collection{Name: e.Collection, Enabled: true}
			}
			name, enabled := c.Name, c.Enabled
			be.LorebookName, be.LorebookEnabled, be.LorebookChannelDiscIDs = &name, &enabled, nonNil(c.ChannelIDs)
			serverwide = append(serverwide, be)
			continue
		}
		books[e.Lineage] = append(books[e.Lineage], fromEntry(e))
	}
	doc.ServerwideLorebookEntries = &serverwide
	seen := map[lore.Lineage]bool{}
	for _, p := range personas {
		book := nonNilEntries(books[p.Lineage])
		doc.Personas = append(doc.Personas, Bucket{PersonaID: p.ID, LineageID: int64(p.Lineage), Name: p.Name, Removed: p.Removed,
			LorebookEntries: &book, Book: org.book(BookKey{Lineage: p.Lineage})})
		seen[p.Lineage] = true
	}
	var loreOnly []lore.Lineage
	for l := range books {
		if !seen[l] {
			loreOnly = append(loreOnly, l)
		}
	}
	slices.Sort(loreOnly)
	for _, l := range loreOnly {
		book := books[l]
		doc.Personas = append(doc.Personas, Bucket{LineageID: int64(l), LorebookEntries: &book, Book: org.book(BookKey{Lineage: l})})
	}
	return doc
}

// ErrTooLarge reports a backup over MaxBytes.
var ErrTooLarge = errors.New("backup too large")

// Encode writes doc as compact JSON. A document over MaxBytes is
// ErrTooLarge: it could not be imported again.
func Encode(doc Document) ([]byte, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode backup: %w", err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, over the %d-byte limit a backup can be imported with; export fewer scopes", ErrTooLarge, len(b), MaxBytes)
	}
	return b, nil
}

// Decode reads a backup of at most MaxBytes. The format marker must be
// FormatName (or absent, for older backups) and the version at most
// Version; unknown fields are ignored. Errors wrap ErrNotBackup (and so
// lore.ErrInvalid) and never quote the file's content.
func Decode(data []byte) (Document, error) {
	if len(data) > MaxBytes {
		return Document{}, fmt.Errorf("%w: the file is larger than %d bytes", ErrNotBackup, MaxBytes)
	}
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return Document{}, fmt.Errorf("%w: malformed JSON at byte %d", ErrNotBackup, se.Offset)
		case errors.As(err, &te):
			// A book's fields sit in the embedded Book, which is no
			// field of the file.
			field := strings.ReplaceAll(te.Field, "Book.", "")
			return Document{}, fmt.Errorf("%w: field %s has the wrong type", ErrNotBackup, field)
		default:
			return Document{}, fmt.Errorf("%w: malformed JSON", ErrNotBackup)
		}
	}
	if doc.Format != "" && doc.Format != FormatName {
		return Document{}, fmt.Errorf("%w: format marker is not %q", ErrNotBackup, FormatName)
	}
	if doc.Version > Version {
		return Document{}, fmt.Errorf("%w: version %d is newer than this loregate reads (%d)", ErrNotBackup, doc.Version, Version)
	}
	if len(doc.Personas) > MaxBuckets {
		return Document{}, fmt.Errorf("%w: %d persona buckets, at most %d", ErrNotBackup, len(doc.Personas), MaxBuckets)
	}
	if doc.Personas == nil && doc.ServerwideLorebookEntries == nil && doc.ServerMemories == nil {
		return Document{}, fmt.Errorf("%w: no personas, serverwide_lorebook_entries or server_memories", ErrNotBackup)
	}
	return doc, nil
}

func fromEntry(e lore.Entry) Entry {
	b := Entry{
		ID: e.ID, Title: e.Title, Content: e.Content, Keys: nonNil(e.Keys), SecondaryKeys: nonNil(e.SecondaryKeys),
		SelectiveLogic: string(e.Logic), Constant: e.Constant, Enabled: &e.Enabled, ScanDepth: e.ScanDepth,
		Probability: &e.Probability, InsertionOrder: e.Order, Priority: &e.Priority,
		Placement: string(e.Placement), Role: string(e.Role), CaseSensitive: e.CaseSensitive, WholeWords: e.WholeWords,
		ChannelDiscIDs: e.ChannelIDs, LegacyChannelTags: e.LegacyChannelTags, Extensions: e.Extensions,
		Position: string(e.PositionKindOrDerived()), Depth: &e.Depth, Outlet: e.Outlet,
		IgnoreBudget: e.IgnoreBudget, Group: e.Group, GroupOverride: e.GroupOverride, GroupWeight: &e.GroupWeight,
		UseGroupScoring: e.UseGroupScoring, ExcludeRecursion: e.ExcludeRecursion, PreventRecursion: e.PreventRecursion,
		DelayUntilRecursion: e.DelayUntilRecursion, Sticky: e.Sticky, Cooldown: e.Cooldown, Delay: e.Delay,
		Vectorized: e.Vectorized, Note: e.Note, CategoryID: e.CategoryID,
	}
	if e.Match.Any() {
		b.MatchSources = &e.Match
	}
	if !e.CharacterFilter.IsZero() || e.CharacterFilter.Exclude {
		b.CharacterFilter = &e.CharacterFilter
	}
	for _, g := range e.GenerationTypes {
		b.GenerationTypes = append(b.GenerationTypes, string(g))
	}
	return b
}

// toEntry converts a backup entry into lineage (collection for Serverwide).
func (b Entry) toEntry(server string, lineage lore.Lineage) lore.Entry {
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content = server, lineage, b.Title, b.Content
	e.Keys, e.SecondaryKeys, e.Constant, e.ScanDepth, e.Order = b.Keys, b.SecondaryKeys, b.Constant, b.ScanDepth, b.InsertionOrder
	e.CaseSensitive, e.WholeWords, e.LegacyChannelTags, e.Extensions = b.CaseSensitive, b.WholeWords, b.LegacyChannelTags, b.Extensions
	if b.SelectiveLogic != "" {
		e.Logic = lore.SelectiveLogic(b.SelectiveLogic)
	}
	if b.Enabled != nil {
		e.Enabled = *b.Enabled
	}
	if b.Probability != nil {
		e.Probability = *b.Probability
	}
	if b.Priority != nil {
		e.Priority = *b.Priority
	}
	if b.Placement != "" {
		e.Placement = lore.Placement(b.Placement)
	}
	if b.Role != "" {
		e.Role = lore.Role(b.Role)
	}
	b.positionTo(&e)
	e.IgnoreBudget, e.Group, e.GroupOverride, e.UseGroupScoring = b.IgnoreBudget, b.Group, b.GroupOverride, b.UseGroupScoring
	if b.GroupWeight != nil {
		e.GroupWeight = *b.GroupWeight
	}
	e.ExcludeRecursion, e.PreventRecursion, e.DelayUntilRecursion = b.ExcludeRecursion, b.PreventRecursion, b.DelayUntilRecursion
	e.Sticky, e.Cooldown, e.Delay, e.Vectorized, e.Note = b.Sticky, b.Cooldown, b.Delay, b.Vectorized, b.Note
	e.CategoryID = b.CategoryID // the backup's id; the importer maps it (ImportPlan.Books)
	if lineage.IsServerwide() {
		e.Collection = lore.DefaultCollection
		if b.LorebookName != nil && *b.LorebookName != "" {
			e.Collection = *b.LorebookName
		}
	} else {
		e.ChannelIDs = b.ChannelDiscIDs
	}
	return e
}

// positionTo sets e's position fields from b; a backup without them
// leaves Position empty, so the store takes the one the extensions kept.
func (b Entry) positionTo(e *lore.Entry) {
	if b.Position != "" {
		e.Position = lore.PositionKind(b.Position)
		if e.Position.Valid() {
			e.Placement = e.Position.Placement()
		}
	} else {
		e.Position = ""
	}
	if b.Depth != nil {
		e.Depth = *b.Depth
	}
	e.Outlet = b.Outlet
	if b.MatchSources != nil {
		e.Match = *b.MatchSources
	}
	if b.CharacterFilter != nil {
		e.CharacterFilter = *b.CharacterFilter
	}
	for _, g := range b.GenerationTypes {
		e.GenerationTypes = append(e.GenerationTypes, lore.GenerationType(g))
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilEntries(s []Entry) []Entry {
	if s == nil {
		return []Entry{}
	}
	return s
}

// sortLineages sorts lineages with Serverwide first.
func sortLineages(ls []lore.Lineage) {
	sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
}

// normalizeTag trims a tag; used by the memory conversion.
func normalizeTag(t string) string { return strings.TrimSpace(t) }
