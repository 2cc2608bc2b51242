package explorer_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"loregate/graph/explorer"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// TestPageIsSelfContained: the page loads every script and style from the
// embedded assets (no CDN), and each of them is served.
func TestPageIsSelfContained(t *testing.T) {
	h := explorer.Handler("loregate GraphQL", "/graphql")
	res, page := get(t, h, "/")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if m := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`).FindString(page); m != "" {
		t.Errorf("page references an external URL %q:\n%s", m, page)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) != 4 {
		t.Fatalf("want 4 asset references (3 scripts, 1 style), got %v", refs)
	}
	for _, ref := range refs {
		if !strings.HasPrefix(ref[1], explorer.AssetPrefix) {
			t.Errorf("asset %q not under %s", ref[1], explorer.AssetPrefix)
			continue
		}
		res, body := get(t, h, ref[1])
		if res.StatusCode != http.StatusOK || len(body) < 1000 {
			t.Errorf("GET %s = %d, %d bytes", ref[1], res.StatusCode, len(body))
		}
	}
	if !strings.Contains(page, `url: "/graphql"`) {
		t.Errorf("page does not point GraphiQL at /graphql:\n%s", page)
	}
}

func TestUnknownPaths(t *testing.T) {
	h := explorer.Handler("t", "/graphql")
	for _, p := range []string{"/nope", explorer.AssetPrefix + "missing.js", explorer.AssetPrefix + "README.md"} {
		if res, _ := get(t, h, p); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, res.StatusCode)
		}
	}
}
