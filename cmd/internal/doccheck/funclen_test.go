package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLoreFuncLines is the longest a function in lore/ may be, from its
// func keyword to its closing brace (README.md, Development).
const maxLoreFuncLines = 120

// longFuncs returns "path:line name (n lines)" for every function
// declaration or literal of the Go source src longer than limit lines.
func longFuncs(fset *token.FileSet, path string, src any, limit int) ([]string, error) {
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var long []string
	ast.Inspect(f, func(n ast.Node) bool {
		var name string
		switch d := n.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				return true
			}
			name = d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				name = recvName(d.Recv.List[0].Type) + "." + name
			}
		case *ast.FuncLit:
			name = "func literal"
		default:
			return true
		}
		start, end := fset.Position(n.Pos()), fset.Position(n.End())
		if lines := end.Line - start.Line + 1; lines > limit {
			long = append(long, fmt.Sprintf("%s:%d %s (%d lines)", path, start.Line, name, lines))
		}
		return true
	})
	return long, nil
}

// recvName is the type name of a method receiver.
func recvName(x ast.Expr) string {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// TestLoreFunctionLength keeps every function of lore/ (tests included)
// at most maxLoreFuncLines lines: split a longer one into named steps.
func TestLoreFunctionLength(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	n := 0
	for _, f := range checkedFiles(t, root) {
		if !strings.HasPrefix(f, "lore/") || !strings.HasSuffix(f, ".go") {
			continue
		}
		n++
		long, err := longFuncs(fset, f, mustRead(t, filepath.Join(root, f)), maxLoreFuncLines)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range long {
			t.Errorf("%s: over %d lines; split it into named steps", l, maxLoreFuncLines)
		}
	}
	if n == 0 {
		t.Fatal("no Go file under lore/ was checked")
	}
}

// mustRead returns the contents of path.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLongFuncs checks the measure itself on small sources.
func TestLongFuncs(t *testing.T) {
	body := func(n int) string { return strings.Repeat("\t_ = 0\n", n) }
	for _, tc := range []struct {
		name, src string
		limit     int
		want      []string
	}{
		{"at the limit", "package p\nfunc f() {\n" + body(3) + "}\n", 5, nil},
		{"one over", "package p\nfunc f() {\n" + body(4) + "}\n", 5, []string{"x.go:2 f (6 lines)"}},
		{"method", "package p\ntype T[E any] struct{}\nfunc (t *T[E]) m() {\n" + body(4) + "}\n", 5, []string{"x.go:3 T.m (6 lines)"}},
		{"package-level literal", "package p\nvar f = func() {\n" + body(4) + "}\n", 5, []string{"x.go:2 func literal (6 lines)"}},
		{"declaration without body", "package p\nfunc f()\n", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := longFuncs(token.NewFileSet(), "x.go", tc.src, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
