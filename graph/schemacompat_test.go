package graph_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"loregate/graph/graphtest"
)

// schemaModel is what a client can depend on in a schema, by type name:
// each type's kind, its fields (or input fields) with their types, their
// arguments with types, whether an input value may be left out (nullable
// or defaulted), enum values and union members.
type schemaModel map[string]*schemaType

type schemaType struct {
	kind     string
	fields   map[string]*schemaField
	values   []string // enum values, union members
	inputOpt map[string]bool
}

type schemaField struct {
	typ    string
	args   map[string]string
	argOpt map[string]bool
}

// modelFromSDL builds the model of an SDL document.
func modelFromSDL(t *testing.T, sdl string) schemaModel {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: sdl})
	require.NoError(t, err)
	m := schemaModel{}
	for name, d := range s.Types {
		if d.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		st := &schemaType{kind: string(d.Kind), fields: map[string]*schemaField{}, inputOpt: map[string]bool{}}
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			sf := &schemaField{typ: f.Type.String(), args: map[string]string{}, argOpt: map[string]bool{}}
			for _, a := range f.Arguments {
				sf.args[a.Name], sf.argOpt[a.Name] = a.Type.String(), !a.Type.NonNull || a.DefaultValue != nil
			}
			st.fields[f.Name] = sf
			if d.Kind == ast.InputObject {
				st.inputOpt[f.Name] = !f.Type.NonNull || f.DefaultValue != nil
			}
		}
		for _, v := range d.EnumValues {
			st.values = append(st.values, v.Name)
		}
		st.values = append(st.values, d.Types...) // union members
		m[name] = st
	}
	return m
}

// introType is a type of an introspection result.
type introType struct {
	Kind   string
	Name   *string
	OfType *introType
}

func (t *introType) String() string {
	switch t.Kind {
	case "NON_NULL":
		return t.OfType.String() + "!"
	case "LIST":
		return "[" + t.OfType.String() + "]"
	}
	return *t.Name
}

type introValue struct {
	Name         string
	Type         introType
	DefaultValue *string
}

// modelFromIntrospection builds the model of an introspection result
// (graphiqlIntrospection's).
func modelFromIntrospection(t *testing.T, data json.RawMessage) schemaModel {
	t.Helper()
	var r struct {
		Schema struct {
			Types []struct {
				Kind, Name string
				Fields     []struct {
					Name string
					Args []introValue
					Type introType
				}
				InputFields   []introValue
				EnumValues    []struct{ Name string }
				PossibleTypes []struct{ Name string }
			}
		} `json:"__schema"`
	}
	require.NoError(t, json.Unmarshal(data, &r))
	builtin := map[string]bool{"String": true, "Int": true, "Float": true, "Boolean": true, "ID": true}
	m := schemaModel{}
	for _, d := range r.Schema.Types {
		if builtin[d.Name] || strings.HasPrefix(d.Name, "__") {
			continue
		}
		st := &schemaType{kind: d.Kind, fields: map[string]*schemaField{}, inputOpt: map[string]bool{}}
		for _, f := range d.Fields {
			sf := &schemaField{typ: f.Type.String(), args: map[string]string{}, argOpt: map[string]bool{}}
			for _, a := range f.Args {
				sf.args[a.Name], sf.argOpt[a.Name] = a.Type.String(), a.Type.Kind != "NON_NULL" || a.DefaultValue != nil
			}
			st.fields[f.Name] = sf
		}
		for _, f := range d.InputFields {
			st.fields[f.Name] = &schemaField{typ: f.Type.String()}
			st.inputOpt[f.Name] = f.Type.Kind != "NON_NULL" || f.DefaultValue != nil
		}
		for _, v := range d.EnumValues {
			st.values = append(st.values, v.Name)
		}
		for _, p := range d.PossibleTypes {
			if d.Kind == "UNION" { // an interface's implementations are not listed in its SDL
				st.values = append(st.values, p.Name)
			}
		}
		m[d.Name] = st
	}
	return m
}

// breaking lists what cur removes or changes from base: a type, field,
// argument, input field, enum value or union member gone or retyped, or a
// required argument or input field added to what base has.
func breaking(base, cur schemaModel) []string {
	var out []string
	for name, bt := range base {
		ct := cur[name]
		switch {
		case ct == nil:
			out = append(out, "type "+name+" removed")
			continue
		case ct.kind != bt.kind:
			out = append(out, fmt.Sprintf("type %s: kind %s, was %s", name, ct.kind, bt.kind))
			continue
		}
		for fname, bf := range bt.fields {
			cf := ct.fields[fname]
			switch {
			case cf == nil:
				out = append(out, name+"."+fname+" removed")
				continue
			case cf.typ != bf.typ:
				out = append(out, fmt.Sprintf("%s.%s: type %s, was %s", name, fname, cf.typ, bf.typ))
			}
			for aname, atyp := range bf.args {
				if got, ok := cf.args[aname]; !ok || got != atyp {
					out = append(out, fmt.Sprintf("%s.%s(%s): %q, was %q", name, fname, aname, got, atyp))
				}
			}
			for aname := range cf.args {
				if _, old := bf.args[aname]; !old && !cf.argOpt[aname] {
					out = append(out, fmt.Sprintf("%s.%s(%s): a new required argument", name, fname, aname))
				}
			}
		}
		for fname := range ct.fields {
			if _, old := bt.fields[fname]; !old && bt.kind == string(ast.InputObject) && !ct.inputOpt[fname] {
				out = append(out, fmt.Sprintf("%s.%s: a new required input field", name, fname))
			}
		}
		for _, v := range bt.values {
			if !slices.Contains(ct.values, v) {
				out = append(out, name+": "+v+" removed")
			}
		}
	}
	slices.Sort(out)
	return out
}

// schemaKeptSince is the first commit of docs/schema.graphql: the API keeps
// everything of every version committed since (TestSchemaOnlyAdds). A
// breaking change recorded in docs/changes.md moves it past the versions
// holding what it removes.
const schemaKeptSince = "4606feddccbb396b6f90eb6bfe2c0be05633536e"

// committedSchemas returns every committed version of docs/schema.graphql
// since schemaKeptSince, by commit, from the repository's history (git).
func committedSchemas(t *testing.T) map[string]string {
	t.Helper()
	git := func(args ...string) string {
		out, err := exec.Command("git", args...).Output()
		require.NoError(t, err, "git %s: the schema check reads docs/schema.graphql's history (a shallow clone needs git fetch --unshallow)", strings.Join(args, " "))
		return string(out)
	}
	revs := strings.Fields(git("log", "--format=%H", schemaKeptSince+"^..HEAD", "--", "../docs/schema.graphql"))
	require.Contains(t, revs, schemaKeptSince)
	out := make(map[string]string, len(revs))
	for _, rev := range revs {
		out[rev] = git("show", rev+":docs/schema.graphql")
	}
	return out
}

// TestSchemaOnlyAdds: the schema the API reports by introspection keeps
// everything of each committed version of docs/schema.graphql since
// schemaKeptSince (one source: the printed SDL and its history): additions
// pass, a removal or a change of type fails (docs/changes.md records
// breaking changes). The printed SDL in the tree and introspection agree.
func TestSchemaOnlyAdds(t *testing.T) {
	a := wrap(t, graphtest.New(t, graphtest.Options{NoStore: true, Introspection: true}))
	r := a.do(serviceKey, graphiqlIntrospection, nil)
	require.Empty(t, r.Errors)
	data, err := json.Marshal(r.Data)
	require.NoError(t, err)
	cur := modelFromIntrospection(t, data)
	require.Contains(t, cur, "Query")
	for rev, sdl := range committedSchemas(t) {
		base := modelFromSDL(t, sdl)
		require.Greater(t, len(base), 50, "docs/schema.graphql at %s holds the schema", rev)
		require.Empty(t, breaking(base, cur), "the API breaks docs/schema.graphql as committed at %s", rev)
	}
	printed, err := os.ReadFile("../docs/schema.graphql")
	require.NoError(t, err)
	require.Empty(t, breaking(modelFromSDL(t, string(printed)), cur))
	require.Empty(t, breaking(cur, modelFromSDL(t, string(printed))))
}

// TestSchemaBreaking checks the comparison on small schemas.
func TestSchemaBreaking(t *testing.T) {
	const base = `type Query { a(x: Int): String! b: [Int!] }
input In { p: Int! q: String }
enum E { ONE TWO }
type T { id: ID! }
union U = T`
	for _, tc := range []struct {
		name, cur string
		want      []string
	}{
		{"same", base, nil},
		{"additions", `type Query { a(x: Int, y: Int, z: Int = 1): String! b: [Int!] c: Int }
input In { p: Int! q: String r: Int s: Int! = 2 }
enum E { ONE TWO THREE }
type T { id: ID! name: String }
type V { id: ID! }
union U = T | V`, nil},
		{"removals", `type Query { a: String! }
input In { p: Int! }
enum E { ONE }
type T { id: ID! }
union U = T`, []string{"E: TWO removed", "In.q removed", "Query.a(x): \"\", was \"Int\"", "Query.b removed"}},
		{"retyped", `type Query { a(x: Int!): String b: [Int!] }
input In { p: Int! q: String }
enum E { ONE TWO }
type T { id: ID! }
union U = T`, []string{"Query.a(x): \"Int!\", was \"Int\"", "Query.a: type String, was String!"}},
		{"new required", `type Query { a(x: Int, y: Int!): String! b: [Int!] }
input In { p: Int! q: String r: Int! }
enum E { ONE TWO }
type T { id: ID! }
union U = T`, []string{"In.r: a new required input field", "Query.a(y): a new required argument"}},
		{"type gone", `type Query { a(x: Int): String! b: [Int!] }
input In { p: Int! q: String }
enum E { ONE TWO }
type T { id: ID! }
union U = T | T2
type T2 { id: ID! }`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := breaking(modelFromSDL(t, base), modelFromSDL(t, tc.cur))
			if len(tc.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
	got := breaking(modelFromSDL(t, base+"\ntype Gone { id: ID! }"), modelFromSDL(t, base))
	require.Equal(t, []string{"type Gone removed"}, got)
}
