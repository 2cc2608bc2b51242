package format_test

import (
	"bytes"
	"encoding/json"
	stdpng "image/png"
	"loregate/lore/sharedtest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/format/png"
)

type activationCase struct {
	ID                  string          `json:"id"`
	Format              string          `json:"format"`
	Book                json.RawMessage `json:"book"`
	ExpectImport        json.RawMessage `json:"expect_import"`
	ExpectRoundtrip     json.RawMessage `json:"expect_roundtrip"`
	ExpectRoundtripEqal []string        `json:"expect_roundtrip_equal"`
}

func loadCases(t *testing.T) map[string]activationCase {
	t.Helper()
	data := sharedtest.Read(t, "cases", "activation-cases.json")
	var list []activationCase
	require.NoError(t, json.Unmarshal(data, &list))
	out := map[string]activationCase{}
	for _, c := range list {
		out[c.ID] = c
	}
	return out
}

// kindOf maps the case file's format names to detected kinds.
var kindOf = map[string]format.Kind{
	"st-worldinfo": format.KindSTWorldInfo, "v2-card": format.KindV2Card, "v3-card": format.KindV3Card,
	"risu": format.KindRisu, "novelai": format.KindNovelAI, "agnai": format.KindAgnai,
	"character_book": format.KindCharacterBook,
}

// TestCasesImport runs every case of activation-cases.json through the
// importer: detection agrees with the case's format, and the
// expect_import / expect_roundtrip / expect_roundtrip_equal parts hold.
func TestCasesImport(t *testing.T) {
	cases := loadCases(t)
	// The import cases this test exists for, each with its fault:
	for _, id := range []string{
		"BUG-10", // keys split by full-width commas or 、 became one long key
		"BUG-22", // duplicate or missing uids lost entries
		"BUG-24", // re-importing an embedded character book kept only a few fields
		"BUG-27", // a standalone character_book file was scrambled as world info
		"BUG-28", // the embedded book was looked up in the wrong place of the card
		"BUG-32", // character_book: null or wrong-typed fields failed the whole card
	} {
		_, ok := cases[id]
		require.True(t, ok, "case %s missing from the case file", id)
	}
	for id, c := range cases {
		t.Run(id, func(t *testing.T) {
			res, err := format.Import(id+".json", c.Book, format.Options{})
			if want, ok := kindOf[c.Format]; ok {
				require.Equal(t, want, res.Format)
			}
			var exp map[string]json.RawMessage
			if c.ExpectImport != nil {
				require.NoError(t, json.Unmarshal(c.ExpectImport, &exp))
			}
			if v, ok := exp["has_book"]; ok && string(v) == "false" {
				require.ErrorIs(t, err, format.ErrNoLorebook)
				var warnings []string
				require.NoError(t, json.Unmarshal(exp["warnings_contain"], &warnings))
				for _, w := range warnings {
					require.True(t, containsSub(res.Report.Warnings, w), "warnings %q lack %q", res.Report.Warnings, w)
				}
				return
			}
			require.NoError(t, err)
			checkImport(t, res, exp)
			if c.ExpectRoundtrip != nil {
				var rt struct {
					EntryCount int      `json:"entry_count"`
					Comments   []string `json:"comments"`
				}
				require.NoError(t, json.Unmarshal(c.ExpectRoundtrip, &rt))
				out, err := format.ExportST(res.Book)
				require.NoError(t, err)
				again, err := format.Import("again.json", out, format.Options{})
				require.NoError(t, err)
				require.Len(t, again.Book.Entries, rt.EntryCount)
				var titles []string
				for _, e := range again.Book.Entries {
					titles = append(titles, e.Title)
				}
				require.Equal(t, rt.Comments, titles)
			}
			if len(c.ExpectRoundtripEqal) > 0 {
				checkCardRoundTrip(t, c, res.Book)
			}
		})
	}
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func checkImport(t *testing.T, res format.Result, exp map[string]json.RawMessage) {
	t.Helper()
	if v, ok := exp["detected"]; ok {
		var d string
		require.NoError(t, json.Unmarshal(v, &d))
		require.Equal(t, kindOf[d], res.Format)
	}
	if v, ok := exp["entry_count"]; ok {
		var n int
		require.NoError(t, json.Unmarshal(v, &n))
		require.Len(t, res.Book.Entries, n)
	}
	if v, ok := exp["keys"]; ok {
		var keys []string
		require.NoError(t, json.Unmarshal(v, &keys))
		require.Equal(t, keys, res.Book.Entries[0].Keys)
	}
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	var wi struct {
		Entries map[string]map[string]json.RawMessage `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(out, &wi))
	if v, ok := exp["unique_ids"]; ok && string(v) == "true" {
		// Source uids 0, 0, none and "2": every entry gets its own uid.
		require.Len(t, wi.Entries, len(res.Book.Entries))
		for _, e := range res.Book.Entries {
			require.Zero(t, e.ID)
		}
	}
	if v, ok := exp["entries"]; ok {
		// Expected entries are given in world info spelling: compare with
		// the world info export, in order.
		var want []map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(v, &want))
		require.Len(t, wi.Entries, len(want))
		for i, w := range want {
			got := wi.Entries[itoa(i)]
			for field, val := range w {
				require.JSONEq(t, string(val), string(got[field]), "entry %d field %s", i, field)
			}
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// checkCardRoundTrip: import a card, export its book as a V2 character_book
// and as lorebook_v3; the listed fields equal the source.
func checkCardRoundTrip(t *testing.T, c activationCase, book format.Book) {
	t.Helper()
	var card struct {
		Data struct {
			Book struct {
				Entries map[string]map[string]json.RawMessage `json:"entries"`
			} `json:"character_book"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(c.Book, &card))
	src := card.Data.Book.Entries["0"]
	require.NotNil(t, src)
	v2, err := format.ExportCharacterBook(book)
	require.NoError(t, err)
	v3, err := format.ExportLorebookV3(book)
	require.NoError(t, err)
	var v2b struct {
		Entries []map[string]json.RawMessage `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(v2, &v2b))
	var v3b struct {
		Spec string `json:"spec"`
		Data struct {
			Entries []map[string]json.RawMessage `json:"entries"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(v3, &v3b))
	require.Equal(t, "lorebook_v3", v3b.Spec)
	for _, got := range []map[string]json.RawMessage{v2b.Entries[0], v3b.Data.Entries[0]} {
		for _, path := range c.ExpectRoundtripEqal {
			require.JSONEq(t, string(lookup(t, src, path)), string(lookup(t, got, path)), "field %s", path)
		}
	}
}

func lookup(t *testing.T, obj map[string]json.RawMessage, path string) json.RawMessage {
	t.Helper()
	head, rest, nested := strings.Cut(path, ".")
	v, ok := obj[head]
	require.True(t, ok, "field %s missing", path)
	if !nested {
		return v
	}
	var inner map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(v, &inner))
	return lookup(t, inner, rest)
}

// v2Card returns a V2 card JSON whose book has entries with the given
// titles (each keyed by its title).
func cardJSON(spec string, titles ...string) []byte {
	var entries []map[string]any
	for i, ti := range titles {
		entries = append(entries, map[string]any{"id": i, "keys": []string{ti}, "content": ti + " lore.",
			"enabled": true, "insertion_order": 100, "comment": ti, "extensions": map[string]any{}})
	}
	b, _ := json.Marshal(map[string]any{"spec": spec, "spec_version": map[string]string{"chara_card_v2": "2.0", "chara_card_v3": "3.0"}[spec],
		"data": map[string]any{"name": "Tester", "first_mes": "hi", "character_book": map[string]any{"entries": entries}}})
	return b
}

var (
	ihdr = png.Chunk{Type: "IHDR", Data: []byte{0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0}}
	idat = png.Chunk{Type: "IDAT", Data: []byte{0x78, 0x9c, 0x62, 0x60, 0x60, 0x60, 0x60, 0, 0, 0, 5, 0, 1}}
	iend = png.Chunk{Type: "IEND"}
)

// TestContainerCases builds the PNG fixtures of cases/containers.md.
func TestContainerCases(t *testing.T) {
	badB64 := png.Chunk{Type: "tEXt", Data: append([]byte("ccv3\x00"), "!!not base64!!"...)}
	tests := []struct {
		name     string
		file     []byte
		kind     format.Kind
		titles   []string
		warnings string
	}{
		{"BUG-29 tEXt after IDAT", png.Build(ihdr, idat, png.TextChunk("chara", cardJSON("chara_card_v2", "moon")), iend),
			format.KindV2Card, []string{"moon"}, ""},
		{"BUG-29 eXIf after tEXt", png.Build(ihdr, idat, png.TextChunk("chara", cardJSON("chara_card_v2", "moon")), png.Chunk{Type: "eXIf", Data: []byte("MM\x00*")}, iend),
			format.KindV2Card, []string{"moon"}, ""},
		{"BUG-31.1 V3 under chara", png.Build(ihdr, png.TextChunk("chara", cardJSON("chara_card_v3", "only")), idat, iend),
			format.KindV3Card, []string{"only"}, ""},
		{"BUG-31.2 ccv3 wins over chara", png.Build(ihdr, idat, png.TextChunk("chara", cardJSON("chara_card_v2", "old")), png.TextChunk("ccv3", cardJSON("chara_card_v3", "new-1", "new-2")), iend),
			format.KindV3Card, []string{"new-1", "new-2"}, ""},
		{"BUG-31.3 broken ccv3 falls back to chara", png.Build(ihdr, idat, badB64, png.TextChunk("chara", cardJSON("chara_card_v2", "old")), iend),
			format.KindV2Card, []string{"old"}, "ccv3 chunk"},
		{"uppercase keyword", png.Build(ihdr, idat, png.TextChunk("CHARA", cardJSON("chara_card_v2", "moon")), iend),
			format.KindV2Card, []string{"moon"}, ""},
		{"duplicate chara: first wins", png.Build(ihdr, idat, png.TextChunk("chara", cardJSON("chara_card_v2", "first")), png.TextChunk("chara", cardJSON("chara_card_v2", "second")), iend),
			format.KindV2Card, []string{"first"}, "duplicate chara"},
		{"zTXt only", png.Build(ihdr, idat, zTXt(t, "chara", cardJSON("chara_card_v2", "zipped")), iend),
			format.KindV2Card, []string{"zipped"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := format.Import("card.png", tc.file, format.Options{})
			require.NoError(t, err)
			require.Equal(t, tc.kind, res.Format)
			require.Equal(t, format.ContainerPNG, res.Container)
			var titles []string
			for _, e := range res.Book.Entries {
				titles = append(titles, e.Title)
			}
			require.Equal(t, tc.titles, titles)
			if tc.warnings != "" {
				require.True(t, containsSub(res.Report.Warnings, tc.warnings), "warnings %q", res.Report.Warnings)
			}
		})
	}
}

func TestPNGErrors(t *testing.T) {
	good := png.Build(ihdr, idat, png.TextChunk("chara", cardJSON("chara_card_v2", "moon")), iend)
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-13] ^= 0xFF // last byte of the tEXt chunk's CRC
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"bad CRC", badCRC, "bad CRC"},
		{"truncated", good[:len(good)-20], "png: chunk"},
		{"no card chunk", png.Build(ihdr, idat, iend), "no character card"},
		{"no IEND", png.Build(ihdr, idat), "no IEND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.Import("x.png", tc.file, format.Options{})
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := format.Import("x.png", good, format.Options{MaxPNGBytes: 100})
	require.ErrorIs(t, err, format.ErrTooLarge)
	require.ErrorContains(t, err, "over the limit of 100 bytes")
}

func zTXt(t *testing.T, kw string, js []byte) png.Chunk {
	t.Helper()
	var buf strings.Builder
	enc := png.TextChunk(kw, js).Data[len(kw)+1:]
	z := zlibCompress(t, enc)
	buf.WriteString(kw)
	buf.WriteByte(0)
	buf.WriteByte(0)
	buf.Write(z)
	return png.Chunk{Type: "zTXt", Data: []byte(buf.String())}
}

// TestPNGAndJSONTwins: the PNG and JSON of the same card give identical books.
func TestPNGAndJSONTwins(t *testing.T) {
	j := readCorpus(t, "card-json/bronya-rand__Aether_v2.json")
	p := readCorpus(t, "png/bronya-rand__Aether_v2.png")
	rj, err := format.Import("Aether.json", j, format.Options{})
	require.NoError(t, err)
	rp, err := format.Import("Aether.png", p, format.Options{})
	require.NoError(t, err)
	require.Equal(t, format.ContainerJSON, rj.Container)
	require.Equal(t, format.ContainerPNG, rp.Container)
	require.Len(t, rj.Book.Entries, 119)
	require.Equal(t, format.ContainerPNG, rp.Book.Card.Container, "the PNG is kept for card exports")
	require.Equal(t, p, rp.Book.Card.File)
	rj.Book.Card, rp.Book.Card = nil, nil // the carriers differ, the books do not
	require.Equal(t, rj.Book, rp.Book)
	require.Equal(t, rj.Report.Skipped, rp.Report.Skipped)
}

// TestCardCorpusRoundTrip: a card book exported as a V2 character_book
// imports back to the same canonical entries.
func TestCardCorpusRoundTrip(t *testing.T) {
	for _, rel := range []string{"card-json/bronya-rand__Aether_v2.json", "card-json/bronya-rand__Natasha_v2.json", "card-json/lide4144__ai_v3_zh.json"} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			res, err := format.Import(rel, readCorpus(t, rel), format.Options{})
			require.NoError(t, err)
			out, err := format.ExportCharacterBook(res.Book)
			require.NoError(t, err)
			again, err := format.Import("book.json", out, format.Options{})
			require.NoError(t, err)
			require.Equal(t, format.KindCharacterBook, again.Format)
			require.Equal(t, len(res.Book.Entries), len(again.Book.Entries))
			for i := range res.Book.Entries {
				a, b := res.Book.Entries[i], again.Book.Entries[i]
				a.Extensions, b.Extensions = nil, nil
				require.Equal(t, a, b, "entry %d", i)
			}
			// Source entries are reproduced field by field.
			var src struct {
				Data struct {
					Book struct {
						Entries []map[string]json.RawMessage `json:"entries"`
					} `json:"character_book"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(readCorpus(t, rel), &src))
			var got struct {
				Entries []map[string]json.RawMessage `json:"entries"`
			}
			require.NoError(t, json.Unmarshal(out, &got))
			for i, se := range src.Data.Book.Entries {
				for k, v := range se {
					require.JSONEq(t, string(v), string(got.Entries[i][k]), "entry %d field %s", i, k)
				}
			}
		})
	}
}

func TestImportReport(t *testing.T) {
	wi := `{"entries":{
	 "0":{"uid":0,"key":["a"],"content":"A","comment":"pos4","position":4,"depth":0,"role":1,"disable":false},
	 "1":{"uid":1,"key":[" ","/(?<=x)y/"],"content":"B","comment":"badkeys","disable":false,"group":"g","sticky":2},
	 "2":{"uid":2,"key":[],"content":"C","comment":"inert","disable":false,"vectorized":true},
	 "3":{"uid":3,"key":["d"],"content":"","comment":"empty","disable":false},
	 "4":{"uid":4,"key":["e, f"],"content":"E","comment":"nodisable","probability":null},
	 "5":{"uid":5,"key":["z"],"content":"Z","comment":"zero","probability":0,"disable":true}}}`
	res, err := format.Import("r.json", []byte(wi), format.Options{})
	require.NoError(t, err)
	rep := res.Report
	require.Equal(t, 5, rep.Entries)
	require.Equal(t, []format.Skip{{Index: 3, Title: "empty", Reason: "no content"}}, rep.Skipped)
	require.Equal(t, 0, rep.CollapsedPlacements, "positions are kept, not collapsed")
	pos4 := res.Book.Entries[0]
	require.Equal(t, lore.PositionAtDepth, pos4.Position)
	require.Equal(t, lore.Before, pos4.Placement, "the placement is derived from the position")
	require.Equal(t, 0, pos4.Depth)
	require.Equal(t, lore.RoleUser, pos4.Role)
	require.Empty(t, rep.IgnoredSettings, "groups, timed effects and vectorized have fields now")
	require.True(t, res.Book.Entries[2].Vectorized, "vectorized is an entry field")
	require.Equal(t, "g", res.Book.Entries[1].Group)
	require.Equal(t, 2, res.Book.Entries[1].Sticky)
	require.Equal(t, lore.DefaultGroupWeight, res.Book.Entries[1].GroupWeight)
	require.Len(t, rep.UnsupportedKeys, 2)
	require.Equal(t, "empty key", rep.UnsupportedKeys[0].Reason)
	require.Contains(t, rep.UnsupportedKeys[1].Reason, "regex does not compile")
	require.Len(t, rep.Inert, 1, "a keyless vectorized entry is not inert")
	require.Equal(t, 1, rep.Inert[0].Index)
	require.Equal(t, "badkeys", rep.Inert[0].Title)
	require.Contains(t, rep.Inert[0].Reason, "no usable key: empty key; regex does not compile")
	require.True(t, containsSub(rep.Warnings, "no enabled flag"))
	e := res.Book.Entries
	require.Equal(t, lore.Before, e[0].Placement)
	require.Equal(t, lore.RoleUser, e[0].Role)
	require.NotContains(t, e[0].Extensions, "st/position", "the position is a field: no extension copy")
	require.NotContains(t, e[0].Extensions, "st/depth")
	require.Equal(t, []string{"/(?<=x)y/"}, e[1].Keys)
	require.Equal(t, []string{"e, f"}, e[3].Keys, "array keys are never re-split")
	require.True(t, e[3].Enabled)
	require.Equal(t, 100, e[3].Probability)
	require.Equal(t, 0, e[4].Probability, "explicit 0 stays 0")
	require.False(t, e[4].Enabled)

	// Edits after import reach the export; untouched fields keep the source.
	e[0].Position, e[0].Placement = lore.PositionAfterChar, lore.After
	e[4].Probability = 50
	out, err := format.ExportST(res.Book)
	require.NoError(t, err)
	var wiOut struct {
		Entries map[string]map[string]json.RawMessage `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(out, &wiOut))
	require.JSONEq(t, "1", string(wiOut.Entries["0"]["position"]))
	require.JSONEq(t, "50", string(wiOut.Entries["5"]["probability"]))
	require.JSONEq(t, `[" ","/(?<=x)y/"]`, string(wiOut.Entries["1"]["key"]), "dropped blank key comes back")
	require.JSONEq(t, "null", string(wiOut.Entries["4"]["probability"]))
}

func TestPersonaCardLimit(t *testing.T) {
	var titles []string
	for i := 0; i < 260; i++ {
		titles = append(titles, "t"+itoa(i))
	}
	data := cardJSON("chara_card_v2", titles...)
	res, err := format.Import("c.json", data, format.Options{PersonaCard: true})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, lore.MaxEntriesPerScope)
	require.Equal(t, 10, res.Report.Dropped)
	require.Equal(t, "t249", res.Book.Entries[249].Title)
	res, err = format.Import("c.json", data, format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 260)
	require.Zero(t, res.Report.Dropped)
}

func TestJSONLimitAndUnknown(t *testing.T) {
	big := []byte(`{"entries":{},"pad":"` + strings.Repeat("x", 2_000_100) + `"}`)
	_, err := format.Import("big.json", big, format.Options{})
	require.ErrorIs(t, err, format.ErrTooLarge)
	require.ErrorContains(t, err, "over the limit of 2000000 bytes")
	for _, in := range []string{`{"hello":1}`, `[1,2]`, `not json`, `{"spec":"chara_card_v9"}`} {
		_, err := format.Import("x.json", []byte(in), format.Options{})
		require.ErrorIs(t, err, format.ErrUnknownFormat, in)
	}
	res, err := format.Import("v1.json", []byte(`{"name":"A","description":"d","first_mes":"hi"}`), format.Options{})
	require.ErrorIs(t, err, format.ErrNoLorebook)
	require.Equal(t, format.KindV1Card, res.Format)
}

// TestPNGDamagedImageKeepsCard: a PNG whose card chunks are intact but whose
// image data is corrupt (bad CRC, garbage, or the file cut after the card)
// still yields its card, with a warning, and exports as a valid PNG.
func TestPNGDamagedImageKeepsCard(t *testing.T) {
	sera := readCorpus(t, "png/sillytavern__default_Seraphina.png") // IHDR, IDAT, tEXt, IEND
	flipIDAT := append([]byte(nil), sera...)
	i := bytes.Index(flipIDAT, []byte("IDAT"))
	require.Positive(t, i)
	for j := i + 100; j < i+200; j++ {
		flipIDAT[j] ^= 0x5A // pixels garbled: the chunk's CRC no longer matches
	}
	textFirst := png.Build(ihdr, png.TextChunk("chara", cardJSON("chara_card_v2", "moon")), idat, iend)
	tests := []struct {
		name    string
		file    []byte
		entries int
		warning string
	}{
		{"garbled IDAT", flipIDAT, 4, "bad CRC (damaged image data)"},
		{"cut after the card chunk", textFirst[:len(textFirst)-20], 1, "the card chunks before it are read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := format.Import("x.png", tc.file, format.Options{})
			require.NoError(t, err)
			require.Len(t, res.Book.Entries, tc.entries)
			require.True(t, containsSub(res.Report.Warnings, tc.warning), "warnings %q", res.Report.Warnings)

			// It exports too: a valid PNG rebuilt from the chunks that
			// decoded, which imports back without a warning.
			out, err := format.ExportCardPNG(res.Book)
			require.NoError(t, err)
			_, err = stdpng.Decode(bytes.NewReader(out))
			require.NoError(t, err, "the export's image decodes")
			back, err := format.Import("y.png", out, format.Options{})
			require.NoError(t, err)
			require.Len(t, back.Book.Entries, tc.entries)
			require.Empty(t, back.Report.Warnings)
		})
	}
}

// TestKeyDialects: world info entries with the V2 key names (cases BUG-37)
// and bare entries arrays in camelCase are read as such, and reported.
func TestKeyDialects(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		keys      []string
		secondary []string
		order     int
		warning   string
	}{
		{"world info with keys/secondary_keys",
			`{"entries":{"0":{"uid":0,"keys":["forge"],"secondary_keys":["fire"],"selective":true,"comment":"f","content":"The forge.","order":7}}}`,
			[]string{"forge"}, []string{"fire"}, 7, "has keys/secondary_keys but no key/keysecondary"},
		{"world info key wins over keys",
			`{"entries":{"0":{"uid":0,"key":["anvil"],"keys":["other"],"comment":"a","content":"The anvil."}}}`,
			[]string{"anvil"}, nil, 100, ""},
		{"camelCase bare entries array",
			`{"enabled":false,"entries":[{"keys":["moon"],"secondaryKeys":["night"],"selective":true,"insertionOrder":42,"content":"Moon."}]}`,
			[]string{"moon"}, []string{"night"}, 42, "camelCase"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := format.Import("d.json", []byte(tc.file), format.Options{})
			require.NoError(t, err)
			require.Len(t, res.Book.Entries, 1)
			e := res.Book.Entries[0]
			require.Equal(t, tc.keys, e.Keys)
			require.Equal(t, tc.secondary, e.SecondaryKeys)
			require.Equal(t, tc.order, e.Order)
			require.Empty(t, res.Report.Inert)
			if tc.warning != "" {
				require.True(t, containsSub(res.Report.Warnings, tc.warning), "warnings %q", res.Report.Warnings)
			}
		})
	}
	res, err := format.Import("d.json", []byte(tests[2].file), format.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, res.Report.IgnoredSettings["book enabled"], "a disabled book is reported")
}

// TestReportCountsImportedEntriesOnly: settings of a skipped entry are not
// counted as ignored, and every report list is a list, failures included.
func TestReportCountsImportedEntriesOnly(t *testing.T) {
	wi := `{"entries":{"0":{"uid":0,"key":["a"],"content":"","automationId":"x","comment":"empty"},` +
		`"1":{"uid":1,"key":["b"],"content":"B lore.","automationId":"x","comment":"b"},` +
		`"2":{"uid":2,"key":["c"],"content":"C lore.","comment":"c"}}}`
	res, err := format.Import("r.json", []byte(wi), format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Report.Skipped, 1)
	require.Equal(t, 1, res.Report.IgnoredSettings["automation"], "only the imported entry's setting counts")

	res, err = format.Import("bad.json", []byte(`{"hello":1}`), format.Options{})
	require.Error(t, err)
	out, err := json.Marshal(res.Report)
	require.NoError(t, err)
	require.Contains(t, string(out), `"warnings":[]`)
	require.Contains(t, string(out), `"skipped":[]`)
}
