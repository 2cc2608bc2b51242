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
	} {
		if got := i18n.Tag(tc.in).String(); got != tc.want {
			t.Errorf("Tag(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func ExampleNewCatalog() {
	set := i18n.Set{
		Texts:   [][2]string{{"Saved.", "Salvo."}},
		Plurals: []i18n.Plural{{Key: "%d entries", EnOne: "1 entry", EnMany: "%d entries", PtOne: "1 entrada", PtMany: "%d entradas"}},
	}
	cat := i18n.NewCatalog(set)
	pt := i18n.Printer(cat, i18n.Tag("pt-BR"))
	en := i18n.Printer(cat, i18n.Tag("en"))
	fmt.Println(pt.Sprintf("Saved."), pt.Sprintf("%d entries", 1), pt.Sprintf("%d entries", 3))
	fmt.Println(en.Sprintf("Saved."), en.Sprintf("%d entries", 1), en.Sprintf("%d entries", 3))
	// Output:
	// Salvo. 1 entrada 3 entradas
	// Saved. 1 entry 3 entries
}
