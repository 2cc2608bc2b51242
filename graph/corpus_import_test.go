package graph_test

import (
	"encoding/json"
	"fmt"
	"loregate/lore/sharedtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/format"
)

// TestCorpusImportAtDeploymentLimits imports every corpus file through the
// service. At the default limits every file within them imports with
// nothing lost (only empty rows skipped, long entries split and exported
// whole); the others are refused whole with a message naming the limit and
// the setting that raises it, and import in full once an operator raises it.
// The books of the format matrix (lore/format/testdata/matrix_sources.txt)
// are the API's side of it: each export through the API is what offline
// convert writes for the file at the same limits (requireExportsMatchConvert).
func TestCorpusImportAtDeploymentLimits(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.Path(t, "corpus"), "*", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus holds files")
	// Over the defaults: which limit, and the setting named in the refusal.
	overLimits := map[string]string{
		"bronya-rand__GI-Core.json":                             lore.EnvMaxScopeEntries, // 256 entries
		"soranokiseki1437__Eldoria_V10.28.1_zh_947entries.json": lore.EnvMaxJSONBytes,    // 3.5 MB
	}
	def := newAPI(t)
	raisedLimits := lore.Limits{ScopeEntries: 1000, JSONBytes: 4_000_000}
	raised := newAPILimits(t, raisedLimits)
	matrix := map[string]*bool{} // compared through the API
	for _, rel := range matrixSources(t) {
		if !strings.HasPrefix(rel, "testdata:") {
			matrix[rel] = new(bool)
		}
	}
	n := 0
	for _, path := range files {
		name := filepath.Base(path)
		if name == "README.md" {
			continue
		}
		n++
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		// The book as the converter reads it with no store limit.
		ref, refErr := format.Import(name, data, format.Options{Limits: lore.CeilingLimits()})
		server := fmt.Sprintf("4%017d", n)
		for _, a := range []*api{def, raised} {
			a.must(serviceKey, qUpsertServer, map[string]any{"id": server, "name": "corpus"}, "upsertServer", &struct{}{})
		}
		imp := def.importFile(serviceKey, map[string]any{"serverDiscordId": server, "lineageId": 0}, name, data)
		if refErr != nil {
			require.ErrorIs(t, refErr, format.ErrNoLorebook, name)
			require.Equal(t, "INVALID_INPUT", imp.Error.Code, name)
			require.Contains(t, imp.Error.Message, "no lorebook", name)
			continue
		}
		if len(ref.Book.Entries) == 0 {
			// Only empty rows: refused with the count, nothing created.
			require.Contains(t, imp.Error.Message, "no importable entries", name)
			continue
		}
		if setting, over := overLimits[name]; over {
			require.NotNil(t, imp.Error, "%s is over a default limit", name)
			require.Contains(t, imp.Error.Message, setting, name)
			require.Contains(t, imp.Error.Message, "over the limit of", name)
			require.Zero(t, imp.Added, name)
			imp = raised.importFile(serviceKey, map[string]any{"serverDiscordId": server, "lineageId": 0}, name, data)
		}
		require.Nil(t, imp.Error, "%s: %+v", name, imp.Error)
		for _, s := range imp.Report.Skipped {
			require.Equal(t, "no content", s.Reason, "%s: only empty rows are skipped", name)
		}
		rows := len(ref.Book.Entries)
		for _, s := range imp.Report.Split {
			rows += s.Parts - 1 // the reference (ceilings) keeps long entries whole
		}
		require.Equal(t, rows, imp.Added, "%s: every entry stored", name)
		require.Equal(t, len(ref.Report.Skipped), len(imp.Report.Skipped), name)

		// Exported back whole: as many entries as the source kept, long
		// ones joined. A book of the format matrix is exported in every
		// format and compared with offline convert at the same limits.
		a := def
		if _, over := overLimits[name]; over {
			a = raised
		}
		var exported string
		if rel := filepath.Base(filepath.Dir(path)) + "/" + name; matrix[rel] != nil {
			lim := lore.DefaultLimits()
			if a == raised {
				lim = raisedLimits.WithDefaults()
			}
			offline, err := format.Import(name, data, format.Options{Limits: lim})
			require.NoError(t, err, name)
			if u := offline.Book.BudgetUnit; u != "" && u != lore.BudgetCharacters {
				// Not applied, as the report says (budget_unit_mismatch):
				// this server counts characters.
				require.True(t, containsPrefix(imp.Report.Warnings, "the file's budget of"), "%s: %q", name, imp.Report.Warnings)
				offline.Book.Settings.BudgetLimit, offline.Book.BudgetUnit = nil, ""
			}
			exported = requireExportsMatchConvert(t, a, server, 0, imp.Collection.ID, name, offline.Book)["ST_WORLD_INFO"]
			*matrix[rel] = true
		} else {
			var exp struct {
				JSON  string
				Error *mutationError
			}
			a.must(serviceKey, qExport, map[string]any{"input": map[string]any{"serverDiscordId": server, "lineageId": 0, "collectionId": imp.Collection.ID}}, "exportLorebook", &exp)
			require.Nil(t, exp.Error, name)
			exported = exp.JSON
		}
		var wi struct {
			Entries map[string]struct{ Content string }
		}
		require.NoError(t, json.Unmarshal([]byte(exported), &wi), name)
		require.Len(t, wi.Entries, len(ref.Book.Entries), name)
		total := 0
		for _, e := range wi.Entries {
			total += len(e.Content)
		}
		want := 0
		for _, e := range ref.Book.Entries {
			want += len(e.Content)
		}
		require.Equal(t, want, total, "%s: no content lost", name)
	}
	require.GreaterOrEqual(t, n, 20)
	for rel, done := range matrix {
		require.True(t, *done, "matrix book %s is in the corpus and compared through the API", rel)
	}
}

// containsPrefix reports whether one of list begins with prefix.
func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
