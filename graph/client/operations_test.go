package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	gqlast "github.com/vektah/gqlparser/v2/ast"
	gqlparse "github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"loregate/graph/generated"
)

// TestEveryOp: every Op constant of ops.go names an operation of
// operations/*.graphql and every operation has its constant.
func TestEveryOp(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "ops.go", nil, 0)
	require.NoError(t, err)
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Op" {
				v, err := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
				require.NoError(t, err)
				consts = append(consts, v)
			}
		}
		return true
	})
	docs, err := documents()
	require.NoError(t, err)
	names := make([]string, 0, len(docs))
	for op := range maps.Keys(docs) {
		names = append(names, string(op))
	}
	slices.Sort(consts)
	slices.Sort(names)
	require.Equal(t, names, consts)
}

// TestOperationsValidate: every operation, as it is sent (with its
// fragments), is valid against the schema the API serves.
func TestOperationsValidate(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	docs, err := documents()
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for op, text := range docs {
		doc, perr := gqlparse.ParseQuery(&gqlast.Source{Name: string(op), Input: text})
		require.Nil(t, perr, "%s", op)
		require.Empty(t, validator.ValidateWithRules(schema, doc, nil), "operation %s:\n%s", op, text)
	}
}

// TestOperationsFailOnRename: renaming, in a copy of the schema loaded
// from graph/*.graphqls, any field that an operation selects makes the
// operations fail validation, naming the field, for every selected field
// one at a time.
func TestOperationsFailOnRename(t *testing.T) {
	schema := loadSchemaFiles(t)
	doc, err := Document()
	require.NoError(t, err)
	require.Empty(t, validator.ValidateWithRules(schema, doc, nil), "every operation must be valid against graph/*.graphqls: the errors name the operation file and the field a schema change broke")
	fields := selectedFields(doc)
	t.Logf("%d fields selected", len(fields))
	require.Greater(t, len(fields), 100, "the operations select many fields")
	for _, f := range fields {
		def := schema.Types[f.typ].Fields.ForName(f.name)
		require.NotNil(t, def, "%s.%s", f.typ, f.name)
		def.Name = f.name + "Renamed"
		errs := validator.ValidateWithRules(schema, doc, nil)
		def.Name = f.name
		require.NotEmpty(t, errs, "renaming %s.%s must fail validation", f.typ, f.name)
		require.Contains(t, errs.Error(), `Cannot query field "`+f.name+`" on type "`+f.typ+`"`)
	}
}

// loadSchemaFiles loads a fresh copy of the schema from its source files.
func loadSchemaFiles(t *testing.T) *gqlast.Schema {
	t.Helper()
	files, err := filepath.Glob("../*.graphqls")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	srcs := make([]*gqlast.Source, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		srcs = append(srcs, &gqlast.Source{Name: f, Input: string(b)})
	}
	schema, gerr := gqlparser.LoadSchema(srcs...)
	require.Nil(t, gerr)
	return schema
}

type typeField struct{ typ, name string }

// selectedFields lists every schema field a validated document selects
// (introspection fields aside), once each.
func selectedFields(doc *gqlast.QueryDocument) []typeField {
	seen := map[typeField]bool{}
	var walk func(set gqlast.SelectionSet)
	walk = func(set gqlast.SelectionSet) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *gqlast.Field:
				if s.ObjectDefinition != nil && !strings.HasPrefix(s.Name, "__") {
					seen[typeField{s.ObjectDefinition.Name, s.Name}] = true
				}
				walk(s.SelectionSet)
			case *gqlast.InlineFragment:
				walk(s.SelectionSet)
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		walk(f.SelectionSet)
	}
	out := slices.Collect(maps.Keys(seen))
	slices.SortFunc(out, func(a, b typeField) int { return strings.Compare(a.typ+"."+a.name, b.typ+"."+b.name) })
	return out
}
