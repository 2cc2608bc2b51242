package graph

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"loregate/graph/model"
)

// Hand-written encodings of a recorded turn's input (hashed on every
// turn) and of the stored result's Activation, byte for byte what
// encoding/json writes for them (TestTurnJSONMatchesEncodingJSON), without
// reflection, a json.Marshal per optional field or a copy of the output
// (the two were a fifth of a recorded turn's serve CPU). Shapes these
// encoders do not know report false, and the caller uses encoding/json.

// appendJSONString appends s as encoding/json encodes a string: quotes,
// backslashes and control characters escaped, <, > and & as \u003c,
// \u003e and \u0026, U+2028 and U+2029 escaped, and each byte of invalid
// UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		for i < len(s) && jsonPlain[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// plain8 reports whether the 8 bytes of w are all jsonPlain: the scan
// unrolled, about 3 times the bytes a second of one byte a test
// (appendJSONString hashes every message of a recorded turn's input).
func plain8(w string) bool {
	_ = w[7]
	return jsonPlain[w[0]] && jsonPlain[w[1]] && jsonPlain[w[2]] && jsonPlain[w[3]] &&
		jsonPlain[w[4]] && jsonPlain[w[5]] && jsonPlain[w[6]] && jsonPlain[w[7]]
}

// jsonPlain marks the bytes appendJSONString copies as they are: ASCII
// from space on, but for the quote, the backslash, <, > and &.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONFloat appends f as encoding/json encodes a float64; false for
// NaN and infinities, which it refuses.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-09 to e-9
		b = b[:n-1]
	}
	return b, true
}

// appendJSONKey appends the member name key (a plain ASCII name) and its
// colon, after a comma unless first.
func appendJSONKey(b []byte, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendOptString appends a *string (an Omittable's value or a pointer
// field that is not omitempty): null when nil.
func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendOptInt[T int | int64](b []byte, v *T) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*v), 10)
}

// appendTurnInput appends turnInputJSON(in) for the bot's shape: no names
// or overrides and no context (a generation type is fine); false for
// anything else.
func appendTurnInput(b []byte, in *model.ActivateTurnInput) ([]byte, bool) {
	if in.Names.Value() != nil || in.Overrides.Value() != nil || in.Context.Value() != nil {
		return b, false
	}
	b = appendJSONKey(append(b, '{'), "serverDiscordId", true)
	b = appendJSONString(b, in.ServerDiscordID)
	b = appendOptInt(appendJSONKey(b, "lineageId", false), in.LineageID.Value())
	b = appendOptString(appendJSONKey(b, "channelId", false), in.ChannelID.Value())
	b = appendOptString(appendJSONKey(b, "parentChannelId", false), in.ParentChannelID.Value())
	b = appendJSONKey(b, "messages", false)
	if in.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range in.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			if m == nil {
				b = append(b, "null"...)
				continue
			}
			b = appendOptString(appendJSONKey(append(b, '{'), "name", true), m.Name.Value())
			b = appendOptString(appendJSONKey(b, "role", false), m.Role.Value())
			b = append(appendJSONString(appendJSONKey(b, "content", false), m.Content), '}')
		}
		b = append(b, ']')
	}
	b = append(appendJSONKey(b, "names", false), "null"...)
	b = append(appendJSONKey(b, "overrides", false), "null"...)
	b = appendJSONString(appendJSONKey(b, "turnId", false), in.TurnID)
	b = strconv.AppendInt(appendJSONKey(b, "messageCount", false), int64(in.MessageCount), 10)
	if g := in.GenerationType.Value(); g != nil {
		// turnInputJSON keeps both fields when either is set.
		b = append(appendJSONKey(b, "context", false), "null"...)
		b = appendJSONString(appendJSONKey(b, "generationType", false), string(*g))
	}
	return append(b, '}'), true
}

// appendActivationJSON appends json.Marshal(a) for an Activation without
// a trace or notices (the stored result's head: notices are not stored,
// a turn's answer adds its own); false when a has a trace, notices or a
// score that is NaN or infinite (json.Marshal refuses those).
func appendActivationJSON(b []byte, a *model.Activation) ([]byte, bool) {
	if a.Trace != nil || a.Notices != nil {
		return b, false
	}
	ok := true
	b = appendJSONKey(append(b, '{'), "admitted", true)
	b = appendJSONList(b, a.Admitted, func(b []byte, e *model.AdmittedEntry) []byte {
		b, ok = appendAdmittedJSON(b, e, ok)
		return b
	})
	b = appendJSONKey(b, "blocks", false)
	b = appendJSONList(b, a.Blocks, appendBlockJSON)
	b = appendJSONKey(b, "budget", false)
	b = appendBudgetJSON(b, &a.Budget)
	b = append(appendJSONKey(b, "trace", false), "null"...)
	b = strconv.AppendInt(appendJSONKey(b, "passes", false), int64(a.Passes), 10)
	b = appendJSONKey(b, "injections", false)
	b = appendJSONList(b, a.Injections, appendInjectionJSON)
	b = appendJSONKey(b, "outlets", false)
	b = appendJSONList(b, a.Outlets, func(b []byte, o *model.Outlet) []byte {
		b = appendJSONString(appendJSONKey(append(b, '{'), "name", true), o.Name)
		return append(appendJSONString(appendJSONKey(b, "text", false), o.Text), '}')
	})
	b = strconv.AppendBool(appendJSONKey(b, "storeUnavailable", false), a.StoreUnavailable)
	b = append(appendJSONKey(b, "notices", false), "null"...)
	return append(b, '}'), ok
}

// appendJSONList appends a slice as encoding/json does: null when nil,
// a nil element null, each other element by item.
func appendJSONList[T any](b []byte, items []*T, item func([]byte, *T) []byte) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range items {
		if i > 0 {
			b = append(b, ',')
		}
		if v == nil {
			b = append(b, "null"...)
			continue
		}
		b = item(b, v)
	}
	return append(b, ']')
}

func appendAdmittedJSON(b []byte, e *model.AdmittedEntry, ok bool) ([]byte, bool) {
	b = appendJSONString(appendJSONKey(append(b, '{'), "id", true), e.ID)
	b = appendJSONString(appendJSONKey(b, "title", false), e.Title)
	b = appendJSONString(appendJSONKey(b, "placement", false), string(e.Placement))
	b = appendJSONString(appendJSONKey(b, "group", false), string(e.Group))
	b = appendJSONString(appendJSONKey(b, "content", false), e.Content)
	if e.Tokens != nil {
		b = appendOptInt(appendJSONKey(b, "tokens", false), e.Tokens)
	}
	b = strconv.AppendInt(appendJSONKey(b, "pass", false), int64(e.Pass), 10)
	if e.TriggeredBy != nil {
		b = appendOptString(appendJSONKey(b, "triggeredBy", false), e.TriggeredBy)
	}
	b = appendJSONKey(b, "position", false)
	b = append(appendPositionJSON(b, e.Position.Kind, e.Position.Depth, e.Position.Role, e.Position.Outlet), '}')
	if e.Score != nil {
		var fine bool
		b, fine = appendJSONFloat(appendJSONKey(b, "score", false), *e.Score)
		ok = ok && fine
	}
	return append(b, '}'), ok
}

// appendPositionJSON appends the members of an EntryPosition, or the
// first four of an Injection, after its opening brace: {kind, then depth,
// role and outlet when set (omitempty); the caller closes the object.
func appendPositionJSON(b []byte, kind model.PositionKind, depth *int, role *model.Role, outlet *string) []byte {
	b = appendJSONString(appendJSONKey(append(b, '{'), "kind", true), string(kind))
	if depth != nil {
		b = appendOptInt(appendJSONKey(b, "depth", false), depth)
	}
	if role != nil {
		b = appendJSONString(appendJSONKey(b, "role", false), string(*role))
	}
	if outlet != nil {
		b = appendOptString(appendJSONKey(b, "outlet", false), outlet)
	}
	return b
}

func appendBlockJSON(b []byte, p *model.PromptBlock) []byte {
	b = appendJSONString(appendJSONKey(append(b, '{'), "tag", true), p.Tag)
	b = appendJSONString(appendJSONKey(b, "role", false), p.Role)
	b = appendJSONString(appendJSONKey(b, "text", false), p.Text)
	b = appendJSONKey(b, "entries", false)
	b = appendJSONList(b, p.Entries, func(b []byte, e *model.PromptBlockEntry) []byte {
		b = appendJSONString(appendJSONKey(append(b, '{'), "id", true), e.ID)
		b = appendJSONString(appendJSONKey(b, "title", false), e.Title)
		b = appendJSONString(appendJSONKey(b, "content", false), e.Content)
		return append(appendJSONString(appendJSONKey(b, "role", false), e.Role), '}')
	})
	return append(b, '}')
}

func appendBudgetJSON(b []byte, u *model.Budget) []byte {
	b = appendJSONString(appendJSONKey(append(b, '{'), "unit", true), u.Unit)
	b = strconv.AppendInt(appendJSONKey(b, "limit", false), int64(u.Limit), 10)
	b = strconv.AppendInt(appendJSONKey(b, "used", false), int64(u.Used), 10)
	b = appendJSONKey(b, "byBook", false)
	b = appendJSONList(b, u.ByBook, func(b []byte, k *model.BookBudget) []byte {
		b = append(b, '{')
		first := true
		if k.CollectionID != nil {
			b, first = appendOptString(appendJSONKey(b, "collectionId", true), k.CollectionID), false
		}
		if k.LineageID != nil {
			b, first = appendOptInt(appendJSONKey(b, "lineageId", first), k.LineageID), false
		}
		b = appendJSONString(appendJSONKey(b, "name", first), k.Name)
		b = strconv.AppendInt(appendJSONKey(b, "used", false), int64(k.Used), 10)
		b = strconv.AppendInt(appendJSONKey(b, "entries", false), int64(k.Entries), 10)
		if k.Limit != nil {
			b = appendOptInt(appendJSONKey(b, "limit", false), k.Limit)
		}
		return append(b, '}')
	})
	return append(b, '}')
}

func appendInjectionJSON(b []byte, in *model.Injection) []byte {
	b = appendPositionJSON(b, in.Kind, in.Depth, in.Role, in.Outlet)
	b = appendJSONString(appendJSONKey(b, "text", false), in.Text)
	b = appendJSONKey(b, "entryIds", false)
	if in.EntryIds == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, id := range in.EntryIds {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, id)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// marshalActivationHead is json.Marshal(a) through appendActivationJSON
// when it knows a's shape, appended to b.
func marshalActivationHead(b []byte, a *model.Activation) ([]byte, error) {
	if out, ok := appendActivationJSON(b, a); ok {
		return out, nil
	}
	raw, err := json.Marshal(a)
	return append(b, raw...), err
}

// activationHeadSize is about the length of a's JSON (a little more for
// short strings, less for strings with many escapes).
func activationHeadSize(a *model.Activation) int {
	n := 256 + 96*len(a.Budget.ByBook) + 64*len(a.Outlets)
	for _, e := range a.Admitted {
		if e != nil {
			n += 160 + len(e.Title) + len(e.Content)
		}
	}
	for _, p := range a.Blocks {
		if p == nil {
			continue
		}
		n += 64 + len(p.Text)
		for _, e := range p.Entries {
			if e != nil {
				n += 64 + len(e.ID) + len(e.Title) + len(e.Content)
			}
		}
	}
	for _, in := range a.Injections {
		if in != nil {
			n += 96 + len(in.Text) + 24*len(in.EntryIds)
		}
	}
	for _, o := range a.Outlets {
		if o != nil {
			n += len(o.Name) + len(o.Text)
		}
	}
	return n
}
