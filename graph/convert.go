package graph

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// This file converts between lore's domain types and the API's models. It
// holds no policy: permission checks live in access.go.

func serverToModel(s lore.Server, canManage bool, lim lore.Limits) *model.Server {
	return &model.Server{
		DiscordID: s.ID,
		Name:      s.Name,
		Settings: model.ServerSettings{
			ChannelScoping: s.Settings.ChannelScoping,
			MemoryTagging:  s.Settings.MemoryTagging,
			RegexKeys:      s.Settings.RegexKeys,
			BudgetUnit:     model.BudgetUnit(strings.ToUpper(string(s.Settings.Unit()))),
			BudgetLimit:    s.Settings.Limit(),
			Tokenizer:      string(s.Settings.TokenizerOrDefault()),
			UpdatedAt:      s.SettingsUpdatedAt,

			SemanticRanker:         s.Settings.Semantic.Ranker.OrAuto(),
			SemanticAllEntries:     s.Settings.Semantic.AllEntries,
			SemanticMaxEntries:     s.Settings.Semantic.MaxEntriesOrDefault(),
			SemanticThreshold:      s.Settings.Semantic.ThresholdOrDefault(),
			SemanticQueryMessages:  s.Settings.Semantic.QueryMessagesOrDefault(),
			SemanticBudgetShare:    s.Settings.Semantic.BudgetShareOrDefault(),
			MinActivations:         s.Settings.MinActivations,
			MinActivationsDepthMax: s.Settings.MinActivationsDepthMax,
			MaxEntries:             s.Settings.MaxEntries,
			IncludeNames:           s.Settings.IncludeNames,
		},
		Limits:    limitsModel(lim),
		CanManage: canManage,
		LeftAt:    s.LeftAt,
	}
}

// limitsModel returns the limits of the deployment (lim, zero fields:
// defaults) with the contract's fixed ones.
func limitsModel(lim lore.Limits) model.Limits {
	lim = lim.WithDefaults()
	return model.Limits{
		EntriesPerScope:      lim.ScopeEntries,
		ContentLength:        lim.ContentChars,
		TitleLength:          lore.MaxTitleLen,
		KeysPerEntry:         lore.MaxKeysPerEntry,
		KeyLength:            lore.MaxKeyLen,
		CollectionNameLength: lore.MaxCollectionNameLen,
		ChannelIds:           lore.MaxChannelIDs,
		ScanDepthMin:         lore.MinScanDepth,
		ScanDepthMax:         lore.MaxScanDepth,
		JSONUploadBytes:      int(lim.JSONBytes),
		CardUploadBytes:      MaxUploadBytes,
	}
}

func personaToModel(p lore.Persona) *model.Persona {
	return &model.Persona{ID: p.ID, LineageID: int64(p.Lineage), Name: p.Name, Removed: p.Removed}
}

func collectionToModel(c lore.Collection) model.Collection {
	return model.Collection{
		ServerID:     c.Server,
		ID:           strconv.FormatInt(c.ID, 10),
		Name:         c.Name,
		Enabled:      c.Enabled,
		ChannelIds:   nonNil(c.ChannelIDs),
		EntryCount:   c.EntryCount,
		BookSettings: bookSettingsToModel(c.Settings),
		CreatedAt:    c.CreatedAt,
		UpdatedAt:    c.UpdatedAt,
	}
}

func entryToModel(e lore.Entry) *model.Entry {
	m := &model.Entry{
		ID:                  strconv.FormatInt(e.ID, 10),
		Title:               e.Title,
		Content:             e.Content,
		Keys:                nonNil(e.Keys),
		SecondaryKeys:       nonNil(e.SecondaryKeys),
		SelectiveLogic:      model.SelectiveLogic(logicOrDefault(e.Logic)),
		Constant:            e.Constant,
		Enabled:             e.Enabled,
		ScanDepth:           e.ScanDepth,
		Probability:         e.Probability,
		InsertionOrder:      e.Order,
		Priority:            e.Priority,
		Placement:           model.Placement(strings.ToUpper(string(e.Placement))),
		Role:                model.Role(strings.ToUpper(string(roleOrDefault(e.Role)))),
		CaseSensitive:       e.CaseSensitive,
		WholeWords:          e.WholeWords,
		IgnoreBudget:        e.IgnoreBudget,
		Vectorized:          e.Vectorized,
		Group:               e.Group,
		GroupOverride:       e.GroupOverride,
		GroupWeight:         e.GroupWeight,
		UseGroupScoring:     e.UseGroupScoring,
		ExcludeRecursion:    e.ExcludeRecursion,
		PreventRecursion:    e.PreventRecursion,
		DelayUntilRecursion: e.DelayUntilRecursion,
		Sticky:              e.Sticky,
		Cooldown:            e.Cooldown,
		Delay:               e.Delay,
		ChannelIds:          nonNil(e.ChannelIDs),
		LegacyChannelTags:   nonNil(e.LegacyChannelTags),
		CreatedAt:           e.CreatedAt,
		UpdatedAt:           e.UpdatedAt,
		Note:                e.Note,
	}
	if e.CategoryID != 0 {
		id := strconv.FormatInt(e.CategoryID, 10)
		m.CategoryID = &id
	}
	setPositionFields(m, e)
	if !e.Lineage.IsServerwide() {
		l := int64(e.Lineage)
		m.LineageID = &l
	} else {
		c := e.Collection
		m.Collection = &c
	}
	if len(e.Extensions) > 0 {
		ext := make(map[string]any, len(e.Extensions))
		for k, v := range e.Extensions {
			ext[k] = json.RawMessage(v)
		}
		m.Extensions = ext
	}
	return m
}

func logicOrDefault(l lore.SelectiveLogic) lore.SelectiveLogic {
	if l == "" {
		return lore.AndAny
	}
	return l
}

func roleOrDefault(r lore.Role) lore.Role {
	if r == "" {
		return lore.RoleSystem
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// get returns an omittable's value, or def when it is unset or null.
func get[T any](o graphql.Omittable[*T], def T) T {
	if v, ok := o.ValueOK(); ok && v != nil {
		return *v
	}
	return def
}

// entryFromInput builds a new entry in scope from an API input, starting
// from the canonical defaults. The error is an *lore.InvalidError on
// "position" when the position fields disagree (positionInput.patch).
func entryFromInput(in *model.EntryInput, server string, lineage lore.Lineage, collection string) (lore.Entry, error) {
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Collection = server, lineage, collection
	e.Title = get(in.Title, "")
	e.Content = in.Content
	e.Keys = in.Keys.Value()
	e.SecondaryKeys = in.SecondaryKeys.Value()
	if v := get(in.SelectiveLogic, ""); v != "" {
		e.Logic = lore.SelectiveLogic(v)
	}
	e.Constant = get(in.Constant, e.Constant)
	e.Enabled = get(in.Enabled, e.Enabled)
	if v, ok := in.ScanDepth.ValueOK(); ok && v != nil {
		d := *v
		e.ScanDepth = &d
	}
	e.Probability = get(in.Probability, e.Probability)
	e.Order = get(in.InsertionOrder, e.Order)
	e.Priority = get(in.Priority, e.Priority)
	var pp lore.EntryPatch
	if err := inputPositionFields(in).patch(&pp); err != nil {
		return e, err
	}
	applyPatchToNew(&e, pp)
	if v, ok := in.CaseSensitive.ValueOK(); ok && v != nil {
		b := *v
		e.CaseSensitive = &b
	}
	if v, ok := in.WholeWords.ValueOK(); ok && v != nil {
		b := *v
		e.WholeWords = &b
	}
	e.IgnoreBudget = get(in.IgnoreBudget, false)
	e.Vectorized = get(in.Vectorized, false)
	e.Group = get(in.Group, "")
	e.GroupOverride = get(in.GroupOverride, false)
	e.GroupWeight = get(in.GroupWeight, e.GroupWeight)
	if v, ok := in.UseGroupScoring.ValueOK(); ok && v != nil {
		b := *v
		e.UseGroupScoring = &b
	}
	e.ExcludeRecursion = get(in.ExcludeRecursion, false)
	e.PreventRecursion = get(in.PreventRecursion, false)
	e.DelayUntilRecursion = get(in.DelayUntilRecursion, 0)
	e.Sticky = get(in.Sticky, 0)
	e.Cooldown = get(in.Cooldown, 0)
	e.Delay = get(in.Delay, 0)
	e.ChannelIDs = in.ChannelIds.Value()
	e.Note = get(in.Note, "")
	if v, ok := in.CategoryID.ValueOK(); ok && v != nil {
		id, err := parseID("category", *v)
		if err != nil {
			return e, err
		}
		e.CategoryID = id
	}
	return e, nil
}

// patchFromInput maps an API patch to a store patch: omitted fields stay
// nil (kept), explicit nulls clear nullable overrides.
func patchFromInput(in *model.EntryPatchInput) (lore.EntryPatch, error) {
	var p lore.EntryPatch
	if v, ok := in.Title.ValueOK(); ok {
		p.Title = orEmpty(v)
	}
	if v, ok := in.Content.ValueOK(); ok {
		if v == nil {
			return p, lore.Reject("content", i18n.NotNull, nil)
		}
		p.Content = v
	}
	if v, ok := in.Keys.ValueOK(); ok {
		keys := nonNil(v)
		if err := lore.ValidateRegexKeys("keys", keys); err != nil {
			return p, err
		}
		p.Keys = &keys
	}
	if v, ok := in.SecondaryKeys.ValueOK(); ok {
		keys := nonNil(v)
		if err := lore.ValidateRegexKeys("secondaryKeys", keys); err != nil {
			return p, err
		}
		p.SecondaryKeys = &keys
	}
	if v, ok := in.SelectiveLogic.ValueOK(); ok && v != nil {
		l := lore.SelectiveLogic(*v)
		p.Logic = &l
	}
	p.Constant = boolPtr(in.Constant)
	p.IgnoreBudget = boolPtr(in.IgnoreBudget)
	p.Vectorized = boolPtr(in.Vectorized)
	p.Enabled = boolPtr(in.Enabled)
	if v, ok := in.Note.ValueOK(); ok {
		p.Note = orEmpty(v)
	}
	if v, ok := in.CategoryID.ValueOK(); ok {
		var id int64
		if v != nil {
			var err error
			if id, err = parseID("category", *v); err != nil {
				return p, err
			}
		}
		p.CategoryID = &id
	}
	if v, ok := in.ScanDepth.ValueOK(); ok {
		p.ScanDepth = &v
	}
	p.Probability = intPtr(in.Probability)
	p.Order = intPtr(in.InsertionOrder)
	p.Priority = intPtr(in.Priority)
	if err := patchPositionFields(in).patch(&p); err != nil {
		return p, err
	}
	if v, ok := in.CaseSensitive.ValueOK(); ok {
		p.CaseSensitive = &v
	}
	if v, ok := in.WholeWords.ValueOK(); ok {
		p.WholeWords = &v
	}
	if v, ok := in.Group.ValueOK(); ok {
		p.Group = orEmpty(v)
	}
	p.GroupOverride = boolPtr(in.GroupOverride)
	p.GroupWeight = intPtr(in.GroupWeight)
	if v, ok := in.UseGroupScoring.ValueOK(); ok {
		p.UseGroupScoring = &v
	}
	p.ExcludeRecursion = boolPtr(in.ExcludeRecursion)
	p.PreventRecursion = boolPtr(in.PreventRecursion)
	p.DelayUntilRecursion = intPtr(in.DelayUntilRecursion)
	p.Sticky = intPtr(in.Sticky)
	p.Cooldown = intPtr(in.Cooldown)
	p.Delay = intPtr(in.Delay)
	if v, ok := in.ChannelIds.ValueOK(); ok {
		ids := nonNil(v)
		p.ChannelIDs = &ids
	}
	return p, nil
}

func bookSettingsToModel(b lore.BookSettings) model.BookSettings {
	return model.BookSettings{ScanDepth: b.ScanDepth, BudgetLimit: b.BudgetLimit, Recursive: b.Recursive,
		MaxRecursionSteps: b.MaxRecursionSteps, CaseSensitive: b.CaseSensitive, WholeWords: b.WholeWords,
		MaxBudgetShare: b.MaxBudgetShare, SemanticAllEntries: b.SemanticAllEntries}
}

// bookPatchFromInput maps a book settings input to a patch: omitted fields
// stay nil (kept), explicit nulls clear.
func bookPatchFromInput(in *model.BookSettingsInput) lore.BookSettingsPatch {
	return lore.BookSettingsPatch{
		ScanDepth: clearable(in.ScanDepth), BudgetLimit: clearable(in.BudgetLimit),
		MaxRecursionSteps: clearable(in.MaxRecursionSteps), Recursive: clearable(in.Recursive),
		CaseSensitive: clearable(in.CaseSensitive), WholeWords: clearable(in.WholeWords),
		MaxBudgetShare: clearable(in.MaxBudgetShare), SemanticAllEntries: clearable(in.SemanticAllEntries),
	}
}

// clearable returns nil for an omitted field and a pointer to the value
// (nil for an explicit null) otherwise.
func clearable[T any](o graphql.Omittable[*T]) **T {
	v, ok := o.ValueOK()
	if !ok {
		return nil
	}
	return &v
}

// settingsPatchFromInput maps a server settings input to a patch: omitted
// and null fields keep their value.
func settingsPatchFromInput(in *model.UpdateServerSettingsInput) lore.SettingsPatch {
	p := lore.SettingsPatch{
		ChannelScoping: boolPtr(in.ChannelScoping),
		MemoryTagging:  boolPtr(in.MemoryTagging),
		RegexKeys:      boolPtr(in.RegexKeys),
		BudgetLimit:    intPtr(in.BudgetLimit),

		MinActivations:         intPtr(in.MinActivations),
		MinActivationsDepthMax: intPtr(in.MinActivationsDepthMax),
		MaxEntries:             intPtr(in.MaxEntries),
		IncludeNames:           boolPtr(in.IncludeNames),
	}
	p.ExpectedUpdatedAt = expected(in.ExpectedUpdatedAt)
	if v, ok := in.BudgetUnit.ValueOK(); ok && v != nil {
		u := lore.BudgetUnit(strings.ToLower(string(*v)))
		p.BudgetUnit = &u
	}
	if v, ok := in.Tokenizer.ValueOK(); ok && v != nil {
		t := lore.TokenizerName(*v)
		p.Tokenizer = &t
	}
	p.Semantic = semanticPatchFromInput(in)
	return p
}

// semanticPatchFromInput maps the semantic fields of a server settings
// input: omitted fields keep their value, an explicit null resets a
// number to its default.
func semanticPatchFromInput(in *model.UpdateServerSettingsInput) lore.SemanticPatch {
	p := lore.SemanticPatch{
		AllEntries:    boolPtr(in.SemanticAllEntries),
		MaxEntries:    clearable(in.SemanticMaxEntries),
		Threshold:     clearable(in.SemanticThreshold),
		QueryMessages: clearable(in.SemanticQueryMessages),
		BudgetShare:   clearable(in.SemanticBudgetShare),
	}
	if v, ok := in.SemanticRanker.ValueOK(); ok && v != nil {
		p.Ranker = v
	}
	return p
}

func orEmpty(s *string) *string {
	if s == nil {
		e := ""
		return &e
	}
	return s
}

func boolPtr(o graphql.Omittable[*bool]) *bool {
	if v, ok := o.ValueOK(); ok && v != nil {
		return v
	}
	return nil
}

func intPtr(o graphql.Omittable[*int]) *int {
	if v, ok := o.ValueOK(); ok && v != nil {
		return v
	}
	return nil
}

// parseID parses an API id (decimal int64 > 0). A malformed id is reported
// as not found: ids are opaque to clients.
func parseID(kind, s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, lore.NotFound(kind, s)
	}
	return id, nil
}

// Cursors are opaque base64 offsets into a stable ordering.

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(offset)))
}

func decodeCursor(after *string) (int, error) {
	if after == nil || *after == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*after)
	if err != nil || !strings.HasPrefix(string(b), "o:") {
		return 0, lore.Reject("after", i18n.NotACursor, nil)
	}
	n, err := strconv.Atoi(string(b[2:]))
	if err != nil || n < 0 || n >= math.MaxInt32 {
		return 0, lore.Reject("after", i18n.NotACursor, nil)
	}
	return n + 1, nil
}

// MaxPageSize bounds the first argument of every connection.
const MaxPageSize = 250

// page returns the [start, end) window of a list of n items for first/after.
func page(n int, first *int, after *string, def int) (start, end int, err error) {
	start, err = decodeCursor(after)
	if err != nil {
		return 0, 0, err
	}
	size, err := pageSize(first, def)
	if err != nil {
		return 0, 0, err
	}
	start = min(start, n)
	end = min(start+size, n)
	return start, end, nil
}

func pageInfo(start, end, n int) model.PageInfo {
	pi := model.PageInfo{HasNextPage: end < n}
	if end > start {
		c := encodeCursor(end - 1)
		pi.EndCursor = &c
	}
	return pi
}

func entryConnection(entries []lore.Entry, first *int, after *string, includeDisabled *bool) (*model.EntryConnection, error) {
	if includeDisabled != nil && !*includeDisabled {
		kept := entries[:0:0]
		for _, e := range entries {
			if e.Enabled {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	start, end, err := page(len(entries), first, after, 50)
	if err != nil {
		return nil, err
	}
	conn := &model.EntryConnection{TotalCount: len(entries), PageInfo: pageInfo(start, end, len(entries))}
	conn.Edges = make([]*model.EntryEdge, 0, end-start)
	for i := start; i < end; i++ {
		conn.Edges = append(conn.Edges, &model.EntryEdge{Cursor: encodeCursor(i), Node: *entryToModel(entries[i])})
	}
	return conn, nil
}
