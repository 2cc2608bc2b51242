package client

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

//go:embed operations/*.graphql
var operationFS embed.FS

// Source returns the operation documents as one source per file, for the
// validation test and for tools.
func Source() ([]*ast.Source, error) {
	names, err := fs.Glob(operationFS, "operations/*.graphql")
	if err != nil {
		return nil, err
	}
	out := make([]*ast.Source, 0, len(names))
	for _, n := range names {
		b, err := operationFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, &ast.Source{Name: n, Input: string(b)})
	}
	return out, nil
}

// Document parses every operation file into one document: every
// operation and fragment, by name.
func Document() (*ast.QueryDocument, error) {
	srcs, err := Source()
	if err != nil {
		return nil, err
	}
	doc := &ast.QueryDocument{}
	for _, src := range srcs {
		d, perr := parser.ParseQuery(src)
		if perr != nil {
			return nil, fmt.Errorf("client operations: %w", perr)
		}
		doc.Operations = append(doc.Operations, d.Operations...)
		doc.Fragments = append(doc.Fragments, d.Fragments...)
	}
	return doc, nil
}

// documents returns the text sent for each operation: the operation and
// the fragments it uses, transitively.
func documents() (map[Op]string, error) {
	doc, err := Document()
	if err != nil {
		return nil, err
	}
	out := make(map[Op]string, len(doc.Operations))
	for _, op := range doc.Operations {
		if op.Name == "" {
			return nil, fmt.Errorf("client operations: an operation in %s has no name", op.Position.Src.Name)
		}
		if _, dup := out[Op(op.Name)]; dup {
			return nil, fmt.Errorf("client operations: %s is defined twice", op.Name)
		}
		used, err := fragmentsOf(op.SelectionSet, doc.Fragments, nil)
		if err != nil {
			return nil, fmt.Errorf("client operations: %s: %w", op.Name, err)
		}
		var b strings.Builder
		formatter.NewFormatter(&b).FormatQueryDocument(&ast.QueryDocument{Operations: ast.OperationList{op}, Fragments: used})
		out[Op(op.Name)] = b.String()
	}
	return out, nil
}

// fragmentsOf appends to seen the fragments set spreads, transitively.
func fragmentsOf(set ast.SelectionSet, all ast.FragmentDefinitionList, seen ast.FragmentDefinitionList) (ast.FragmentDefinitionList, error) {
	for _, sel := range set {
		var err error
		switch s := sel.(type) {
		case *ast.Field:
			seen, err = fragmentsOf(s.SelectionSet, all, seen)
		case *ast.InlineFragment:
			seen, err = fragmentsOf(s.SelectionSet, all, seen)
		case *ast.FragmentSpread:
			if slices.ContainsFunc(seen, func(f *ast.FragmentDefinition) bool { return f.Name == s.Name }) {
				continue
			}
			f := all.ForName(s.Name)
			if f == nil {
				return nil, fmt.Errorf("unknown fragment %s", s.Name)
			}
			seen = append(seen, f)
			seen, err = fragmentsOf(f.SelectionSet, all, seen)
		}
		if err != nil {
			return nil, err
		}
	}
	return seen, nil
}
