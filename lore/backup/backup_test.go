package backup_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
)

const server = "111111111111111111"

func TestConvertMemory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mem      backup.Memory
		lineage  lore.Lineage
		alwaysOn bool
		outcome  backup.Outcome
		keys     []string
		legacy   []string
		channels []string
	}{
		{"keywords cleaned, #names kept as markers", backup.Memory{Content: "x", KeywordTags: []string{" a ", "#chan", "b", "a", "", "# other room "}}, 7, false, backup.Converted, []string{"a", "b"}, []string{"chan", "other room"}, nil},
		{"older field name", backup.Memory{Content: "x", Tags: []string{"k"}}, 7, false, backup.Converted, []string{"k"}, nil, nil},
		{"channel ids kept on persona entries", backup.Memory{Content: "x", KeywordTags: []string{"k"}, ChannelDiscIDs: []string{"500000000000000001"}}, 7, true, backup.Converted, []string{"k"}, nil, []string{"500000000000000001"}},
		{"serverwide drops channel ids", backup.Memory{Content: "x", KeywordTags: []string{"k"}, ChannelDiscIDs: []string{"500000000000000001"}}, lore.Serverwide, false, backup.Converted, []string{"k"}, nil, nil},
		{"only #names: channel-only", backup.Memory{Content: "x", KeywordTags: []string{"#a", "  "}}, 7, false, backup.ChannelOnly, nil, nil, nil},
		{"only channel ids: channel-only", backup.Memory{Content: "x", ChannelDiscIDs: []string{"500000000000000001"}}, 7, false, backup.ChannelOnly, nil, nil, nil},
		{"nothing: untagged", backup.Memory{Content: "x", KeywordTags: []string{" "}}, 7, false, backup.Untagged, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, out := backup.ConvertMemory(tc.mem, server, tc.lineage, tc.alwaysOn)
			require.Equal(t, tc.outcome, out)
			if out != backup.Converted {
				return
			}
			require.Equal(t, tc.keys, e.Keys)
			require.Equal(t, tc.legacy, e.LegacyChannelTags)
			require.Equal(t, tc.channels, e.ChannelIDs)
			require.Equal(t, tc.alwaysOn, e.Constant)
			require.Equal(t, backup.LegacyScanDepth, *e.ScanDepth)
			require.NoError(t, e.Validate())
			again, _ := backup.ConvertMemory(tc.mem, server, tc.lineage, !tc.alwaysOn)
			require.Equal(t, lore.DuplicateKey(e), lore.DuplicateKey(again), "same memory, same identity")
		})
	}
}

func TestPlan(t *testing.T) {
	book := func(titles ...string) *[]backup.Entry {
		out := []backup.Entry{}
		for _, ti := range titles {
			out = append(out, backup.Entry{Title: ti, Content: ti})
		}
		return &out
	}
	doc := backup.Document{Personas: []backup.Bucket{
		{PersonaID: 1, LineageID: 7, LorebookEntries: book("a", "b")},
		{PersonaID: 2, LineageID: 7, LorebookEntries: book("a", "b")}, // shares the lineage
		{PersonaID: 3, LineageID: 8},                                  // absent book: preserved
	}}
	plan, err := backup.Plan(doc, backup.Options{Server: server, LineageMap: map[lore.Lineage]lore.Lineage{7: 70},
		Current: lore.ScopeCounts{0: 3, 70: 5, 8: 2}})
	require.NoError(t, err)
	require.Len(t, plan.Replace, 1)
	require.Equal(t, lore.Lineage(70), plan.Replace[0].Lineage, "bucket mapping chooses the destination lineage")
	require.Equal(t, []backup.ScopePlan{
		{Lineage: 0, Current: 3},
		{Lineage: 8, Current: 2},
		{Lineage: 70, Included: true, Incoming: 2, Current: 5},
	}, plan.Scopes)

	for _, tc := range []struct {
		name string
		doc  backup.Document
		m    map[lore.Lineage]lore.Lineage
	}{
		{"two books into one lineage", backup.Document{Personas: []backup.Bucket{{LineageID: 7, LorebookEntries: book("a")}, {LineageID: 8, LorebookEntries: book("b")}}}, map[lore.Lineage]lore.Lineage{8: 7}},
		{"mapping to Serverwide", doc, map[lore.Lineage]lore.Lineage{7: 0}},
		{"bucket without lineage", backup.Document{Personas: []backup.Bucket{{LineageID: 0}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := backup.Plan(tc.doc, backup.Options{Server: server, LineageMap: tc.m})
			require.ErrorIs(t, err, lore.ErrInvalid)
		})
	}
}

func TestBuildDecodeRoundTrip(t *testing.T) {
	sv := lore.Server{ID: server, Name: "S", Settings: lore.DefaultServerSettings()}
	e := lore.NewEntry()
	e.Lineage, e.Title, e.Content, e.LegacyChannelTags = 9, "t", "c", []string{"room"}
	sw := lore.NewEntry()
	sw.Collection, sw.Title, sw.Content = "World", "w", "c"
	doc := backup.Build(sv, []lore.Persona{{ID: 1, Lineage: 7, Name: "P", Removed: true}},
		[]lore.Collection{{Name: "World", Enabled: false, ChannelIDs: []string{"500000000000000001"}}, {Name: "Empty", Enabled: true}},
		[]lore.Entry{sw, e}, backup.BookData{}, time.Unix(0, 0))
	data, err := backup.Encode(doc)
	require.NoError(t, err)
	got, err := backup.Decode(data)
	require.NoError(t, err)
	require.Len(t, got.Personas, 2, "removed persona and lore-only lineage")
	require.True(t, got.Personas[0].Removed)
	require.NotNil(t, got.Personas[0].LorebookEntries)
	require.Empty(t, *got.Personas[0].LorebookEntries, "an empty book is present: it clears the scope")
	require.Equal(t, int64(9), got.Personas[1].LineageID)
	require.Equal(t, []string{"room"}, (*got.Personas[1].LorebookEntries)[0].LegacyChannelTags)
	w := (*got.ServerwideLorebookEntries)[0]
	require.Equal(t, "World", *w.LorebookName)
	require.False(t, *w.LorebookEnabled)
	require.Equal(t, []string{"500000000000000001"}, w.LorebookChannelDiscIDs)
	require.Len(t, got.ServerwideLorebooks, 2)

	for _, bad := range []string{`[]`, `{"format":"x","personas":[]}`, `{"version": 99, "personas": []}`, `{}`, `{"personas": [`} {
		_, err := backup.Decode([]byte(bad))
		require.ErrorIs(t, err, backup.ErrNotBackup, bad)
		require.ErrorIs(t, err, lore.ErrInvalid)
	}
	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	require.Contains(t, raw, "serverwide_lorebook_entries")
}

// TestEncodeRefusesWhatCannotBeImported: a backup larger than MaxBytes is
// refused when written, since Decode would refuse it when read.
func TestEncodeRefusesWhatCannotBeImported(t *testing.T) {
	big := strings.Repeat("x", lore.MaxContentLen)
	var entries []lore.Entry
	for l := lore.Lineage(1); len(entries)*lore.MaxContentLen <= backup.MaxBytes; l++ {
		for i := range lore.MaxEntriesPerScope {
			e := lore.NewEntry()
			e.Lineage, e.Content, e.Title = l, big, fmt.Sprint(i)
			entries = append(entries, e)
		}
	}
	doc := backup.Build(lore.Server{ID: "123456789012345678"}, nil, nil, entries, backup.BookData{}, time.Now())
	_, err := backup.Encode(doc)
	require.ErrorIs(t, err, backup.ErrTooLarge)

	small := backup.Build(lore.Server{ID: "123456789012345678"}, nil, nil, entries[:10], backup.BookData{}, time.Now())
	data, err := backup.Encode(small)
	require.NoError(t, err)
	_, err = backup.Decode(data)
	require.NoError(t, err)
}

// TestBookSettings: Build writes every book's settings (a collection's own,
// a persona lineage's from BookData, none set as an empty object); Plan
// carries them into the books it writes, validates them in the
// destination's budget unit (the field names the book), and a backup
// without them (written before them) plans no settings.
func TestBookSettings(t *testing.T) {
	depth, share, limit := 7, 40, 900
	world := lore.BookSettings{ScanDepth: &depth, MaxBudgetShare: &share}
	persona := lore.BookSettings{BudgetLimit: &limit}
	e := lore.NewEntry()
	e.Lineage, e.Title, e.Content = 9, "t", "c"
	doc := backup.Build(lore.Server{ID: server, Settings: lore.DefaultServerSettings()},
		[]lore.Persona{{ID: 1, Lineage: 7, Name: "P"}},
		[]lore.Collection{{Name: "World", Enabled: true, Settings: world}}, []lore.Entry{e},
		backup.BookData{PersonaSettings: map[lore.Lineage]lore.BookSettings{9: persona}}, time.Unix(0, 0))
	data, err := backup.Encode(doc)
	require.NoError(t, err)
	got, err := backup.Decode(data)
	require.NoError(t, err)
	require.Equal(t, &world, got.ServerwideLorebooks[0].Settings)
	require.Equal(t, &lore.BookSettings{}, got.Personas[0].Settings, "lineage 7 has none set: an empty object")
	require.Equal(t, &persona, got.Personas[1].Settings)
	require.Contains(t, string(data), `"settings":{"scanDepth":7,"maxBudgetShare":40}`)

	settingsOf := func(plan backup.ImportPlan) map[string]*lore.BookSettings {
		out := map[string]*lore.BookSettings{}
		for _, b := range plan.Books {
			out[fmt.Sprint(b.Lineage, b.Collection)] = b.Settings
		}
		return out
	}
	plan, err := backup.Plan(got, backup.Options{Server: server, BudgetUnit: lore.BudgetCharacters})
	require.NoError(t, err)
	require.Equal(t, map[string]*lore.BookSettings{"0World": &world, "7": {}, "9": &persona}, settingsOf(plan))

	old := got
	old.Personas = []backup.Bucket{got.Personas[0], got.Personas[1]}
	old.Personas[0].Settings, old.Personas[1].Settings = nil, nil
	old.ServerwideLorebooks = []backup.Collection{got.ServerwideLorebooks[0]}
	old.ServerwideLorebooks[0].Settings = nil
	plan, err = backup.Plan(old, backup.Options{Server: server, BudgetUnit: lore.BudgetCharacters})
	require.NoError(t, err)
	require.Empty(t, settingsOf(plan), "a backup without settings writes none")

	tooDeep, noShare, tokens := 101, 0, 3_000_000
	for _, tc := range []struct {
		name  string
		edit  func(d *backup.Document)
		unit  lore.BudgetUnit
		field string
	}{
		{"scan depth", func(d *backup.Document) { d.Personas[1].Settings = &lore.BookSettings{ScanDepth: &tooDeep} },
			lore.BudgetCharacters, "personas[1].settings.scanDepth"},
		{"share", func(d *backup.Document) {
			d.ServerwideLorebooks[0].Settings = &lore.BookSettings{MaxBudgetShare: &noShare}
		},
			lore.BudgetCharacters, "serverwide_lorebooks[0].settings.maxBudgetShare"},
		{"limit in the destination's unit", func(d *backup.Document) { d.Personas[0].Settings = &lore.BookSettings{BudgetLimit: &tokens} },
			lore.BudgetTokens, "personas[0].settings.budgetLimit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := old
			d.Personas = append([]backup.Bucket(nil), old.Personas...)
			d.ServerwideLorebooks = append([]backup.Collection(nil), old.ServerwideLorebooks...)
			tc.edit(&d)
			_, err := backup.Plan(d, backup.Options{Server: server, BudgetUnit: tc.unit})
			var ie *lore.InvalidError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, tc.field, ie.Field)
		})
	}
	_, err = backup.Decode([]byte(`{"personas":[{"lineage_id":7,"settings":{"scanDepth":"7"}}]}`))
	require.ErrorIs(t, err, backup.ErrNotBackup)
	require.Contains(t, err.Error(), "personas.settings.scanDepth")
}

// TestServerSettingsPlan: Build writes the server's settings and
// workbench settings; Plan applies the settings onto any server, the
// workbench's Discord ids only onto the server the backup came from
// (else Skipped), converts memories with the backup's memory tagging,
// and plans nothing for a backup without them.
func TestServerSettingsPlan(t *testing.T) {
	const other = "222222222222222222"
	set := lore.DefaultServerSettings()
	set.MemoryTagging, set.RegexKeys, set.BudgetUnit, set.BudgetLimit = false, true, lore.BudgetTokens, 1500
	wb := &lore.WorkbenchSettings{ProposalsEnabled: false, ProposalChannelID: "300000000000000001", LoreEditorRoleID: "300000000000000002"}
	built := backup.Build(lore.Server{ID: server, Settings: set}, nil, nil, nil, backup.BookData{Workbench: wb}, time.Unix(0, 0))
	data, err := backup.Encode(built)
	require.NoError(t, err)
	require.Contains(t, string(data), `"workbench":{"proposalsEnabled":false,"proposalChannelId":"300000000000000001","loreEditorRoleId":"300000000000000002"}`)
	doc, err := backup.Decode(data)
	require.NoError(t, err)
	doc.ServerMemories = []backup.Memory{{ID: json.RawMessage(`1`), Content: "c", KeywordTags: []string{"k"}}}
	old := doc
	old.Server.Settings, old.Server.Workbench = nil, nil
	// withIDs is doc whose workbench carries only the given ids (an
	// empty one has nothing to apply, so it is not named skipped).
	withIDs := func(channel, role string) backup.Document {
		d := doc
		d.Server.Workbench = &backup.Workbench{ProposalChannelID: channel, LoreEditorRoleID: role}
		return d
	}
	otherSkip := func(settings ...string) backup.SettingsPlan {
		sp := backup.SettingsPlan{Included: true, Workbench: true}
		for _, s := range settings {
			sp.Skipped = append(sp.Skipped, s)
			sp.SkippedReasons = append(sp.SkippedReasons, backup.SkippedSetting{Setting: s, Reason: backup.SkipOtherServer})
			sp.SkippedReason = backup.SkippedOtherServer
		}
		return sp
	}
	for _, tc := range []struct {
		name   string
		doc    backup.Document
		dest   string
		want   backup.SettingsPlan
		ids    bool // the patch sets the channel and role
		always bool // the converted memory is Always On (memory tagging off)
	}{
		{name: "same server", doc: doc, dest: server, want: backup.SettingsPlan{Included: true, Workbench: true, SameServer: true},
			ids: true, always: true},
		{name: "another server", doc: doc, dest: other, want: backup.SettingsPlan{Included: true, Workbench: true,
			Skipped: []string{"proposalChannelId", "loreEditorRoleId"}, SkippedReason: backup.SkippedOtherServer,
			SkippedReasons: []backup.SkippedSetting{{Setting: "proposalChannelId", Reason: backup.SkipOtherServer},
				{Setting: "loreEditorRoleId", Reason: backup.SkipOtherServer}}}, always: true},
		{name: "another server, role only", doc: withIDs("", "300000000000000002"), dest: other,
			want: otherSkip("loreEditorRoleId"), always: true},
		{name: "another server, channel only", doc: withIDs("300000000000000001", ""), dest: other,
			want: otherSkip("proposalChannelId"), always: true},
		{name: "another server, no ids", doc: withIDs("", ""), dest: other, want: otherSkip(), always: true},
		{name: "older backup", doc: old, dest: server, want: backup.SettingsPlan{SameServer: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := backup.Plan(tc.doc, backup.Options{Server: tc.dest, MemoryTagging: true, BudgetUnit: lore.BudgetCharacters})
			require.NoError(t, err)
			got := plan.Settings
			if tc.want.Included {
				require.NotNil(t, got.Server)
				require.True(t, set.Equal(*got.Server), "the backup's settings: %+v", *got.Server)
				require.NotNil(t, got.WorkbenchPatch)
				require.False(t, *got.WorkbenchPatch.ProposalsEnabled)
				require.Equal(t, tc.ids, got.WorkbenchPatch.LoreEditorRoleID != nil && got.WorkbenchPatch.ProposalChannelID != nil)
			} else {
				require.Nil(t, got.Server)
				require.Nil(t, got.WorkbenchPatch)
			}
			got.Server, got.WorkbenchPatch = nil, nil
			require.Equal(t, tc.want, got)
			conv := plan.Conversions[lore.Serverwide]
			require.Len(t, conv, 1)
			require.Equal(t, tc.always, conv[0].Constant, "memory tagging: the backup's when it carries settings")
		})
	}
}

// TestRestoreNeverWidensRanker: a restore never makes a server send its
// lore out (docs/contract.md#backups): when the destination's semantic
// ranker never sends lore to the embeddings provider (LEXICAL, OFF) and
// the backup's would (AUTO, "" or EMBEDDINGS), the plan keeps the
// destination's and names semanticRanker skipped with its own reason,
// beside the other server's ids; otherwise the backup's applies.
func TestRestoreNeverWidensRanker(t *testing.T) {
	const other = "222222222222222222"
	wb := &lore.WorkbenchSettings{ProposalChannelID: "300000000000000001", LoreEditorRoleID: "300000000000000002"}
	keep := backup.SkippedSetting{Setting: "semanticRanker", Reason: backup.SkipKeepsLoreLocal}
	ids := []backup.SkippedSetting{{Setting: "proposalChannelId", Reason: backup.SkipOtherServer}, {Setting: "loreEditorRoleId", Reason: backup.SkipOtherServer}}
	for _, tc := range []struct {
		name         string
		from, dest   lore.SemanticRanker
		destServer   string
		want         lore.SemanticRanker
		skipped      []backup.SkippedSetting
		reasonInText []string
	}{
		{name: "lexical server keeps its ranker against auto", from: lore.RankerAuto, dest: lore.RankerLexical, destServer: server,
			want: lore.RankerLexical, skipped: []backup.SkippedSetting{keep}, reasonInText: []string{backup.SkippedKeepsLoreLocal}},
		{name: "off server keeps its ranker against embeddings", from: lore.RankerEmbeddings, dest: lore.RankerOff, destServer: server,
			want: lore.RankerOff, skipped: []backup.SkippedSetting{keep}, reasonInText: []string{backup.SkippedKeepsLoreLocal}},
		{name: "unset backup ranker is auto", from: "", dest: lore.RankerLexical, destServer: server,
			want: lore.RankerLexical, skipped: []backup.SkippedSetting{keep}, reasonInText: []string{backup.SkippedKeepsLoreLocal}},
		{name: "both reasons onto another server", from: lore.RankerAuto, dest: lore.RankerOff, destServer: other,
			want: lore.RankerOff, skipped: append([]backup.SkippedSetting{keep}, ids...),
			reasonInText: []string{backup.SkippedKeepsLoreLocal, backup.SkippedOtherServer}},
		{name: "narrowing applies", from: lore.RankerLexical, dest: lore.RankerAuto, destServer: server, want: lore.RankerLexical},
		{name: "local to local applies", from: lore.RankerOff, dest: lore.RankerLexical, destServer: server, want: lore.RankerOff},
		{name: "auto server takes embeddings", from: lore.RankerEmbeddings, dest: "", destServer: server, want: lore.RankerEmbeddings},
		{name: "another server, ranker applies", from: lore.RankerEmbeddings, dest: lore.RankerEmbeddings, destServer: other,
			want: lore.RankerEmbeddings, skipped: ids, reasonInText: []string{backup.SkippedOtherServer}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := lore.DefaultServerSettings()
			set.Semantic.Ranker, set.Semantic.AllEntries = tc.from, true
			data, err := backup.Encode(backup.Build(lore.Server{ID: server, Settings: set}, nil, nil, nil, backup.BookData{Workbench: wb}, time.Unix(0, 0)))
			require.NoError(t, err)
			doc, err := backup.Decode(data)
			require.NoError(t, err)
			plan, err := backup.Plan(doc, backup.Options{Server: tc.destServer, SemanticRanker: tc.dest, BudgetUnit: lore.BudgetCharacters})
			require.NoError(t, err)
			sp := plan.Settings
			require.NotNil(t, sp.Server)
			require.Equal(t, tc.want, sp.Server.Semantic.Ranker)
			require.True(t, sp.Server.Semantic.AllEntries, "the other semantic settings apply")
			require.Equal(t, tc.skipped, sp.SkippedReasons)
			names := []string(nil)
			for _, s := range tc.skipped {
				names = append(names, s.Setting)
			}
			require.Equal(t, names, sp.Skipped)
			require.Equal(t, strings.Join(tc.reasonInText, "; "), sp.SkippedReason)
		})
	}
}

// TestOtherServerChannels: onto another server than the backup's, the
// plan counts the restored collections with a channel list and the
// persona entries with channel ids (converted memories included; a
// Serverwide memory's channels are dropped, Serverwide entries follow
// their collection's), whose channel lists it keeps as they are; onto
// the same server it counts nothing (docs/contract.md#backups).
func TestOtherServerChannels(t *testing.T) {
	const other, ch1, ch2 = "222222222222222222", "500000000000000001", "500000000000000002"
	entry := func(l lore.Lineage, coll, title string, channels ...string) lore.Entry {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Collection, e.Title, e.Content, e.Keys, e.ChannelIDs = server, l, coll, title, "c", []string{title}, channels
		return e
	}
	cols := []lore.Collection{{Name: "Tavern", Enabled: true, ChannelIDs: []string{ch1}}, {Name: "World", Enabled: true},
		{Name: "Crypt", Enabled: false, ChannelIDs: []string{ch1, ch2}}}
	entries := []lore.Entry{entry(lore.Serverwide, "Tavern", "ale"), entry(lore.Serverwide, "Tavern", "stew"), entry(lore.Serverwide, "World", "sky"),
		entry(lore.Serverwide, "Crypt", "bones"), entry(7, "", "sword", ch1), entry(7, "", "shield"), entry(9, "", "orb", ch2)}
	doc := backup.Build(lore.Server{ID: server, Settings: lore.DefaultServerSettings()}, nil, cols, entries, backup.BookData{}, time.Unix(0, 0))
	data, err := backup.Encode(doc)
	require.NoError(t, err)
	doc, err = backup.Decode(data)
	require.NoError(t, err)
	l7 := int64(7)
	withMemories := doc
	withMemories.ServerMemories = []backup.Memory{
		{ID: json.RawMessage(`1`), Content: "m1", KeywordTags: []string{"k"}, ChannelDiscIDs: []string{ch1}, PersonaLineageID: &l7},
		{ID: json.RawMessage(`2`), Content: "m2", KeywordTags: []string{"k"}, ChannelDiscIDs: []string{ch1}}, // Serverwide: dropped
		{ID: json.RawMessage(`3`), Content: "m3", KeywordTags: []string{"k"}, PersonaLineageID: &l7}}
	noID := doc
	noID.Server.DiscordID = ""
	for _, tc := range []struct {
		name string
		doc  backup.Document
		dest string
		want backup.OtherChannels
	}{
		{name: "same server", doc: doc, dest: server},
		{name: "another server", doc: doc, dest: other, want: backup.OtherChannels{Collections: 2, Entries: 2}},
		{name: "another server, converted memories", doc: withMemories, dest: other, want: backup.OtherChannels{Collections: 2, Entries: 3}},
		{name: "same server, converted memories", doc: withMemories, dest: server},
		{name: "backup without its server's id", doc: noID, dest: server, want: backup.OtherChannels{Collections: 2, Entries: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := backup.Plan(tc.doc, backup.Options{Server: tc.dest, BudgetUnit: lore.BudgetCharacters})
			require.NoError(t, err)
			require.Equal(t, tc.want, plan.OtherServerChannels)
			// The lists are restored as they are.
			for _, r := range plan.Replace {
				for _, c := range r.Collections {
					if c.Name == "Crypt" {
						require.Equal(t, []string{ch1, ch2}, c.ChannelIDs)
					}
				}
				for _, e := range r.Entries {
					if e.Title == "sword" {
						require.Equal(t, []string{ch1}, e.ChannelIDs)
					}
				}
			}
		})
	}
}

// TestDecodeServerSettingsDefaults: a field the backup's server.settings
// or server.workbench leaves out takes its default, not Go's zero value
// (docs/contract.md#backups): channel scoping and memory tagging stay on
// and the proposals switch on, so a trimmed file never turns channel
// scoping off; fields it gives apply, absent or null objects are nil
// (the destination keeps its own), and a wrong type names its path.
func TestDecodeServerSettingsDefaults(t *testing.T) {
	off := lore.DefaultServerSettings()
	off.ChannelScoping, off.BudgetLimit = false, 500
	for _, tc := range []struct {
		name, server string
		settings     *lore.ServerSettings // nil: none decoded
		workbench    *backup.Workbench
		wrongType    string // the decode error names this field
	}{
		{name: "empty objects", server: `{"settings":{},"workbench":{}}`,
			settings: new(lore.DefaultServerSettings()), workbench: &backup.Workbench{ProposalsEnabled: true}},
		{name: "some fields", server: `{"settings":{"channelScoping":false,"budgetLimit":500},"workbench":{"loreEditorRoleId":"300000000000000002"}}`,
			settings: &off, workbench: &backup.Workbench{ProposalsEnabled: true, LoreEditorRoleID: "300000000000000002"}},
		{name: "proposals off", server: `{"workbench":{"proposalsEnabled":false}}`, workbench: &backup.Workbench{}},
		{name: "absent", server: `{"discord_id":"` + server + `"}`},
		{name: "null", server: `{"settings":null,"workbench":null}`},
		{name: "wrong type in settings", server: `{"settings":{"budgetLimit":"many"}}`, wrongType: "server.settings.budgetLimit"},
		{name: "settings not an object", server: `{"settings":5}`, wrongType: "server.settings"},
		{name: "wrong type in workbench", server: `{"workbench":{"proposalsEnabled":"no"}}`, wrongType: "server.workbench.proposalsEnabled"},
		{name: "wrong type beside", server: `{"name":7,"settings":{}}`, wrongType: "server.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := backup.Decode([]byte(`{"server":` + tc.server + `,"personas":[]}`))
			if tc.wrongType != "" {
				require.ErrorIs(t, err, backup.ErrNotBackup)
				require.Contains(t, err.Error(), "field "+tc.wrongType+" has the wrong type")
				return
			}
			require.NoError(t, err)
			if tc.settings == nil {
				require.Nil(t, doc.Server.Settings)
			} else {
				require.NotNil(t, doc.Server.Settings)
				require.True(t, tc.settings.Equal(*doc.Server.Settings), "want %+v, got %+v", *tc.settings, *doc.Server.Settings)
			}
			require.Equal(t, tc.workbench, doc.Server.Workbench)
		})
	}
}
