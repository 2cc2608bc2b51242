package risu

import (
	"encoding/json"
	"strconv"
	"strings"

	"loregate/lore"
	"loregate/lore/decorator"
	"loregate/lore/format/internal/conv"
	"loregate/lore/i18n"
)

// RisuAI rows have no position fields: RisuAI says where lore goes only
// with decorators at the top of the content (@@depth, @@role,
// @@position). An export of an entry whose position is a field, and
// differs from where a RisuAI row goes by default (after the character),
// writes that position twice (docs/formats.md "Positions, roles and
// filters per format"): in markerKey ({"position": {kind, depth, role,
// outlet}, "decorated": true when lines were added}), which loregate
// reads back as the fields, and, where RisuAI has a decorator for it and
// the content has no position decorator of its own, as decorator lines
// for RisuAI itself (AT_DEPTH: @@depth N and @@role R; BEFORE_CHAR:
// @@position before_desc). The import strips exactly those lines again,
// so the round trip through loregate gives the entry back unchanged.

// markerKey is the member of a RisuAI row in which loregate keeps an
// entry's field position.
const markerKey = "loregate"

// marker is markerKey's object.
type marker struct {
	Position *markedPosition `json:"position,omitempty"`
	// Decorated is true when the export added decoratorLines to the content.
	Decorated bool `json:"decorated,omitempty"`
}

// markedPosition is an entry's stored position fields.
type markedPosition struct {
	Kind   lore.PositionKind `json:"kind"`
	Depth  int               `json:"depth"`
	Role   lore.Role         `json:"role,omitempty"`
	Outlet string            `json:"outlet,omitempty"`
}

// defaultPosition is the position a RisuAI row without a marker reads as
// (lore.NewEntry's, placed after the character).
var defaultPosition = markedPosition{Kind: lore.PositionAfterChar, Depth: lore.DefaultDepth, Role: lore.RoleSystem}

// decoratorLines are the decorator lines that tell RisuAI where an entry
// at p goes; none for the kinds RisuAI has no place for.
func decoratorLines(p markedPosition) []string {
	switch p.Kind {
	case lore.PositionAtDepth:
		role := p.Role
		if role == "" {
			role = lore.RoleSystem
		}
		return []string{"@@depth " + strconv.Itoa(p.Depth), "@@role " + string(role)}
	case lore.PositionBeforeChar:
		return []string{"@@position before_desc"}
	}
	return nil
}

// placesItself reports whether content has a decorator that says where
// its entry goes (then the export adds none).
func placesItself(content string) bool {
	decs, _ := decorator.Parse(content)
	if decs == nil {
		return false
	}
	s := decorator.Resolve(decs)
	return s.Position != nil || s.Depth != nil || s.ReverseDepth != nil || s.Role != ""
}

// encodePosition returns the content to write for e and its marker (nil
// when e is where a RisuAI row goes by default).
func encodePosition(e *lore.Entry, content json.RawMessage) (json.RawMessage, json.RawMessage) {
	p := markedPosition{Kind: e.PositionKindOrDerived(), Depth: e.Depth, Role: e.Role, Outlet: e.Outlet}
	if p == defaultPosition {
		return content, nil
	}
	m := marker{Position: &p}
	if lines := decoratorLines(p); lines != nil && !placesItself(e.Content) {
		if s, ok := conv.String(content); ok && s == e.Content {
			content, m.Decorated = conv.MustMarshal(strings.Join(lines, "\n")+"\n"+s), true
		}
	}
	return content, conv.MustMarshal(m)
}

// decodePosition sets e's position from a row's marker (raw, nil when
// the row has none) and strips the decorator lines the export added;
// a marker loregate cannot read is reported and ignored (the content's
// decorators, if any, still act).
func decodePosition(e *lore.Entry, raw json.RawMessage, c *conv.STCtx) {
	if raw == nil {
		return
	}
	var m marker
	if err := json.Unmarshal(raw, &m); err != nil || m.Position == nil {
		c.Note(i18n.ReportRisuMarkerUnreadable, map[string]any{"value": conv.Snippet(string(raw))})
		return
	}
	p := *m.Position
	if !p.Kind.Valid() || p.Depth < 0 || p.Depth > lore.MaxDepth || p.Role != "" && !p.Role.Valid() || lore.UTF16Len(p.Outlet) > lore.MaxOutletLen {
		c.Note(i18n.ReportRisuMarkerOutOfRange, map[string]any{"value": conv.Snippet(string(raw))})
		return
	}
	e.Position, e.Depth, e.Role, e.Outlet = p.Kind, p.Depth, p.Role, p.Outlet
	e.Placement = p.Kind.Placement()
	if lines := decoratorLines(p); m.Decorated && lines != nil {
		if body, ok := strings.CutPrefix(e.Content, strings.Join(lines, "\n")+"\n"); ok {
			e.Content = body
		}
	}
}
