package i18n_test

import (
	"fmt"
	"testing"

	"loregate/lore/i18n"
)

func TestTag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"pt-BR", "pt-BR"},
		{"pt", "pt-BR"},
		{"pt-PT,en;q=0.5", "pt-BR"},
		{"en-US,en;q=0.9,pt-BR;q=0.8", "en"},
		{"fr", "en"},
		{"", "en"},
		{"%%%bad", "en"},
		{"es", "es"},
		{"es-ES", "es"},
		{"es-419", "es"},
		{"es-MX,en;q=0.5", "es"},
		{"en-US,es;q=0.9", "en"},
	} {
		if got := i18n.Tag(tc.in).String(); got != tc.want {
			t.Errorf("Tag(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func ExampleNewCatalog() {
	set := i18n.Set{
		Texts: [][2]string{{"Saved.", "Salvo."}},
		Es:    [][2]string{{"Saved.", "Guardado."}},
		Plurals: []i18n.Plural{{Key: "%d entries", EnOne: "1 entry", EnMany: "%d entries", PtOne: "1 entrada", PtMany: "%d entradas",
			EsOne: "1 entrada", EsMany: "%d entradas"}},
	}
	cat := i18n.NewCatalog(set)
	pt := i18n.Printer(cat, i18n.Tag("pt-BR"))
	es := i18n.Printer(cat, i18n.Tag("es-419"))
	en := i18n.Printer(cat, i18n.Tag("en"))
	fmt.Println(pt.Sprintf("Saved."), pt.Sprintf("%d entries", 1), pt.Sprintf("%d entries", 3))
	fmt.Println(es.Sprintf("Saved."), es.Sprintf("%d entries", 1), es.Sprintf("%d entries", 3))
	fmt.Println(en.Sprintf("Saved."), en.Sprintf("%d entries", 1), en.Sprintf("%d entries", 3))
	// Output:
	// Salvo. 1 entrada 3 entradas
	// Guardado. 1 entrada 3 entradas
	// Saved. 1 entry 3 entries
}

func TestMissing(t *testing.T) {
	set := i18n.Set{
		Texts:   [][2]string{{"A", "A-pt"}, {"B", ""}, {"C", "C-pt"}},
		Es:      [][2]string{{"A", "A-es"}, {"B", "B-es"}, {"Z", "Z-es"}},
		Plurals: []i18n.Plural{{Key: "%d x", EnOne: "1 x", EnMany: "%d x", PtOne: "1 x", PtMany: "%d x"}},
	}
	got := i18n.Missing(set)
	want := []string{`no Portuguese for "B"`, `no Spanish for "C"`, `a Spanish text for a key the set does not have: "Z"`, `a plural form is missing for "%d x"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Missing = %q, want %q", got, want)
	}
}
