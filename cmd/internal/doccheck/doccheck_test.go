package doccheck

import (
	"bufio"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	citeRE   = regexp.MustCompile(`docs/([A-Za-z0-9_.-]+\.md)(?:#([A-Za-z0-9_-]+))?`)
	anchorRE = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	headRE   = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// Citations of documents outside the repository.
	outside = []string{"seed 00", "design.md", "reference/", "/work/shared", "formats.md section", ".md §"}
	// bugRE is a bug-case id; in a test comment it needs a description.
	bugRE = regexp.MustCompile(`BUG-[0-9.*]+`)
	// wordRE counts the words of a description.
	wordRE = regexp.MustCompile(`[\pL]{2,}`)
)

// minBugWords is how many words a comment line citing bug-case ids must
// have besides them: the one-line description of the fault.
const minBugWords = 4

// repoRoot finds the directory holding go.mod above the working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// checkedFiles lists the tracked files the check reads: Go sources (tests
// too, not graph/generated), docs/*.md and README.md.
func checkedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the check needs a git work tree)", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		switch {
		case f == "":
		case strings.HasSuffix(f, ".go"):
			if strings.HasPrefix(f, "graph/generated/") {
				continue
			}
			files = append(files, f)
		case f == "README.md":
			files = append(files, f)
		case strings.HasPrefix(f, "docs/") && strings.HasSuffix(f, ".md") && !strings.Contains(f[len("docs/"):], "/"):
			files = append(files, f)
		}
	}
	return files
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file: explicit <a id> tags and
// heading slugs (repeated headings get -1, -2, ... as on GitHub).
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	set := map[string]bool{}
	seen := map[string]int{}
	fence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		for _, m := range anchorRE.FindAllStringSubmatch(line, -1) {
			set[m[1]] = true
		}
		if fence {
			continue
		}
		if m := headRE.FindStringSubmatch(line); m != nil {
			s := slug(m[1])
			if n := seen[s]; n > 0 {
				set[s+"-"+itoa(n)] = true
			} else {
				set[s] = true
			}
			seen[s]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return set
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func TestCitationsResolve(t *testing.T) {
	root := repoRoot(t)
	files := checkedFiles(t, root)
	if len(files) == 0 {
		t.Fatal("no files to check")
	}
	docAnchors := map[string]map[string]bool{}
	exists := func(name string) (map[string]bool, bool) {
		if a, ok := docAnchors[name]; ok {
			return a, a != nil
		}
		p := filepath.Join(root, "docs", name)
		if _, err := os.Stat(p); err != nil {
			docAnchors[name] = nil
			return nil, false
		}
		a := anchors(t, p)
		if a == nil {
			a = map[string]bool{}
		}
		docAnchors[name] = a
		return a, true
	}
	for _, f := range files {
		for _, l := range checkedLines(t, filepath.Join(root, f)) {
			pos, line := f+":"+itoa(l.n), l.text
			for _, m := range citeRE.FindAllStringSubmatch(line, -1) {
				a, ok := exists(m[1])
				if !ok {
					t.Errorf("%s: cites docs/%s, which does not exist", pos, m[1])
					continue
				}
				if m[2] != "" && !a[m[2]] {
					t.Errorf("%s: cites docs/%s#%s, which has no such anchor", pos, m[1], m[2])
				}
			}
			lower := strings.ToLower(line)
			for _, s := range outside {
				if strings.Contains(lower, s) {
					t.Errorf("%s: cites a document outside the repository (%q): %s", pos, s, strings.TrimSpace(line))
				}
			}
			if l.comment && bugRE.MatchString(line) {
				rest := bugRE.ReplaceAllString(line, "")
				if len(wordRE.FindAllString(rest, -1)) < minBugWords {
					t.Errorf("%s: a bug-case id needs a one-line description of the fault: %s", pos, strings.TrimSpace(line))
				}
			}
		}
	}
}

// line is one checked line of a file; comment is set for comment lines of
// test files.
type line struct {
	n       int
	text    string
	comment bool
}

// checkedLines returns the lines the check reads: every line of a source or
// doc, only the comments of a test file (tests name outside material they
// read, such as the shared cases, in code).
func checkedLines(t *testing.T, path string) []line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []line
	if !strings.HasSuffix(path, "_test.go") {
		for i, text := range strings.Split(string(data), "\n") {
			out = append(out, line{n: i + 1, text: text})
		}
		return out
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, data, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			first := fset.Position(c.Pos()).Line
			for i, text := range strings.Split(c.Text, "\n") {
				out = append(out, line{n: first + i, text: text, comment: true})
			}
		}
	}
	return out
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Keys and matching":                       "keys-and-matching",
		"Recursion, inclusion groups, decorators": "recursion-inclusion-groups-decorators",
		"`activate` and `activateTurn`":           "activate-and-activateturn",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
