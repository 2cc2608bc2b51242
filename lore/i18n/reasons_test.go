package i18n_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"loregate/lore/activation"
	"loregate/lore/i18n"
)

var lowerSnake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestReasons: every reason key is lower_snake, unique, has a text in
// English, Portuguese and Spanish naming the same params, and is listed
// in docs/api.md "Reason keys".
func TestReasons(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range i18n.Reasons() {
		if !lowerSnake.MatchString(r.Key) {
			t.Errorf("reason key %q is not lower_snake", r.Key)
		}
		if seen[r.Key] {
			t.Errorf("reason key %q is listed twice", r.Key)
		}
		seen[r.Key] = true
		for lang, s := range map[string]string{"English": r.En, "Portuguese": r.Pt, "Spanish": r.Es} {
			if strings.TrimSpace(s) == "" {
				t.Errorf("reason %q has no %s text", r.Key, lang)
				continue
			}
			if got, want := sortedSet(i18n.Placeholders(s)), sortedSet(i18n.Placeholders(r.En)); !slices.Equal(got, want) {
				t.Errorf("reason %q: the %s text uses params %v, the English one %v", r.Key, lang, got, want)
			}
		}
		if !strings.Contains(string(doc), "| `"+r.Key+"` |") {
			t.Errorf("reason %q is not in the table of docs/api.md \"Reason keys\"", r.Key)
		}
	}
}

// TestReasonConstantsInTable: every Key constant of reasons.go has its
// line in the table (a constant without texts would render as its key).
func TestReasonConstantsInTable(t *testing.T) {
	for name, key := range keyConstants(t, "reasons.go", "Key") {
		if !i18n.Known(key) {
			t.Errorf("constant %s (%q) has no line in the reasons table", name, key)
		}
	}
}

// TestEveryVerdictHasAReason: every trace verdict declared anywhere under
// lore/ (a constant of type Verdict) has a reason line with its texts and
// is in activation.Verdicts() (the list the dashboard names).
func TestEveryVerdictHasAReason(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		for name, v := range keyConstants(t, path, "Verdict") {
			n++
			if !i18n.Known(v) {
				t.Errorf("verdict %s (%q, %s) has no reason line in lore/i18n/reasons.go", name, v, path)
			}
			if !slices.Contains(activation.Verdicts(), activation.Verdict(v)) {
				t.Errorf("verdict %s (%q, %s) is not in activation.Verdicts()", name, v, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Fatalf("found %d verdict constants under lore/, want the engine's (at least 15)", n)
	}
}

// keyConstants returns the string constants of the named type declared in
// a Go file, by name.
func keyConstants(t *testing.T, path, typ string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ || len(vs.Values) != len(vs.Names) {
				continue
			}
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out[name.Name] = v
				}
			}
		}
	}
	return out
}

func sortedSet(xs []string) []string {
	s := slices.Clone(xs)
	slices.Sort(s)
	return slices.Compact(s)
}

func TestText(t *testing.T) {
	p := map[string]any{"length": 250, "max": 200}
	for _, tc := range []struct {
		lang, want string
	}{
		{"en", "is 250 characters long, at most 200 allowed"},
		{"pt-BR", "tem 250 caracteres; o máximo é 200"},
		{"es-419", "tiene 250 caracteres; el máximo es 200"},
		{"fr", "is 250 characters long, at most 200 allowed"},
	} {
		if got := i18n.Text(i18n.Tag(tc.lang), i18n.TooLong, p); got != tc.want {
			t.Errorf("Text(%s, too_long) = %q, want %q", tc.lang, got, tc.want)
		}
	}
	if got := i18n.Text(i18n.EN, i18n.TooLong, map[string]any{"max": 3}); got != "is {length} characters long, at most 3 allowed" {
		t.Errorf("a missing param: %q", got)
	}
	if got := i18n.Text(i18n.ES, "no_such_key", nil); got != "no_such_key" {
		t.Errorf("unknown key: %q", got)
	}
	if got := i18n.Text(i18n.EN, i18n.NotOneOf, map[string]any{"value": "x", "allowed": []string{"a", "b"}}); got != `"x" is not one of a, b` {
		t.Errorf("list param: %q", got)
	}
}

func ExampleText() {
	params := map[string]any{"value": 150, "min": 0, "max": 100}
	for _, lang := range []string{"en", "pt-BR", "es-ES"} {
		fmt.Println(i18n.Text(i18n.Tag(lang), i18n.OutOfRange, params))
	}
	// Output:
	// 150 is outside 0-100
	// 150 está fora do intervalo 0-100
	// 150 está fuera del rango 0-100
}
