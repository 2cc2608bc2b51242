package graph

import (
	"bytes"
	"io"
	"strconv"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-json-experiment/json/jsontext"

	"loregate/graph/model"
)

// leanRequest is a POST body the lean path can answer: the document, the
// operation name and one variable holding an ActivateInput.
type leanRequest struct {
	query     []byte
	operation string
	inputs    []leanInput
	// plan is the query's lean plan (never nil in a decoded request).
	plan *leanPlan
}

// leanInput is one decoded variable: an ActivateInput, or with turnID an
// ActivateTurnInput (turnInput).
type leanInput struct {
	name  string
	input model.ActivateInput
	// turnID is the turnId member (nil when absent).
	turnID *string
}

// turnInput is the ActivateTurnInput the variable holds, as gqlgen
// coerces it; false when it is not one the lean path takes (turnId or
// messageCount absent or null: gqlgen refuses those).
func (l *leanInput) turnInput() (model.ActivateTurnInput, bool) {
	in := &l.input
	count, _ := in.MessageCount.ValueOK()
	if l.turnID == nil || count == nil {
		return model.ActivateTurnInput{}, false
	}
	return model.ActivateTurnInput{ServerDiscordID: in.ServerDiscordID, LineageID: in.LineageID, ChannelID: in.ChannelID,
		ParentChannelID: in.ParentChannelID, Messages: in.Messages, Names: in.Names, Overrides: in.Overrides,
		TurnID: *l.turnID, MessageCount: *count, Context: in.Context, GenerationType: in.GenerationType}, true
}

// leanDecoder is one pooled JSON reader over a request body.
type leanDecoder struct {
	buf  bytes.Buffer
	dec  jsontext.Decoder
	req  leanRequest
	in   [1]leanInput
	plan func(query []byte) *leanPlan
}

// decodeLeanRequest decodes raw, with a leanDecoder of decoders, when it
// is a body whose every member the lean path reads the way gqlgen's POST
// transport and variable coercion do (query, operationName and variables,
// the variable an ActivateInput object of the fields the bot sends,
// strings as strings and integers as plain integer literals); ok is false
// for anything else, which gqlgen then reads. plan gives the query's lean plan, nil when it has none: the
// decoding stops there, before the variables when the query comes first
// (another operation's variables are not decoded twice). The result stays
// valid while raw does.
func decodeLeanRequest(decoders *sync.Pool, raw []byte, plan func(query []byte) *leanPlan) (req leanRequest, ok bool) {
	d := decoders.Get().(*leanDecoder)
	defer decoders.Put(d)
	d.buf = *bytes.NewBuffer(raw)
	d.dec.Reset(&d.buf) // duplicate names and invalid UTF-8 are errors: gqlgen reads those
	d.req, d.plan = leanRequest{inputs: d.in[:0]}, plan
	defer func() { d.req, d.in, d.buf, d.plan = leanRequest{}, [1]leanInput{}, bytes.Buffer{}, nil }()
	if !d.object(d.body) || d.req.plan == nil {
		return leanRequest{}, false
	}
	if _, err := d.dec.ReadToken(); err != io.EOF {
		return leanRequest{}, false // more after the body: gqlgen's
	}
	req = d.req
	req.inputs = append([]leanInput(nil), d.req.inputs...)
	return req, true
}

// object reads one JSON object, calling member for each of its names,
// which must read the member's value.
func (d *leanDecoder) object(member func(name string) bool) bool {
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for d.dec.PeekKind() != '}' {
		name, err := d.dec.ReadValue()
		if err != nil || name.Kind() != '"' || bytes.IndexByte(name, '\\') >= 0 || !member(string(name[1:len(name)-1])) {
			return false
		}
	}
	_, err := d.dec.ReadToken()
	return err == nil
}

func (d *leanDecoder) body(name string) bool {
	switch name {
	case "query":
		v, err := d.dec.ReadValue()
		if err != nil || v.Kind() != '"' {
			return false
		}
		if bytes.IndexByte(v, '\\') < 0 {
			d.req.query = v[1 : len(v)-1]
		} else if d.req.query, err = jsontext.AppendUnquote(nil, v); err != nil {
			return false
		}
		d.req.plan = d.plan(d.req.query)
		return d.req.plan != nil
	case "operationName":
		s, null, ok := d.optString()
		d.req.operation = s
		return ok && (null || s != "")
	case "variables":
		if d.dec.PeekKind() == 'n' {
			_, err := d.dec.ReadValue()
			return err == nil
		}
		return d.object(func(name string) bool {
			if len(d.req.inputs) == len(d.in) {
				return false
			}
			d.req.inputs = append(d.req.inputs, leanInput{name: name})
			return d.activateInput(&d.req.inputs[len(d.req.inputs)-1])
		})
	}
	return false // extensions (persisted queries) and anything else: gqlgen's
}

// activateInput reads an ActivateInput object without overrides, or an
// ActivateTurnInput one (with turnId; the plan tells which it must be).
func (d *leanDecoder) activateInput(li *leanInput) bool {
	var server, messages bool
	in := &li.input
	ok := d.object(func(name string) bool {
		switch name {
		case "turnId":
			s, null, ok := d.optString()
			li.turnID = &s
			return ok && !null
		case "serverDiscordId":
			s, null, ok := d.optString()
			in.ServerDiscordID, server = s, ok && !null
			return server
		case "lineageId":
			n, null, ok := d.optInt(64)
			in.LineageID = omit(n, null)
			return ok
		case "channelId":
			s, null, ok := d.optString()
			in.ChannelID = omit(s, null)
			return ok
		case "parentChannelId":
			s, null, ok := d.optString()
			in.ParentChannelID = omit(s, null)
			return ok
		case "messageCount":
			n, null, ok := d.optInt(32)
			in.MessageCount = omit(int(n), null)
			return ok
		case "names":
			return d.names(in)
		case "messages":
			messages = true
			return d.messages(in)
		case "context":
			return d.context(in)
		case "generationType":
			s, null, ok := d.optString()
			g := model.GenerationType(s)
			in.GenerationType = omit(g, null)
			return ok && (null || g.IsValid()) // gqlgen reports an unknown value
		}
		return false
	})
	return ok && server && messages
}

// context reads ActivationContextInput: null, or its character and
// persona objects (each null or an object of their string members; the
// character's tags an array of strings: gqlgen's coercion of a single
// string to a list is left to it).
func (d *leanDecoder) context(in *model.ActivateInput) bool {
	if d.null() {
		in.Context = graphql.OmittableOf[*model.ActivationContextInput](nil)
		return true
	}
	c := &model.ActivationContextInput{}
	in.Context = graphql.OmittableOf(c)
	return d.object(func(name string) bool {
		switch name {
		case "character":
			if d.null() {
				c.Character = graphql.OmittableOf[*model.CharacterContextInput](nil)
				return true
			}
			ch := &model.CharacterContextInput{}
			c.Character = graphql.OmittableOf(ch)
			return d.object(func(name string) bool {
				switch name {
				case "tags":
					return d.strings(&ch.Tags)
				case "name":
					return d.optField(&ch.Name)
				case "description":
					return d.optField(&ch.Description)
				case "personality":
					return d.optField(&ch.Personality)
				case "scenario":
					return d.optField(&ch.Scenario)
				case "creatorNotes":
					return d.optField(&ch.CreatorNotes)
				case "depthPrompt":
					return d.optField(&ch.DepthPrompt)
				}
				return false // gqlgen's to refuse
			})
		case "persona":
			if d.null() {
				c.Persona = graphql.OmittableOf[*model.PersonaContextInput](nil)
				return true
			}
			pe := &model.PersonaContextInput{}
			c.Persona = graphql.OmittableOf(pe)
			return d.object(func(name string) bool {
				switch name {
				case "name":
					return d.optField(&pe.Name)
				case "description":
					return d.optField(&pe.Description)
				}
				return false
			})
		}
		return false
	})
}

// optField reads a string or null into field.
func (d *leanDecoder) optField(field *graphql.Omittable[*string]) bool {
	s, null, ok := d.optString()
	*field = omit(s, null)
	return ok
}

// strings reads null or an array of strings (no null element) as gqlgen
// coerces a [String!] variable: null is a nil list, [] an empty one.
func (d *leanDecoder) strings(field *graphql.Omittable[[]string]) bool {
	if d.null() {
		*field = graphql.OmittableOf[[]string](nil)
		return true
	}
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	list := []string{}
	for d.dec.PeekKind() != ']' {
		s, null, ok := d.optString()
		if !ok || null {
			return false
		}
		list = append(list, s)
	}
	*field = graphql.OmittableOf(list)
	_, err := d.dec.ReadToken()
	return err == nil
}

// null reads a null when one comes next.
func (d *leanDecoder) null() bool {
	if d.dec.PeekKind() != 'n' {
		return false
	}
	_, err := d.dec.ReadValue()
	return err == nil
}

func (d *leanDecoder) names(in *model.ActivateInput) bool {
	if d.dec.PeekKind() == 'n' {
		_, err := d.dec.ReadValue()
		in.Names = graphql.OmittableOf[*model.NamesInput](nil)
		return err == nil
	}
	n := &model.NamesInput{}
	in.Names = graphql.OmittableOf(n)
	return d.object(func(name string) bool {
		var field *graphql.Omittable[*string]
		switch name {
		case "user":
			field = &n.User
		case "char":
			field = &n.Char
		case "bot":
			field = &n.Bot
		default:
			return false
		}
		s, null, ok := d.optString()
		*field = omit(s, null)
		return ok
	})
}

// messages reads the messages list (an array: gqlgen's coercion of a
// single object to a list is left to it).
func (d *leanDecoder) messages(in *model.ActivateInput) bool {
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	msgs := make([]model.MessageInput, 0, 32)
	for d.dec.PeekKind() != ']' {
		var m model.MessageInput
		content := false
		ok := d.object(func(name string) bool {
			var field *graphql.Omittable[*string]
			switch name {
			case "content":
				s, null, ok := d.optString()
				m.Content, content = s, ok && !null
				return content
			case "name":
				field = &m.Name
			case "role":
				field = &m.Role
			default:
				return false
			}
			s, null, ok := d.optString()
			*field = omit(s, null)
			return ok
		})
		if !ok || !content {
			return false
		}
		msgs = append(msgs, m)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return false
	}
	in.Messages = make([]*model.MessageInput, len(msgs))
	for i := range msgs {
		in.Messages[i] = &msgs[i]
	}
	return true
}

// optString reads a string or null.
func (d *leanDecoder) optString() (s string, null, ok bool) {
	v, err := d.dec.ReadValue()
	if err != nil {
		return "", false, false
	}
	switch v.Kind() {
	case 'n':
		return "", true, true
	case '"':
		if bytes.IndexByte(v, '\\') < 0 {
			return string(v[1 : len(v)-1]), false, true
		}
		b, err := jsontext.AppendUnquote(nil, v)
		return string(b), false, err == nil
	}
	return "", false, false
}

// optInt reads null or an integer literal (digits, an optional minus) that
// fits in bits.
func (d *leanDecoder) optInt(bits int) (n int64, null, ok bool) {
	v, err := d.dec.ReadValue()
	if err != nil {
		return 0, false, false
	}
	if v.Kind() == 'n' {
		return 0, true, true
	}
	if v.Kind() != '0' || bytes.ContainsAny(v, ".eE") {
		return 0, false, false
	}
	n, err = strconv.ParseInt(string(v), 10, bits)
	return n, false, err == nil
}

// omit is the Omittable of a member read as v or null.
func omit[T any](v T, null bool) graphql.Omittable[*T] {
	if null {
		return graphql.OmittableOf[*T](nil)
	}
	return graphql.OmittableOf(&v)
}
