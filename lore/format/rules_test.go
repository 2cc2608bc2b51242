package format_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
	"loregate/lore/i18n"
)

// TestStoreRefusalsAreSkipped checks that an entry the store would refuse is
// skipped with its reason instead of failing the whole import later.
func TestStoreRefusalsAreSkipped(t *testing.T) {
	book := `{"entries": {
		"0": {"uid": 0, "key": ["ok"], "content": "kept", "comment": "good"},
		"1": {"uid": 1, "key": ["bad\u0000key"], "content": "nul key", "comment": "nul"},
		"2": {"uid": 2, "key": ["big"], "content": "huge order", "comment": "order", "order": 1099511627776}
	}}`
	res, err := format.Import("book.json", []byte(book), format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 1)
	require.Equal(t, "good", res.Book.Entries[0].Title)
	require.Len(t, res.Report.Skipped, 2)
	reasons := map[string]string{}
	for _, s := range res.Report.Skipped {
		reasons[s.Title] = s.Reason
	}
	require.Contains(t, reasons["nul"], "keys[0]")
	require.Contains(t, reasons["order"], "insertionOrder")
}

// TestWorldInfoKeysTrimmed: SillyTavern trims keys before matching, so the
// canonical keys are trimmed, and the export still writes the keys as the
// source had them.
func TestWorldInfoKeysTrimmed(t *testing.T) {
	book := `{"entries": {"0": {"uid": 0, "key": ["shield ", " Sword"], "keysecondary": [" hilt "], "content": "c", "comment": "arms", "selective": true}}}`
	res, err := format.Import("arms.json", []byte(book), format.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"shield", "Sword"}, res.Book.Entries[0].Keys)
	require.Equal(t, []string{"hilt"}, res.Book.Entries[0].SecondaryKeys)
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	var got struct {
		Entries map[string]struct {
			Key          []string `json:"key"`
			KeySecondary []string `json:"keysecondary"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.Equal(t, []string{"shield ", " Sword"}, got.Entries["0"].Key, "lossless export")
	require.Equal(t, []string{" hilt "}, got.Entries["0"].KeySecondary)
}

// TestLongRegexKeyReported: a regex key the engine will not compile (over
// its length cap) is reported as unsupported, with the engine's own rules.
func TestLongRegexKeyReported(t *testing.T) {
	// 302 characters (within the key length limit) but 602 bytes, past the
	// engine's regex cap.
	long := "/" + strings.Repeat("é", 300) + "/"
	book := `{"entries": {"0": {"uid": 0, "key": ["` + long + `", "plain"], "content": "c", "comment": "re"}}}`
	res, err := format.Import("re.json", []byte(book), format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Report.UnsupportedKeys, 1)
	require.Contains(t, res.Report.UnsupportedKeys[0].Reason, "regex")
}

// TestBookScanDepth: a card book's scan depth, token budget and recursion
// flag become the book's settings (entries keep only their own depth), and
// exports write the book as it came.
func TestBookScanDepth(t *testing.T) {
	book := `{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "C", "character_book": {"scan_depth": 5, "token_budget": 2048, "recursive_scanning": true, "entries": [
		{"keys": ["a"], "content": "inherits", "enabled": true, "insertion_order": 1, "extensions": {}},
		{"keys": ["b"], "content": "own depth", "enabled": true, "insertion_order": 2, "extensions": {"scan_depth": 3}}]}}}`
	res, err := format.Import("c.json", []byte(book), format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 2)
	require.Nil(t, res.Book.Entries[0].ScanDepth, "the entry inherits the book's depth")
	require.Equal(t, 3, *res.Book.Entries[1].ScanDepth, "the entry's own depth")
	require.Equal(t, lore.BookSettings{ScanDepth: ptr(5), BudgetLimit: ptr(2048), Recursive: ptr(true)}, res.Book.Settings)
	require.Equal(t, lore.BudgetTokens, res.Book.BudgetUnit)
	require.Empty(t, res.Report.IgnoredSettings)

	out, err := format.ExportCharacterBook(res.Book)
	require.NoError(t, err)
	var cb struct {
		ScanDepth   *int           `json:"scan_depth"`
		TokenBudget *int           `json:"token_budget"`
		Recursive   *bool          `json:"recursive_scanning"`
		Extensions  map[string]any `json:"extensions"`
		Entries     []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(out, &cb))
	require.Equal(t, 5, *cb.ScanDepth)
	require.Equal(t, 2048, *cb.TokenBudget)
	require.True(t, *cb.Recursive)
	require.NotContains(t, cb.Extensions, "loregate_settings", "native fields carry everything")
	_, has := cb.Entries[0].Extensions["scan_depth"]
	require.False(t, has && cb.Entries[0].Extensions["scan_depth"] != nil, "the inheriting entry gets no depth of its own: %v", cb.Entries[0].Extensions)
	require.EqualValues(t, 3, cb.Entries[1].Extensions["scan_depth"])
}

// TestBookSettingsAcrossFormats: book settings survive an export to and an
// import from every format that can carry them (natively or in
// loregate_settings, as semanticAllEntries and maxBudgetShare, which no
// format has a field for), and out-of-range values are clamped or dropped with a warning.
func TestBookSettingsAcrossFormats(t *testing.T) {
	src := `{"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "C", "character_book": {"scan_depth": 0, "token_budget": 900,
		"extensions": {"loregate_settings": {"maxRecursionSteps": 2, "caseSensitive": true, "wholeWords": false, "semanticAllEntries": true, "maxBudgetShare": 40}},
		"recursive_scanning": false, "entries": [{"keys": ["a"], "content": "x", "enabled": true, "insertion_order": 1, "extensions": {}}]}}}`
	res, err := format.Import("c.json", []byte(src), format.Options{})
	require.NoError(t, err)
	want := lore.BookSettings{ScanDepth: ptr(0), BudgetLimit: ptr(900), Recursive: ptr(false), MaxRecursionSteps: ptr(2),
		CaseSensitive: ptr(true), WholeWords: ptr(false), SemanticAllEntries: ptr(true), MaxBudgetShare: ptr(40)}
	require.Equal(t, want, res.Book.Settings, "scan depth 0 is a real value")
	exports := map[string]func(format.Book) ([]byte, error){
		"character book": format.ExportCharacterBook, "lorebook v3": format.ExportLorebookV3,
		"world info": format.ExportST, "risu": format.ExportRisu, "agnai": format.ExportAgnai,
	}
	for name, export := range exports {
		t.Run(name, func(t *testing.T) {
			out, err := export(res.Book)
			require.NoError(t, err)
			again, err := format.Import("again.json", out, format.Options{})
			require.NoError(t, err)
			require.Equal(t, want, again.Book.Settings)
			require.Equal(t, lore.BudgetTokens, again.Book.BudgetUnit)
		})
	}

	chars := res.Book
	chars.BudgetUnit = lore.BudgetCharacters
	chars.Settings.BudgetLimit = ptr(12000)
	out, err := format.ExportCharacterBook(chars)
	require.NoError(t, err)
	require.NotContains(t, string(out), `"token_budget": 12000`, "a character budget is not a token budget")
	again, err := format.Import("again.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, 12000, *again.Book.Settings.BudgetLimit)
	require.Equal(t, lore.BudgetCharacters, again.Book.BudgetUnit)

	bad := `{"kind": "memory", "name": "B", "scanDepth": 500, "tokenBudget": 50, "entries": [{"name": "e", "entry": "x", "keywords": ["a"], "priority": 1, "weight": 1, "enabled": true}]}`
	res, err = format.Import("b.json", []byte(bad), format.Options{})
	require.NoError(t, err)
	require.Nil(t, res.Book.Settings.ScanDepth)
	require.Equal(t, map[string]int{"book scan depth": 1}, res.Report.IgnoredSettings)
	require.Equal(t, 100, *res.Book.Settings.BudgetLimit, "clamped to the token range")
	require.True(t, containsSub(res.Report.Warnings, "clamped to 100"))
}

// TestDecorators: a leading decorator block stays in the content (the
// engine acts on it at run time), unknown decorators are reported, exports
// to formats with decorators write the lines back as they came, and
// exports to formats without them map them to fields and list the rest.
func TestDecorators(t *testing.T) {
	content := "@@scan_depth 8\n@@role assistant\n@@additional_keys moon\n@@dont_activate\n@@is_greeting\n@@made_up 3\n\nThe moon rises over the keep."
	card := map[string]any{"spec": "chara_card_v3", "spec_version": "3.0", "data": map[string]any{"name": "C", "character_book": map[string]any{"entries": []any{
		map[string]any{"keys": []string{"keep"}, "content": content, "enabled": true, "insertion_order": 1, "use_regex": false, "extensions": map[string]any{}},
	}}}}
	raw, err := json.Marshal(card)
	require.NoError(t, err)
	res, err := format.Import("c.json", raw, format.Options{})
	require.NoError(t, err)
	e := res.Book.Entries[0]
	require.Equal(t, content, e.Content, "decorators are kept in the content, not folded into fields")
	require.Nil(t, e.ScanDepth)
	require.Equal(t, lore.RoleSystem, e.Role)
	require.True(t, e.Enabled)
	require.Equal(t, map[string]int{"decorator @@made_up": 1}, res.Report.IgnoredSettings, "only the decorator loregate does not act on is reported")

	for name, export := range map[string]func(format.Book) ([]byte, error){
		"lorebook v3": format.ExportLorebookV3, "world info": format.ExportST, "risu": format.ExportRisu,
	} {
		out, err := export(res.Book)
		require.NoError(t, err, name)
		again, err := format.Import("again.json", out, format.Options{})
		require.NoError(t, err, name)
		require.Equal(t, content, again.Book.Entries[0].Content, "%s: the lines come back as they came", name)
	}

	for name, export := range map[string]func(format.Book) ([]byte, error){"novelai": format.ExportNovelAI, "agnai": format.ExportAgnai} {
		out, err := export(res.Book)
		require.NoError(t, err, name)
		require.NotContains(t, string(out), "@@", name)
		again, err := format.Import("again.json", out, format.Options{})
		require.NoError(t, err, name)
		got := again.Book.Entries[0]
		require.Equal(t, "The moon rises over the keep.", got.Content, name)
		require.False(t, got.Enabled, "%s: @@dont_activate becomes disabled", name)
		require.Contains(t, got.Keys, "moon", "%s: @@additional_keys become keys", name)
	}
	mapped, dropped := format.NativeDecorators(e)
	require.Equal(t, 8, *mapped.ScanDepth)
	require.Equal(t, lore.RoleAssistant, mapped.Role)
	require.Equal(t, []string{"@@is_greeting", "@@made_up 3"}, dropped)
	notes := format.DecoratorNotes(res.Book)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0].Text(i18n.EN), "@@is_greeting, @@made_up")
	require.True(t, format.HasDecorators(format.KindV3Card))
	require.False(t, format.HasDecorators(format.KindNovelAI))

	// Content that merely mentions @@ later is not a header.
	risu := `{"type": "risu", "ver": 1, "data": [{"key": "gate", "secondkey": "", "comment": "r", "content": "Text first\n@@not_a_header", "mode": "normal", "insertorder": 10, "alwaysActive": false, "selective": false}]}`
	res, err = format.Import("r.json", []byte(risu), format.Options{})
	require.NoError(t, err)
	require.Equal(t, "Text first\n@@not_a_header", res.Book.Entries[0].Content)
	require.Empty(t, res.Report.IgnoredSettings)
}

// TestCheckSize: each carrier gets its own limit, checked from the bytes.
func TestCheckSize(t *testing.T) {
	opts := format.Options{MaxJSONBytes: 10, MaxPNGBytes: 20, MaxCHARXBytes: 30}
	pad := func(prefix string, n int) []byte { return []byte(prefix + strings.Repeat("x", n-len(prefix))) }
	tests := []struct {
		name string
		data []byte
		ok   bool
	}{
		{"json at its limit", pad("{", 10), true},
		{"json over", pad("{", 11), false},
		{"png within its limit", pad("\x89PNG\r\n\x1a\n", 20), true},
		{"png over", pad("\x89PNG\r\n\x1a\n", 21), false},
		{"zip within its limit", pad("PK\x03\x04", 30), true},
		{"zip over", pad("PK\x03\x04", 31), false},
	}
	for _, tt := range tests {
		err := format.CheckSize(tt.data, opts)
		if tt.ok {
			require.NoError(t, err, tt.name)
		} else {
			require.ErrorIs(t, err, format.ErrTooLarge, tt.name)
		}
	}
}
func ptr[T any](v T) *T { return &v }

// TestWorldInfoCardSpelling: a world info entry with keys/secondary_keys
// and no key/keysecondary is read by those (case BUG-37), with a warning.
func TestWorldInfoCardSpelling(t *testing.T) {
	wi := `{"entries": {"0": {"uid": 0, "keys": ["forge"], "secondary_keys": ["fire"], "selective": true, "comment": "v2", "content": "The forge never cools."},
		"1": {"uid": 1, "key": ["anvil"], "keysecondary": [], "comment": "st", "content": "The anvil is old."}}}`
	res, err := format.Import("w.json", []byte(wi), format.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"forge"}, res.Book.Entries[0].Keys)
	require.Equal(t, []string{"fire"}, res.Book.Entries[0].SecondaryKeys)
	require.Equal(t, []string{"anvil"}, res.Book.Entries[1].Keys)
	require.Empty(t, res.Report.Inert)
	require.True(t, containsSub(res.Report.Warnings, "entry 0 has keys/secondary_keys but no key/keysecondary"), "%v", res.Report.Warnings)
}

// TestDecoratorPositions: RisuAI and CCv3 position decorators stay in the
// content (the engine acts on them each turn); a @@position value with no
// kind of its own (pt_*) is counted as a collapsed placement; a format
// without decorators gets the position, depth and role as fields.
func TestDecoratorPositions(t *testing.T) {
	risu := `{"type": "risu", "ver": 1, "data": [
	 {"key": "a", "secondkey": "", "comment": "deep", "content": "@@depth 2\n@@role assistant\nA", "mode": "normal", "insertorder": 10, "alwaysActive": false, "selective": false},
	 {"key": "b", "secondkey": "", "comment": "slot", "content": "@@position pt_main\nB", "mode": "normal", "insertorder": 20, "alwaysActive": false, "selective": false},
	 {"key": "c", "secondkey": "", "comment": "old", "content": "@@reverse_depth 1\nC", "mode": "normal", "insertorder": 30, "alwaysActive": false, "selective": false}]}`
	res, err := format.Import("r.json", []byte(risu), format.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, res.Report.CollapsedPlacements, "only pt_main has no kind here")
	require.Equal(t, "@@position pt_main\nB", res.Book.Entries[1].Content, "kept for the round trip")
	require.Empty(t, res.Report.IgnoredSettings, "@@reverse_depth is acted on")

	mapped, dropped := format.NativeDecorators(res.Book.Entries[0])
	require.Empty(t, dropped)
	require.Equal(t, lore.PositionAtDepth, mapped.Position)
	require.Equal(t, 2, mapped.Depth)
	require.Equal(t, lore.RoleAssistant, mapped.Role)
	require.Equal(t, lore.Before, mapped.Placement)
}

// TestSillyTavernBudgetOrder: an imported world info book (and a card book
// without priorities) keeps the entries SillyTavern keeps under budget
// pressure: high order claims the budget first (docs/formats.md "Budget
// order"), while the prompt order stays low order first. A native entry
// keeps the default priority.
func TestSillyTavernBudgetOrder(t *testing.T) {
	text := strings.Repeat("x", 39)
	wi := fmt.Sprintf(`{"entries":{
	 "0":{"uid":0,"key":["k"],"content":"a%[1]s","comment":"o10","order":10},
	 "1":{"uid":1,"key":["k"],"content":"b%[1]s","comment":"o50","order":50},
	 "2":{"uid":2,"key":["k"],"content":"c%[1]s","comment":"o90","order":90}}}`, text)
	card := fmt.Sprintf(`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"C","character_book":{"entries":[
	 {"keys":["k"],"content":"a%[1]s","comment":"o10","insertion_order":10,"enabled":true,"extensions":{}},
	 {"keys":["k"],"content":"b%[1]s","comment":"o50","insertion_order":50,"enabled":true,"extensions":{}},
	 {"keys":["k"],"content":"c%[1]s","comment":"o90","insertion_order":90,"enabled":true,"extensions":{}}]}}}`, text)
	for name, src := range map[string]string{"world info": wi, "card": card} {
		res, err := format.Import("b.json", []byte(src), format.Options{})
		require.NoError(t, err, name)
		entries := make([]lore.Entry, len(res.Book.Entries))
		for i, e := range res.Book.Entries {
			e.ID, e.Collection = int64(i+1), lore.DefaultCollection
			require.Equal(t, e.Order, e.Priority, "%s: the priority follows the order", name)
			entries[i] = e
		}
		r, err := activation.Activate(t.Context(), activation.Input{Entries: entries, Messages: []string{"k"},
			Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}}},
			activation.Options{CharBudget: 100})
		require.NoError(t, err)
		var got []string
		for _, a := range r.Admitted() {
			got = append(got, a.Entry.Title)
		}
		require.Equal(t, []string{"o50", "o90"}, got, "%s: SillyTavern's choice, in insertion order", name)

		// The same-format export writes no priority the source did not have.
		out, err := format.ExportCardJSON(res.Book)
		require.NoError(t, err)
		require.NotContains(t, string(out), `"priority"`, name)
	}
	require.Equal(t, lore.DefaultPriority, lore.NewEntry().Priority, "native entries keep the default priority")
}
