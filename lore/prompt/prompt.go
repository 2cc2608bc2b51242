// Package prompt turns the entries admitted by lore/activation into prompt
// blocks and places them in a chat prompt (docs/contract.md#prompt).
//
// Always On entries become system-role blocks tagged
// KNOWLEDGE_LOREBOOK_BEFORE / KNOWLEDGE_LOREBOOK_AFTER. They go to a
// preset's world-info markers when the preset has them; unclaimed ones are
// flushed just before the first dialogue anchor (the chat history marker,
// else the history itself). Keyword- or chance-activated entries become
// user-role blocks at the tail slot: above the TailTurns most recent turns,
// before retrieved documents. Each block keeps insertion order and carries
// the plain identity-resolved entries (no headings, no titles) for
// providers that fit entries one by one (NovelAI).
//
// Block text format: one heading line "[Lorebook (Before)]" or
// "[Lorebook (After)]" followed by the entries' contents separated by blank
// lines. Titles never reach the prompt; headings and titles are outside the
// activation budget.
package prompt

import (
	"slices"
	"strings"

	"loregate/lore"
	"loregate/lore/activation"
)

// Tag names a lore block for routing and inspection.
type Tag string

// The two block tags of docs/contract.md#prompt.
const (
	TagBefore Tag = "KNOWLEDGE_LOREBOOK_BEFORE"
	TagAfter  Tag = "KNOWLEDGE_LOREBOOK_AFTER"
)

// Inspection labels (docs/contract.md#prompt: inspection labels the
// blocks Lorebook (Before) and Lorebook (After) with the /memories hint).
const (
	LabelBefore = "Lorebook (Before)"
	LabelAfter  = "Lorebook (After)"
	Hint        = "/memories"
)

// TailTurns is how many of the most recent history messages stay below the
// activated lore and the retrieved documents (docs/contract.md#prompt: just
// above the four most recent turns).
const TailTurns = 4

// Block is one lore block: the entries of one group and one placement.
type Block struct {
	Tag Tag
	// Role is system for Always On blocks, user for activated ones.
	Role      lore.Role
	Group     activation.Group
	Placement lore.Placement
	// Label is the inspection label of the placement.
	Label string
	// Text is the heading line and the entries, as sent to the model.
	Text string
	// Entries are the block's entries in insertion order, their contents
	// identity-resolved, without heading (docs/contract.md#prompt: the
	// plain per-entry list for providers that fit entries one by one).
	Entries []BlockEntry
}

// BlockEntry is one entry of a Block: its id and title (for the caller's
// listing; titles never reach the prompt), its identity-resolved content,
// and the role it is sent with (the block's).
type BlockEntry struct {
	ID      int64
	Title   string
	Content string
	Role    lore.Role
}

// Blocks groups the admitted entries of res (in insertion order) into at
// most four blocks, in this order: Always On before, Always On
// after, activated before, activated after. Empty groups give no block.
// Entries whose position is injected (AN, AT_DEPTH, EM, OUTLET: the
// activation's Injections) are in no block.
func Blocks(res *activation.Result) []Block {
	var out []Block
	for _, g := range []activation.Group{activation.AlwaysOn, activation.Activated} {
		for _, p := range []lore.Placement{lore.Before, lore.After} {
			b := Block{Tag: TagAfter, Role: lore.RoleSystem, Group: g, Placement: p, Label: LabelAfter}
			if p == lore.Before {
				b.Tag, b.Label = TagBefore, LabelBefore
			}
			if g == activation.Activated {
				b.Role = lore.RoleUser
			}
			var texts []string
			for k := range res.NumAdmitted() {
				a := res.AdmittedAt(k)
				if a.Group == g && a.Placement == p && !a.Position.Kind.Injected() {
					texts = append(texts, a.Content)
					b.Entries = append(b.Entries, BlockEntry{ID: a.Entry.ID, Title: a.Entry.Title, Content: a.Content, Role: b.Role})
				}
			}
			if len(texts) == 0 {
				continue
			}
			b.Text = "[" + b.Label + "]\n" + strings.Join(texts, "\n\n")
			out = append(out, b)
		}
	}
	return out
}

// Kind says where a message of an assembled prompt came from.
type Kind string

// Message kinds.
const (
	KindPreset   Kind = "preset"
	KindLore     Kind = "lore"
	KindHistory  Kind = "history"
	KindDocument Kind = "document"
	// KindAuthorsNote is the caller's author's note with the AN_TOP and
	// AN_BOTTOM lore around it; KindExamples the caller's dialogue
	// examples with the EM_TOP and EM_BOTTOM lore around them.
	KindAuthorsNote Kind = "authors_note"
	KindExamples    Kind = "examples"
)

// Message tags of the author's note and the dialogue examples.
const (
	TagAuthorsNote Tag = "AUTHORS_NOTE"
	TagExamples    Tag = "DIALOGUE_EXAMPLES"
)

// Message is one message of a prompt.
type Message struct {
	Kind    Kind
	Role    lore.Role
	Name    string
	Content string
	// Tag is set on lore messages, the author's note and the examples.
	Tag Tag
}

// Marker is a placeholder of a preset.
type Marker string

// Preset markers (SillyTavern Chat Completion prompt identifiers, and
// authorsNote, loregate's own).
const (
	// MarkerWorldInfoBefore receives the Always On before block.
	MarkerWorldInfoBefore Marker = "worldInfoBefore"
	// MarkerWorldInfoAfter receives the Always On after block.
	MarkerWorldInfoAfter Marker = "worldInfoAfter"
	// MarkerChatHistory is the dialogue anchor: the history goes here.
	MarkerChatHistory Marker = "chatHistory"
	// MarkerMain is the main prompt: the caller's system prompt goes here
	// (the caller places it as a fixed PresetItem; Assemble adds nothing).
	MarkerMain Marker = "main"
	// MarkerDialogueExamples receives Request.Examples.
	MarkerDialogueExamples Marker = "dialogueExamples"
	// MarkerAuthorsNote receives Request.AuthorsNote (SillyTavern injects
	// its author's note in the chat instead: without this marker so does
	// Assemble, AuthorsNoteDepth messages from the end).
	MarkerAuthorsNote Marker = "authorsNote"
)

// AuthorsNoteDepth is where an author's note goes when the preset has no
// authorsNote marker: that many messages before the end of the history,
// as a system message (SillyTavern's default author's note depth).
const AuthorsNoteDepth = 4

// markers are every SillyTavern Chat Completion prompt identifier a preset
// may hold (its prompt_order), then authorsNote; see Markers.
var markers = [...]Marker{
	MarkerMain, MarkerWorldInfoBefore, MarkerWorldInfoAfter, "charDescription", "charPersonality",
	"scenario", "personaDescription", MarkerDialogueExamples, MarkerChatHistory, "jailbreak",
	"postHistoryInstructions", "nsfw", "enhanceDefinitions", MarkerAuthorsNote,
}

// Markers returns every marker a preset may hold, 14: the 13 SillyTavern
// Chat Completion prompt identifiers (its prompt_order) in SillyTavern's
// order, then authorsNote. Assemble places lore at the world-info
// markers, the history at chatHistory, Request.Examples at
// dialogueExamples and Request.AuthorsNote at authorsNote; the ones whose
// text is the caller's (character description, persona, post-history
// instructions under both names, auxiliary and enhance-definitions
// prompts) it accepts and places nothing at. The slice is a fresh copy.
func Markers() []Marker { return slices.Clone(markers[:]) }

// Known reports whether m is one of Markers (case-sensitive, as
// SillyTavern writes them).
func (m Marker) Known() bool { return slices.Contains(markers[:], m) }

// PresetItem is a fixed message (Marker "") or a marker.
type PresetItem struct {
	Marker  Marker
	Message Message
}

// Request is what Assemble places.
type Request struct {
	// Preset is the caller's prompt skeleton; nil means system lore first,
	// then the history.
	Preset []PresetItem
	// History is the dialogue, oldest first.
	History []Message
	// Documents are retrieved documents, placed after activated lore.
	Documents []Message
	// Blocks are the lore blocks from Blocks.
	Blocks []Block
	// AuthorsNote is the caller's author's note ("" none), placed as a
	// system message at the authorsNote marker, else AuthorsNoteDepth
	// messages before the end of the history.
	AuthorsNote string
	// Examples are the caller's dialogue examples ("" none), placed as a
	// system message at the dialogueExamples marker, else just before the
	// history (after the unclaimed Always On lore).
	Examples string
	// Injections are the activation's (activation.Result.Injections):
	// AT_DEPTH ones go inside the history, AN_TOP/AN_BOTTOM around the
	// author's note (not placed without one), EM_TOP/EM_BOTTOM around the
	// examples; OUTLET ones only through Outlets.
	Injections []activation.Injection
	// Outlets are the activation's (activation.Result.Outlets): every
	// {{outlet::NAME}} of the preset's fixed messages, the author's note
	// and the examples becomes that outlet's text, "" when none fired.
	Outlets []activation.Outlet
}

// Assemble returns the ordered prompt: preset items in order, Always On
// blocks at their markers (unclaimed ones flushed before the dialogue
// anchor), the examples and the author's note at their markers, and at
// the anchor the history with the tail slot: older history, activated
// blocks, documents, then the TailTurns most recent messages. The in-chat
// messages (AT_DEPTH injections, an author's note without its marker)
// go inside the history where their depth says (see inChat), after the
// tail slot when both fall at one place. Outlets are resolved in the
// fixed preset messages, the author's note and the examples, never
// elsewhere. Preset markers consume only Always On blocks. Input slices
// are not modified. Without an author's note, examples and injections
// the output is exactly today's (docs/contract.md#prompt).
func Assemble(r Request) []Message {
	r.AuthorsNote, r.Examples = ResolveOutlets(r.AuthorsNote, r.Outlets), ResolveOutlets(r.Examples, r.Outlets)
	a := &assembly{r: &r, claimed: map[Tag]bool{}, hasMarker: map[Marker]bool{}}
	for _, it := range r.Preset {
		a.hasMarker[it.Marker] = true
	}
	for _, it := range r.Preset {
		switch it.Marker {
		case MarkerWorldInfoBefore:
			a.alwaysOn(TagBefore)
		case MarkerWorldInfoAfter:
			a.alwaysOn(TagAfter)
		case MarkerDialogueExamples:
			a.examples()
		case MarkerAuthorsNote:
			a.authorsNote()
		case MarkerChatHistory:
			a.history()
		case "":
			m := it.Message
			if m.Kind == "" {
				m.Kind = KindPreset
			}
			m.Content = ResolveOutlets(m.Content, r.Outlets)
			a.out = append(a.out, m)
		}
	}
	a.history()
	return a.out
}

// assembly is the state of one Assemble call.
type assembly struct {
	r   *Request
	out []Message
	// claimed: the Always On block of a tag, the examples (TagExamples) or
	// the author's note (TagAuthorsNote) is placed.
	claimed map[Tag]bool
	// hasMarker: the preset holds the marker. A block whose marker the
	// preset has waits for that marker, even when the marker comes after
	// the dialogue anchor; only blocks without one are flushed before the
	// anchor (docs/contract.md#prompt: "Missing markers flush those
	// unclaimed blocks before the first dialogue anchor").
	hasMarker map[Marker]bool
	anchored  bool
}

func loreMessage(b Block) Message {
	return Message{Kind: KindLore, Role: b.Role, Content: b.Text, Tag: b.Tag}
}

// alwaysOn places the Always On block of tag once.
func (a *assembly) alwaysOn(tag Tag) {
	if a.claimed[tag] {
		return
	}
	for _, b := range a.r.Blocks {
		if b.Group == activation.AlwaysOn && b.Tag == tag {
			a.claimed[tag] = true
			a.out = append(a.out, loreMessage(b))
			return
		}
	}
}

// examples places the dialogue examples with their EM lore once, when
// there are any.
func (a *assembly) examples() {
	if a.claimed[TagExamples] {
		return
	}
	if s := a.examplesText(); s != "" {
		a.claimed[TagExamples] = true
		a.out = append(a.out, Message{Kind: KindExamples, Role: lore.RoleSystem, Content: s, Tag: TagExamples})
	}
}

// authorsNote places the author's note with its AN lore at its marker
// once, when there is one.
func (a *assembly) authorsNote() {
	if a.claimed[TagAuthorsNote] {
		return
	}
	if s := a.authorsNoteText(); s != "" {
		a.claimed[TagAuthorsNote] = true
		a.out = append(a.out, Message{Kind: KindAuthorsNote, Role: lore.RoleSystem, Content: s, Tag: TagAuthorsNote})
	}
}

// history places, once, the unclaimed Always On blocks and examples
// without their marker, then the history with the tail slot and the
// in-chat messages.
func (a *assembly) history() {
	if a.anchored {
		return
	}
	a.anchored = true
	for _, tag := range []Tag{TagBefore, TagAfter} {
		if !a.hasMarker[tagMarker[tag]] {
			a.alwaysOn(tag)
		}
	}
	if !a.hasMarker[MarkerDialogueExamples] {
		a.examples()
	}
	h := a.r.History
	inChat := a.inChat()
	tail := max(0, len(h)-TailTurns)
	for i := 0; i <= len(h); i++ {
		if i == tail {
			for _, b := range a.r.Blocks {
				if b.Group == activation.Activated {
					a.out = append(a.out, loreMessage(b))
				}
			}
			a.out = append(a.out, a.r.Documents...)
		}
		for _, m := range inChat {
			if m.at == i {
				a.out = append(a.out, m.msg)
			}
		}
		if i < len(h) {
			a.out = append(a.out, h[i])
		}
	}
}

// tagMarker is the preset marker of each Always On block tag.
var tagMarker = map[Tag]Marker{TagBefore: MarkerWorldInfoBefore, TagAfter: MarkerWorldInfoAfter}

// Section is the inspection line of one placement.
type Section struct {
	Label string
	Tag   Tag
	// Blocks and Entries count the lore blocks and entries of the placement.
	Blocks, Entries int
	// Chars counts the block texts (headings included) in UTF-16 code units.
	Chars int
	// Tokens counts the block texts with the tokenizer; -1 without one.
	Tokens int
	Hint   string
}

// Inspect returns the two inspection sections, Lorebook (Before) then
// Lorebook (After), each over the Always On and activated blocks of that
// placement; counts are zero when a placement has no block.
func Inspect(blocks []Block, tok activation.Tokenizer) []Section {
	out := []Section{
		{Label: LabelBefore, Tag: TagBefore, Hint: Hint},
		{Label: LabelAfter, Tag: TagAfter, Hint: Hint},
	}
	for i := range out {
		if tok == nil {
			out[i].Tokens = -1
		}
		for _, b := range blocks {
			if b.Tag != out[i].Tag {
				continue
			}
			out[i].Blocks++
			out[i].Entries += len(b.Entries)
			out[i].Chars += lore.UTF16Len(b.Text)
			if tok != nil {
				out[i].Tokens += tok.CountTokens(b.Text)
			}
		}
	}
	return out
}
