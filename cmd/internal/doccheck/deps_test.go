package doccheck

import (
	"os/exec"
	"strings"
	"testing"
)

// codecDeps are the packages of this module the codecs (lore/format/...)
// may import: the domain package with the message catalog it uses, and the
// decorator parser. The engine (lore/activation) and everything with I/O
// stay out.
var codecDeps = []string{"loregate/lore", "loregate/lore/i18n", "loregate/lore/decorator"}

// TestCodecsDependOnLore: `go list -deps ./lore/format/...` names no
// package of this module outside lore/format besides codecDeps.
func TestCodecsDependOnLore(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-deps", "./lore/format/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, "loregate/") || strings.HasPrefix(p, "loregate/lore/format") {
			continue
		}
		n++
		ok := false
		for _, d := range codecDeps {
			ok = ok || p == d
		}
		if !ok {
			t.Errorf("lore/format depends on %s: codecs depend on lore only (move what they need into lore)", p)
		}
	}
	if n == 0 {
		t.Fatal("go list named no loregate package: the check read nothing")
	}
}
