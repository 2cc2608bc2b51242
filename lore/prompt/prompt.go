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
	// Entries are the identity-resolved contents in insertion order,
	// without heading or titles.
	Entries []string
}

// Blocks groups admitted entries (in insertion order, as activation returns
// them) into at most four blocks, in this order: Always On before, Always On
// after, activated before, activated after. Empty groups give no block.
func Blocks(admitted []activation.Admitted) []Block {
	var out []Block
	for _, g := range []activation.Group{activation.AlwaysOn, activation.Activated} {
		for _, p := range []lore.Placement{lore.Before, lore.After} {
			var entries []string
			for _, a := range admitted {
				if a.Group == g && a.Placement == p {
					entries = append(entries, a.Content)
				}
			}
			if len(entries) == 0 {
				continue
			}
			b := Block{Tag: TagAfter, Role: lore.RoleSystem, Group: g, Placement: p, Label: LabelAfter, Entries: entries}
			if p == lore.Before {
				b.Tag, b.Label = TagBefore, LabelBefore
			}
			if g == activation.Activated {
				b.Role = lore.RoleUser
			}
			b.Text = "[" + b.Label + "]\n" + strings.Join(entries, "\n\n")
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
)

// Message is one message of a prompt.
type Message struct {
	Kind    Kind
	Role    lore.Role
	Name    string
	Content string
	// Tag is set on lore messages.
	Tag Tag
}

// Marker is a placeholder of a preset.
type Marker string

// Preset markers (SillyTavern Chat Completion prompt identifiers).
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
)

// markers are every SillyTavern Chat Completion prompt identifier a preset
// may hold (its prompt_order); see Markers.
var markers = [...]Marker{
	MarkerMain, MarkerWorldInfoBefore, MarkerWorldInfoAfter, "charDescription", "charPersonality",
	"scenario", "personaDescription", "dialogueExamples", MarkerChatHistory, "jailbreak",
	"postHistoryInstructions", "nsfw", "enhanceDefinitions",
}

// Markers returns every SillyTavern Chat Completion prompt identifier a
// preset may hold (its prompt_order), 13 in SillyTavern's order: the
// markers above, and the ones whose text is the caller's (character
// description, persona, examples, post-history instructions under both
// names, auxiliary and enhance-definitions prompts), which Assemble
// accepts and places nothing at. The slice is a fresh copy.
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
}

// Assemble returns the ordered prompt: preset items in order, Always On
// blocks at their markers (unclaimed ones flushed before the dialogue
// anchor), and at the anchor the history with the tail slot: older
// history, activated blocks, documents, then the TailTurns most recent
// messages. Preset markers consume only Always On blocks. Input slices are
// not modified.
func Assemble(r Request) []Message {
	var out []Message
	claimed := map[Tag]bool{}
	loreMsg := func(b Block) Message {
		return Message{Kind: KindLore, Role: b.Role, Content: b.Text, Tag: b.Tag}
	}
	alwaysOn := func(tag Tag) (Block, bool) {
		for _, b := range r.Blocks {
			if b.Group == activation.AlwaysOn && b.Tag == tag {
				return b, true
			}
		}
		return Block{}, false
	}
	// A block whose marker the preset has waits for that marker, even when
	// the marker comes after the dialogue anchor; only blocks without a
	// marker are flushed before the anchor (docs/contract.md#prompt: "Missing markers flush
	// those unclaimed blocks before the first dialogue anchor").
	hasMarker := map[Tag]bool{}
	for _, it := range r.Preset {
		switch it.Marker {
		case MarkerWorldInfoBefore:
			hasMarker[TagBefore] = true
		case MarkerWorldInfoAfter:
			hasMarker[TagAfter] = true
		}
	}
	flush := func() {
		for _, tag := range []Tag{TagBefore, TagAfter} {
			if hasMarker[tag] {
				continue
			}
			if b, ok := alwaysOn(tag); ok && !claimed[tag] {
				claimed[tag] = true
				out = append(out, loreMsg(b))
			}
		}
	}
	anchored := false
	history := func() {
		anchored = true
		flush()
		k := max(0, len(r.History)-TailTurns)
		out = append(out, r.History[:k]...)
		for _, b := range r.Blocks {
			if b.Group == activation.Activated {
				out = append(out, loreMsg(b))
			}
		}
		out = append(out, r.Documents...)
		out = append(out, r.History[k:]...)
	}
	for _, it := range r.Preset {
		switch it.Marker {
		case MarkerWorldInfoBefore, MarkerWorldInfoAfter:
			tag := TagBefore
			if it.Marker == MarkerWorldInfoAfter {
				tag = TagAfter
			}
			if b, ok := alwaysOn(tag); ok && !claimed[tag] {
				claimed[tag] = true
				out = append(out, loreMsg(b))
			}
		case MarkerChatHistory:
			if !anchored {
				history()
			}
		case "":
			m := it.Message
			if m.Kind == "" {
				m.Kind = KindPreset
			}
			out = append(out, m)
		}
	}
	if !anchored {
		history()
	}
	return out
}

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
