package lore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"loregate/lore/i18n"
)

// Lineage identifies a persona lineage inside a server. The zero value,
// [Serverwide], is the sentinel for Serverwide scope and is stored as NULL;
// persona lineages are greater than zero (docs/contract.md#scopes: lineage 0
// is the Serverwide sentinel).
type Lineage int64

// Serverwide is the lineage sentinel of Serverwide scope.
const Serverwide Lineage = 0

// IsServerwide reports whether l is the Serverwide sentinel.
func (l Lineage) IsServerwide() bool { return l == Serverwide }

func (l Lineage) scopeName() string {
	if l.IsServerwide() {
		return "Serverwide scope"
	}
	return fmt.Sprintf("persona lineage %d", int64(l))
}

// SelectiveLogic says how an entry's secondary keys combine with a primary
// key match. It is ignored when the entry has no secondary keys.
type SelectiveLogic string

// The four selective logics of SillyTavern world info (selectiveLogic 0-3)
// and the panel's OR/AND/NOR/NAND (docs/contract.md#matching).
const (
	// AndAny: at least one secondary key must match (panel "OR").
	AndAny SelectiveLogic = "AND_ANY"
	// NotAll: not every secondary key may match (panel "NAND").
	NotAll SelectiveLogic = "NOT_ALL"
	// NotAny: no secondary key may match (panel "NOR").
	NotAny SelectiveLogic = "NOT_ANY"
	// AndAll: every secondary key must match (panel "AND").
	AndAll SelectiveLogic = "AND_ALL"
)

// Valid reports whether s is one of the four logics.
func (s SelectiveLogic) Valid() bool {
	switch s {
	case AndAny, NotAll, NotAny, AndAll:
		return true
	}
	return false
}

// Placement is where an admitted entry goes relative to the persona
// definition, derived from the entry's Position: After for AFTER_CHAR,
// Before for every other kind (docs/contract.md#prompt: the two slots).
type Placement string

// The two placements of docs/contract.md#prompt (placement 0 = before, 1 = after).
const (
	Before Placement = "before"
	After  Placement = "after"
)

// Valid reports whether p is Before or After.
func (p Placement) Valid() bool { return p == Before || p == After }

// Role is the chat role an entry speaks as when it is placed as its own
// message: the role of an AT_DEPTH injection. Other kinds take the role of
// their block (docs/contract.md#prompt: system for Always On, user for
// activated).
type Role string

// The three chat roles (SillyTavern role 0-2).
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == RoleSystem || r == RoleUser || r == RoleAssistant }

// Entry is the canonical lorebook entry: every field the engine acts on,
// plus Extensions for every source field it does not, kept verbatim so that
// an export to the source format round-trips (docs/formats.md).
type Entry struct {
	// ID is the database id; 0 for an entry not stored yet. Importers leave
	// it 0 and keep a source uid in Extensions.
	ID int64 `json:"id"`
	// Server is the owning Discord guild snowflake ("" for a book read from
	// a file and not stored).
	Server string `json:"server,omitempty"`
	// Lineage is the owning persona lineage, or Serverwide.
	Lineage Lineage `json:"lineage,omitempty"`
	// Collection is the Serverwide collection name; empty for persona
	// entries (the lineage is their book).
	Collection string `json:"collection,omitempty"`

	// Title is the display name (SillyTavern comment, card name, NovelAI
	// displayName). Never sent to the model. At most MaxTitleLen.
	Title string `json:"title"`
	// Content is the injected text, at most MaxContentLen UTF-16 code units.
	Content string `json:"content"`
	// Keys are the primary keys. An entry with no non-blank key and not
	// Constant is never activated by keywords. A key shaped /pattern/flags
	// is a regex key. At most MaxKeysPerEntry, each at most MaxKeyLen.
	Keys []string `json:"keys"`
	// SecondaryKeys are combined with a primary match by Logic.
	SecondaryKeys []string `json:"secondaryKeys"`
	// Logic combines SecondaryKeys; the zero value means AndAny.
	Logic SelectiveLogic `json:"selectiveLogic"`
	// Constant entries (Always On) skip keys, secondary logic and positive
	// chance rolls; scope, channel and enabled gates still apply.
	Constant bool `json:"constant"`
	// Enabled entries take part in activation; disabled ones stay stored.
	Enabled bool `json:"enabled"`
	// ScanDepth is how many of the most recent messages a keyword entry
	// scans, 1..MaxScanDepth; nil inherits the engine default.
	ScanDepth *int `json:"scanDepth"`
	// Probability is the trigger chance in percent, 0..100. Missing in a
	// source file means 100; an explicit 0 stays 0 and blocks activation.
	Probability int `json:"probability"`
	// Order is the insertion order: lower appears earlier; ties by ID.
	Order int `json:"insertionOrder"`
	// Priority decides who survives a priority-eviction budget (higher
	// survives). DefaultPriority when the source has none.
	Priority int `json:"priority"`
	// Placement is before or after the persona definition.
	Placement Placement `json:"placement"`
	// Role is the chat role of an AT_DEPTH entry's message (SillyTavern
	// role 0-2); other kinds take their block's role.
	Role Role `json:"role"`
	// Position is where the entry goes (SillyTavern positions 0-7;
	// docs/authoring.md "Positions"); Placement is derived from it (After
	// for AFTER_CHAR, Before for every other kind). "" only on entries
	// built before positions existed: NormalizePosition fills it.
	Position PositionKind `json:"position,omitempty"`
	// Depth is the AT_DEPTH injection depth, 0..MaxDepth messages before
	// the end of the history (0 = after the last message); other kinds
	// keep their source's value without using it. DefaultDepth when the
	// source has none.
	Depth int `json:"depth,omitempty"`
	// Outlet is the outlet name of an OUTLET entry (SillyTavern
	// outletName), at most MaxOutletLen; other kinds keep it unused.
	Outlet string `json:"outlet,omitempty"`
	// Match adds context texts of the request to the text the entry's keys
	// are matched against (SillyTavern's match* flags).
	Match MatchSources `json:"match,omitzero"`
	// CharacterFilter limits the entry to (or excludes it from) characters
	// by name and tag; the zero value admits all.
	CharacterFilter CharacterFilter `json:"characterFilter,omitzero"`
	// GenerationTypes limits the entry to these generation types
	// (SillyTavern triggers); empty admits every type.
	GenerationTypes []GenerationType `json:"generationTypes,omitempty"`
	// CaseSensitive overrides the default (insensitive) rule; nil inherits.
	CaseSensitive *bool `json:"caseSensitive"`
	// WholeWords overrides the default word-boundary rule; false means
	// substring matching; nil inherits.
	WholeWords *bool `json:"wholeWords"`
	// IgnoreBudget entries are outside the activation budget: admitted when
	// activated whatever is left, and not counted (SillyTavern ignoreBudget,
	// card extension ignore_budget; the card specification: bypass the token budget,
	// always inject; case BUG-21).
	IgnoreBudget bool `json:"ignoreBudget,omitempty"`
	// ChannelIDs restrict a persona entry to these channels (snowflakes);
	// empty admits every channel. Serverwide entries use their collection's
	// channels and keep this empty.
	ChannelIDs []string `json:"channelIds,omitempty"`
	// LegacyChannelTags are unresolved legacy #channel names pending the
	// backfill. While any is present the entry admits every channel.
	LegacyChannelTags []string `json:"legacyChannelTags,omitempty"`

	// Group is the entry's inclusion groups, comma-separated names; empty
	// = none. Of the admitted members of one group only one is kept
	// (SillyTavern world info "group").
	Group string `json:"group,omitempty"`
	// GroupOverride members win their group before scoring or weights
	// (highest Order first).
	GroupOverride bool `json:"groupOverride,omitempty"`
	// GroupWeight is the entry's weight in its groups' weighted draw,
	// 0..MaxGroupWeight; DefaultGroupWeight when the source has none.
	GroupWeight int `json:"groupWeight,omitempty"`
	// UseGroupScoring makes the group keep the member with the most matched
	// keys; nil inherits (off).
	UseGroupScoring *bool `json:"useGroupScoring,omitempty"`
	// ExcludeRecursion: recursion text never activates this entry.
	ExcludeRecursion bool `json:"excludeRecursion,omitempty"`
	// PreventRecursion: this entry's content never feeds recursion.
	PreventRecursion bool `json:"preventRecursion,omitempty"`
	// DelayUntilRecursion is the recursion level from which this entry may
	// activate: 0 = no delay, 1 = any recursive pass, N = level N
	// (SillyTavern: true = 1).
	DelayUntilRecursion int `json:"delayUntilRecursion,omitempty"`
	// Sticky, Cooldown and Delay are timed effects counted in chat messages
	// (SillyTavern world info); 0 = none. They act through turn state.
	Sticky   int `json:"sticky,omitempty"`
	Cooldown int `json:"cooldown,omitempty"`
	Delay    int `json:"delay,omitempty"`

	// Vectorized marks the entry as a candidate for retrieval by meaning
	// (SillyTavern's vectorized flag): admitted, without keys, when the
	// chat is similar enough to its content (docs/contract.md#semantic).
	Vectorized bool `json:"vectorized,omitempty"`

	// CategoryID is the entry's category inside its book (a Category of
	// the same collection or persona book; 0 = none). A disabled category
	// keeps the entry out of the prompt like a disabled collection. In a
	// book read from a file it is the ID of one of the book's Categories
	// (docs/workbench.md#categories).
	CategoryID int64 `json:"categoryId,omitempty"`
	// Note is the creator's note on the entry: kept apart from Title and
	// Content and never sent to the model, at most MaxNoteLen characters.
	Note string `json:"note,omitempty"`

	// Extensions holds every source field the model does not act on, keyed
	// by a namespaced name chosen by the importer, values kept verbatim.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`

	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time `json:"createdAt,omitzero"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// DefaultGroupWeight is the inclusion-group weight of entries whose source
// has none (SillyTavern's default group weight).
const DefaultGroupWeight = 100

// DefaultPriority is the priority of entries whose source has none (seed
// 003: "Formats with no eviction field default this to 100").
const DefaultPriority = 100

// NewEntry returns an entry with the canonical defaults: enabled, AND_ANY,
// probability 100, default priority and group weight, placed after the
// persona (Position "" derives AFTER_CHAR from it, the panel's default for
// new entries, docs/contract.md#panel), depth DefaultDepth, with the
// system role.
func NewEntry() Entry {
	return Entry{
		Logic:       AndAny,
		Enabled:     true,
		Probability: 100,
		Priority:    DefaultPriority,
		GroupWeight: DefaultGroupWeight,
		Placement:   After,
		Depth:       DefaultDepth,
		Role:        RoleSystem,
	}
}

// Clone returns a deep copy of e, so callers can change it without touching
// the original (the engine never mutates its inputs).
func (e Entry) Clone() Entry {
	c := e
	c.Keys = cloneStrings(e.Keys)
	c.SecondaryKeys = cloneStrings(e.SecondaryKeys)
	c.ChannelIDs = cloneStrings(e.ChannelIDs)
	c.LegacyChannelTags = cloneStrings(e.LegacyChannelTags)
	c.CharacterFilter.Names = cloneStrings(e.CharacterFilter.Names)
	c.CharacterFilter.Tags = cloneStrings(e.CharacterFilter.Tags)
	if e.GenerationTypes != nil {
		c.GenerationTypes = append([]GenerationType(nil), e.GenerationTypes...)
	}
	if e.ScanDepth != nil {
		v := *e.ScanDepth
		c.ScanDepth = &v
	}
	if e.CaseSensitive != nil {
		v := *e.CaseSensitive
		c.CaseSensitive = &v
	}
	if e.WholeWords != nil {
		v := *e.WholeWords
		c.WholeWords = &v
	}
	if e.UseGroupScoring != nil {
		v := *e.UseGroupScoring
		c.UseGroupScoring = &v
	}
	if e.Extensions != nil {
		c.Extensions = make(map[string]json.RawMessage, len(e.Extensions))
		for k, v := range e.Extensions {
			c.Extensions[k] = append(json.RawMessage(nil), v...)
		}
	}
	return c
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

// Collection is a named Serverwide book (the seed's server_lorebooks row).
// Its enabled flag and channels apply to all its entries.
type Collection struct {
	ID     int64
	Server string
	// Name is unique per server, 1..MaxCollectionNameLen UTF-16 code units.
	Name string
	// Enabled false keeps every entry of the collection out of the prompt
	// without changing the entries' own flags.
	Enabled bool
	// ChannelIDs restrict the collection to these channels; empty = all.
	ChannelIDs []string
	// Settings are the collection's book settings.
	Settings BookSettings
	// EntryCount is filled by listings; 0 elsewhere.
	EntryCount int
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Category is a named group of entries inside one book (a Serverwide
// collection, CollectionID set, or a persona lineage's book): RisuAI
// folders, NovelAI categories (docs/workbench.md#categories). Enabled
// false keeps its entries out of the prompt without changing their flags.
type Category struct {
	// ID is the database id (in a book read from a file: an id unique in
	// that book that its entries' CategoryID refer to).
	ID int64
	// Server, CollectionID and Lineage address the book (CollectionID 0
	// for a persona book).
	Server       string
	CollectionID int64
	Lineage      Lineage
	// Name is unique in the book, 1..MaxCategoryNameLen characters.
	Name string
	// SortOrder orders the book's categories (lower first, ties by name).
	SortOrder int
	Enabled   bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// BookInfo is what describes a book to people (never sent to the model):
// its description (at most MaxBookDescriptionLen characters) and its tags
// (at most MaxBookTags, each 1..MaxBookTagLen characters, no repeats).
type BookInfo struct {
	Description string
	Tags        []string
	// UpdatedAt is when the info (or the book's kept source fields) was
	// last written; zero while none is stored.
	UpdatedAt time.Time
}

// DefaultCollection is the collection that Serverwide entries without a
// collection name go to (docs/contract.md#scopes: inputs without
// these fields use General).
const DefaultCollection = "General"

// Persona is a registry row of one of the bot's personas on a server.
type Persona struct {
	Server string
	// ID is the persona id, unique per server, > 0.
	ID int64
	// Lineage is the lore lineage the persona reads (> 0). Personas that
	// share a lineage share one book.
	Lineage Lineage
	// Name is the display name, 1..MaxTitleLen UTF-16 code units.
	Name string
	// Removed personas stay in the registry so their lineage's lore can be
	// listed and exported.
	Removed bool
}

// Server is a Discord guild known to loregate.
type Server struct {
	// ID is the guild snowflake.
	ID       string
	Name     string
	Settings ServerSettings
	// LoreVersion increases on every successful lore write of the server;
	// caches of compiled matchers key on it.
	LoreVersion int64
	// SettingsUpdatedAt is when the settings were last written (the
	// server's creation before that); edits of the settings may expect it
	// (SettingsPatch.ExpectedUpdatedAt).
	SettingsUpdatedAt time.Time
	// LeftAt is when the bot left the guild (nil while it is a member);
	// the server is purged LOREGATE_SERVER_RETENTION later unless the bot
	// rejoins (docs/servers.md).
	LeftAt *time.Time
}

// ServerSettings are the per-server switches of the contract.
type ServerSettings struct {
	// ChannelScoping is the seed's channel_memory_enabled: when false the
	// channel gate is bypassed (only that gate).
	ChannelScoping bool `json:"channelScoping"`
	// MemoryTagging decides how legacy keyword memories convert: when false
	// they become Always On entries (docs/contract.md#migration).
	MemoryTagging bool `json:"memoryTagging"`
	// RegexKeys makes /pattern/flags keys act as RE2 regular expressions.
	// When false such keys are literal text, as docs/contract.md#matching describes.
	RegexKeys bool `json:"regexKeys"`
	// BudgetUnit is what the activation budget counts; "" means
	// BudgetCharacters.
	BudgetUnit BudgetUnit `json:"budgetUnit,omitempty"`
	// BudgetLimit is the server's budget in BudgetUnit; 0 means the unit's
	// default.
	BudgetLimit int `json:"budgetLimit,omitempty"`
	// Tokenizer counts tokens when BudgetUnit is BudgetTokens; "" means
	// TokenizerO200k.
	Tokenizer TokenizerName `json:"tokenizer,omitempty"`
	// Semantic is retrieval by meaning (docs/contract.md#semantic).
	Semantic SemanticSettings `json:"semantic,omitzero"`
	// Selection are the server's selection controls (docs/authoring.md
	// "Selection controls"); the zero value changes nothing.
	Selection
}

// SettingsPatch is a partial settings update; nil fields keep their value.
// A BudgetLimit of 0 resets the limit to the unit's default; changing
// BudgetUnit without a BudgetLimit resets it too (a limit is only meaningful
// in its unit).
type SettingsPatch struct {
	ChannelScoping, MemoryTagging, RegexKeys *bool
	BudgetUnit                               *BudgetUnit
	BudgetLimit                              *int
	Tokenizer                                *TokenizerName
	// Semantic changes the settings of retrieval by meaning.
	Semantic SemanticPatch
	// The selection controls; nil keeps the stored value.
	MinActivations, MinActivationsDepthMax, MaxEntries *int
	IncludeNames                                       *bool
	// ExpectedUpdatedAt, when set, is Server.SettingsUpdatedAt as the
	// caller read it: a different stored value fails the write with a
	// *StaleError (CheckUpdatedAt). Apply ignores it.
	ExpectedUpdatedAt *time.Time
}

// Apply returns s with p applied (see SettingsPatch for the budget rule).
func (p SettingsPatch) Apply(s ServerSettings) ServerSettings {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.ChannelScoping, p.ChannelScoping)
	set(&s.MemoryTagging, p.MemoryTagging)
	set(&s.RegexKeys, p.RegexKeys)
	if p.BudgetUnit != nil && *p.BudgetUnit != s.Unit() {
		s.BudgetUnit, s.BudgetLimit = *p.BudgetUnit, 0
	}
	if p.BudgetLimit != nil {
		s.BudgetLimit = *p.BudgetLimit
	}
	if p.Tokenizer != nil {
		s.Tokenizer = *p.Tokenizer
	}
	s.Semantic = p.Semantic.Apply(s.Semantic)
	set(&s.IncludeNames, p.IncludeNames)
	for _, f := range []struct {
		dst *int
		v   *int
	}{{&s.MinActivations, p.MinActivations}, {&s.MinActivationsDepthMax, p.MinActivationsDepthMax}, {&s.MaxEntries, p.MaxEntries}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	return s
}

// DefaultServerSettings are the settings of a newly registered server:
// channel scoping and memory tagging on, regex keys off (a /a+/ key is
// literal text until a manager turns them on), a character budget of
// DefaultBudgetCharacters and the o200k_base tokenizer.
func DefaultServerSettings() ServerSettings {
	return ServerSettings{ChannelScoping: true, MemoryTagging: true, RegexKeys: false,
		BudgetUnit: BudgetCharacters, Tokenizer: TokenizerO200k}
}

// Equal reports whether s and o are the same settings: "" unit and
// tokenizer count as their defaults, pointers compare by value.
func (s ServerSettings) Equal(o ServerSettings) bool {
	s.BudgetUnit, s.Tokenizer = s.Unit(), s.TokenizerOrDefault()
	o.BudgetUnit, o.Tokenizer = o.Unit(), o.TokenizerOrDefault()
	return reflect.DeepEqual(s, o)
}

// Unit returns the budget unit, BudgetCharacters for "".
func (s ServerSettings) Unit() BudgetUnit {
	if s.BudgetUnit == "" {
		return BudgetCharacters
	}
	return s.BudgetUnit
}

// TokenizerOrDefault returns the tokenizer, TokenizerO200k for "".
func (s ServerSettings) TokenizerOrDefault() TokenizerName {
	if s.Tokenizer == "" {
		return TokenizerO200k
	}
	return s.Tokenizer
}

// Limit returns the server's budget in its unit: BudgetLimit, or the
// unit's default when it is 0.
func (s ServerSettings) Limit() int {
	if s.BudgetLimit > 0 {
		return s.BudgetLimit
	}
	return s.Unit().DefaultLimit()
}

// Validate checks the budget unit, limit and tokenizer; "" and 0 mean the
// defaults; and the selection controls' ranges (Selection). The error is
// an *InvalidError naming budgetUnit, budgetLimit, tokenizer or a
// selection control, with every other failing one in its Others.
func (s ServerSettings) Validate() error {
	var fe FieldErrors
	if s.BudgetUnit != "" && !s.BudgetUnit.Valid() {
		fe.Add(Reject("budgetUnit", i18n.NotOneOf, Params{"value": clipForError(string(s.BudgetUnit)), "allowed": "characters, tokens"}))
	}
	if s.Tokenizer != "" && !s.Tokenizer.Valid() {
		fe.Add(Reject("tokenizer", i18n.NotOneOf, Params{"value": clipForError(string(s.Tokenizer)), "allowed": "o200k_base, cl100k_base"}))
	}
	if s.BudgetLimit != 0 && (s.BudgetUnit == "" || s.BudgetUnit.Valid()) {
		fe.Add(s.Unit().CheckLimit("budgetLimit", s.BudgetLimit))
	}
	fe.Add(s.Semantic.Validate())
	s.Selection.validate(&fe)
	return fe.Err()
}
