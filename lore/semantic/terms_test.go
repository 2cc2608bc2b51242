package semantic_test

import (
	"slices"
	"testing"

	"loregate/lore/semantic"
)

func TestTerms(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"ascii words, stop words and one-letter words out", "The Spirit of a City, and I", []string{"spirit", "city"}},
		{"greeting matches nothing", "Hello! How are you today?", nil},
		{"portuguese greeting", "Olá, tudo bem? Bom dia!", nil},
		{"spanish greeting", "¡Hola! ¿Cómo estás? Buenos días.", nil},
		{"case folded as the matcher does", "TOHKA Yatogami", []string{"tohka", "yatogami"}},
		{"full-width folds to ascii", "ＫＵＲＵＭＩ", []string{"kurumi"}},
		{"apostrophes cut words", "Tohka’s bread", []string{"tohka", "bread"}},
		{"accents kept, decomposed input composed", "ação acçe\u0301", []string{"ação", "acçé"}},
		{"greek final sigma folds", "ΟΔΥΣΣΕΥΣ", []string{"οδυσσευσ"}},
		{"cyrillic", "Москва город", []string{"москва", "город"}},
		{"han as bigrams", "精霊の力", []string{"精霊", "霊の", "の力"}},
		{"lone han character stays", "霊 power", []string{"霊", "power"}},
		{"hangul bigrams", "정령 세계", []string{"정령", "세계"}},
		{"latin inside han", "士道は精霊DEM", []string{"士道", "道は", "は精", "精霊", "dem"}},
		{"digits", "Class 2-4 in 2026", []string{"class", "2026"}},
		{"invalid utf-8 is a separator", "spirit\xffcity", []string{"spirit", "city"}},
		{"empty", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := semantic.Terms(c.in); !slices.Equal(got, c.want) {
				t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"Hello world", "精霊の力", "a\u0301b", "\xff\xfe", "ＫＵＲＵＭＩ's"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := semantic.Terms(s)
		for _, term := range terms {
			if term == "" {
				t.Fatalf("Terms(%q) has an empty term", s)
			}
			// A term is in matching form already: cutting it again keeps it
			// (unless it is a stop word or shorter than two characters).
			if again := semantic.Terms(term); len(again) > 1 {
				t.Fatalf("term %q of %q cuts into %q", term, s, again)
			}
		}
	})
}
