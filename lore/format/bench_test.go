package format_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"loregate/lore"
	"loregate/lore/format"
)

// BenchmarkImport measures Import on the largest corpus file of each format.
func BenchmarkImport(b *testing.B) {
	for _, rel := range []string{
		"st-worldinfo/archkrrr__Date_a_Live_12.0.0.json",
		"card-json/lide4144__ai_v3_zh.json",
		"png/bronya-rand__Clorinde_v3_ccv3.png",
		"charx/woduseh__Veil_of_Night_v2.charx",
		"novelai/novelai__Crystal_Dragon_Encounter.scenario",
		"risu/dootaang__lorebook_export_risu_ko.json",
	} {
		b.Run(filepath.Base(rel), func(b *testing.B) {
			data := readCorpus(b, rel)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := format.Import(rel, data, format.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLargeWorldInfo compares importing the corpus's largest world
// info (3.5 MB, 947 entries) with a bare encoding/json decode of the same
// file into generic maps, in one run so that the ratio is robust to load
// (goal: import at most 3x the decode; docs/benchmarks.md).
func BenchmarkLargeWorldInfo(b *testing.B) {
	data := readCorpus(b, "st-worldinfo/soranokiseki1437__Eldoria_V10.28.1_zh_947entries.json")
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("import", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := format.Import("big.json", data, format.Options{Limits: lore.CeilingLimits()}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
