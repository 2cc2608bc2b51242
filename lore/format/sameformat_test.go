package format_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/format/charx"
	"loregate/lore/format/png"
	"loregate/lore/format/sillytavern"
)

// allowedSameFormat are the differences a same-format export may have
// from its source (docs/formats.md "Same-format exports"), by name.
var allowedSameFormat = []struct {
	name  string
	allow func(kind format.Kind, d jsonDiff) bool
}{
	{"world info: a field the source lacked, written with SillyTavern's default", func(k format.Kind, d jsonDiff) bool {
		if k != format.KindSTWorldInfo || d.Kind != "added" {
			return false
		}
		parts := strings.Split(d.Path, "/")
		if len(parts) != 3 || parts[0] != "entries" {
			return false
		}
		if parts[2] == "displayIndex" || parts[2] == "addMemo" {
			return true // editor-derived fields
		}
		def, ok := sillytavern.Defaults()[parts[2]]
		if !ok {
			return false
		}
		diffs, err := diffJSON(def, []byte(d.Got))
		return err == nil && len(diffs) == 0
	}},
	{"NovelAI: lorebookVersion is written as 6, the version exported", func(k format.Kind, d jsonDiff) bool {
		return k == format.KindNovelAI && d.Path == "lorebookVersion" && d.Got == "6"
	}},
}

// TestCorpusSameFormatExport: every corpus file converts with no entry lost
// (only empty rows skipped, and reported), and its same-format export is
// equivalent to the source as JSON except for the differences listed in
// allowedSameFormat, which the test prints. Cards export as whole cards
// (PNG image chunks and CHARX assets kept).
func TestCorpusSameFormatExport(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t), "*", "*"))
	require.NoError(t, err)
	n := 0
	for _, path := range files {
		name := filepath.Base(path)
		if name == "README.md" {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			res, err := format.Import(name, data, format.Options{Limits: lore.CeilingLimits()})
			if res.Format == format.KindV3Card && err != nil {
				require.ErrorIs(t, err, format.ErrNoLorebook) // the card without a book
				return
			}
			require.NoError(t, err)
			for _, s := range res.Report.Skipped {
				require.Equal(t, "no content", s.Reason, "only empty rows are skipped")
			}
			src, out, container := sameFormat(t, res, data)
			src = dropRows(t, res.Format, src, res.Report.Skipped)
			diffs, err := diffJSON(src, out)
			require.NoError(t, err)
			allowed := map[string]int{}
			for _, d := range diffs {
				ok := false
				for _, a := range allowedSameFormat {
					if a.allow(res.Format, d) {
						allowed[a.name]++
						ok = true
						break
					}
				}
				require.True(t, ok, "%s: difference not allowed: %s", container, d)
			}
			for _, name := range sortedNames(allowed) {
				t.Logf("allowed, %d times: %s", allowed[name], name)
			}
			if len(res.Report.Skipped) > 0 {
				t.Logf("allowed: %d empty rows skipped and reported", len(res.Report.Skipped))
			}
		})
	}
	require.GreaterOrEqual(t, n, 20)
}

func sortedNames(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sameFormat exports res in its source format and returns the source JSON
// and the exported JSON to compare (for PNG and CHARX, the card JSON; the
// carrier's other parts are checked here).
func sameFormat(t *testing.T, res format.Result, data []byte) (src, out []byte, what string) {
	t.Helper()
	var err error
	switch {
	case res.Container == format.ContainerPNG:
		c, err := png.Extract(data, 8<<20)
		require.NoError(t, err)
		exp, err := format.ExportCardPNG(res.Book)
		require.NoError(t, err)
		c2, err := png.Extract(exp, 8<<20)
		require.NoError(t, err)
		require.Equal(t, otherChunks(t, data), otherChunks(t, exp), "image and other chunks kept")
		return c.JSON, c2.JSON, "png card"
	case res.Container == format.ContainerCHARX:
		lim := charx.Limits{MaxEntries: 4096, MaxTotal: 1 << 30, MaxRatio: 200, MaxCard: 8 << 20}
		src, _, err = charx.Extract(data, lim)
		require.NoError(t, err)
		exp, err := format.ExportCardCHARX(res.Book)
		require.NoError(t, err)
		out, _, err = charx.Extract(exp, lim)
		require.NoError(t, err)
		require.Equal(t, members(t, data), members(t, exp), "assets kept")
		return src, out, "charx card"
	case res.Format == format.KindV2Card || res.Format == format.KindV3Card:
		out, err = format.ExportCardJSON(res.Book)
		what = "card json"
	case res.Format == format.KindSTWorldInfo:
		out, err = format.ExportST(res.Book)
		what = "world info"
	case res.Format == format.KindRisu:
		out, err = format.ExportRisu(res.Book)
		what = "risu"
	case res.Format == format.KindNovelAI:
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data, &m))
		if lb, ok := m["lorebook"]; ok {
			data = lb // a scenario: its lorebook is what is exported
		}
		out, err = format.ExportNovelAI(res.Book)
		what = "novelai"
	default:
		t.Fatalf("no same-format export for %s", res.Format)
	}
	require.NoError(t, err)
	return data, out, what
}

// dropRows removes the skipped rows (by source position) from the source
// so that the comparison is of what was imported.
func dropRows(t *testing.T, kind format.Kind, src []byte, skipped []format.Skip) []byte {
	t.Helper()
	if len(skipped) == 0 {
		return src
	}
	if kind == format.KindSTWorldInfo {
		return dropEntries(t, src, skipped)
	}
	var doc map[string]any
	require.NoError(t, json.Unmarshal(src, &doc))
	var arr *[]any
	switch kind {
	case format.KindV2Card, format.KindV3Card:
		book := doc["data"].(map[string]any)["character_book"].(map[string]any)
		a := book["entries"].([]any)
		defer func() { book["entries"] = a }()
		arr = &a
	case format.KindRisu:
		a := doc["data"].([]any)
		defer func() { doc["data"] = a }()
		arr = &a
	case format.KindNovelAI:
		a := doc["entries"].([]any)
		defer func() { doc["entries"] = a }()
		arr = &a
	default:
		t.Fatalf("dropRows: %s", kind)
	}
	for i := len(skipped) - 1; i >= 0; i-- {
		j := skipped[i].Index
		*arr = append((*arr)[:j], (*arr)[j+1:]...)
	}
	return func() []byte {
		switch kind {
		case format.KindV2Card, format.KindV3Card:
			doc["data"].(map[string]any)["character_book"].(map[string]any)["entries"] = *arr
		case format.KindRisu:
			doc["data"] = *arr
		default:
			doc["entries"] = *arr
		}
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		return b
	}()
}

// otherChunks lists a PNG's chunks other than card text chunks and IEND.
func otherChunks(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for p := len(png.Signature); p+12 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[p:]))
		typ := string(data[p+4 : p+8])
		body := data[p+8 : p+8+n]
		p += 12 + n
		if kw, _, _ := bytes.Cut(body, []byte{0}); typ == "tEXt" && (string(kw) == "chara" || string(kw) == "ccv3") || typ == "IEND" {
			continue
		}
		out = append(out, fmt.Sprintf("%s %x", typ, body[:min(len(body), 64)]))
	}
	return out
}

// members lists a zip's member names and sizes but card.json's.
func members(t *testing.T, data []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var out []string
	for _, f := range zr.File {
		if f.Name != "card.json" {
			out = append(out, fmt.Sprintf("%s %d %08x", f.Name, f.UncompressedSize64, f.CRC32))
		}
	}
	return out
}
