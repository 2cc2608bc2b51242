package format_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/i18n"
)

// documentedLosses reads the "Round trips between formats" table of
// docs/formats.md: hop name -> the fields that hop may lose.
func documentedLosses(t *testing.T) map[string]map[string]bool {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "formats.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(doc), "## Round trips between formats")
	require.True(t, ok, "docs/formats.md has the round-trip table")
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9]+)` \\| (.*) \\|$")
	name := regexp.MustCompile("`([A-Za-z.]+)`")
	out := map[string]map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		out[m[1]] = map[string]bool{}
		for _, f := range name.FindAllStringSubmatch(m[2], -1) {
			out[m[1]][f[1]] = true
		}
	}
	return out
}

// entryLosses names, by JSON name, the canonical fields of a that b does
// not have equal (scope, ids, extensions and timestamps aside).
func entryLosses(a, b lore.Entry) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	t := va.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch f.Name {
		case "ID", "Server", "Lineage", "Collection", "Extensions", "CreatedAt", "UpdatedAt", "ChannelIDs", "LegacyChannelTags":
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out = append(out, tag)
		}
	}
	return out
}

// localTestdata marks a source of the matrix that lives in this package's
// testdata (a format the shared corpus has no file of).
const localTestdata = "testdata:"

// readSource reads a corpus file, or a file of testdata/ for a name with
// the localTestdata prefix.
func readSource(t *testing.T, rel string) []byte {
	t.Helper()
	if name, ok := strings.CutPrefix(rel, localTestdata); ok {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		return data
	}
	return readCorpus(t, rel)
}

// matrixSources lists the books of the format matrix
// (testdata/matrix_sources.txt, which graph's API matrix reads too).
func matrixSources(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "matrix_sources.txt"))
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	require.GreaterOrEqual(t, len(out), 12)
	return out
}

// TestFormatMatrix exports corpus books of every source format to every
// format (st, ccv3, card JSON, PNG, CHARX, risu, novelai, worldbook), imports the
// result and compares the canonical books: what each hop loses must be
// exactly the list in docs/formats.md. World info -> CCv3 -> world info
// must give the source file back. The same books imported through the API
// export what offline convert writes (graph: TestCorpusImportAtDeploymentLimits,
// TestAPIExportsMatchConvert).
func TestFormatMatrix(t *testing.T) {
	allowed := documentedLosses(t)
	hops := []struct {
		name, ext string
		export    func(format.Book) ([]byte, error)
	}{
		{"st", ".json", format.ExportST},
		{"ccv3", ".json", format.ExportLorebookV3},
		{"card", ".json", format.ExportCardJSON},
		{"png", ".png", format.ExportCardPNG},
		{"charx", ".charx", format.ExportCardCHARX},
		{"risu", ".json", format.ExportRisu},
		{"novelai", ".lorebook", format.ExportNovelAI},
		{"worldbook", ".json", format.ExportWorldbook},
		{"agnai", ".json", format.ExportAgnai},
	}
	for _, h := range hops {
		require.Contains(t, allowed, h.name, "docs/formats.md lists hop %s", h.name)
	}
	sources := matrixSources(t)
	seen := map[string]map[string]bool{}
	opts := format.Options{Limits: lore.CeilingLimits()}
	for _, rel := range sources {
		src := readSource(t, rel)
		res, err := format.Import("book"+filepath.Ext(rel), src, opts)
		require.NoError(t, err, rel)
		for _, h := range hops {
			out, err := h.export(res.Book)
			require.NoError(t, err, "%s -> %s", rel, h.name)
			back, err := format.Import("book"+h.ext, out, opts)
			require.NoError(t, err, "%s -> %s", rel, h.name)
			require.Len(t, back.Book.Entries, len(res.Book.Entries), "%s -> %s: no entry lost", rel, h.name)
			var losses []string
			for i := range res.Book.Entries {
				losses = append(losses, entryLosses(res.Book.Entries[i], back.Book.Entries[i])...)
			}
			if res.Book.Name != back.Book.Name {
				losses = append(losses, "book.name")
			}
			if !reflect.DeepEqual(res.Book.Settings, back.Book.Settings) {
				losses = append(losses, "book.settings")
			}
			for _, l := range losses {
				require.True(t, allowed[h.name][l], "%s -> %s loses %s, which docs/formats.md does not allow", rel, h.name, l)
				if seen[h.name] == nil {
					seen[h.name] = map[string]bool{}
				}
				seen[h.name][l] = true
			}
		}
	}
	for hop, fields := range allowed {
		for f := range fields {
			require.True(t, seen[hop][f], "docs/formats.md allows %s to lose %s, but no corpus book loses it: remove it", hop, f)
		}
		got := make([]string, 0, len(seen[hop]))
		for f := range seen[hop] {
			got = append(got, f)
		}
		sort.Strings(got)
		t.Logf("%s loses %v", hop, got)
	}

	// World info -> CCv3 -> world info gives the same file.
	for _, rel := range sources[:3] {
		src := readCorpus(t, rel)
		res, err := format.Import("book.json", src, opts)
		require.NoError(t, err)
		mid, err := format.ExportLorebookV3(res.Book)
		require.NoError(t, err)
		back, err := format.Import("book.json", mid, opts)
		require.NoError(t, err)
		out, err := format.ExportST(back.Book)
		require.NoError(t, err)
		diffs, err := diffJSON(src, out)
		require.NoError(t, err)
		for _, d := range diffs {
			if d.Path == "name" && d.Kind == "added" && d.Got == `"book"` {
				continue // a nameless book comes back named after its file: ccv3 has a name field (BUG-55)
			}
			require.True(t, allowedSameFormat[0].allow(format.KindSTWorldInfo, d), "%s: st -> ccv3 -> st: %s", rel, d)
		}
	}
}

// TestCardToWorldInfoToCard: card -> world info -> card gives the card's
// book back (issue 26: it lost the book description, foreign book fields
// and extensions, and entry names): every book and entry field, values and
// order, except the fields SillyTavern adds to an entry's extensions
// (display_index, useProbability, ..., with their world info defaults).
func TestCardToWorldInfoToCard(t *testing.T) {
	opts := format.Options{Limits: lore.CeilingLimits()}
	sources := map[string][]byte{
		"harbor.json": []byte(`{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Mira","first_mes":"Hi.",
		  "character_book":{"name":"Harbor Lore","description":"The harbor and its people.","scan_depth":4,"x_tool":{"v":2},
		    "extensions":{"chub":{"id":7}},
		    "entries":[{"keys":["harbor"],"content":"The harbor.","enabled":true,"insertion_order":10,"comment":"Harbor","name":"harbor-entry","id":1,"extensions":{},"x_entry":[1]}]}}}`),
	}
	for _, rel := range []string{"card-json/bronya-rand__Natasha_v2.json", "card-json/lide4144__ai_v3_zh.json",
		"card-json/bronya-rand__Aether_v2.json", "png/bronya-rand__Clorinde_v3_ccv3.png", "charx/woduseh__Veil_of_Night_v2.charx"} {
		sources[rel] = readCorpus(t, rel)
	}
	book := func(card []byte) []byte {
		var v struct {
			Data struct {
				CharacterBook json.RawMessage `json:"character_book"`
			}
		}
		require.NoError(t, json.Unmarshal(card, &v))
		return v.Data.CharacterBook
	}
	for _, rel := range sortedNames(map[string]int{"harbor.json": 0, "card-json/bronya-rand__Natasha_v2.json": 0,
		"card-json/lide4144__ai_v3_zh.json": 0, "card-json/bronya-rand__Aether_v2.json": 0,
		"png/bronya-rand__Clorinde_v3_ccv3.png": 0, "charx/woduseh__Veil_of_Night_v2.charx": 0}) {
		res, err := format.Import("book"+filepath.Ext(rel), sources[rel], opts)
		require.NoError(t, err, rel)
		direct, err := format.ExportCardJSON(res.Book)
		require.NoError(t, err)
		wi, err := format.ExportST(res.Book)
		require.NoError(t, err)
		mid, err := format.Import("book.json", wi, opts)
		require.NoError(t, err)
		require.Equal(t, res.Book.Description, mid.Book.Description, "%s: world info keeps the book description", rel)
		back, err := format.ExportCardJSON(mid.Book)
		require.NoError(t, err)
		diffs, err := diffJSON(book(direct), book(back))
		require.NoError(t, err)
		for _, d := range diffs {
			parts := strings.Split(d.Path, "/")
			stAdded := d.Kind == "added" && len(parts) >= 4 && parts[0] == "entries" && parts[2] == "extensions"
			require.True(t, stAdded, "%s: card -> st -> card: %s", rel, d)
		}
		require.Equal(t, topLevelOrder(t, book(direct)), topLevelOrder(t, book(back)), "%s: book fields in their order", rel)
	}
}

// topLevelOrder lists the member names of a JSON object and of each object
// of its entries array, in order.
func topLevelOrder(t *testing.T, js []byte) []string {
	t.Helper()
	var members []string
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(js, &top))
	var entries []json.RawMessage
	require.NoError(t, json.Unmarshal(top["entries"], &entries))
	for _, raw := range append([]json.RawMessage{js}, entries...) {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		_, _ = d.Token()
		for depth := 1; depth > 0 && d.More(); {
			tok, err := d.Token()
			require.NoError(t, err)
			members = append(members, tok.(string))
			var skip json.RawMessage
			require.NoError(t, d.Decode(&skip))
		}
		members = append(members, "|")
	}
	return members
}

// TestCardToWorldInfoBookSettings: card -> world info writes the book's
// scan depth on every entry without its own (where SillyTavern reads it)
// and every book setting in the top-level extensions; importing it back
// gives the same settings and entries that inherit again.
func TestCardToWorldInfoBookSettings(t *testing.T) {
	res, err := format.Import("veil.charx", readCorpus(t, "charx/woduseh__Veil_of_Night_v2.charx"), format.Options{})
	require.NoError(t, err)
	require.NotNil(t, res.Book.Settings.ScanDepth)
	require.Equal(t, 5, *res.Book.Settings.ScanDepth)
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	var wi struct {
		Extensions struct {
			Settings map[string]any `json:"loregate_settings"`
		}
		Entries map[string]struct {
			ScanDepth *int `json:"scanDepth"`
		}
	}
	require.NoError(t, json.Unmarshal(out, &wi))
	require.EqualValues(t, 5, wi.Extensions.Settings["scanDepth"])
	require.Contains(t, wi.Extensions.Settings, "budgetLimit")
	require.Contains(t, wi.Extensions.Settings, "recursive")
	for uid, e := range wi.Entries {
		require.NotNil(t, e.ScanDepth, "entry %s", uid)
		require.Equal(t, 5, *e.ScanDepth, "entry %s", uid)
	}
	back, err := format.Import("veil.json", out, format.Options{})
	require.NoError(t, err)
	require.Equal(t, res.Book.Settings, back.Book.Settings)
	for _, e := range back.Book.Entries {
		require.Nil(t, e.ScanDepth, "%s inherits the book's depth again", e.Title)
	}
}

// TestPositionFieldsPerFormat pins docs/formats.md "Positions, roles and
// filters per format": a world info with an AT_DEPTH entry (depth 2, role
// user, match flags, an exclude character filter with names and tags,
// generation types), an OUTLET entry and an AN_TOP entry with a match
// flag, exported to each format and read back, keeps exactly the fields
// the table says.
func TestPositionFieldsPerFormat(t *testing.T) {
	opts := format.Options{Limits: lore.CeilingLimits()}
	res, err := format.Import("wi.json", readSource(t, localTestdata+"positions_filters.json"), opts)
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 3)
	deep := res.Book.Entries[0]
	require.Equal(t, lore.PositionAtDepth, deep.Position)
	require.True(t, deep.CharacterFilter.Exclude && deep.Match.Scenario && len(deep.GenerationTypes) == 2, "the source's fields")
	where := func(e lore.Entry) any { return []any{e.Position, e.Depth, e.Role, e.Outlet} }
	filters := func(e lore.Entry) any { return []any{e.Match, e.CharacterFilter, e.GenerationTypes} }
	all, positions, none := [2]bool{true, true}, [2]bool{true, false}, [2]bool{false, false}
	for _, tt := range []struct {
		name, ext string
		export    func(format.Book) ([]byte, error)
		keeps     [2]bool // positions and roles, filters
	}{
		{"st", ".json", format.ExportST, all},
		{"ccv3", ".json", format.ExportLorebookV3, all},
		{"card", ".json", format.ExportCardJSON, all},
		{"png", ".png", format.ExportCardPNG, all},
		{"charx", ".charx", format.ExportCardCHARX, all},
		{"worldbook", ".json", format.ExportWorldbook, all},
		{"risu", ".json", format.ExportRisu, positions},
		{"agnai", ".json", format.ExportAgnai, none},
		{"novelai", ".lorebook", format.ExportNovelAI, none},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.export(res.Book)
			require.NoError(t, err)
			back, err := format.Import("book"+tt.ext, out, opts)
			require.NoError(t, err)
			require.Len(t, back.Book.Entries, 3)
			// The export report says what the format cannot carry.
			var texts []string
			for _, n := range format.PositionFilterNotes(tt.name, res.Book) {
				texts = append(texts, n.Text(i18n.EN))
			}
			notes := strings.Join(texts, "\n")
			require.Equal(t, !tt.keeps[1], strings.Contains(notes, "2 entries have match flags, a character filter or generation types"), notes)
			switch tt.name {
			case "risu":
				require.Contains(t, notes, "2 entries are placed around the author's note, around the example messages or in an outlet")
			case "agnai", "novelai":
				require.Contains(t, notes, "3 entries are not after the character")
			}
			for i, e := range res.Book.Entries {
				b := back.Book.Entries[i]
				require.Equal(t, tt.keeps[0], reflect.DeepEqual(where(e), where(b)), "%s: position, depth, role, outlet %v -> %v", e.Title, where(e), where(b))
				if !reflect.DeepEqual(filters(e), filters(lore.Entry{})) {
					require.Equal(t, tt.keeps[1], reflect.DeepEqual(filters(e), filters(b)), "%s: match, filter, generation types %v -> %v", e.Title, filters(e), filters(b))
				}
			}
		})
	}
}

// TestRisuFieldPositions: a RisuAI export writes a field position in
// loregate's "loregate" member and, where RisuAI has decorators for it
// (AT_DEPTH, BEFORE_CHAR) and the content has none of its own, as
// decorator lines for RisuAI itself; the import takes the position from
// the member and strips exactly those lines (docs/formats.md "Positions,
// roles and filters per format").
func TestRisuFieldPositions(t *testing.T) {
	opts := format.Options{Limits: lore.CeilingLimits()}
	row := func(content, marker string) string {
		m := ""
		if marker != "" {
			m = `, "loregate": ` + marker
		}
		return `{"type": "risu", "ver": 1, "data": [{"key": "alpha", "comment": "E", "content": ` + strconv.Quote(content) + `, "mode": "normal", "insertorder": 100, "alwaysActive": false, "selective": false` + m + `}]}`
	}
	for _, tt := range []struct {
		name         string
		entry        lore.Entry
		content      string // the exported row's content
		marker       string // the exported row's loregate member, "" none
		backContent  string
		backPosition lore.PositionKind
	}{
		{"at depth: decorators for RisuAI", lore.Entry{Content: "Deep lore.", Position: lore.PositionAtDepth, Depth: 2, Role: lore.RoleUser},
			"@@depth 2\n@@role user\nDeep lore.", `{"position":{"kind":"AT_DEPTH","depth":2,"role":"user"},"decorated":true}`, "Deep lore.", lore.PositionAtDepth},
		{"before the character", lore.Entry{Content: "Before.", Position: lore.PositionBeforeChar, Depth: 4, Role: lore.RoleSystem},
			"@@position before_desc\nBefore.", `{"position":{"kind":"BEFORE_CHAR","depth":4,"role":"system"},"decorated":true}`, "Before.", lore.PositionBeforeChar},
		{"outlet: RisuAI has no decorator", lore.Entry{Content: "Mood.", Position: lore.PositionOutlet, Depth: 4, Role: lore.RoleSystem, Outlet: "mood"},
			"Mood.", `{"position":{"kind":"OUTLET","depth":4,"role":"system","outlet":"mood"}}`, "Mood.", lore.PositionOutlet},
		{"content with its own decorator", lore.Entry{Content: "@@depth 1\nOwn.", Position: lore.PositionANTop, Depth: 4, Role: lore.RoleSystem},
			"@@depth 1\nOwn.", `{"position":{"kind":"AN_TOP","depth":4,"role":"system"}}`, "@@depth 1\nOwn.", lore.PositionANTop},
		{"after the character: RisuAI's default", lore.Entry{Content: "After.", Position: lore.PositionAfterChar, Depth: 4, Role: lore.RoleSystem},
			"After.", "", "After.", lore.PositionAfterChar},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := lore.NewEntry()
			e.Title, e.Keys, e.Content, e.Position, e.Depth, e.Role, e.Outlet = "E", []string{"alpha"}, tt.entry.Content, tt.entry.Position, tt.entry.Depth, tt.entry.Role, tt.entry.Outlet
			e.Placement = e.Position.Placement()
			out, err := format.ExportRisu(format.Book{Name: "b", Entries: []lore.Entry{e}})
			require.NoError(t, err)
			var file struct{ Data []map[string]json.RawMessage }
			require.NoError(t, json.Unmarshal(out, &file))
			require.JSONEq(t, strconv.Quote(tt.content), string(file.Data[0]["content"]))
			if tt.marker == "" {
				require.NotContains(t, file.Data[0], "loregate")
			} else {
				require.JSONEq(t, tt.marker, string(file.Data[0]["loregate"]))
			}
			back, err := format.Import("b.json", out, opts)
			require.NoError(t, err)
			b := back.Book.Entries[0]
			require.Equal(t, tt.backContent, b.Content)
			require.Equal(t, []any{tt.backPosition, e.Depth, e.Role, e.Outlet}, []any{b.Position, b.Depth, b.Role, b.Outlet})
			require.Empty(t, b.Extensions["risu/loregate"], "the marker is read, not kept")
		})
	}
	// A row edited in RisuAI whose added lines are gone keeps its content;
	// a marker loregate cannot read is reported and leaves the default.
	res, err := format.Import("b.json", []byte(row("Edited.", `{"position":{"kind":"AT_DEPTH","depth":3,"role":"user"},"decorated":true}`)), opts)
	require.NoError(t, err)
	require.Equal(t, "Edited.", res.Book.Entries[0].Content)
	require.Equal(t, lore.PositionAtDepth, res.Book.Entries[0].Position)
	res, err = format.Import("b.json", []byte(row("X.", `{"position":{"kind":"SIDEWAYS","depth":3}}`)), opts)
	require.NoError(t, err)
	require.Equal(t, lore.PositionAfterChar, res.Book.Entries[0].Position)
	require.Contains(t, strings.Join(res.Report.Warnings, "\n"), `"loregate" position`)
}
