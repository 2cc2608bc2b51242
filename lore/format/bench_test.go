package format_test

import (
	"path/filepath"
	"testing"

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
