package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/i18n"
	"loregate/lore/prompt"
	"loregate/lore/scopecache"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// MaxActivateMessages bounds the messages of one activation and
// MaxActivateChars the total size in bytes of the messages of every
// activation of one request together.
const (
	MaxActivateMessages = 400
	MaxActivateChars    = 1 << 20
)

// selects reports whether the current field's selection set includes the
// field path (a name, or names nested in one another: "result", "trace"),
// fragments and aliases included; true outside a GraphQL operation.
func selects(ctx context.Context, path ...string) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return true
	}
	return selectsIn(graphql.GetOperationContext(ctx), graphql.CollectFieldsCtx(ctx, nil), path)
}

func selectsIn(oc *graphql.OperationContext, fields []graphql.CollectedField, path []string) bool {
	for _, f := range fields {
		if f.Name != path[0] {
			continue
		}
		if len(path) == 1 || selectsIn(oc, graphql.CollectFields(oc, f.Selections, nil), path[1:]) {
			return true
		}
	}
	return false
}

// activate runs a dry-run turn (the activate query). When the trace is
// selected it is a preview: it lists every entry of the scope
// (hiddenEntries) and names near misses; otherwise (the bot's per-turn
// query) it reads only the cached scope and builds no trace.
func (r *Resolver) activate(ctx context.Context, in *model.ActivateInput) (*model.Activation, error) {
	a, err := r.activateAs(ctx, in, selects(ctx, "trace"), true)
	if err == nil && selects(ctx, "budget", "byBook", "name") {
		r.namePersonaBooks(ctx, in.ServerDiscordID, a.Budget.ByBook)
	}
	return a, err
}

// turnRun is one evaluated chat turn.
type turnRun struct {
	snapshot lore.Snapshot
	opts     *activation.Options
	result   activation.Result
	// unavailable is set when the store read failed and no lore was used.
	unavailable bool
	// skipTrace leaves the per-entry trace out of the model (the caller
	// did not select it: the bot's per-turn query).
	skipTrace bool
	// bareTrace leaves the trace items' reason unset and their params to
	// those beyond pass and score (activation.TraceItem.Params, nil for
	// most verdicts): a recorded turn's stored response derives the rest
	// when read (withReasons).
	bareTrace bool
	// replayed is set for a retried recorded turn: response is the
	// recorded result and the engine did not run.
	replayed bool
	response json.RawMessage
}

// recording is a recorded turn's part of runActivation (activateTurn,
// turn.go); nil is a dry run.
type recording struct {
	conv turnstate.Conversation
	rec  turn.Recording
}

// runActivation authorises the caller, reads the scope once, prepares the
// turn (lore/turn) and runs it through the matcher cache: a dry run for
// activate and assemblePrompt (rec nil), a recorded run for activateTurn.
//
// With traced (the caller selected the trace: a preview) the engine names
// near misses and the trace also lists, after the turn's entries, the
// scope's entries the per-turn read leaves out (hiddenEntries) with the
// verdicts of the engine's gates; without it nothing more than the scope
// cache is read.
//
// With bufs (nil: none) the engine's result goes to its admitted list,
// and a recorded turn's trace to its trace (turnBuffers): the caller
// reads the result only until it releases bufs.
func (r *Resolver) runActivation(ctx context.Context, in *model.ActivateInput, rec *recording, traced bool, bufs *turnBuffers) (*turnRun, error) {
	if !auth.FromContext(ctx).CanRead(in.ServerDiscordID) {
		return nil, lore.NotFound("server", in.ServerDiscordID)
	}
	req, err := turnRequest(ctx, in, traced)
	if err != nil {
		return nil, err
	}
	snap, scope, err := r.loadScope(ctx, in.ServerDiscordID, req.Lineage)
	unavailable := false
	switch {
	case errors.Is(err, lore.ErrUnavailable):
		// docs/contract.md#results: a runtime read failure gives an empty list; the turn
		// goes on without lore.
		r.Logger.WarnContext(ctx, "lore store unavailable for a turn; activating no lore",
			"request_id", RequestID(ctx), "server", in.ServerDiscordID, "err", err)
		snap, unavailable = lore.Snapshot{Server: lore.Server{ID: in.ServerDiscordID, Settings: lore.DefaultServerSettings()}}, true
	case err != nil:
		return nil, err
	}
	var (
		hidden     []lore.Entry
		hiddenCols map[string]lore.Collection
		offCats    map[int64]string
	)
	if traced && !unavailable {
		if hidden, hiddenCols, err = r.hiddenEntries(ctx, snap, req.Lineage); err != nil {
			return nil, err
		}
		if offCats, err = r.offCategories(ctx, snap.Server.ID, hidden, hiddenCols); err != nil {
			return nil, err
		}
	}
	if req.Tokenizer, err = r.tokenizers.Get(snap.Server.Settings.TokenizerOrDefault()); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := turn.Prepare(snap, req)
	if err != nil {
		return nil, err
	}
	t.Options.Texts = r.Texts
	if bufs != nil {
		t.Options.AdmittedBuf = bufs.admitted
		if rec != nil {
			t.Options.TraceBuf = bufs.trace
		}
	}
	if len(hidden) > 0 {
		t.Finish = func(res *activation.Result) {
			gates := t.Input
			gates.Collections = hiddenCols
			res.Trace = append(res.Trace, activation.GateTrace(hidden, &gates, offCats)...)
		}
	}
	t.Rank(ctx, r.rankers(scope, snap.Server.ID, req.Lineage, t))
	key := activation.CacheKey{Server: snap.Server.ID, Lineage: req.Lineage, Version: snap.Server.LoreVersion}
	m := r.matcher(scope, key, &t.Input, t.Options.MatchOptions())
	out, err := r.runTurn(ctx, m, t, rec, unavailable)
	if err != nil {
		return nil, err
	}
	if bufs != nil && cap(out.Result.Admissions) > cap(bufs.admitted) {
		bufs.admitted = out.Result.Admissions[:0] // the next turn's
	}
	return &turnRun{snapshot: snap, opts: &t.Options, result: out.Result, unavailable: unavailable,
		replayed: out.Replayed, response: out.Response}, nil
}

// turnRequest checks the request's messages (count, size, the request's
// text budget) and lineage, and converts in to the request layer of
// lore/turn.
func turnRequest(ctx context.Context, in *model.ActivateInput, traced bool) (turn.Request, error) {
	if len(in.Messages) > MaxActivateMessages {
		return turn.Request{}, lore.Reject("messages", i18n.TooManyMessages, lore.Params{"count": len(in.Messages), "max": MaxActivateMessages})
	}
	msgs := make([]string, len(in.Messages))
	size := 0
	for i, m := range in.Messages {
		msgs[i] = m.Content
		size += len(m.Content)
	}
	var req turn.Request
	c, _ := in.Context.ValueOK()
	g, _ := in.GenerationType.ValueOK()
	size += contextRequest(&req, in.Messages, c, g)
	if size > MaxActivateChars {
		return turn.Request{}, lore.Reject("messages", i18n.TooMuchText, lore.Params{"size": size, "max": MaxActivateChars})
	}
	if err := chargeText(ctx, size); err != nil {
		return turn.Request{}, err
	}
	lineage := lore.Lineage(get(in.LineageID, 0))
	if lineage < 0 {
		return turn.Request{}, lore.Reject("lineageId", i18n.BadLineage, nil)
	}
	req.Lineage, req.Channel, req.ParentChannel = lineage, get(in.ChannelID, ""), get(in.ParentChannelID, "")
	req.Messages, req.Bounds, req.Trace = msgs, turn.APIBounds, traced
	if v, ok := in.MessageCount.ValueOK(); ok && v != nil {
		req.MessageCount = v
	}
	if names, _ := in.Names.ValueOK(); names != nil {
		req.Names = turn.Names{User: get(names.User, ""), Char: get(names.Char, ""), Bot: get(names.Bot, "")}
	}
	if o, _ := in.Overrides.ValueOK(); o != nil {
		req.Overrides = *o
	}
	return req, nil
}

// runTurn runs the prepared turn: a dry run reading the conversation's
// state when a channel is given (rec nil), else the recorded run, which
// needs the store's lore (unavailable refuses it).
func (r *Resolver) runTurn(ctx context.Context, m *activation.Matcher, t *turn.Turn, rec *recording, unavailable bool) (turn.Outcome, error) {
	var (
		out turn.Outcome
		err error
	)
	if rec == nil {
		var states turn.StateReader
		if r.Turns != nil && lore.ValidSnowflake(t.Input.Channel) {
			states = r.Turns
		}
		conv := turnstate.Conversation{Server: t.Input.Server, Lineage: t.Input.Lineage, Channel: t.Input.Channel}
		out, err = turn.DryRun(ctx, m, t, states, conv)
		if out.StateErr != nil {
			// A runtime read failure: the dry run goes on without state.
			r.Logger.WarnContext(ctx, "turn state unavailable for a dry run; using none",
				"request_id", RequestID(ctx), "server", t.Input.Server, "err", out.StateErr)
		}
	} else {
		if unavailable {
			return turn.Outcome{}, fmt.Errorf("activate turn: %w", lore.ErrUnavailable)
		}
		out, err = turn.Record(ctx, m, t, r.Turns, rec.conv, rec.rec)
	}
	if r.Metrics != nil && !out.Replayed {
		r.Metrics.Activation.Observe(out.Elapsed.Seconds())
	}
	return out, err
}

// hiddenEntries returns the entries of the turn's scope that the
// per-turn read of snap leaves out (disabled entries and the entries of
// disabled collections, docs/turns.md), split groups joined as the engine
// sees them, and the collections to gate them with (snap's, plus the
// server's others when a hidden entry needs one). It reads the store, so
// it runs only for a selected trace, never on the bot's cached per-turn
// path, and before a recorded turn opens its transaction.
func (r *Resolver) hiddenEntries(ctx context.Context, snap lore.Snapshot, lineage lore.Lineage) ([]lore.Entry, map[string]lore.Collection, error) {
	server := snap.Server.ID
	entries, err := r.Store.ListScope(ctx, server, lore.Serverwide, "")
	if err != nil {
		return nil, nil, fmt.Errorf("trace: list the scope: %w", err)
	}
	if !lineage.IsServerwide() {
		own, err := r.Store.ListScope(ctx, server, lineage, "")
		if err != nil {
			return nil, nil, fmt.Errorf("trace: list the scope: %w", err)
		}
		entries = append(entries, own...)
	}
	loaded := make(map[int64]bool, len(snap.Entries))
	for _, e := range snap.Entries {
		loaded[e.ID] = true
	}
	var hidden []lore.Entry
	missing := false
	for _, e := range lore.JoinSplit(entries) {
		if loaded[e.ID] {
			continue
		}
		hidden = append(hidden, e)
		if _, ok := snap.Collections[collectionName(e)]; e.Lineage.IsServerwide() && !ok {
			missing = true
		}
	}
	if !missing {
		return hidden, snap.Collections, nil
	}
	cols, err := r.Store.ListCollections(ctx, server)
	if err != nil {
		return nil, nil, fmt.Errorf("trace: list collections: %w", err)
	}
	merged := make(map[string]lore.Collection, len(snap.Collections)+len(cols))
	for _, c := range cols {
		merged[c.Name] = c
	}
	for name, c := range snap.Collections { // the turn's view wins
		merged[name] = c
	}
	return hidden, merged, nil
}

// offCategories returns the disabled categories (id -> name) of the books
// whose hidden entries have a category: the per-turn read leaves such an
// entry out, and a preview trace says why (gated_category). One category
// read of those books (Store.ListBooksCategories, in chunks of
// lore.MaxBooksPerCategoryRead), for a selected trace only.
func (r *Resolver) offCategories(ctx context.Context, server string, hidden []lore.Entry, cols map[string]lore.Collection) (map[int64]string, error) {
	var (
		colls []int64
		lins  []lore.Lineage
		seen  = map[bookKey]bool{}
	)
	for _, e := range hidden {
		if e.CategoryID == 0 {
			continue
		}
		b := bookKey{server: server, lineage: e.Lineage}
		if e.Lineage.IsServerwide() {
			c, ok := cols[collectionName(e)]
			if !ok {
				continue
			}
			b.lineage, b.collection = 0, c.ID
		}
		if seen[b] {
			continue
		}
		seen[b] = true
		if b.collection != 0 {
			colls = append(colls, b.collection)
		} else {
			lins = append(lins, b.lineage)
		}
	}
	var off map[int64]string
	for len(colls)+len(lins) > 0 {
		nc := min(len(colls), lore.MaxBooksPerCategoryRead)
		nl := min(len(lins), lore.MaxBooksPerCategoryRead-nc)
		cats, err := r.Store.ListBooksCategories(ctx, server, colls[:nc], lins[:nl])
		if err != nil {
			return nil, fmt.Errorf("trace: list categories: %w", err)
		}
		colls, lins = colls[nc:], lins[nl:]
		for _, c := range cats {
			if !c.Enabled {
				if off == nil {
					off = map[int64]string{}
				}
				off[c.ID] = c.Name
			}
		}
	}
	return off, nil
}

// collectionName is the collection of a Serverwide entry, "" meaning
// lore.DefaultCollection.
func collectionName(e lore.Entry) string {
	if e.Collection == "" {
		return lore.DefaultCollection
	}
	return e.Collection
}

// loadScope returns the turn's scope: from the scope cache when the
// resolver has one (then also the cached scope, whose matcher the turn
// uses), else read from the store.
func (r *Resolver) loadScope(ctx context.Context, server string, lineage lore.Lineage) (lore.Snapshot, *scopecache.Scope, error) {
	if r.Scopes == nil {
		snap, err := r.Store.LoadEnabledForScope(ctx, server, lineage)
		return snap, nil, err
	}
	scope, err := r.Scopes.Load(ctx, server, lineage)
	if err != nil {
		return lore.Snapshot{}, nil, err
	}
	return scope.Snapshot, scope, nil
}

// matcher returns the compiled matcher of the turn's scope: the scope
// cache's when the turn's scope came from it, else the matcher cache's.
func (r *Resolver) matcher(scope *scopecache.Scope, key activation.CacheKey, in *activation.Input, mo activation.MatchOptions) *activation.Matcher {
	if scope != nil {
		return scope.Matcher(in, mo)
	}
	return r.Cache.Matcher(key, in, mo)
}

// activationToModel is the API's Activation of a turn with its prompt
// blocks.
func activationToModel(t *turnRun, blocks []*model.PromptBlock) *model.Activation {
	res := t.result
	out := &model.Activation{
		Admitted: make([]*model.AdmittedEntry, res.NumAdmitted()),
		Blocks:   blocks,
		Budget: model.Budget{Unit: string(res.Budget.Unit), Limit: res.Budget.Limit, Used: res.Budget.Used,
			ByBook: byBookToModel(&res)},
		Passes: res.Passes,

		StoreUnavailable: t.unavailable,
		Notices:          activationNotices(&t.snapshot),
	}
	for i := range out.Admitted {
		a := res.AdmittedAt(i)
		group := model.ActivationGroupActivated
		if a.Group == activation.AlwaysOn {
			group = model.ActivationGroupAlwaysOn
		}
		out.Admitted[i] = &model.AdmittedEntry{
			ID:        strconv.FormatInt(a.Entry.ID, 10),
			Title:     a.Entry.Title,
			Placement: model.Placement(strings.ToUpper(string(a.Placement))),
			Group:     group,
			Content:   a.Content,
			Tokens:    a.Tokens,
			Pass:      a.Pass,
			Position:  positionToModel(a.Position),
			Score:     a.Score,
		}
		out.Admitted[i].TriggeredBy = idOrNil(a.TriggeredBy)
	}
	out.Injections, out.Outlets = injectionsToModel(&res)
	var items []model.TraceItem // one allocation for the trace's items
	if !t.skipTrace {
		out.Trace = make([]*model.TraceItem, len(res.Trace))
		items = make([]model.TraceItem, len(res.Trace))
	}
	byID := entriesByID(t.snapshot.Entries, out.Trace != nil && !t.bareTrace)
	for i := range out.Trace {
		tr := res.Trace[i]
		item := &items[i]
		*item = model.TraceItem{ID: strconv.FormatInt(tr.ID, 10), Title: tr.Title, Verdict: string(tr.Verdict),
			Pass: tr.Pass, TriggeredBy: idOrNil(tr.TriggeredBy), Score: tr.Score}
		if !t.bareTrace {
			item.Reason, item.Params = tr.Reason(byID[tr.ID])
		} else {
			item.Params = tr.Params // the params beyond pass and score; withReasons adds those
		}
		if tr.Detail != "" {
			d := tr.Detail
			item.Detail = &d
		}
		out.Trace[i] = item
	}
	return out
}

// activationNotices are the non-fatal notes of a turn over snap (the
// Activation's notices, docs/api.md "Activation notices"):
// unregistered_lineage when the turn's lineage is unknown on the server,
// so it had Serverwide lore only. A flag the scope's read already holds
// (lore.Snapshot.UnknownLineage): no query, and nothing allocated for a
// known lineage.
func activationNotices(snap *lore.Snapshot) []*model.ActivationNotice {
	if !snap.UnknownLineage {
		return nil
	}
	params := map[string]any{"lineage": int64(snap.Lineage)}
	return []*model.ActivationNotice{{Reason: i18n.UnregisteredLineage, Params: params,
		Message: i18n.Text(i18n.EN, i18n.UnregisteredLineage, params)}}
}

// blocks renders the admitted entries as the prompt blocks of
// docs/contract.md#prompt.
func (r *Resolver) blocks(t *turnRun) []*model.PromptBlock {
	return blocksOf(prompt.Blocks(&t.result))
}

// MaxDocuments bounds the retrieved documents of one assemblePrompt call.
const MaxDocuments = 50

// assemblePrompt runs one turn and places its lore in the caller's prompt.
func (r *Resolver) assemblePrompt(ctx context.Context, in *model.AssemblePromptInput) (*model.AssembledPrompt, error) {
	bufs := r.turnBuffers()
	defer r.releaseTurnBuffers(bufs) // the answer copies what it reads of the result
	t, err := r.runActivation(ctx, &in.Activation, nil, selects(ctx, "activation", "trace"), bufs)
	if err != nil {
		return nil, err
	}
	blocks := prompt.Blocks(&t.result)
	req := prompt.Request{Blocks: blocks, Injections: t.result.Injections, Outlets: t.result.Outlets}
	for _, m := range in.Activation.Messages {
		req.History = append(req.History, prompt.Message{
			Kind: prompt.KindHistory, Role: historyRole(get(m.Role, "")), Name: get(m.Name, ""), Content: m.Content,
		})
	}
	docs := in.Documents.Value()
	if len(docs) > MaxDocuments {
		return nil, lore.Reject("documents", i18n.TooManyDocuments, lore.Params{"count": len(docs), "max": MaxDocuments})
	}
	for _, d := range docs {
		req.Documents = append(req.Documents, prompt.Message{Kind: prompt.KindDocument, Role: lore.RoleSystem, Content: d})
	}
	preset, err := presetOf(in, t.opts)
	if err != nil {
		return nil, err
	}
	req.Preset = preset
	req.AuthorsNote = callerText(in.AuthorsNote, t.opts)
	req.Examples = callerText(in.DialogueExamples, t.opts)
	msgs := prompt.Assemble(req)
	out := &model.AssembledPrompt{
		Messages:   make([]*model.PromptMessage, len(msgs)),
		Activation: *activationToModel(t, blocksOf(blocks)),
	}
	if selects(ctx, "activation", "budget", "byBook", "name") {
		r.namePersonaBooks(ctx, in.Activation.ServerDiscordID, out.Activation.Budget.ByBook)
	}
	for i, m := range msgs {
		pm := &model.PromptMessage{Role: string(m.Role), Content: m.Content}
		switch {
		case m.Tag != "":
			tag := string(m.Tag)
			pm.Tag = &tag
		case m.Kind == prompt.KindDocument:
			tag := "DOCUMENT"
			pm.Tag = &tag
		}
		out.Messages[i] = pm
	}
	for _, s := range prompt.Inspect(blocks, t.opts.Tokenizer) {
		tokens := s.Tokens
		out.Inspection = append(out.Inspection, &model.PromptInspection{Label: s.Label, Characters: s.Chars, Tokens: &tokens})
	}
	return out, nil
}

// presetOf builds the preset of assemblePrompt: the system prompt, its
// identity macros resolved with the turn's names as in entry content, at
// the first main marker (first when there is none), then the markers in
// order, chatHistory appended when missing. A name that is not a
// SillyTavern prompt identifier (prompt.Markers) is bad input.
func presetOf(in *model.AssemblePromptInput, opts *activation.Options) ([]prompt.PresetItem, error) {
	var system []prompt.PresetItem
	if sp := callerText(in.SystemPrompt, opts); sp != "" {
		system = []prompt.PresetItem{{Message: prompt.Message{Kind: prompt.KindPreset, Role: lore.RoleSystem, Content: sp}}}
	}
	names, first := in.PresetMarkers.Value(), 0 // names[first] is presetMarkers[0]
	if !slices.Contains(names, string(prompt.MarkerMain)) {
		names, first = append([]string{string(prompt.MarkerMain)}, names...), 1
	}
	var preset []prompt.PresetItem
	anchored := false
	for i, name := range names {
		m := prompt.Marker(name)
		switch {
		case !m.Known():
			known := make([]string, len(prompt.Markers()))
			for j, k := range prompt.Markers() {
				known[j] = string(k)
			}
			return nil, lore.Reject(fmt.Sprintf("presetMarkers[%d]", i-first), i18n.UnknownPromptMarker,
				lore.Params{"value": lore.ClipBytes(name, 40), "allowed": known})
		case m == prompt.MarkerMain:
			preset, system = append(preset, system...), nil
			continue
		case m == prompt.MarkerChatHistory:
			anchored = true
		}
		preset = append(preset, prompt.PresetItem{Marker: m})
	}
	if !anchored {
		preset = append(preset, prompt.PresetItem{Marker: prompt.MarkerChatHistory})
	}
	return preset, nil
}

// callerText is one of assemblePrompt's texts (system prompt, author's
// note, examples) with its identity macros resolved with the turn's names
// as in entry content; "" when omitted.
func callerText(v graphql.Omittable[*string], opts *activation.Options) string {
	s := get(v, "")
	if s == "" {
		return ""
	}
	return activation.ResolveIdentity(s, opts.UserName, opts.CharName, opts.BotName)
}

// idOrNil returns an entry id as an API id, nil for 0.
func idOrNil(id int64) *string {
	if id == 0 {
		return nil
	}
	s := strconv.FormatInt(id, 10)
	return &s
}

// blocksOf is the API's prompt blocks of bs.
func blocksOf(bs []prompt.Block) []*model.PromptBlock {
	out := make([]*model.PromptBlock, len(bs))
	for i, b := range bs {
		out[i] = &model.PromptBlock{Tag: string(b.Tag), Role: string(b.Role), Text: b.Text,
			Entries: make([]*model.PromptBlockEntry, len(b.Entries))}
		for j, e := range b.Entries {
			out[i].Entries[j] = &model.PromptBlockEntry{ID: strconv.FormatInt(e.ID, 10), Title: e.Title,
				Content: e.Content, Role: string(e.Role)}
		}
	}
	return out
}

// historyRole maps a chat message role to a prompt role; anything but
// assistant or system is the user.
func historyRole(role string) lore.Role {
	switch lore.Role(strings.ToLower(role)) {
	case lore.RoleAssistant:
		return lore.RoleAssistant
	case lore.RoleSystem:
		return lore.RoleSystem
	}
	return lore.RoleUser
}
