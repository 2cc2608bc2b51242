package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// genericInvalidCalls returns "path:line" for every call of lore.Invalid
// (or of Invalid inside package lore) and every lore.InvalidError literal
// without a Key in the Go source src: a rule raised that way carries only
// the generic reason key "invalid", which clients cannot render in the
// member's language (docs/api.md "Reason keys"). So are a report warning
// written as text: a call of a Warnf method, an append to or an
// assignment of a Warnings field, outside the Report methods that write a
// notice's English text beside it (Notef, PrependNotices, Normalize).
func genericInvalidCalls(fset *token.FileSet, path string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	inLore := f.Name.Name == "lore"
	is := func(x ast.Expr, name string) bool {
		switch x := x.(type) {
		case *ast.SelectorExpr:
			pkg, ok := x.X.(*ast.Ident)
			return ok && pkg.Name == "lore" && x.Sel.Name == name
		case *ast.Ident:
			return inLore && x.Name == name
		}
		return false
	}
	var calls []string
	ast.Inspect(f, func(n ast.Node) bool {
		hit := false
		switch n := n.(type) {
		case *ast.FuncDecl:
			// Invalid itself builds the keyless error; the report's
			// notice methods write the English texts.
			if n.Recv != nil && notesWarnings[n.Name.Name] {
				return false
			}
			return !(inLore && n.Recv == nil && n.Name.Name == "Invalid")
		case *ast.CallExpr:
			hit = is(n.Fun, "Invalid") || isSel(n.Fun, "Warnf")
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "append" && len(n.Args) > 0 {
				hit = hit || isSel(n.Args[0], "Warnings")
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				hit = hit || isSel(l, "Warnings")
			}
		case *ast.CompositeLit:
			hit = is(n.Type, "InvalidError") && !hasKey(n, "Key")
		}
		if hit {
			calls = append(calls, fmt.Sprintf("%s:%d", path, fset.Position(n.Pos()).Line))
		}
		return true
	})
	return calls, nil
}

// notesWarnings are the methods that write a report's Warnings beside its
// notices.
var notesWarnings = map[string]bool{"Notef": true, "PrependNotices": true, "Normalize": true}

// isSel reports whether x is a selector of name (x.name).
func isSel(x ast.Expr, name string) bool {
	s, ok := x.(*ast.SelectorExpr)
	return ok && s.Sel.Name == name
}

// hasKey reports whether the composite literal sets the field name.
func hasKey(c *ast.CompositeLit, name string) bool {
	for _, el := range c.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return true
			}
		}
	}
	return false
}

// TestNoGenericReason: no code outside tests raises a field error with the
// generic reason key: give each rule its own key in lore/i18n/reasons.go
// (texts in en, pt-BR and es, a row in docs/api.md) and raise it with
// lore.Reject and its params.
func TestNoGenericReason(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	n := 0
	for _, f := range checkedFiles(t, root) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		calls, err := genericInvalidCalls(fset, f, mustRead(t, filepath.Join(root, f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			t.Errorf("%s: lore.Invalid, a keyless lore.InvalidError or a report warning written as text has no reason key; use lore.Reject or Report.Notef with a reason key of lore/i18n", c)
		}
	}
	if n < 100 {
		t.Fatalf("checked %d Go files, want the repository's", n)
	}
}

// TestGenericInvalidCalls checks the detector on small sources.
func TestGenericInvalidCalls(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"qualified call", "package p\nfunc f() error {\n\treturn lore.Invalid(\"x\", \"bad\")\n}\n", []string{"x.go:3"}},
		{"inside package lore", "package lore\nfunc f() error { return Invalid(\"x\", \"bad\") }\n", []string{"x.go:2"}},
		{"Invalid of another package", "package p\nfunc f() error { return Invalid(\"x\", \"bad\") }\n", nil},
		{"Reject", "package p\nfunc f() error { return lore.Reject(\"x\", i18n.Empty, nil) }\n", nil},
		{"literal without a key", "package p\nvar e = &lore.InvalidError{Field: \"x\", Reason: \"bad\"}\n", []string{"x.go:2"}},
		{"literal with a key", "package p\nvar e = &lore.InvalidError{Field: \"x\", Key: i18n.Empty}\n", nil},
		{"Invalid's own literal", "package lore\nfunc Invalid(f, r string) error { return &InvalidError{Field: f, Reason: r} }\n", nil},
		{"Warnf", "package p\nfunc f(r *Report) { r.Warnf(\"x %d\", 1) }\n", []string{"x.go:2"}},
		{"append to Warnings", "package p\nfunc f(r *Report) {\n\tr.Warnings = append(r.Warnings, \"x\")\n}\n", []string{"x.go:3", "x.go:3"}},
		{"prepend to Warnings", "package p\nfunc f(r *Report, w []string) { r.Warnings = append(w, r.Warnings...) }\n", []string{"x.go:2"}},
		{"Notef writes both", "package p\nfunc (r *Report) Notef(k string) { r.Warnings = append(r.Warnings, k) }\n", nil},
		{"Notef call", "package p\nfunc f(r *Report) { r.Notef(i18n.BookDisabled, nil) }\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := genericInvalidCalls(token.NewFileSet(), "x.go", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
