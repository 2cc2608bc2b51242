package dashboard

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"loregate/lore/activation"
	"loregate/lore/i18n"
)

// textCalls find the catalog keys used in templates (.T.S "...", $t.S
// "...") and in Go (t.S("..."); the labels of valueNames and flashTexts).
var textCalls = []*regexp.Regexp{
	regexp.MustCompile(`\.S "((?:[^"\\]|\\.)*)"`),
	regexp.MustCompile(`\bt\.S\("((?:[^"\\]|\\.)*)"`),
}

// TestEveryTextIsTranslated: every text the pages and handlers use is in
// the catalog with a Portuguese and a Spanish translation (texts_es.go),
// and the catalog has no text nothing uses.
func TestEveryTextIsTranslated(t *testing.T) {
	used := map[string]bool{}
	files, _ := filepath.Glob("templates/*.html")
	gos, _ := filepath.Glob("*.go")
	for _, f := range append(files, gos...) {
		if filepath.Ext(f) == ".go" && (f == "texts.go" || filepath.Base(f) != f || len(f) > 8 && f[len(f)-8:] == "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range textCalls {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				used[m[1]] = true
			}
		}
	}
	for _, labels := range append(slices.Collect(maps.Values(valueNames)), flashTexts, fieldLabels, entryFieldLabels) {
		for _, v := range labels {
			used[v] = true
		}
	}
	keys := i18n.Keys(texts)
	var missing, unused []string
	for k := range used {
		if _, ok := keys[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range keys {
		if !used[k] {
			unused = append(unused, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(unused)
	for _, k := range missing {
		t.Errorf("not in the catalog: %q", k)
	}
	for _, k := range unused {
		t.Errorf("in the catalog but unused: %q", k)
	}
	for _, problem := range i18n.Missing(texts) {
		t.Error(problem)
	}
}

// TestEveryVerdictNamed: every verdict of the engine has a label on the
// pages (in the catalog, so translated: TestEveryTextIsTranslated), never
// the humanized key.
func TestEveryVerdictNamed(t *testing.T) {
	for _, v := range activation.Verdicts() {
		if verdicts[string(v)] == "" {
			t.Errorf("verdict %q has no label in verdicts (funcs.go)", v)
		}
	}
	if len(verdicts) != len(activation.Verdicts()) {
		t.Errorf("verdicts names %d verdicts, the engine has %d", len(verdicts), len(activation.Verdicts()))
	}
}

// TestFieldLabelsMatchForms: a field's name in the error banner and in a
// revision's or a proposal's changed fields (fieldLabels,
// entryFieldLabels) is, in every language, the start of the form's label
// of that field where the form's label adds a hint in brackets ("Scan
// depth" and "Scan depth (messages)"): the banner once said "Profundidade
// de busca" beside a field labelled "Profundidade de varredura".
func TestFieldLabelsMatchForms(t *testing.T) {
	for _, lang := range []struct {
		name  string
		texts [][2]string
	}{{"pt-BR", texts.Texts}, {"es", texts.Es}} {
		tr := map[string]string{}
		for _, x := range lang.texts {
			tr[x[0]] = x[1]
		}
		for _, labels := range []map[string]string{fieldLabels, entryFieldLabels} {
			for _, label := range labels {
				short, ok := tr[label]
				if !ok {
					continue // TestEveryTextIsTranslated reports it
				}
				for key, long := range tr {
					if strings.HasPrefix(key, label+" (") && !strings.HasPrefix(long, short) {
						t.Errorf("%s: %q is %q, but %q is %q", lang.name, label, short, key, long)
					}
				}
			}
		}
	}
}

// TestBackupChannelsPlurals: the backup preview's channel-list sentence
// counts its collections and persona entries with their plural forms in
// every language: "1 collection", never "1 collections".
func TestBackupChannelsPlurals(t *testing.T) {
	const key = "%s and %s keep the channel lists of the server the backup came from: while channel restrictions apply, that lore is used in no channel of this server until you choose its channels."
	cat := i18n.NewCatalog(texts)
	for _, tc := range []struct {
		tag           language.Tag
		cols, entries int
		want          string
	}{
		{i18n.EN, 1, 1, "1 collection and 1 persona entry keep"},
		{i18n.EN, 2, 0, "2 collections and 0 persona entries keep"},
		{i18n.PT, 1, 3, "1 coleção e 3 entradas de persona mantêm"},
		{i18n.PT, 4, 1, "4 coleções e 1 entrada de persona mantêm"},
		{i18n.ES, 1, 2, "1 colección y 2 entradas de persona conservan"},
		{i18n.ES, 3, 1, "3 colecciones y 1 entrada de persona conservan"},
	} {
		tr := tr{p: i18n.Printer(cat, tc.tag), tag: tc.tag}
		got := tr.S(key, tr.S("%d collections", tc.cols), tr.S("%d persona entries", tc.entries))
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %d/%d: %q, want it to start with %q", tc.tag, tc.cols, tc.entries, got, tc.want)
		}
	}
}
