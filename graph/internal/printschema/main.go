// Command printschema writes the whole GraphQL schema of the API, the
// graph/*.graphqls files merged into one SDL document, to the file named by
// -o (docs/schema.graphql). `make generate` runs it after gqlgen and `make
// verify` fails when the committed file is stale.
//
//	go run ./internal/printschema -o ../docs/schema.graphql   (from graph/)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// header opens the printed file.
const header = `# The loregate GraphQL API: every type, field and argument, printed from
# graph/*.graphqls by ` + "`make generate`" + ` (do not edit; ` + "`make verify`" + ` checks it).
# Generate typed clients from it (docs/api.md "Typed clients").

`

func main() {
	out := flag.String("o", "", "output file")
	dir := flag.String("dir", ".", "directory of the .graphqls files")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "printschema: -o is required")
		os.Exit(2)
	}
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "printschema:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	sdl, err := Print(dir)
	if err != nil {
		return err
	}
	return os.WriteFile(out, sdl, 0o644)
}

// Print loads dir's .graphqls files (sorted by name) as one schema and
// returns its SDL with descriptions, after header.
func Print(dir string) ([]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.graphqls"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .graphqls file in %s", dir)
	}
	sort.Strings(paths)
	var sources []*ast.Source
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sources = append(sources, &ast.Source{Name: filepath.Base(p), Input: string(data)})
	}
	schema, err := gqlparser.LoadSchema(sources...)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(header)
	formatter.NewFormatter(&b).FormatSchema(schema)
	return b.Bytes(), nil
}
