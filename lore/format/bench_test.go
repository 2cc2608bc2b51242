package format_test

import (
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/format/charx"
	"loregate/lore/format/png"
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
	// Both in turn, each timed by process CPU: the ratio docs/benchmarks.md gives.
	b.Run("interleaved", func(b *testing.B) {
		var bare, imp time.Duration
		for b.Loop() {
			t0 := processCPU(b)
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
			t1 := processCPU(b)
			_, err := format.Import("big.json", data, format.Options{Limits: lore.CeilingLimits()})
			imp += processCPU(b) - t1
			bare += t1 - t0
			if err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, bare, imp)
	})
}

// reportCPU reports the bare read's and the import's process CPU time per
// op and their ratio.
func reportCPU(b *testing.B, bare, imp time.Duration) {
	b.ReportMetric(float64(bare.Microseconds())/1000/float64(b.N), "bare-cpu-ms/op")
	b.ReportMetric(float64(imp.Microseconds())/1000/float64(b.N), "import-cpu-ms/op")
	b.ReportMetric(float64(imp)/float64(bare), "import/bare")
}

// BenchmarkLargeCard compares importing a character card that carries the
// corpus's largest world info (947 entries) as its book with the bare
// work of reading the same file, in one run so that the ratio is robust
// to load (goal: import at most 3x the bare read; docs/benchmarks.md).
// The bare read is BenchmarkLargeWorldInfo's encoding/json decode into
// generic maps, after the PNG chunk walk and base64 decode (png.Extract)
// for a PNG card and the zip read (charx.Extract) for a CHARX archive.
func BenchmarkLargeCard(b *testing.B) {
	src := readCorpus(b, "st-worldinfo/soranokiseki1437__Eldoria_V10.28.1_zh_947entries.json")
	opts := format.Options{Limits: lore.CeilingLimits()}.WithDefaults()
	res, err := format.Import("big.json", src, opts)
	if err != nil {
		b.Fatal(err)
	}
	cardJSON, err := format.ExportCardJSON(res.Book)
	if err != nil {
		b.Fatal(err)
	}
	cardPNG, err := format.ExportCardPNG(res.Book)
	if err != nil {
		b.Fatal(err)
	}
	cardCHARX, err := format.ExportCardCHARX(res.Book)
	if err != nil {
		b.Fatal(err)
	}
	decode := func(b *testing.B, js []byte) {
		var v map[string]any
		if err := json.Unmarshal(js, &v); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, file string
		data       []byte
		bare       func(b *testing.B, data []byte)
	}{
		{"json", "card.json", cardJSON, decode},
		{"png", "card.png", cardPNG, func(b *testing.B, data []byte) {
			c, err := png.Extract(data, opts.MaxCardBytes)
			if err != nil {
				b.Fatal(err)
			}
			decode(b, c.JSON)
		}},
		{"charx", "card.charx", cardCHARX, func(b *testing.B, data []byte) {
			js, _, err := charx.Extract(data, charx.Limits{
				MaxEntries: opts.MaxCHARXEntries, MaxTotal: opts.MaxCHARXTotalBytes,
				MaxRatio: opts.MaxCHARXRatio, MaxCard: opts.MaxCardBytes,
			})
			if err != nil {
				b.Fatal(err)
			}
			decode(b, js)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			var bare, imp time.Duration
			for b.Loop() {
				t0 := processCPU(b)
				c.bare(b, c.data)
				t1 := processCPU(b)
				r, err := format.Import(c.file, c.data, opts)
				imp += processCPU(b) - t1
				bare += t1 - t0
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Book.Entries) != len(res.Book.Entries) {
					b.Fatalf("%d entries, want %d", len(r.Book.Entries), len(res.Book.Entries))
				}
			}
			reportCPU(b, bare, imp)
		})
	}
}

// processCPU is the process's user and system CPU time so far (GC workers
// included), which other load on a shared machine does not inflate.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
