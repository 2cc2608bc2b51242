package format_test

import (
	"loregate/lore/sharedtest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// corpusDir is ../shared/corpus relative to the repository root.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir := sharedtest.Path(t, "corpus")
	return dir
}

func readCorpus(t testing.TB, rel string) []byte {
	t.Helper()
	p := filepath.Join(corpusDir(t), rel)
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		t.Skipf("corpus file %s is absent", rel)
	}
	require.NoError(t, err)
	return data
}

// corpusFiles lists every corpus file with the detected format, container
// and entry count given in corpus/README.md.
type corpusFile struct {
	path      string
	kind      format.Kind
	container format.Container
	entries   int // entries in the file (corpus README); -1: card without a book
	skipped   int // entries skipped at the default limits (empty rows)
	split     int // entries over 4,000 characters split into parts at the default limits
}

var corpusFiles = []corpusFile{
	{"st-worldinfo/sillytavern__Eldoria.json", format.KindSTWorldInfo, format.ContainerJSON, 4, 0, 0},
	{"st-worldinfo/bronya-rand__GI-Core.json", format.KindSTWorldInfo, format.ContainerJSON, 256, 0, 0},
	{"st-worldinfo/bronya-rand__Eorzea.json", format.KindSTWorldInfo, format.ContainerJSON, 29, 0, 0},
	{"st-worldinfo/archkrrr__Date_a_Live_12.0.0.json", format.KindSTWorldInfo, format.ContainerJSON, 107, 0, 6},
	{"st-worldinfo/archkrrr__Date_a_Live_12.0.0_Vectorized.json", format.KindSTWorldInfo, format.ContainerJSON, 107, 0, 6},
}

func TestCorpusImport(t *testing.T) {
	for _, tc := range corpusFiles {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			data := readSource(t, tc.path)
			res, err := format.Import(filepath.Base(tc.path), data, format.Options{})
			require.Equal(t, tc.kind, res.Format)
			require.Equal(t, tc.container, res.Container)
			if tc.entries < 0 {
				require.ErrorIs(t, err, format.ErrNoLorebook)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.skipped, len(res.Report.Skipped), "skipped: %v", res.Report.Skipped)
			require.Len(t, res.Report.Split, tc.split)
			require.Len(t, lore.JoinSplit(res.Book.Entries), tc.entries-tc.skipped)
			require.Equal(t, len(res.Book.Entries), res.Report.Entries)
			for _, e := range res.Book.Entries {
				require.Zero(t, e.ID)
				require.Zero(t, e.Lineage)
				require.Empty(t, e.Collection)
				require.Empty(t, e.Server)
				require.True(t, e.Placement.Valid())
			}
		})
	}
}

func init() {
	corpusFiles = append(corpusFiles, []corpusFile{
		{"card-json/bronya-rand__Aether_v2.json", format.KindV2Card, format.ContainerJSON, 119, 0, 0},
		{"card-json/bronya-rand__Natasha_v2.json", format.KindV2Card, format.ContainerJSON, 14, 0, 0},
		{"card-json/lide4144__ai_v3_zh.json", format.KindV3Card, format.ContainerJSON, 27, 0, 0},
		{"png/sillytavern__default_Seraphina.png", format.KindV2Card, format.ContainerPNG, 4, 0, 0},
		{"png/sillytavern-content__contest_Assistant_Sakana.png", format.KindV2Card, format.ContainerPNG, 14, 0, 0},
		{"png/sillytavern-content__contest_Assistant_Amy_nobook.png", format.KindV3Card, format.ContainerPNG, -1, 0, 0},
		{"png/bronya-rand__Clorinde_v3_ccv3.png", format.KindV3Card, format.ContainerPNG, 38, 0, 0},
		{"png/bronya-rand__Aether_v2.png", format.KindV2Card, format.ContainerPNG, 119, 0, 0},
		{"charx/woduseh__Veil_of_Night_v2.charx", format.KindV3Card, format.ContainerCHARX, 83 - 6, 1, 43}, // 6 RisuAI folder rows travel on their entries,
	}...)
}

func init() {
	corpusFiles = append(corpusFiles, []corpusFile{
		{"risu/dootaang__lorebook_export_risu_ko.json", format.KindRisu, format.ContainerJSON, 13, 0, 10},
		{"novelai/grahamwaters__lorebook_generated.lorebook", format.KindNovelAI, format.ContainerJSON, 1, 1, 0},
		{"novelai/novelai__Crystal_Dragon_Encounter.scenario", format.KindNovelAI, format.ContainerJSON, 3, 0, 0},
		{"novelai/wbrown__white_samurai.scenario", format.KindNovelAI, format.ContainerJSON, 19, 0, 0},
		{"novelai/travelingrobot__the_descriptor_v1_2.lorebook", format.KindNovelAI, format.ContainerJSON, 7, 0, 0}, // not in the README table; 7 entries counted in the file
		// The Tavern Helper worldbook shape (issue 26), a file the team
		// wrote: the corpus has none.
		{localTestdata + "tavern_helper_worldbook.json", format.KindWorldbook, format.ContainerJSON, 8, 0, 0},
	}...)
}
