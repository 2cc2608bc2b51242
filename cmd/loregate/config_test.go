package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestEveryVariableDocumented: every LOREGATE_* variable the configuration
// reads is listed in docs/configuration.md.
func TestEveryVariableDocumented(t *testing.T) {
	src, err := os.ReadFile("config.go")
	require.NoError(t, err)
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	require.NoError(t, err)
	names := regexp.MustCompile(`"(LOREGATE_[A-Z0-9_]+)"`).FindAllStringSubmatch(string(src), -1)
	require.Greater(t, len(names), 20, "config.go reads the variables")
	vars := []string{lore.EnvMaxScopeEntries, lore.EnvMaxContentChars, lore.EnvMaxJSONBytes}
	for _, m := range names {
		vars = append(vars, m[1])
	}
	for _, v := range vars {
		require.Contains(t, string(docs), v, "docs/configuration.md does not list %s", v)
	}
}

// TestEnvironmentReadInConfigOnly: outside tests, only config.go reads the
// environment (through the cli.Env getter); library packages get their
// values through their config structs. The test-support packages that find
// the test database and the shared corpus are the exception.
func TestEnvironmentReadInConfigOnly(t *testing.T) {
	allowed := map[string]bool{
		"cmd/loregate/config.go":                     true,
		"lore/postgres/postgrestest/postgrestest.go": true, // TEST_DATABASE_URL, CI
		"lore/sharedtest/sharedtest.go":              true, // CI
		"cmd/loregate/testdata/floorserve/main.go":   true, // BenchmarkServeTurn's stand-in for serve, configured as serve
	}
	read := regexp.MustCompile(`\bos\.(Getenv|LookupEnv)\(|\bgetenv\("|\bGetenv\("`)
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if read.Match(src) && !allowed[filepath.ToSlash(rel)] {
			t.Errorf("%s reads the environment: read it in cmd/loregate/config.go and pass the value in a config struct", rel)
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, n, 50, "the walk saw the repository")
}
