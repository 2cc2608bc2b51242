package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"loregate/graph/model"
)

// The lean turn (docs/api.md "Lean turns"): the bot's per-turn `activate`
// and `activateTurn`, two known operation shapes, served without gqlgen's
// general executor. Everything else, and every request the lean path
// cannot answer exactly as gqlgen would, goes to gqlgen unchanged.
const (
	// leanMaxQueryBytes is the longest document the lean path considers;
	// longer ones go to gqlgen without being parsed here.
	leanMaxQueryBytes = 1 << 10
	// leanMaxPlans bounds the documents the lean path remembers (lean or
	// not); a full table starts over.
	leanMaxPlans = 256
	// leanMaxFields bounds the selected fields of a lean document (so its
	// depth, complexity and selection count stay far inside the limits of
	// limits.go and handler.go).
	leanMaxFields = 32
)

// leanHandler answers lean documents itself and passes every other
// request to next (the gqlgen server) with its body intact.
type leanHandler struct {
	next   http.Handler
	r      *Resolver
	schema *ast.Schema
	// metrics are the Metrics extension's series of activate ([0]) and
	// activateTurn ([1]); zero without metrics.
	metrics [2]leanMetrics

	mu    sync.Mutex
	plans map[string]*leanPlan // by document text; nil value: not lean

	// bodies (*bytes.Buffer, kept up to 64 KiB) and decoders
	// (*leanDecoder) are kept from one request to the next.
	bodies, decoders sync.Pool
}

// leanMetrics are one operation's series: its ok counter and latency
// histogram (nil without metrics).
type leanMetrics struct {
	ok      prometheus.Counter
	latency prometheus.Observer
}

// leanPlan is a validated lean document: `activate(input: $var)` with a
// selection of Activation's scalar fields and of admitted, blocks,
// budget and notices, or `activateTurn(input: $var)` selecting the same under result,
// error (MutationError's fields) and __typename.
type leanPlan struct {
	operation string // the operation's name, "" when anonymous
	variable  string // the variable passed as input
	alias     string // the response key of activate or activateTurn
	// turn: the document is the activateTurn mutation.
	turn bool
	// fields is the selection of Activation (activate) or of
	// ActivateTurnPayload (activateTurn), each response key once.
	fields []leanField
	blocks bool // blocks is selected: render the prompt blocks
}

// leanField is one selected field: its response key, its name and, for a
// field of an object type (admitted, blocks, budget, result, error,
// fields), the selected subfields.
type leanField struct {
	key, name string
	sub       []leanField
}

// leanFields are the fields a lean document may select, by type: each
// field's object type, "" for a leaf. Activation's trace and every field
// added later go to gqlgen (notices, a bot's check of its lineage, is
// lean: it costs a flag test per turn).
var leanFields = map[string]map[string]string{
	"ActivateTurnPayload": {"result": "Activation", "error": "MutationError", "__typename": ""},
	"Activation": {"admitted": "AdmittedEntry", "blocks": "PromptBlock", "budget": "Budget",
		"passes": "", "storeUnavailable": "", "notices": "ActivationNotice", "__typename": ""},
	"ActivationNotice": {"reason": "", "params": "", "message": "", "__typename": ""},
	"AdmittedEntry": {"id": "", "title": "", "placement": "", "group": "", "content": "", "tokens": "",
		"pass": "", "triggeredBy": "", "__typename": ""},
	"PromptBlock": {"tag": "", "role": "", "text": "", "__typename": ""},
	"Budget":      {"unit": "", "limit": "", "used": "", "__typename": ""},
	"MutationError": {"code": "", "message": "", "field": "", "limit": "", "reason": "", "params": "",
		"fields": "FieldError", "__typename": ""},
	"FieldError": {"field": "", "reason": "", "message": "", "params": "", "__typename": ""},
}

func newLeanHandler(next http.Handler, cfg Config, schema *ast.Schema) *leanHandler {
	h := &leanHandler{next: next, r: cfg.Resolver, schema: schema, plans: map[string]*leanPlan{},
		bodies:   sync.Pool{New: func() any { return new(bytes.Buffer) }},
		decoders: sync.Pool{New: func() any { return new(leanDecoder) }}}
	if cfg.Metrics != nil {
		// operationLabel's names of the operations
		for i, label := range []string{"query:activate", "mutation:activateTurn"} {
			h.metrics[i] = leanMetrics{ok: cfg.Metrics.Requests.WithLabelValues(label, "ok"),
				latency: cfg.Metrics.Latency.WithLabelValues(label)}
		}
	}
	return h
}

func (h *leanHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.Header.Get("Upgrade") != "" || !leanContentTypes(req.Header) {
		h.next.ServeHTTP(w, req)
		return
	}
	body := h.bodies.Get().(*bytes.Buffer)
	defer func() {
		if body.Cap() <= 64<<10 { // keep small buffers only
			body.Reset()
			h.bodies.Put(body)
		}
	}()
	body.Reset()
	_, err := body.ReadFrom(req.Body)
	raw := body.Bytes()
	if err == nil && h.serve(w, req.Context(), raw) {
		return
	}
	// gqlgen reads what this handler read, then the read's error if any.
	var rest io.Reader = bytes.NewReader(raw)
	if err != nil {
		rest = io.MultiReader(rest, errorReader{err})
	}
	req.Body = io.NopCloser(rest)
	h.next.ServeHTTP(w, req)
}

// serve answers the request when its body is a lean document with
// variables the lean path decodes exactly as gqlgen would and its
// activation succeeds; it reports whether it wrote the response.
func (h *leanHandler) serve(w http.ResponseWriter, ctx context.Context, raw []byte) (served bool) {
	start := time.Now()
	lr, ok := decodeLeanRequest(&h.decoders, raw, h.plan)
	if !ok {
		return false
	}
	p := lr.plan
	if (lr.operation != "" && lr.operation != p.operation) || len(lr.inputs) != 1 || lr.inputs[0].name != p.variable {
		return false
	}
	defer func() {
		// gqlgen answers a panicking resolver with its internal error: the
		// request goes there.
		if recover() != nil {
			served = false
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	act, pl, err := h.run(ctx, p, &lr.inputs[0])
	if (err != nil || pl != nil && pl.Error != nil) && ctx.Err() == context.DeadlineExceeded {
		w.WriteHeader(http.StatusServiceUnavailable) // what the timeout handler answers
		_, _ = io.WriteString(w, timeoutBody)
		return true
	}
	if err != nil {
		return false // gqlgen answers it, with its errors
	}
	out := p.marshal(act, pl)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
	m := &h.metrics[0]
	if p.turn {
		m = &h.metrics[1]
	}
	if m.ok != nil {
		m.ok.Inc()
		m.latency.Observe(time.Since(start).Seconds())
	}
	return true
}

// errLeanFallback: the lean path leaves the request to gqlgen.
var errLeanFallback = errors.New("not a lean answer")

// run runs the plan's operation on in: activate's result, or
// activateTurn's payload, its error (a turn-id conflict, the store
// unavailable) included: the lean path answers it, so a failing turn runs
// once (one ranking, one provider call, one conversation transaction). An
// error is the request's for gqlgen: errLeanFallback for what the lean
// path leaves to it before running anything, a permission failure (found
// before any work) or an internal error (a bug, then run again there).
func (h *leanHandler) run(ctx context.Context, p *leanPlan, in *leanInput) (*model.Activation, *model.ActivateTurnPayload, error) {
	if !p.turn {
		if in.turnID != nil {
			return nil, nil, errLeanFallback // not an ActivateInput field: gqlgen refuses it
		}
		act, err := h.r.activateAs(ctx, &in.input, false, p.blocks)
		return act, nil, err
	}
	ti, ok := in.turnInput()
	if !ok {
		return nil, nil, errLeanFallback
	}
	pl, err := h.r.activateTurnAs(ctx, &ti, false, p.blocks, false)
	if err != nil {
		return nil, nil, err
	}
	return nil, pl, nil
}

// leanContentTypes reports whether the request is JSON and its answer
// would be application/json (gqlgen's POST transport: no Accept, or the
// first Accept type it knows is JSON or a wildcard).
func leanContentTypes(hdr http.Header) bool {
	ct := hdr.Get("Content-Type")
	if ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	accept := hdr.Get("Accept")
	if accept == "" {
		return true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", "application/json":
			return true
		case "application/graphql-response+json":
			return false
		}
	}
	return false
}

// plan returns the lean plan of a document text, nil when it is not lean
// (then gqlgen parses, validates and caches it as before).
func (h *leanHandler) plan(query []byte) *leanPlan {
	if len(query) > leanMaxQueryBytes || !bytes.Contains(query, []byte("activate")) {
		return nil
	}
	h.mu.Lock()
	p, seen := h.plans[string(query)]
	h.mu.Unlock()
	if seen {
		return p
	}
	p = compileLeanPlan(h.schema, string(query))
	h.mu.Lock()
	if len(h.plans) >= leanMaxPlans {
		clear(h.plans)
	}
	h.plans[string(query)] = p
	h.mu.Unlock()
	return p
}

// compileLeanPlan parses and validates query against schema and returns
// its plan when it is one lean operation: a query whose only root field
// is activate(input: $v) with $v an ActivateInput(!) variable without a
// default, selecting only leanFields without directives or fragments, or
// a mutation whose only root field is activateTurn(input: $v) with $v an
// ActivateTurnInput(!), selecting result, error and __typename the same
// way. A response key selected twice in one selection set (gqlgen merges
// the two) is not lean.
func compileLeanPlan(schema *ast.Schema, query string) *leanPlan {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxQueryTokens)
	if err != nil || len(doc.Operations) != 1 || len(doc.Fragments) != 0 {
		return nil
	}
	if errs := validator.ValidateWithRules(schema, doc, nil); len(errs) > 0 {
		return nil
	}
	op := doc.Operations[0]
	if len(op.Directives) != 0 || len(op.VariableDefinitions) != 1 || len(op.SelectionSet) != 1 {
		return nil
	}
	field, input := "activate", "ActivateInput"
	switch op.Operation {
	case ast.Query:
	case ast.Mutation:
		field, input = "activateTurn", "ActivateTurnInput"
	default:
		return nil
	}
	v := op.VariableDefinitions[0]
	if v.DefaultValue != nil || len(v.Directives) != 0 || v.Type.Name() != input || v.Type.Elem != nil {
		return nil
	}
	root, ok := op.SelectionSet[0].(*ast.Field)
	if !ok || root.Name != field || len(root.Directives) != 0 || len(root.Arguments) != 1 {
		return nil
	}
	arg := root.Arguments[0]
	if arg.Name != "input" || arg.Value.Kind != ast.Variable || arg.Value.Raw != v.Variable {
		return nil
	}
	p := &leanPlan{operation: op.Name, variable: v.Variable, alias: root.Alias, turn: op.Operation == ast.Mutation}
	typ := "Activation"
	if p.turn {
		typ = "ActivateTurnPayload"
	}
	count := 0
	p.fields, ok = p.selection(root.SelectionSet, typ, &count)
	if !ok {
		return nil
	}
	return p
}

// selection returns the fields of set, a selection of typ: false when
// one is not a lean field of typ, has arguments or directives, or repeats
// a response key of set, or when the document selects more than
// leanMaxFields. It notes in p whether Activation's blocks are selected.
func (p *leanPlan) selection(set ast.SelectionSet, typ string, count *int) ([]leanField, bool) {
	allowed := leanFields[typ]
	out := make([]leanField, 0, len(set))
	for _, sel := range set {
		f, ok := sel.(*ast.Field)
		if *count++; !ok || *count > leanMaxFields || len(f.Arguments) != 0 || len(f.Directives) != 0 {
			return nil, false
		}
		sub, ok := allowed[f.Name]
		if !ok || slices.ContainsFunc(out, func(g leanField) bool { return g.key == f.Alias }) {
			return nil, false // a repeated key: gqlgen merges the fields
		}
		lf := leanField{key: f.Alias, name: f.Name}
		if sub != "" {
			if lf.sub, ok = p.selection(f.SelectionSet, sub, count); !ok {
				return nil, false
			}
		}
		p.blocks = p.blocks || typ == "Activation" && f.Name == "blocks"
		out = append(out, lf)
	}
	return out, true
}

// activateAs is activate with the trace and the prompt blocks chosen by
// the caller (the lean path has no operation context to read them from).
func (r *Resolver) activateAs(ctx context.Context, in *model.ActivateInput, traced, blocks bool) (*model.Activation, error) {
	bufs := r.turnBuffers()
	defer r.releaseTurnBuffers(bufs) // the answer copies what it reads of the result
	t, err := r.runActivation(ctx, in, nil, traced, bufs)
	if err != nil {
		return nil, err
	}
	t.skipTrace = !traced
	var bs []*model.PromptBlock
	if blocks {
		bs = r.blocks(t)
	}
	return activationToModel(t, bs), nil
}

// marshal writes the response of the plan's selection of a (activate)
// or pl (activateTurn), byte for byte what gqlgen's POST transport
// writes: {"data":{alias:{...}}}.
func (p *leanPlan) marshal(a *model.Activation, pl *model.ActivateTurnPayload) []byte {
	var data bytes.Buffer
	if pl != nil {
		a = pl.Result
	}
	n := 0
	if a != nil {
		n = len(a.Admitted)
	}
	data.Grow(256 + 128*n)
	data.WriteString(`{"`)
	data.WriteString(p.alias)
	data.WriteString(`":`)
	if !p.turn {
		marshalActivation(&data, p.fields, a)
	} else {
		marshalPayload(&data, p.fields, pl)
	}
	data.WriteByte('}')
	// What the transport's json.Marshal of graphql.Response writes:
	// {"data":...}, the data compacted (graphql.MarshalMap ends its JSON
	// with a newline; no other value writes whitespace outside strings,
	// where a newline is always escaped) with <, >, &, U+2028 and U+2029
	// escaped.
	raw := data.Bytes()
	if bytes.IndexByte(raw, '\n') >= 0 {
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			panic(err) // the data above is valid JSON
		}
		raw = compact.Bytes()
	}
	out := bytes.NewBuffer(make([]byte, 0, len(raw)+16))
	out.WriteString(`{"data":`)
	json.HTMLEscape(out, raw)
	out.WriteByte('}')
	return out.Bytes()
}

// marshalPayload writes the selection fields of an ActivateTurnPayload:
// {...}, result or error null when absent.
func marshalPayload(data *bytes.Buffer, fields []leanField, pl *model.ActivateTurnPayload) {
	leanObject(data, fields, func(f *leanField) {
		switch {
		case f.name == "__typename":
			graphql.MarshalString("ActivateTurnPayload").MarshalGQL(data)
		case f.name == "result" && pl.Result != nil:
			marshalActivation(data, f.sub, pl.Result)
		case f.name == "error" && pl.Error != nil:
			marshalMutationError(data, f.sub, pl.Error)
		default:
			data.WriteString("null")
		}
	})
}

// marshalActivation writes the selection fields of a: {...}.
func marshalActivation(data *bytes.Buffer, fields []leanField, a *model.Activation) {
	data.WriteByte('{')
	for i, f := range fields {
		leanKey(data, i, f.key)
		switch f.name {
		case "admitted":
			leanList(data, a.Admitted, func(e *model.AdmittedEntry) { marshalAdmitted(data, f.sub, e) })
		case "blocks":
			leanList(data, a.Blocks, func(b *model.PromptBlock) { marshalBlock(data, f.sub, b) })
		case "budget":
			marshalBudget(data, f.sub, &a.Budget)
		case "passes":
			graphql.MarshalInt(a.Passes).MarshalGQL(data)
		case "storeUnavailable":
			graphql.MarshalBoolean(a.StoreUnavailable).MarshalGQL(data)
		case "notices":
			leanList(data, a.Notices, func(n *model.ActivationNotice) { marshalNotice(data, f.sub, n) })
		case "__typename":
			graphql.MarshalString("Activation").MarshalGQL(data)
		}
	}
	data.WriteByte('}')
}

func leanKey(w *bytes.Buffer, i int, key string) {
	if i > 0 {
		w.WriteByte(',')
	}
	w.WriteByte('"')
	w.WriteString(key) // a GraphQL name: no character to escape
	w.WriteString(`":`)
}

func marshalAdmitted(w *bytes.Buffer, fields []leanField, e *model.AdmittedEntry) {
	w.WriteByte('{')
	for i, f := range fields {
		leanKey(w, i, f.key)
		switch f.name {
		case "id":
			graphql.MarshalID(e.ID).MarshalGQL(w)
		case "title":
			graphql.MarshalString(e.Title).MarshalGQL(w)
		case "placement":
			e.Placement.MarshalGQL(w)
		case "group":
			e.Group.MarshalGQL(w)
		case "content":
			graphql.MarshalString(e.Content).MarshalGQL(w)
		case "tokens":
			leanOptional(w, e.Tokens, graphql.MarshalInt)
		case "pass":
			graphql.MarshalInt(e.Pass).MarshalGQL(w)
		case "triggeredBy":
			leanOptional(w, e.TriggeredBy, graphql.MarshalID)
		case "__typename":
			graphql.MarshalString("AdmittedEntry").MarshalGQL(w)
		}
	}
	w.WriteByte('}')
}

// marshalNotice writes the selection fields of an ActivationNotice.
func marshalNotice(w *bytes.Buffer, fields []leanField, n *model.ActivationNotice) {
	leanObject(w, fields, func(f *leanField) {
		switch f.name {
		case "reason":
			graphql.MarshalString(n.Reason).MarshalGQL(w)
		case "params":
			leanParams(w, n.Params)
		case "message":
			graphql.MarshalString(n.Message).MarshalGQL(w)
		case "__typename":
			graphql.MarshalString("ActivationNotice").MarshalGQL(w)
		}
	})
}

func marshalBlock(w *bytes.Buffer, fields []leanField, b *model.PromptBlock) {
	w.WriteByte('{')
	for i, f := range fields {
		leanKey(w, i, f.key)
		switch f.name {
		case "tag":
			graphql.MarshalString(b.Tag).MarshalGQL(w)
		case "role":
			graphql.MarshalString(b.Role).MarshalGQL(w)
		case "text":
			graphql.MarshalString(b.Text).MarshalGQL(w)
		case "__typename":
			graphql.MarshalString("PromptBlock").MarshalGQL(w)
		}
	}
	w.WriteByte('}')
}

func marshalBudget(w *bytes.Buffer, fields []leanField, b *model.Budget) {
	w.WriteByte('{')
	for i, f := range fields {
		leanKey(w, i, f.key)
		switch f.name {
		case "unit":
			graphql.MarshalString(b.Unit).MarshalGQL(w)
		case "limit":
			graphql.MarshalInt(b.Limit).MarshalGQL(w)
		case "used":
			graphql.MarshalInt(b.Used).MarshalGQL(w)
		case "__typename":
			graphql.MarshalString("Budget").MarshalGQL(w)
		}
	}
	w.WriteByte('}')
}

// marshalMutationError writes the selection fields of e: {...}, as
// gqlgen renders MutationError and FieldError (the enum's name, JSON
// params through graphql.MarshalMap, absent optional fields null).
func marshalMutationError(w *bytes.Buffer, fields []leanField, e *model.MutationError) {
	leanObject(w, fields, func(f *leanField) {
		switch f.name {
		case "code":
			e.Code.MarshalGQL(w)
		case "field":
			leanOptional(w, e.Field, graphql.MarshalString)
		case "limit":
			leanOptional(w, e.Limit, graphql.MarshalInt)
		case "params":
			leanParams(w, e.Params)
		case "fields":
			if e.Fields == nil {
				w.WriteString("null")
				return
			}
			leanList(w, e.Fields, func(fe *model.FieldError) { marshalFieldError(w, f.sub, fe) })
		case "__typename":
			graphql.MarshalString("MutationError").MarshalGQL(w)
		default: // message, reason: MutationError's strings
			text := e.Reason
			if f.name == "message" {
				text = e.Message
			}
			graphql.MarshalString(text).MarshalGQL(w)
		}
	})
}

func marshalFieldError(w *bytes.Buffer, fields []leanField, e *model.FieldError) {
	leanObject(w, fields, func(f *leanField) {
		switch f.name {
		case "params":
			leanParams(w, e.Params)
		case "__typename":
			graphql.MarshalString("FieldError").MarshalGQL(w)
		default: // field, reason, message: FieldError's strings
			text := e.Message
			if f.name == "field" {
				text = e.Field
			} else if f.name == "reason" {
				text = e.Reason
			}
			graphql.MarshalString(text).MarshalGQL(w)
		}
	})
}

// leanList writes the list [...] of items, each by item.
func leanList[T any](w *bytes.Buffer, items []T, item func(T)) {
	w.WriteByte('[')
	for i, v := range items {
		if i > 0 {
			w.WriteByte(',')
		}
		item(v)
	}
	w.WriteByte(']')
}

// leanObject writes the object {...} of fields, each value by value.
func leanObject(w *bytes.Buffer, fields []leanField, value func(f *leanField)) {
	w.WriteByte('{')
	for i := range fields {
		leanKey(w, i, fields[i].key)
		value(&fields[i])
	}
	w.WriteByte('}')
}

// leanParams writes a JSON scalar as gqlgen's marshalOJSON2map does.
func leanParams(w *bytes.Buffer, m map[string]any) {
	if m == nil {
		w.WriteString("null")
		return
	}
	graphql.MarshalMap(m).MarshalGQL(w)
}

func leanOptional[T any](w *bytes.Buffer, v *T, m func(T) graphql.Marshaler) {
	if v == nil {
		w.WriteString("null")
		return
	}
	m(*v).MarshalGQL(w)
}

// errorReader returns err on every read.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }
