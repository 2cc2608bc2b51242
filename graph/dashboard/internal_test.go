package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseChat: "Name: text" lines start messages, other lines continue
// them, blank lines end them.
func TestParseChat(t *testing.T) {
	for _, tc := range []struct {
		name string
		chat string
		want []map[string]any
	}{
		{"empty", "  \n\n", nil},
		{"speakers", "Ann: hello\r\nBo: hi there", []map[string]any{{"name": "Ann", "content": "hello"}, {"name": "Bo", "content": "hi there"}}},
		{"continuation", "Ann: first line\nsecond line\n\nplain text", []map[string]any{{"name": "Ann", "content": "first line\nsecond line"}, {"content": "plain text"}}},
		{"a link is not a speaker", "see https://example.com/a", []map[string]any{{"content": "see https://example.com/a"}}},
		{"empty message dropped", "Ann:\nBo: yes", []map[string]any{{"name": "Bo", "content": "yes"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, parseChat(tc.chat))
		})
	}
}

// FuzzParseChat: any pasted text gives messages with non-empty, trimmed
// content whose total length does not exceed the input's.
func FuzzParseChat(f *testing.F) {
	f.Add("Ann: hello\nBo: hi")
	f.Add("x:\n\n: y\r\n")
	f.Fuzz(func(t *testing.T, chat string) {
		total := 0
		for _, m := range parseChat(chat) {
			c := m["content"].(string)
			if c == "" || c != trimmed(c) {
				t.Fatalf("content %q", c)
			}
			total += len(c)
		}
		if total > len(chat) {
			t.Fatalf("%d bytes of content from %d bytes of chat", total, len(chat))
		}
	})
}

func trimmed(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '\v' || s[0] == '\f') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\n' || s[len(s)-1] == '\r' || s[len(s)-1] == '\v' || s[len(s)-1] == '\f') {
		s = s[:len(s)-1]
	}
	return s
}

// TestFieldOf maps the API's error fields to form fields.
func TestFieldOf(t *testing.T) {
	for in, want := range map[string]string{"probability": "probability", "keys[2]": "keys", "patch.content": "content", "entry.keys[0]": "keys"} {
		require.Equal(t, want, fieldOf(in))
	}
	require.Equal(t, "", fieldOf(""))
}

// TestRedirectsStayLocal: a sign-in's next and a language switch's back
// parameter never send the browser off the dashboard, however they are
// spelled. Browsers drop tabs and newlines from a Location and read a
// backslash as a slash (WHATWG URL), so the check resolves the Location
// the same way.
func TestRedirectsStayLocal(t *testing.T) {
	for _, target := range []string{
		"/dashboard/s/1/",
		"https://evil.example/",
		"//evil.example/",
		"/dashboard/../\\evil.example/",
		"/dashboard/../\t/evil.example/",
		"/dashboard/..%2F..%2F%5Cevil.example",
		"/dashboard/../..//evil.example",
		"/dashboard/\\..\\..\\\\evil.example",
	} {
		t.Run(target, func(t *testing.T) {
			requireLocal := func(t *testing.T, loc string) {
				t.Helper()
				browser := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(loc)
				u, err := url.Parse(browser)
				require.NoError(t, err)
				require.Empty(t, u.Host, "Location %q", loc)
				require.True(t, strings.HasPrefix(u.Path, "/dashboard/"), "Location %q", loc)
			}
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, "/dashboard/callback", nil)
			http.Redirect(w, r, safeNext(target), http.StatusSeeOther)
			requireLocal(t, w.Header().Get("Location"))

			w = httptest.NewRecorder()
			r = httptest.NewRequest(http.MethodGet, "/dashboard/lang/en?back="+url.QueryEscape(target), nil)
			r.SetPathValue("lang", "en")
			require.NoError(t, (&Dashboard{}).setLang(&req{w: w, r: r}))
			require.Equal(t, http.StatusSeeOther, w.Code)
			requireLocal(t, w.Header().Get("Location"))
		})
	}
}
