package format_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/format/charx"
	"loregate/lore/format/png"
	"loregate/lore/i18n"
	"loregate/lore/sharedtest"
)

// TestNamelessBookExportsItsFileName: a world info file without a name
// (case BUG-55) is named after its file, and every export with a book-name
// field carries that name (docs/formats.md "Book names").
func TestNamelessBookExportsItsFileName(t *testing.T) {
	data := sharedtest.Read(t, "cases", "turn3", "BUG-55-nameless-book-export-name", "Harbor Lore.json")
	res, err := format.Import("Harbor Lore.json", data, format.Options{})
	require.NoError(t, err)
	require.Equal(t, "Harbor Lore", res.Book.Name)
	name := func(t *testing.T, out []byte, path ...string) string {
		t.Helper()
		var v any
		require.NoError(t, json.Unmarshal(out, &v))
		for _, p := range path {
			m, ok := v.(map[string]any)
			require.True(t, ok, "%s is an object", p)
			v = m[p]
		}
		s, _ := v.(string)
		return s
	}
	for _, tc := range []struct {
		hop    string
		export func(format.Book) ([]byte, error)
		path   []string
	}{
		{"ccv3", format.ExportLorebookV3, []string{"data", "name"}},
		{"card", format.ExportCardJSON, []string{"data", "character_book", "name"}},
		{"agnai", format.ExportAgnai, []string{"name"}},
	} {
		t.Run(tc.hop, func(t *testing.T) {
			out, err := tc.export(res.Book)
			require.NoError(t, err)
			require.Equal(t, "Harbor Lore", name(t, out, tc.path...))
			back, err := format.Import("other.json", out, format.Options{})
			require.NoError(t, err)
			require.Equal(t, "Harbor Lore", back.Book.Name, "the name survives the hop")
		})
	}
	// The same-format export stays as the source was: no name added.
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	require.NotContains(t, string(out), `"name"`)
}

// TestBadEntriesNamedInReport: entries whose content or keys are not text
// (case BUG-62) are named in the report with the precise reason; nothing
// is dropped silently.
func TestBadEntriesNamedInReport(t *testing.T) {
	data := sharedtest.Read(t, "cases", "turn3", "BUG-62-bad-entries-named-in-report", "book.json")
	res, err := format.Import("book.json", data, format.Options{})
	require.NoError(t, err)
	rep := res.Report
	require.Equal(t, 3, rep.Entries)
	require.Equal(t, []format.Skip{
		{Index: 0, Title: "no-content", Reason: "no content"},
		{Index: 1, Title: "null-content", Reason: "no content"},
		{Index: 2, Title: "number-content", Reason: "content is not text (a number)"},
	}, rep.Skipped)
	require.Equal(t, []format.Inert{{Index: 4, Title: "key-number", Reason: "no usable key: keys are not text (a number)"}}, rep.Inert)
	require.Len(t, rep.UnsupportedKeys, 1)
	require.Equal(t, "keys are not text (a number)", rep.UnsupportedKeys[0].Reason)

	// The same rule in a card book and a RisuAI export.
	card := `{"spec":"chara_card_v2","data":{"name":"c","character_book":{"entries":[
	  {"keys":["a"],"content":{"t":1},"enabled":true,"insertion_order":1},
	  {"keys":12,"content":"x","enabled":true,"insertion_order":2}]}}}`
	res, err = format.Import("c.json", []byte(card), format.Options{})
	require.NoError(t, err)
	require.Equal(t, "content is not text (an object)", res.Report.Skipped[0].Reason)
	require.Equal(t, "no usable key: keys are not text (a number)", res.Report.Inert[0].Reason)
	risu := `{"type":"risu","ver":1,"data":[{"key":"a","content":true,"comment":"t","mode":"normal","insertorder":1,"alwaysActive":false,"secondkey":"","selective":false}]}`
	res, err = format.Import("r.json", []byte(risu), format.Options{})
	require.NoError(t, err)
	require.Equal(t, "content is not text (true or false)", res.Report.Skipped[0].Reason)
	for _, in := range res.Report.Inert {
		require.NotEmpty(t, strings.TrimSpace(in.Reason))
	}
}

// TestWorldbookImport: the Tavern Helper worldbook the team wrote in that
// shape (testdata/tavern_helper_worldbook.json) is detected, read field by
// field, and exports back equal to its source.
func TestWorldbookImport(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "tavern_helper_worldbook.json"))
	require.NoError(t, err)
	res, err := format.Import("harbor.json", src, format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindWorldbook, res.Format)
	require.Equal(t, "Saltmarsh Harbor", res.Book.Name)
	rep := res.Report
	require.Equal(t, 8, rep.Entries)
	require.Empty(t, rep.Skipped)
	require.Empty(t, rep.Warnings)
	require.Empty(t, rep.IgnoredSettings, "vectorized is an entry field")
	require.Zero(t, rep.CollapsedPlacements, "author's note, depth, examples and outlet positions are kept")
	e := res.Book.Entries
	require.True(t, e[0].Constant)
	require.Equal(t, 10, e[0].Order)
	require.True(t, e[0].ExcludeRecursion)
	require.True(t, e[0].PreventRecursion)
	require.Nil(t, e[0].ScanDepth, "same_as_global inherits")
	require.Equal(t, []string{"lighthouse", "beacon"}, e[1].Keys)
	require.Equal(t, []string{"night", "storm"}, e[1].SecondaryKeys)
	require.Equal(t, lore.AndAll, e[1].Logic)
	require.Equal(t, 3, *e[1].ScanDepth)
	require.Equal(t, lore.After, e[1].Placement)
	require.Equal(t, 80, e[1].Probability)
	require.Equal(t, 2, e[1].DelayUntilRecursion)
	require.Equal(t, 2, e[1].Sticky)
	require.Equal(t, 1, e[1].Cooldown)
	require.Equal(t, lore.NotAny, e[2].Logic)
	require.Equal(t, lore.Before, e[2].Placement)
	require.Equal(t, lore.RoleAssistant, e[2].Role)
	require.Equal(t, 3, e[2].Delay)
	require.Equal(t, lore.PositionAtDepth, e[2].Position)
	require.Equal(t, 2, e[2].Depth)
	require.NotContains(t, e[2].Extensions, "worldbook/position.type", "the position is a field")
	require.Equal(t, lore.PositionANTop, e[3].Position)
	require.Equal(t, lore.PositionEMBottom, e[4].Position)
	require.Equal(t, lore.PositionEMTop, e[6].Position)
	require.Equal(t, lore.PositionANBottom, e[7].Position)
	require.Equal(t, lore.PositionOutlet, e[5].Position)
	require.Equal(t, "songs", e[5].Outlet)
	require.False(t, e[3].Enabled)
	require.Equal(t, lore.NotAll, e[3].Logic)
	require.False(t, e[4].Constant, "vectorized reads as keywords")
	require.True(t, e[4].Vectorized, "and as the vectorized flag")
	require.False(t, e[1].Vectorized)
	require.Equal(t, 50, e[4].Probability)
	require.JSONEq(t, `{"tags":["music"]}`, string(e[5].Extensions["worldbook/extra"]))

	out, err := format.ExportWorldbook(res.Book)
	require.NoError(t, err)
	require.JSONEq(t, string(src), string(out), "the same-format export is the source")

	// An edit reaches the export; the untouched members keep the source.
	e[2].Position, e[2].Placement = lore.PositionAfterChar, lore.After
	e[1].Constant = true
	e[3].ScanDepth = nil
	out, err = format.ExportWorldbook(res.Book)
	require.NoError(t, err)
	var wb struct {
		Entries map[string]struct {
			Strategy struct {
				Type      string          `json:"type"`
				ScanDepth json.RawMessage `json:"scan_depth"`
			} `json:"strategy"`
			Position struct {
				Type  string `json:"type"`
				Depth int    `json:"depth"`
			} `json:"position"`
			UID int `json:"uid"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(out, &wb))
	require.Equal(t, "after_character_definition", wb.Entries["2"].Position.Type)
	require.Equal(t, 2, wb.Entries["2"].Position.Depth)
	require.Equal(t, "constant", wb.Entries["1"].Strategy.Type)
	require.JSONEq(t, `"same_as_global"`, string(wb.Entries["3"].Strategy.ScanDepth))
	require.Equal(t, 13, wb.Entries["3"].UID)
}

// TestWorldbookFromWorldInfo: a world info book exported as a worldbook
// keeps its richer positions and depths, its uids and its name.
func TestWorldbookFromWorldInfo(t *testing.T) {
	wi := `{"name":"Coast","entries":{"5":{"uid":5,"key":["reef"],"keysecondary":[],"comment":"reef","content":"Sharp reef.","position":4,"depth":2,"role":2,"disable":false,"selectiveLogic":3,"scanDepth":null,"probability":100},
	  "6":{"uid":6,"key":["gull"],"keysecondary":[],"comment":"gull","content":"Gulls.","position":1,"disable":true,"constant":true}}}`
	res, err := format.Import("coast.json", []byte(wi), format.Options{})
	require.NoError(t, err)
	out, err := format.ExportWorldbook(res.Book)
	require.NoError(t, err)
	var wb map[string]any
	require.NoError(t, json.Unmarshal(out, &wb))
	require.Equal(t, "Coast", wb["name"])
	e0 := wb["entries"].(map[string]any)["0"].(map[string]any)
	require.EqualValues(t, 5, e0["uid"])
	require.Equal(t, map[string]any{"type": "at_depth", "role": "assistant", "order": float64(100), "depth": float64(2)}, e0["position"])
	require.Equal(t, "and_all", e0["strategy"].(map[string]any)["keys_secondary"].(map[string]any)["logic"])
	e1 := wb["entries"].(map[string]any)["1"].(map[string]any)
	require.Equal(t, "constant", e1["strategy"].(map[string]any)["type"])
	require.Equal(t, false, e1["enabled"])
	back, err := format.Import("w.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindWorldbook, back.Format)
	require.Equal(t, lore.RoleAssistant, back.Book.Entries[0].Role)
}

// TestAgnaiAlwaysOnMarker: Always On entries exported to Agnai carry
// loregate's marker and come back Always On, with a report warning; an
// Agnai entry with empty keywords and no marker stays inert.
func TestAgnaiAlwaysOnMarker(t *testing.T) {
	wi := `{"entries":{"0":{"uid":0,"key":[],"comment":"rules","content":"Always.","constant":true,"disable":false},
	  "1":{"uid":1,"key":["moon"],"comment":"moon","content":"Moon.","disable":false}}}`
	res, err := format.Import("b.json", []byte(wi), format.Options{})
	require.NoError(t, err)
	notes := format.AgnaiNotes(res.Book)
	require.Len(t, notes, 1)
	require.Equal(t, i18n.ReportAgnaiAlwaysOnOne, notes[0].Reason)
	require.Contains(t, notes[0].Text(i18n.EN), "1 entry is Always On")
	require.Contains(t, notes[0].Text(i18n.EN), "Agnai itself will not insert it")
	out, err := format.ExportAgnai(res.Book)
	require.NoError(t, err)
	require.Contains(t, string(out), `"loregate": {`)
	back, err := format.Import("b.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindAgnai, back.Format)
	require.True(t, back.Book.Entries[0].Constant, "the marker reads back as Always On")
	require.False(t, back.Book.Entries[1].Constant)
	require.Empty(t, back.Report.Inert)
	again, err := format.ExportAgnai(back.Book)
	require.NoError(t, err)
	require.JSONEq(t, string(out), string(again), "the marker is written once, not kept twice")

	real := `{"kind":"memory","name":"n","entries":[{"name":"t","entry":"x","keywords":[],"priority":1,"weight":2,"enabled":true}]}`
	res, err = format.Import("a.json", []byte(real), format.Options{})
	require.NoError(t, err)
	require.False(t, res.Book.Entries[0].Constant)
	require.Equal(t, []format.Inert{{Index: 0, Title: "t", Reason: "no keys and not constant"}}, res.Report.Inert)
	require.Nil(t, format.AgnaiNotes(res.Book))
}

// TestNovelAIKeySpacesSurviveWorldInfo: a NovelAI key's leading space is
// meaningful; exported to world info and read back it is kept (the export
// marks the entry), while a plain world info file's keys are trimmed as
// SillyTavern trims them.
func TestNovelAIKeySpacesSurviveWorldInfo(t *testing.T) {
	nai := `{"lorebookVersion":5,"entries":[{"text":"Cats purr.","displayName":"cat","keys":[" cat","kitten"],"enabled":true}]}`
	res, err := format.Import("n.lorebook", []byte(nai), format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindNovelAI, res.Format)
	require.Equal(t, []string{" cat", "kitten"}, res.Book.Entries[0].Keys)
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	back, err := format.Import("n.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindSTWorldInfo, back.Format)
	require.Equal(t, []string{" cat", "kitten"}, back.Book.Entries[0].Keys, "the leading space survives")
	again, err := format.ExportST(back.Book)
	require.NoError(t, err)
	require.JSONEq(t, string(out), string(again))

	plain := `{"entries":{"0":{"uid":0,"key":[" cat "],"comment":"c","content":"C.","disable":false}}}`
	res, err = format.Import("p.json", []byte(plain), format.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"cat"}, res.Book.Entries[0].Keys)
}

// TestChubHybridMirrorsOnST: a Chub/Venus hybrid world info exported with
// --to st keeps the card mirror fields of every entry (keys,
// secondary_keys, id, insertion_order, enabled, case_sensitive) with the
// values of their world info twins, reads back as a hybrid with the same
// entries, and an entry edited in loregate carries its edit in both
// spellings (a hybrid reader prefers the card one). A plain world info
// file and a card book get no mirror fields.
func TestChubHybridMirrorsOnST(t *testing.T) {
	hybrid := `{"name":"Hy","description":"d","is_creation":false,"scan_depth":3,"token_budget":500,"recursive_scanning":false,
	  "extensions":{"chub":{"x":1}},"entries":{
	  "0":{"uid":0,"key":["dragon"],"keysecondary":["fire"],"comment":"Dragon","content":"A dragon.","order":100,"disable":false,
	    "keys":["dragon"],"secondary_keys":["fire"],"id":0,"insertion_order":100,"enabled":true,"case_sensitive":false,"name":"Dragon","priority":10},
	  "1":{"uid":1,"key":["moon"],"keysecondary":[],"comment":"Moon","content":"The moon.","order":50,"disable":true,
	    "keys":["moon"],"secondary_keys":[],"id":1,"insertion_order":50,"enabled":false,"case_sensitive":true,"name":"Moon","priority":10}}}`
	res, err := format.Import("hy.json", []byte(hybrid), format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindChubHybrid, res.Format)
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	var file struct{ Entries map[string]map[string]any }
	require.NoError(t, json.Unmarshal(out, &file))
	want := map[string]map[string]any{
		"0": {"keys": []any{"dragon"}, "secondary_keys": []any{"fire"}, "id": 0.0, "insertion_order": 100.0, "enabled": true, "case_sensitive": false},
		"1": {"keys": []any{"moon"}, "secondary_keys": []any{}, "id": 1.0, "insertion_order": 50.0, "enabled": false, "case_sensitive": true},
	}
	for uid, fields := range want {
		for k, v := range fields {
			require.Equal(t, v, file.Entries[uid][k], "entry %s field %s", uid, k)
		}
	}
	back, err := format.Import("hy.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.KindChubHybrid, back.Format, "still a hybrid")
	require.Empty(t, back.Report.Warnings)
	for i := range res.Book.Entries {
		a, b := res.Book.Entries[i], back.Book.Entries[i]
		require.Equal(t, a.Keys, b.Keys)
		require.Equal(t, a.SecondaryKeys, b.SecondaryKeys)
		require.Equal(t, a.Enabled, b.Enabled)
		require.Equal(t, a.CaseSensitive, b.CaseSensitive)
		require.Equal(t, a.Order, b.Order)
	}

	// An edit made in loregate is written in both spellings.
	edited := res.Book
	edited.Entries = append([]lore.Entry(nil), res.Book.Entries...)
	edited.Entries[0].Keys = []string{"wyrm"}
	edited.Entries[0].Enabled = false
	out, err = format.ExportST(edited)
	require.NoError(t, err)
	back, err = format.Import("hy.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"wyrm"}, back.Book.Entries[0].Keys)
	require.False(t, back.Book.Entries[0].Enabled)

	// Plain world info and a card book: no mirror fields.
	plain, err := format.Import("p.json", []byte(`{"entries":{"0":{"uid":0,"key":["a"],"content":"x","disable":false}}}`), format.Options{})
	require.NoError(t, err)
	card, err := format.Import("c.json", []byte(`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"C","character_book":{"name":"B","entries":[{"keys":[" a"],"content":"x","enabled":true,"insertion_order":1,"id":3}]}}}`), format.Options{})
	require.NoError(t, err)
	for _, b := range []format.Book{plain.Book, card.Book} {
		out, err := format.ExportST(b)
		require.NoError(t, err)
		var wi struct {
			Entries map[string]map[string]json.RawMessage
		}
		require.NoError(t, json.Unmarshal(out, &wi))
		require.NotEmpty(t, wi.Entries)
		for _, e := range wi.Entries {
			for _, k := range []string{"keys", "secondary_keys", "insertion_order", "enabled", "case_sensitive"} {
				require.NotContains(t, e, k)
			}
		}
	}
}

// TestReportWarningsHaveReasonKeys: every warning of an import report is a
// notice with a reason key and params (ConversionReport.notices) whose
// texts exist in English, Portuguese and Spanish, every placeholder
// filled; the English text is the warning itself, in the same order (no
// warning without a key: TestNoGenericReason refuses one written as text).
func TestReportWarningsHaveReasonKeys(t *testing.T) {
	long := strings.Repeat("x", lore.MaxOutletLen+1)
	many := make([]string, lore.MaxFilterItems+1)
	for i := range many {
		many[i] = "n" + itoa(i)
	}
	manyJSON, _ := json.Marshal(many)
	wi := `{"entries":{"0":{"uid":0,"key":["a"],"comment":"a","content":"x","outletName":"` + long + `","group":"` + strings.Repeat("g", lore.MaxGroupLen+1) + `",
	  "triggers":["normal","bogus"],"characterFilter":{"isExclude":false,"names":` + string(manyJSON) + `,"tags":` + string(manyJSON) + `},
	  "groupWeight":-4,"selectiveLogic":9,"position":12,"scanDepth":99999}}}`
	wb := `{"version":1,"entries":{"0":{"uid":1,"name":"n","enabled":true,"content":"x",
	  "strategy":{"type":"sometimes","keys":["a"],"keys_secondary":{"logic":"and_any","keys":[]},"scan_depth":"same_as_global"},
	  "position":{"type":"nowhere","role":"system","depth":0,"order":1},"probability":100,
	  "recursion":{"prevent_incoming":false,"prevent_outgoing":false,"delay_until":null},"effect":{"sticky":null,"cooldown":null,"delay":null}}}}`
	titles := make([]string, lore.MaxEntriesPerScope+1)
	for i := range titles {
		titles[i] = "t" + itoa(i)
	}
	zip := func(files map[string][]byte) []byte {
		b, err := charx.Build(cardJSON("chara_card_v3", "sea"), files)
		require.NoError(t, err)
		return b
	}
	card := png.TextChunk("chara", cardJSON("chara_card_v2", "moon"))
	ccv3 := png.TextChunk("ccv3", cardJSON("chara_card_v3", "new"))
	badCRC := png.Build(ihdr, ccv3, card, iend)
	badCRC[bytes.Index(badCRC, []byte("tEXtccv3"))+4+len(ccv3.Data)] ^= 0xFF // the ccv3 chunk's CRC
	cut := png.Build(ihdr, card, idat, iend)
	tests := []struct {
		name, file, src string
		opts            format.Options
		want            []string
	}{
		{"disabled card book, entries without enabled", "c.json", `{"spec":"chara_card_v3","spec_version":"3.1","data":{"name":"C","character_book":{"enabled":false,"token_budget":9999999,
		  "entries":[{"keys":["a"],"content":"x","insertion_order":1},{"keys":["b"],"content":"y","insertion_order":2}]}}}`, format.Options{},
			[]string{i18n.ReportSpecVersionNewer, i18n.ReportBookDisabled, i18n.ReportTokenBudgetClamped, i18n.ReportNoEnabledFlag}},
		{"world info with card-spelled keys", "w.json", `{"entries":{"0":{"uid":0,"keys":["a"],"content":"x"}}}`, format.Options{},
			[]string{i18n.ReportCardSpelledKeys}},
		{"world info fields out of range", "w.json", wi, format.Options{},
			[]string{i18n.ReportOutletCut, i18n.ReportGroupCut, i18n.ReportTriggerUnknown, i18n.ReportFilterNamesCut, i18n.ReportFilterTagsCut,
				i18n.ReportValueClamped, i18n.ReportLogicUnknown, i18n.ReportPositionUnknown, i18n.ReportScanDepthClamped}},
		{"worldbook with unknown types", "b.json", wb, format.Options{},
			[]string{i18n.ReportStrategyUnknown, i18n.ReportWorldbookPositionUnknown}},
		{"card with a data string and wrong types", "c.json", `{"spec":"chara_card_v2","spec_version":"2.0","data":"x","name":"C","tags":"t",
		  "character_book":{"extensions":{"loregate_settings":{"maxRecursionSteps":99}},"entries":[{"keys":["a"],"content":"x","enabled":true,"insertion_order":1}]}}`, format.Options{},
			[]string{i18n.ReportCardDataNotObject, i18n.ReportCardFieldType, i18n.ReportBookSettingDropped}},
		{"one camelCase entry", "b.json", `{"entries":[{"keys":["moon"],"insertionOrder":4,"content":"Moon.","enabled":true}]}`, format.Options{},
			[]string{i18n.ReportCamelCaseOne}},
		{"camelCase entries", "b.json", `{"entries":[{"keys":["moon"],"insertionOrder":4,"content":"Moon.","enabled":true},{"keys":["sun"],"secondaryKeys":["day"],"content":"Sun.","enabled":true}]}`, format.Options{},
			[]string{i18n.ReportCamelCase}},
		{"persona card over the limit by one", "c.json", string(cardJSON("chara_card_v2", titles...)), format.Options{PersonaCard: true},
			[]string{i18n.ReportPersonaDroppedOne}},
		{"persona card over the limit", "c.json", string(cardJSON("chara_card_v2", append(titles, "more")...)), format.Options{PersonaCard: true},
			[]string{i18n.ReportPersonaDropped}},
		{"charx with a RisuAI module", "c.charx", string(zip(map[string][]byte{"module.risum": {0x6f, 0}})), format.Options{},
			[]string{i18n.ReportCharxModuleIgnored}},
		{"risu rows with broken position markers", "r.json", `{"type": "risu", "ver": 1, "data": [
		  {"key": "gate", "secondkey": "", "comment": "a", "content": "A.", "mode": "normal", "insertorder": 10, "alwaysActive": false, "selective": false, "loregate": {"x": 1}},
		  {"key": "moon", "secondkey": "", "comment": "b", "content": "B.", "mode": "normal", "insertorder": 11, "alwaysActive": false, "selective": false, "loregate": {"position": {"kind": "nowhere"}}}]}`, format.Options{},
			[]string{i18n.ReportRisuMarkerUnreadable, i18n.ReportRisuMarkerOutOfRange}},
		{"png with a duplicate and a broken chunk", "c.png", string(png.Build(ihdr, idat, png.Chunk{Type: "tEXt", Data: []byte("ccv3\x00!!not base64!!")}, card, card, iend)), format.Options{},
			[]string{i18n.ReportPNGChunkUnreadable, i18n.ReportPNGDuplicateChunk}},
		{"png with a card chunk over the limit", "c.png", string(png.Build(ihdr, idat, png.TextChunk("ccv3", cardJSON("chara_card_v3", titles[:40]...)), card, iend)), format.Options{MaxCardBytes: 2000},
			[]string{i18n.ReportPNGChunkTooLarge}},
		{"png with a bad card CRC", "c.png", string(badCRC), format.Options{},
			[]string{i18n.ReportPNGCardBadCRC}},
		{"png cut after the card", "c.png", string(cut[:len(cut)-20]), format.Options{},
			[]string{i18n.ReportPNGPastEnd}},
		{"png ending inside a chunk", "c.png", string(cut[:len(cut)-9]), format.Options{},
			[]string{i18n.ReportPNGTruncated}},
	}
	placeholders := map[string][]string{}
	for _, r := range i18n.Reasons() {
		placeholders[r.Key] = i18n.Placeholders(r.En)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := format.Import(tc.file, []byte(tc.src), tc.opts)
			require.NoError(t, err)
			var got, texts []string
			for _, n := range res.Report.Notices {
				got = append(got, n.Reason)
				require.True(t, i18n.Known(n.Reason), n.Reason)
				require.NotNil(t, n.Params, "%s: params are an object, never null", n.Reason)
				en := n.Text(i18n.EN)
				texts = append(texts, en)
				for _, lang := range i18n.Langs() {
					txt := n.Text(lang)
					if lang != i18n.EN {
						require.NotEqual(t, en, txt, "%s has its %s text", n.Reason, lang)
					}
					for _, p := range placeholders[n.Reason] {
						require.Contains(t, n.Params, p, "%s: param %s given", n.Reason, p)
						require.NotContains(t, txt, "{"+p+"}", "%s: every placeholder filled", n.Reason)
					}
				}
			}
			require.Equal(t, texts, res.Report.Warnings, "every warning is a notice's English text")
			for _, w := range tc.want {
				require.Contains(t, got, w)
			}
		})
	}
}
