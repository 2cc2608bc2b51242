package prompt

import (
	"cmp"
	"slices"
	"strings"

	"loregate/lore"
	"loregate/lore/activation"
)

// This file places the injections of lore/activation (docs/authoring.md
// "Positions"): AT_DEPTH entries inside the history, AN_TOP/AN_BOTTOM
// around the author's note, EM_TOP/EM_BOTTOM around the dialogue
// examples, and outlets where {{outlet::NAME}} appears.

// TagAtDepth tags the messages of AT_DEPTH injections.
const TagAtDepth Tag = "KNOWLEDGE_LOREBOOK_AT_DEPTH"

// injected returns the joined text of the injections of kind k ("" when
// there is none). The engine gives at most one injection per kind for the
// kinds without depth or outlet.
func (a *assembly) injected(k lore.PositionKind) string {
	var parts []string
	for _, in := range a.r.Injections {
		if in.Kind == k {
			parts = append(parts, in.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// wrap puts top above and bottom below text, joined with newlines as
// SillyTavern wraps its author's note; an empty part adds nothing.
func wrap(top, text, bottom string) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{top, text, bottom} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}

// authorsNoteText is the author's note with the AN_TOP and AN_BOTTOM lore
// around it; "" without an author's note (the AN entries are then listed
// in the activation's injections and not placed).
func (a *assembly) authorsNoteText() string {
	if a.r.AuthorsNote == "" {
		return ""
	}
	return wrap(a.injected(lore.PositionANTop), a.r.AuthorsNote, a.injected(lore.PositionANBottom))
}

// examplesText is the dialogue examples with the EM_TOP lore before them
// and the EM_BOTTOM lore after them (placed even without examples, as
// SillyTavern adds them to a card's examples).
func (a *assembly) examplesText() string {
	return wrap(a.injected(lore.PositionEMTop), a.r.Examples, a.injected(lore.PositionEMBottom))
}

// roleRank orders the in-chat messages of one depth as SillyTavern sends
// them: assistant, user, then system nearest the end.
func roleRank(r lore.Role) int {
	switch r {
	case lore.RoleAssistant:
		return 0
	case lore.RoleUser:
		return 1
	}
	return 2
}

// inChatMessage is a message inserted in the history before History[at]
// (at = len(History): after the last message).
type inChatMessage struct {
	at, depth int
	// note: the author's note, which goes before the lore of its depth
	// and role.
	note bool
	msg  Message
}

// inChat returns the messages inserted in the history, in their order:
// the AT_DEPTH injections, depth messages before the end (depth 0 after
// the last message, a depth past the start before the first one), and
// the author's note when the preset has no authorsNote marker, at
// AuthorsNoteDepth as system. At one place deeper messages come first;
// at one depth assistant, user, then system messages, and the author's
// note before the system lore of its depth (SillyTavern's order).
func (a *assembly) inChat() []inChatMessage {
	n := len(a.r.History)
	var out []inChatMessage
	for _, in := range a.r.Injections {
		if in.Kind != lore.PositionAtDepth || in.Text == "" {
			continue
		}
		depth, role := lore.DefaultDepth, lore.RoleSystem
		if in.Depth != nil {
			depth = *in.Depth
		}
		if in.Role != nil {
			role = *in.Role
		}
		out = append(out, inChatMessage{at: max(0, n-depth), depth: depth,
			msg: Message{Kind: KindLore, Role: role, Content: in.Text, Tag: TagAtDepth}})
	}
	if !a.hasMarker[MarkerAuthorsNote] {
		if s := a.authorsNoteText(); s != "" {
			out = append(out, inChatMessage{at: max(0, n-AuthorsNoteDepth), depth: AuthorsNoteDepth, note: true,
				msg: Message{Kind: KindAuthorsNote, Role: lore.RoleSystem, Content: s, Tag: TagAuthorsNote}})
		}
	}
	slices.SortStableFunc(out, func(x, y inChatMessage) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(y.depth, x.depth),
			cmp.Compare(roleRank(x.msg.Role), roleRank(y.msg.Role)), cmp.Compare(noteRank(y.note), noteRank(x.note)))
	})
	return out
}

func noteRank(note bool) int {
	if note {
		return 1
	}
	return 0
}

// outletMacro opens the {{outlet::NAME}} macro (matched without regard to
// case, as the identity macros are).
const outletMacro = "{{outlet::"

// ResolveOutlets replaces every {{outlet::NAME}} of s with the text of the
// outlet NAME (the name trimmed and compared exactly, as SillyTavern
// does), or with "" when no entry of that outlet fired. Everything else of
// s is unchanged; an unclosed macro stays as it is.
func ResolveOutlets(s string, outlets []activation.Outlet) string {
	var b strings.Builder
	for {
		i := indexFold(s, outletMacro)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(outletMacro):], "}}")
		if j < 0 {
			break
		}
		name := strings.TrimSpace(s[i+len(outletMacro) : i+len(outletMacro)+j])
		b.WriteString(s[:i])
		for _, o := range outlets {
			if o.Name == name {
				b.WriteString(o.Text)
				break
			}
		}
		s = s[i+len(outletMacro)+j+2:]
	}
	b.WriteString(s)
	return b.String()
}

// indexFold is strings.Index of needle, which starts with "{{", without
// regard to ASCII case.
func indexFold(s, needle string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], "{{")
		if i < 0 {
			return -1
		}
		i += off
		if len(s)-i >= len(needle) && strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
		off = i + 1
	}
}
