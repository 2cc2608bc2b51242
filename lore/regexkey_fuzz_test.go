package lore

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// FuzzRegexKey fuzzes the regex key compiler: any key either is literal,
// compiles within the bounds (and its real RE2 program is no larger than
// the bound's estimate), or is refused with a reason; API validation
// refuses exactly the keys over a bound; matching a compiled key on a
// short text terminates.
func FuzzRegexKey(f *testing.F) {
	for _, k := range []string{`/\bdragons?\b/i`, `/[\s\S]{0,1000}z/`, `/(a{10}){11}/`, `/a(?=b)/`, `/x{5,}y*/s`,
		`/[\s\S]{0,100}[\s\S]{0,100}[\s\S]{0,100}z/`, "/" + strings.Repeat("a", MaxRegexLen+1) + "/", "plain", `/a\/b/gimsuy`, `/(?i)((a|b){2,9}){3,4}/m`} {
		f.Add(k, "a dragon in the glade")
	}
	f.Fuzz(func(t *testing.T, key, text string) {
		if len(key) > 2*MaxKeyLen || len(text) > 4096 {
			return
		}
		src, n, isRegex := RegexKeySource(key)
		problemSeen, _ := CheckRegexKey(key)
		if isRegex != problemSeen {
			t.Fatalf("CheckRegexKey and RegexKeySource disagree on %q", key)
		}
		verr := ValidateRegexKeys("keys", []string{key})
		if !isRegex {
			if verr != nil {
				t.Fatalf("literal key %q refused: %v", key, verr)
			}
			return
		}
		re, size, problem, over := CompileRegexKey(src, n)
		if over != (verr != nil) {
			t.Fatalf("%q: over bound %v but validation error %v", key, over, verr)
		}
		if re == nil {
			if problem == "" {
				t.Fatalf("%q: refused without a reason", key)
			}
			return
		}
		if problem != "" || over || size > MaxRegexProgram || size <= 0 {
			t.Fatalf("%q: compiled with problem %q over %v size %d", key, problem, over, size)
		}
		tree, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatalf("%q: compiled by regexp but not by syntax: %v", key, err)
		}
		prog, err := syntax.Compile(tree.Simplify())
		if err != nil {
			t.Fatal(err)
		}
		if len(prog.Inst) > size {
			t.Fatalf("%q: RE2 program of %d instructions, estimate %d", key, len(prog.Inst), size)
		}
		_ = re.MatchString(text)
	})
}
