package activation

import "loregate/lore"

// Defaults of the activation contract.
const (
	// DefaultScanDepth is how many of the most recent messages an entry
	// without its own scan depth reads: 2, SillyTavern's default world info
	// scan depth (SillyTavern's; docs/authoring.md). The contract leaves the default
	// to the caller; migrated entries carry their own depth (5).
	DefaultScanDepth = 2
	// DefaultCharBudget is the shared content budget of both placements in
	// UTF-16 code units, JavaScript string length (docs/contract.md#budget: "The default content budget is 8,000 JavaScript string
	// characters across both placements").
	DefaultCharBudget = lore.DefaultBudgetCharacters
	// MaxRegexLen bounds the body of a regex key in bytes; a longer body
	// never matches and is reported in the trace (lore.MaxRegexLen).
	MaxRegexLen = lore.MaxRegexLen
	// DefaultTokenBudget is the token budget of a server whose budget unit
	// is tokens and that sets no limit (inside the 100-32,000 range of
	// token budgets).
	DefaultTokenBudget = 2048
	// DefaultMaxRecursionSteps is the number of passes of a recursive turn
	// when no layer sets one: the first pass and two recursive ones
	// (docs/contract.md#recursion).
	DefaultMaxRecursionSteps = 3
	// MaxPasses is the engine's hard cap on passes per turn, recursion
	// included; a maxRecursionSteps of 0 ("no limit") means this.
	MaxPasses = 10
)

// Tokenizer counts the tokens of a text for token budgets (docs/contract.md#budget:
// token budgets are counted with a real offline tokenizer). Implementations must be
// deterministic and safe for concurrent use when the engine is.
type Tokenizer interface {
	// CountTokens returns the number of tokens of s, >= 0.
	CountTokens(s string) int
}

// Options are the engine options of one turn: the server layer (server
// settings, or one request's overrides, or CLI flags). Book settings
// (Input.Collections[...].Settings, Input.PersonaBook), entry fields and
// decorator lines are more specific and win over them (docs/authoring.md).
// The zero value is the service default (docs/contract.md): whole-word matching,
// case-insensitive, regex keys inert (literal), scan depth
// DefaultScanDepth, a DefaultCharBudget character budget, no recursion,
// draws from math/rand/v2 and identity macros left literal when a name is
// empty.
type Options struct {
	// ScanDepth is the depth of entries whose own and book scan depth are
	// unset: the number of most recent messages scanned. nil means
	// DefaultScanDepth; 0 scans no chat message (case BUG-36: recursion
	// text is still scanned); a negative value is treated as 0.
	ScanDepth *int
	// Substring turns the default whole-word rule off: keys of entries
	// whose WholeWords is nil match as plain substrings.
	Substring bool
	// CaseSensitive makes keys of entries whose CaseSensitive is nil match
	// case-sensitively (NFKC only, no folding).
	CaseSensitive bool
	// NearMisses names, in the trace detail of a no_key_match entry whose
	// keys match whole words only, a literal primary key found inside a
	// word of the scanned messages ("near miss"). It costs a substring
	// search per such key, so per-turn callers leave it off; previews turn
	// it on. It never changes a verdict.
	NearMisses bool
	// RegexKeys makes keys shaped /pattern/flags RE2 regular expressions
	// (lore.ServerSettings.RegexKeys). When false they are literal text, as
	// docs/contract.md#matching describes (regex keys stay inert).
	RegexKeys bool

	// CharBudget is the shared content budget in UTF-16 code units when
	// TokenBudget is 0. 0 means DefaultCharBudget; negative means unlimited.
	CharBudget int
	// TokenBudget, when > 0, replaces the character budget by a budget of
	// that many tokens counted by Tokenizer (required then).
	TokenBudget int
	Tokenizer   Tokenizer

	// Recursive turns recursive scanning on for books that do not set it
	// (lore.BookSettings.Recursive): admitted content is scanned again so
	// lore can activate lore.
	Recursive bool
	// MaxRecursionSteps counts every pass including the first for books
	// that do not set it: 1 = no recursion, 2 = one recursive pass, 0 = no
	// limit but MaxPasses. nil means DefaultMaxRecursionSteps. It never
	// turns recursion on by itself.
	MaxRecursionSteps *int

	// Random returns draws in [0, 1) (JavaScript's Math.random contract; docs/contract.md#matching)
	// for trigger chances strictly between 0 and 100. Nil means
	// math/rand/v2's Float64. A draw outside [0, 1) is an error.
	Random func() float64

	// UserName, CharName and BotName replace {{user}}, {{char}} and
	// {{bot}} in admitted content (docs/contract.md#prompt). An empty
	// name leaves its macro literal; BotName empty falls back to CharName.
	UserName, CharName, BotName string

	// Texts, when set, keeps the matching form of non-ASCII messages across
	// turns (see TextCache); nil normalises every message every turn.
	Texts *TextCache

	// IncludeNames scans each message as "Name: content" where
	// Input.Names has the message's speaker (SillyTavern's include names;
	// off by default).
	IncludeNames bool
	// MinActivations, when > 0, widens the scan one message at a time
	// after the passes until that many entries are admitted, the chat is
	// exhausted or MinActivationsDepthMax messages are scanned (0 = the
	// whole chat); entries with their own scan depth do not widen
	// (docs/authoring.md "Selection controls").
	MinActivations, MinActivationsDepthMax int
	// MaxEntries, when > 0, caps the admitted keyword and chance entries
	// at the end of the turn: the lowest in the claim order go first
	// (over_entry_cap); constants, sticky, @@activate and ignoreBudget
	// entries are not counted.
	MaxEntries int

	// SkipTrace leaves Result.Trace nil and skips building the trace's
	// details; everything else of the Result is the same. Set it when the
	// caller does not read the trace (a bot's per-turn request): with a
	// few messages, building the trace is about half of a turn (250
	// entries, docs/benchmarks.md "Activation engine").
	SkipTrace bool
	// TraceBuf, when it has room for every entry, holds Result.Trace of a
	// traced turn (its items are overwritten): a caller that records many
	// turns reuses one buffer instead of a new trace a turn. The trace
	// is then valid until the caller reuses the buffer.
	TraceBuf []TraceItem
	// AdmittedBuf, when it has room for every admitted entry, holds
	// Result.Admissions (its items are overwritten): a caller that runs
	// many turns, such as a bot, reuses one buffer instead of a new slice
	// a turn (16 bytes an entry; docs/benchmarks.md#recursion-admissions).
	// Result.Admissions is then valid until the caller reuses the buffer.
	AdmittedBuf []Admission

	// baseline runs the turn as the engine did before the per-turn work
	// of docs/benchmarks.md "Activation engine" was trimmed (trace always
	// built, every entry's keys and decorator gates read): the benchmarks'
	// old code path.
	baseline bool
}

// Input is what one turn gives the engine. Nothing in it is modified.
type Input struct {
	// Entries are the loaded rows of the scope (lore.Snapshot.Entries):
	// Serverwide entries of every collection plus the persona lineage's.
	Entries []lore.Entry
	// Collections maps a collection name to its state. A Serverwide entry
	// whose collection is missing or disabled is gated_collection; its
	// channel list is the collection's ChannelIDs. An entry with an empty
	// Collection belongs to lore.DefaultCollection.
	Collections map[string]lore.Collection
	// Messages are the chat message texts, oldest first.
	Messages []string
	// Server is the active Discord guild; entries of another server are
	// gated_server.
	Server string
	// Lineage is the active persona lineage; persona entries of another
	// lineage are gated_lineage. Serverwide entries always pass.
	Lineage lore.Lineage
	// Channel is the active channel id; ParentChannel is the parent of a
	// thread ("" otherwise). Threads inherit their parent's admission.
	Channel, ParentChannel string
	// ChannelScoping is the server's channel_memory_enabled switch; when
	// false only the channel gate is bypassed.
	ChannelScoping bool
	// PersonaBook is the book settings of Lineage's book
	// (lore.Snapshot.PersonaBook); they apply to persona entries as a
	// collection's Settings apply to its Serverwide entries.
	PersonaBook lore.BookSettings
	// MessageCount is the number of messages in the conversation up to and
	// including the newest (the chat may be longer than Messages); 0 means
	// len(Messages). Entry Delay, @@activate_only_after,
	// @@activate_only_every and @@is_greeting read it.
	MessageCount int
	// State is the conversation's turn state by entry id (issue 12's
	// timed effects and match latches); nil means no state.
	State map[int64]EntryState
	// Names are the speakers of Messages (same length, "" unknown), read
	// when Options.IncludeNames is on; nil means none known.
	Names []string
	// Character is the request's character (filters and match flags); nil
	// means the request has none: an include character filter blocks its
	// entry, an exclude filter lets it pass.
	Character *Character
	// Persona is the request's persona (matchPersonaDescription); nil
	// means none.
	Persona *Persona
	// GenerationType is the kind of generation ("" = lore.GenNormal);
	// entries whose GenerationTypes do not list it are
	// filtered_generation_type.
	GenerationType lore.GenerationType
	// Semantic, when set, admits candidates by similarity
	// (docs/contract.md#semantic); nil: keys alone, as before.
	Semantic *Semantic
}

// Character is the character of a request (docs/authoring.md "Context
// sources"): the filters read Name and Tags; entries with match flags
// also scan the texts.
type Character struct {
	Name                                                          string
	Tags                                                          []string
	Description, Personality, Scenario, CreatorNotes, DepthPrompt string
}

// Persona is the user's persona of a request.
type Persona struct {
	Name, Description string
}

// EntryState is one entry's state in a conversation, kept between turns by
// the caller (the turn-state store). The engine reads it and never changes
// it; which admitted entries open or latch state is in Admitted.State.
type EntryState struct {
	// Sticky: a sticky window is open. The entry is admitted without keys,
	// skips the chance roll, wins its groups and claims the budget first;
	// gates (scope, channel, enabled, @@dont_activate) still apply.
	Sticky bool
	// Cooldown: a cooldown window is open; the entry is blocked (verdict
	// cooldown) unless Sticky.
	Cooldown bool
	// Matched: the entry was admitted in an earlier turn of this
	// conversation (for @@keep_activate_after_match and
	// @@dont_activate_after_match).
	Matched bool
}

// StateUse says which turn state an entry opens or reads; the turn-state
// store records a window for each admitted entry with UsesSticky or
// UsesCooldown and a match latch for UsesMatched.
type StateUse uint8

// The StateUse bits.
const (
	// UsesSticky: Entry.Sticky > 0 (messages a sticky window lasts).
	UsesSticky StateUse = 1 << iota
	// UsesCooldown: Entry.Cooldown > 0.
	UsesCooldown
	// UsesMatched: @@keep_activate_after_match or
	// @@dont_activate_after_match reads EntryState.Matched.
	UsesMatched
	// UsesMessageCount: Entry.Delay, @@activate_only_after,
	// @@activate_only_every or @@is_greeting reads Input.MessageCount.
	UsesMessageCount
)

// Group says why an admitted entry is in the prompt.
type Group string

// The two groups of docs/contract.md#prompt.
const (
	// AlwaysOn entries are constants: admitted without keys, system role.
	AlwaysOn Group = "always_on"
	// Activated entries matched a key (or passed their chance), user role
	// at the tail slot.
	Activated Group = "activated"
)

// Verdict is the outcome of one entry in a turn.
type Verdict string

// The verdicts, in the order the engine checks them: the gates (enabled,
// server, lineage, collection, channel), then the chance-0 block, keys,
// secondary logic, the chance roll and the budget.
const (
	VerdictAdmitted        Verdict = "admitted"
	VerdictDisabled        Verdict = "disabled"
	VerdictGatedServer     Verdict = "gated_server"
	VerdictGatedLineage    Verdict = "gated_lineage"
	VerdictGatedCollection Verdict = "gated_collection"
	// VerdictGatedCategory: the entry's category in its book is disabled
	// (docs/workbench.md#categories). Only a preview trace gives it
	// (GateTrace): the per-turn read never loads such an entry.
	VerdictGatedCategory        Verdict = "gated_category"
	VerdictGatedChannel         Verdict = "gated_channel"
	VerdictNoKeyMatch           Verdict = "no_key_match"
	VerdictSecondaryLogicFailed Verdict = "secondary_logic_failed"
	VerdictChanceFailed         Verdict = "chance_failed"
	VerdictOverBudget           Verdict = "over_budget"
	// VerdictGroupLost: another member won one of the entry's inclusion
	// groups (the detail names it), or the group was won in an earlier pass.
	VerdictGroupLost Verdict = "group_lost"
	// VerdictExcludedFromRecursion: only recursion text had the entry's key
	// and the entry is excluded from recursion.
	VerdictExcludedFromRecursion Verdict = "excluded_from_recursion"
	// VerdictDelayedUntilRecursion: the entry waits for a recursion level
	// the turn did not reach.
	VerdictDelayedUntilRecursion Verdict = "delayed_until_recursion"
	// VerdictDecoratorBlocked: a decorator line blocked the entry
	// (@@dont_activate, @@exclude_keys, @@is_greeting, @@activate_only_*,
	// @@dont_activate_after_match).
	VerdictDecoratorBlocked Verdict = "decorator_blocked"
	// VerdictCooldown: the entry's cooldown window is open (turn state).
	VerdictCooldown Verdict = "cooldown"
	// VerdictDelayed: the conversation has fewer messages than the entry's
	// Delay.
	VerdictDelayed Verdict = "delayed"
	// VerdictFilteredCharacter: the entry's character filter does not admit
	// the request's character (the detail names the filter).
	VerdictFilteredCharacter Verdict = "filtered_character"
	// VerdictFilteredGenerationType: the entry's generation types do not
	// list the request's.
	VerdictFilteredGenerationType Verdict = "filtered_generation_type"
	// VerdictOverEntryCap: admitted, then dropped by Options.MaxEntries.
	VerdictOverEntryCap Verdict = "over_entry_cap"
)

// Admitted is an entry that enters the prompt, as Result.AdmittedAt
// reads it from the turn's Admission (a Result keeps its admitted entries
// in 16 bytes each without pointers; an Admitted is a view of one).
type Admitted struct {
	// Entry is the input entry itself (a pointer into Input.Entries, never
	// nil in a Result): the Result shares it with the input, so neither
	// may be changed while the other is read (use lore.Entry.Clone to get
	// one to change). Not copying the entry keeps a result of many
	// admitted entries cheap (docs/benchmarks.md#recursion-by-new-text).
	Entry *lore.Entry
	// Content is Entry.Content with identity macros resolved; its size is
	// what the budget counted.
	Content string
	// Placing holds the entry's Placement, Group, Position and State,
	// which read as fields of the Admitted (a.Placement). Never nil in a
	// Result; it is shared with the compiled entry and every other result
	// of the same Matcher: read it, do not change it.
	*Placing
	// Cost is what the entry took from the budget (UTF-16 units or tokens);
	// 0 for IgnoreBudget entries.
	Cost int
	// Tokens is the token count of Content when Options.Tokenizer is set,
	// nil otherwise.
	Tokens *int
	// Pass is the pass that admitted the entry: 1 for the chat scan, 2 and
	// up for recursive passes.
	Pass int
	// TriggeredBy is the id of the admitted entry whose content activated
	// this one in a recursive pass; 0 when the chat, a constant, a
	// decorator or turn state did.
	TriggeredBy int64
	// Score is the entry's similarity when a ranker scored it
	// (Input.Semantic), nil otherwise.
	Score *float64
}

// Placing is where an admitted entry goes and what opens it: the part of
// an Admitted that depends on the compiled entry alone (and, for
// @@reverse_depth, on the turn's message count). A Matcher holds one per
// entry and its results point at it (Admitted.Placing), so a result of many
// admitted entries carries no copy of it.
type Placing struct {
	// Placement is the entry's placement; an invalid one becomes lore.After
	// (the panel default, docs/contract.md#panel).
	Placement lore.Placement
	// Group is AlwaysOn for constants, Activated otherwise.
	Group Group
	// Position is where the entry goes, decorators applied (@@position,
	// @@depth, @@reverse_depth resolved for this turn, @@role): Depth and
	// Role set only for AT_DEPTH, Outlet only for OUTLET. Entries of
	// kinds other than BEFORE_CHAR and AFTER_CHAR are in
	// Result.Injections, not in the two placements.
	Position lore.Position
	// State says which turn state the entry opens or reads.
	State StateUse
}

// TraceItem explains one entry's verdict.
type TraceItem struct {
	ID      int64
	Title   string
	Verdict Verdict
	// Detail is a short human explanation: the matched key, the failed
	// gate, the draw, the budget left, a regex compile error, the group
	// winner, "sticky", unknown decorators.
	Detail string
	// Pass is the pass in which the verdict was reached (0 when a gate
	// decided before any pass).
	Pass int
	// TriggeredBy is the id of the entry whose content activated this one
	// in a recursive pass; 0 otherwise.
	TriggeredBy int64
	// Score is the entry's similarity when a ranker scored it
	// (Input.Semantic; docs/contract.md#semantic), nil for entries only
	// keys decide.
	Score *float64
	// Params are the verdict's params beyond pass and score (the entry's
	// chance, priority, lineage, collection, group, delay, cooldown,
	// recursion level, generation types or blocking decorator: see
	// Reason), nil for a verdict without any.
	Params lore.Params
}

// BudgetUnit names what a budget counts.
type BudgetUnit string

// Budget units.
const (
	UnitUTF16  BudgetUnit = "utf16"
	UnitTokens BudgetUnit = "tokens"
)

// Budget reports the shared budget of a turn.
type Budget struct {
	Unit BudgetUnit
	// Limit is the budget; -1 when unlimited.
	Limit int
	// Used is what the admitted entries took (IgnoreBudget entries are not
	// counted).
	Used int
	// ByBook is what each book's admitted entries took, in the order the
	// books first admitted an entry.
	ByBook []BookUse
}

// BookUse is one book's part of the budget.
type BookUse struct {
	// Collection is the Serverwide collection's name and CollectionID its
	// id; both zero for the persona book (Lineage).
	Collection   string
	CollectionID int64
	Lineage      lore.Lineage
	// Used is what the book's admitted entries took; Entries counts them
	// (IgnoreBudget ones too); Limit is the book's own cap from
	// MaxBudgetShare, -1 none.
	Used, Entries, Limit int
}

// Injection is the joined text of the admitted entries of one (kind,
// depth, role, outlet), for the kinds that leave the two placements
// (docs/authoring.md "Positions"): AN_TOP, AN_BOTTOM, AT_DEPTH, EM_TOP,
// EM_BOTTOM, OUTLET.
type Injection struct {
	Kind lore.PositionKind
	// Depth and Role are set for AT_DEPTH; Outlet for OUTLET.
	Depth *int
	Role  *lore.Role
	// Outlet is the outlet name of an OUTLET injection.
	Outlet *string
	// Text is the entries' contents joined with newlines in SillyTavern's
	// order for the kind: ascending insertion order (highest last), but
	// EM_TOP and OUTLET highest first.
	Text string
	// EntryIDs are the entries joined, in the order of Text.
	EntryIDs []int64
}

// Outlet is the text of one named outlet ({{outlet::NAME}}).
type Outlet struct {
	Name, Text string
}

// Result is the outcome of one turn.
type Result struct {
	// Admissions are the admitted entries in insertion order:
	// lore.Entry.Order ascending, ties by ID, then by input position.
	// AdmittedAt(k) reads the k-th as an Admitted; NumAdmitted counts them.
	Admissions []Admission
	Budget     Budget
	// Trace has one item per input entry, in the same insertion order; nil
	// with Options.SkipTrace.
	Trace []TraceItem
	// Passes is the number of passes run (1 without recursion), the
	// min-activations passes included.
	Passes int

	// nearMissWork is the near-miss search work of the turn, in the units
	// of NearMissBudget (read by the package's tests).
	nearMissWork int64
	// Injections are the admitted entries that leave the two placements,
	// grouped by kind, depth, role and outlet, in kind order (AN_TOP,
	// AN_BOTTOM, AT_DEPTH by depth then role, EM_TOP, EM_BOTTOM, OUTLET by
	// name); nil when there are none.
	Injections []Injection
	// Outlets are the OUTLET injections by name, for callers that resolve
	// {{outlet::NAME}} themselves.
	Outlets []Outlet

	// entries are Input.Entries and m the Matcher of the turn: what
	// AdmittedAt reads an Admission's entry, content and placing from (a
	// Result keeps both reachable while it is held).
	entries []lore.Entry
	m       *Matcher
	// rare is parallel to Admissions when one of them is rare
	// (admRare), nil otherwise; tokens likewise when one has its tokens
	// counted (admCounted), scores when one has a score (admScored).
	rare   []rareAdmission
	tokens []int
	scores []float64
	// list holds the admitted entries of a Result built by ResultOf.
	list []Admitted
}

// ResultOf is a Result whose admitted entries are admitted, for callers
// that build one by hand (tests, tools); an engine's Result keeps them as
// Admissions.
func ResultOf(admitted []Admitted) Result { return Result{list: admitted} }

// Admission is one admitted entry of a Result in 16 bytes without
// pointers: a turn's result holds one per admitted entry, and the
// collector neither scans them nor passes their writes through its write
// barrier (docs/benchmarks.md#recursion-admissions). Result.AdmittedAt
// reads it as an Admitted.
type Admission struct {
	// pos is the entry's position in Input.Entries; trig is 1 + the
	// position of the entry whose content triggered it (0 none).
	pos, trig int32
	// cost is Admitted.Cost (saturated at int32).
	cost int32
	// passFlags is Admitted.Pass << admPassShift | the admRare,
	// admCounted and admScored flags.
	passFlags uint32
}

// The flags of Admission.passFlags.
const (
	// admRare: Result.rare holds the entry's identity-resolved content or
	// its @@reverse_depth placing.
	admRare = 1 << iota
	// admCounted: Result.tokens holds the entry's token count.
	admCounted
	// admScored: Result.scores holds the entry's similarity score.
	admScored
	admPassShift = iota
)

// rareAdmission is what an Admission leaves to Result.rare: the fields
// few admitted entries set.
type rareAdmission struct {
	// content is the identity-resolved content when ownContent.
	content string
	// placing is the turn's copy for @@reverse_depth, nil none.
	placing    *Placing
	ownContent bool
}

// NumAdmitted is the number of admitted entries of r.
func (r Result) NumAdmitted() int {
	if r.list != nil {
		return len(r.list)
	}
	return len(r.Admissions)
}

// AdmittedAt is the k-th admitted entry of r (0 <= k < NumAdmitted), in
// insertion order. Its Entry points into the turn's Input.Entries, its
// Placing, Tokens and Score into r or the Matcher: read them, do not
// change them.
func (r *Result) AdmittedAt(k int) Admitted {
	if r.list != nil {
		return r.list[k]
	}
	ad := &r.Admissions[k]
	ce := &r.m.entries[ad.pos]
	a := Admitted{Entry: &r.entries[ad.pos], Content: ce.body, Placing: &ce.placing, Cost: int(ad.cost), Pass: int(ad.passFlags >> admPassShift)}
	if ad.trig > 0 {
		a.TriggeredBy = r.m.ids[ad.trig-1]
	}
	if ad.passFlags&admCounted != 0 {
		a.Tokens = &r.tokens[k]
	}
	if ad.passFlags&admRare != 0 {
		x := &r.rare[k]
		if x.ownContent {
			a.Content = x.content
		}
		if x.placing != nil {
			a.Placing = x.placing
		}
	}
	if ad.passFlags&admScored != 0 {
		a.Score = &r.scores[k]
	}
	return a
}

// Admitted returns every admitted entry of r, in insertion order, in a new
// slice (72 bytes an entry: per-turn callers read AdmittedAt instead).
func (r Result) Admitted() []Admitted {
	out := make([]Admitted, r.NumAdmitted())
	for k := range out {
		out[k] = r.AdmittedAt(k)
	}
	return out
}
