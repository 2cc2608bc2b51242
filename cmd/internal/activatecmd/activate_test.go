package activatecmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/cmd/internal/activatecmd"
	"loregate/cmd/internal/cli"
	"loregate/lore/sharedtest"
)

// eldoriaBook returns the path of the SillyTavern default book of the
// shared corpus (sharedtest: fails under CI when it is missing).
func eldoriaBook(t *testing.T) string {
	t.Helper()
	return sharedtest.Path(t, "corpus", "st-worldinfo", "sillytavern__Eldoria.json")
}

func writeChat(t *testing.T, chat string) string {
	p := filepath.Join(t.TempDir(), "chat.json")
	require.NoError(t, os.WriteFile(p, []byte(chat), 0o600))
	return p
}

func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}
	code := cli.Status(&errb, "activate", activatecmd.Run(context.Background(), env, args))
	return code, out.String(), errb.String()
}

type output struct {
	Admitted []struct {
		ID        int64  `json:"id"`
		Title     string `json:"title"`
		Placement string `json:"placement"`
		Group     string `json:"group"`
		Content   string `json:"content"`
	} `json:"admitted"`
	Blocks []struct {
		Tag  string `json:"tag"`
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"blocks"`
	Budget struct {
		Unit  string `json:"unit"`
		Limit int    `json:"limit"`
		Used  int    `json:"used"`
	} `json:"budget"`
	Trace []struct {
		ID      int64  `json:"id"`
		Title   string `json:"title"`
		Verdict string `json:"verdict"`
		Detail  string `json:"detail"`
	} `json:"trace"`
}

func TestEldoriaGlade(t *testing.T) {
	eldoria := eldoriaBook(t)
	chat := writeChat(t, `["Hello there.", {"name":"Ana","role":"user","content":"Is there somewhere safe to rest? Maybe the glade?"}]`)
	code, stdout, stderr := runCmd(t, "", "--book", eldoria, "--chat", chat, "--user", "Ana", "--char", "Seraphina")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)

	// Exactly the documented top-level and item keys.
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(stdout), &raw))
	require.ElementsMatch(t, []string{"admitted", "injections", "outlets", "blocks", "budget", "passes", "trace"}, keys(raw))

	var out output
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Admitted, 1, "only the glade entry (uid 2)")
	a := out.Admitted[0]
	require.Equal(t, int64(3), a.ID)
	require.Equal(t, "before", a.Placement, "world info position 0 is before")
	require.Equal(t, "activated", a.Group)
	require.Contains(t, a.Content, "Seraphina")
	require.Contains(t, a.Content, "Ana")
	require.NotContains(t, a.Content, "{{user}}")
	require.NotContains(t, a.Content, "{{char}}")
	require.Len(t, out.Trace, 4)
	verdicts := map[int64]string{}
	for _, tr := range out.Trace {
		verdicts[tr.ID] = tr.Verdict
	}
	require.Equal(t, map[int64]string{1: "no_key_match", 2: "no_key_match", 3: "admitted", 4: "no_key_match"}, verdicts)
	require.Equal(t, "utf16", out.Budget.Unit)
	require.Equal(t, 8000, out.Budget.Limit)
	require.Equal(t, len([]rune(a.Content)), out.Budget.Used, "ASCII content: one unit per character")
	require.Len(t, out.Blocks, 1)
	require.Equal(t, "KNOWLEDGE_LOREBOOK_BEFORE", out.Blocks[0].Tag)
	require.Equal(t, "user", out.Blocks[0].Role)
	require.True(t, strings.HasSuffix(out.Blocks[0].Text, a.Content))
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestAdmittedItemKeys(t *testing.T) {
	eldoria := eldoriaBook(t)
	code, stdout, stderr := runCmd(t, `["the glade and the forest"]`, "--book", eldoria, "--chat", "-")
	require.Equal(t, 0, code, stderr)
	var out struct {
		Admitted []map[string]json.RawMessage `json:"admitted"`
		Blocks   []map[string]json.RawMessage `json:"blocks"`
		Budget   map[string]json.RawMessage   `json:"budget"`
		Trace    []map[string]json.RawMessage `json:"trace"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Admitted, 2, "forest (uid 0) and glade (uid 2)")
	require.Equal(t, []string{"content", "group", "id", "pass", "placement", "position", "score", "title", "tokens", "triggeredBy"}, keys(out.Admitted[0]))
	require.JSONEq(t, `{"kind": "BEFORE_CHAR", "depth": null, "role": null, "outlet": null}`, string(out.Admitted[0]["position"]),
		"all four keys, null where the kind has none")
	require.Equal(t, []string{"entries", "role", "tag", "text"}, keys(out.Blocks[0]))
	require.Equal(t, []string{"byBook", "limit", "unit", "used"}, keys(out.Budget))
	require.Equal(t, []string{"detail", "id", "params", "pass", "reason", "score", "title", "triggeredBy", "verdict"}, keys(out.Trace[0]))
}

func TestSeveralBooksAndOptions(t *testing.T) {
	eldoria := eldoriaBook(t)
	chat := writeChat(t, `["the GLADE", "nothing", "nothing"]`)
	code, stdout, stderr := runCmd(t, "", "--book", eldoria, "--book", eldoria, "--chat", chat, "--scan-depth", "3")
	require.Equal(t, 0, code, stderr)
	var out output
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	var ids []int64
	for _, a := range out.Admitted {
		ids = append(ids, a.ID)
	}
	require.Equal(t, []int64{3, 7}, ids, "both books scanned together with unique ids")

	// The default depth (2) no longer sees the glade; case sensitivity blocks GLADE.
	for _, args := range [][]string{{}, {"--scan-depth", "3", "--case-sensitive"}} {
		code, stdout, stderr = runCmd(t, "", append([]string{"--book", eldoria, "--chat", chat}, args...)...)
		require.Equal(t, 0, code, stderr)
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		require.Empty(t, out.Admitted, "args %v", args)
	}

	// A budget smaller than the entry drops it.
	code, stdout, stderr = runCmd(t, `["glade"]`, "--book", eldoria, "--chat", "-", "--budget", "100")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Empty(t, out.Admitted)
	require.Equal(t, "over_budget", out.Trace[2].Verdict)

	// Substring matching: "glades" contains the key.
	for _, ww := range []string{"true", "false"} {
		code, stdout, stderr = runCmd(t, `["the glades"]`, "--book", eldoria, "--chat", "-", "--whole-words="+ww)
		require.Equal(t, 0, code, stderr)
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		require.Equal(t, ww == "false", len(out.Admitted) == 1, "--whole-words=%s", ww)
	}
}

func TestTextFormat(t *testing.T) {
	eldoria := eldoriaBook(t)
	code, stdout, stderr := runCmd(t, `["the glade"]`, "--book", eldoria, "--chat", "-", "--format", "text", "--seed", "7")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `+ #3 `)
	require.Contains(t, stdout, `key "glade"`)
	require.Contains(t, stdout, "no_key_match")
	require.Contains(t, stdout, "Lorebook (Before): 1 entry,")
	require.Contains(t, stdout, "1 of 4 entries admitted in 1 pass;")
	require.True(t, strings.HasSuffix(stdout, "\n"), "the text ends with a newline")
}

func TestBadInput(t *testing.T) {
	eldoria := eldoriaBook(t)
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("{not json"), 0o600))
	chat := writeChat(t, `["hi"]`)
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"no book", "", []string{"--chat", chat}, "missing --book"},
		{"no chat", "", []string{"--book", eldoria}, "missing --chat"},
		{"missing book file", "", []string{"--book", filepath.Join(dir, "nope.json"), "--chat", chat}, "nope.json"},
		{"book not a lorebook", "", []string{"--book", notJSON, "--chat", chat}, "bad.json"},
		{"chat not an array", `{"a":1}`, []string{"--book", eldoria, "--chat", "-"}, "must be a JSON array"},
		{"chat item wrong", `[1]`, []string{"--book", eldoria, "--chat", "-"}, "message 0"},
		{"random out of range", "", []string{"--book", eldoria, "--chat", chat, "--random", "1"}, "--random"},
		{"random and seed", "", []string{"--book", eldoria, "--chat", chat, "--random", "0.5", "--seed", "1"}, "exclusive"},
		{"bad format", "", []string{"--book", eldoria, "--chat", chat, "--format", "xml"}, "--format"},
		{"bad flag", "", []string{"--book", eldoria, "--chat", chat, "--nope"}, "nope"},
		{"zero budget", "", []string{"--book", eldoria, "--chat", chat, "--budget", "0"}, "--budget 0"},
		{"stray argument", "", []string{"--book", eldoria, "--chat", chat, "extra"}, "extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.stdin, tt.args...)
			require.Equal(t, 2, code)
			require.Empty(t, stdout)
			require.Contains(t, stderr, tt.want)
			require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		})
	}
}

func writeBook(t *testing.T, book string) string {
	p := filepath.Join(t.TempDir(), "book.json")
	require.NoError(t, os.WriteFile(p, []byte(book), 0o600))
	return p
}

// modelBook is SillyTavern world info: A (key door) names "key", B (key
// key) names "vault", C (key vault); G is a greeting-only entry; R has a
// regex key.
const modelBook = `{"entries":{
 "0":{"uid":0,"key":["door"],"comment":"A","content":"Behind the door lies a key."},
 "1":{"uid":1,"key":["key"],"comment":"B","content":"The key opens the vault."},
 "2":{"uid":2,"key":["vault"],"comment":"C","content":"Gold."},
 "3":{"uid":3,"key":["door"],"comment":"G","content":"@@is_greeting\nWelcome."},
 "4":{"uid":4,"key":["/do+r/"],"comment":"R","content":"Regex."}
}}`

type modelOut struct {
	Admitted []struct {
		Title       string `json:"title"`
		Tokens      *int   `json:"tokens"`
		Pass        int    `json:"pass"`
		TriggeredBy *int64 `json:"triggeredBy"`
	} `json:"admitted"`
	Budget struct {
		Unit  string `json:"unit"`
		Limit int    `json:"limit"`
	} `json:"budget"`
	Passes int `json:"passes"`
}

func TestModelFlags(t *testing.T) {
	book := writeBook(t, modelBook)
	chat := writeChat(t, `["Hello.", "We open the door."]`)
	run := func(t *testing.T, flags ...string) modelOut {
		code, stdout, stderr := runCmd(t, "", append([]string{"--book", book, "--chat", chat}, flags...)...)
		require.Equal(t, 0, code, stderr)
		var out modelOut
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		return out
	}
	titles := func(o modelOut) []string {
		var s []string
		for _, a := range o.Admitted {
			s = append(s, a.Title)
		}
		return s
	}
	out := run(t)
	require.Equal(t, []string{"A", "R"}, titles(out), "one pass; the greeting is over at 2 messages")
	require.Equal(t, 1, out.Passes)
	require.NotNil(t, out.Admitted[0].Tokens)
	require.Positive(t, *out.Admitted[0].Tokens)

	out = run(t, "--recursive")
	require.Equal(t, []string{"A", "B", "C", "R"}, titles(out))
	require.Equal(t, 3, out.Passes)
	require.Equal(t, 2, out.Admitted[1].Pass)
	require.Equal(t, int64(1), *out.Admitted[1].TriggeredBy)
	require.Nil(t, out.Admitted[0].TriggeredBy)

	require.Equal(t, []string{"A", "B", "R"}, titles(run(t, "--recursive", "--max-recursion-steps", "2")))
	require.Equal(t, []string{"A", "R"}, titles(run(t, "--max-recursion-steps", "5")), "steps alone do not turn recursion on")

	require.Equal(t, []string{"A"}, titles(run(t, "--regex-keys=false", "--message-count", "4")))
	require.Equal(t, []string{"A"}, titles(run(t, "--regex=false", "--message-count", "4")), "--regex is an alias")
	require.Equal(t, []string{"A", "G", "R"}, titles(run(t, "--message-count", "1")))

	out = run(t, "--budget-tokens", "5", "--tokenizer", "cl100k_base")
	require.Equal(t, "tokens", out.Budget.Unit)
	require.Equal(t, 5, out.Budget.Limit)

	for _, bad := range [][]string{
		{"--budget", "100", "--budget-tokens", "50"},
		{"--budget-tokens", "0"},
		{"--tokenizer", "gpt2"},
		{"--max-recursion-steps", "-1"},
		{"--message-count", "-2"},
	} {
		code, _, stderr := runCmd(t, "", append([]string{"--book", book, "--chat", chat}, bad...)...)
		require.Equal(t, 2, code, "%v", bad)
		require.NotEmpty(t, stderr)
	}
}

// settingsCard is a V2 card whose book carries its own settings: recursive
// scanning, scan depth 1 and a token budget of 150.
const settingsCard = `{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Tess","description":"","personality":"",
"scenario":"","first_mes":"","mes_example":"","creator_notes":"","system_prompt":"","post_history_instructions":"",
"alternate_greetings":[],"tags":[],"creator":"","character_version":"","extensions":{},
"character_book":{"name":"Harbor","scan_depth":1,"token_budget":150,"recursive_scanning":true,"extensions":{},"entries":[
 {"keys":["door"],"content":"Behind the door lies a key.","extensions":{},"enabled":true,"insertion_order":1,"name":"A","id":1},
 {"keys":["key"],"content":"The key opens the vault.","extensions":{},"enabled":true,"insertion_order":2,"name":"B","id":2},
 {"keys":["anchor"],"content":"Anchor lore.","extensions":{},"enabled":true,"insertion_order":3,"name":"old","id":3}
]}}}`

func TestBookSettingsFromFile(t *testing.T) {
	book := writeBook(t, settingsCard)
	chat := writeChat(t, `["The anchor drops.", "We open the door."]`)
	run := func(t *testing.T, flags ...string) (modelOut, string) {
		code, stdout, stderr := runCmd(t, "", append([]string{"--book", book, "--chat", chat}, flags...)...)
		require.Equal(t, 0, code, stderr)
		var out modelOut
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		return out, stderr
	}
	titles := func(o modelOut) []string {
		var s []string
		for _, a := range o.Admitted {
			s = append(s, a.Title)
		}
		return s
	}
	out, stderr := run(t, "--scan-depth", "5")
	require.Empty(t, stderr)
	require.Equal(t, []string{"A", "B"}, titles(out), "the book recurses and scans 1 message, whatever the flags")
	require.Equal(t, "tokens", out.Budget.Unit, "the book's token budget sets the unit when no budget flag is given")
	require.Equal(t, 150, out.Budget.Limit)

	out, _ = run(t, "--budget-tokens", "20")
	require.Equal(t, 150, out.Budget.Limit, "the book's limit wins over the flag")

	out, stderr = run(t, "--budget", "300")
	require.Equal(t, "utf16", out.Budget.Unit)
	require.Equal(t, 300, out.Budget.Limit)
	require.Contains(t, stderr, `book "Harbor": its budget limit of 150 tokens is not used`)
}

// TestByBookLimit: a book whose settings cap its share of the budget
// (maxBudgetShare, kept in loregate_settings) reports that cap beside what
// it used; a book without one reports null, as BookBudget.limit does.
func TestByBookLimit(t *testing.T) {
	dir := t.TempDir()
	capped := filepath.Join(dir, "capped.json")
	require.NoError(t, os.WriteFile(capped, []byte(`{"extensions": {"loregate_settings": {"maxBudgetShare": 25}},
		"entries": {"0": {"uid": 0, "key": ["glade"], "content": "The glade is quiet.", "order": 100}}}`), 0o600))
	code, stdout, stderr := runCmd(t, `["the glade and the forest"]`, "--book", capped, "--book", eldoriaBook(t), "--chat", "-")
	require.Equal(t, 0, code, stderr)
	var out struct {
		Budget struct {
			ByBook []struct {
				Collection string
				Limit      *int
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	limits := map[string]*int{}
	for _, b := range out.Budget.ByBook {
		limits[b.Collection] = b.Limit
	}
	require.Len(t, limits, 2, stdout)
	require.NotNil(t, limits["capped"], "the capped book reports its cap: %s", stdout)
	require.Equal(t, 2000, *limits["capped"], "25% of the default 8,000 characters")
	for name, l := range limits {
		if name != "capped" {
			require.Nil(t, l, "a book without a cap reports null")
		}
	}
}

// TestLongEntryIsOneEntry: an entry over the content ceiling (100,000
// characters), which the importer splits into parts, is one entry to the
// engine, as in the service: admitted once with its whole content, counted
// once, a part never admitted without the others (the CLI once admitted
// each part on its own).
func TestLongEntryIsOneEntry(t *testing.T) {
	long := strings.Repeat("The long saga goes on. ", 5200) // 119,600 characters: 2 parts
	book := writeBook(t, `{"entries":{"0":{"uid":0,"key":["saga"],"comment":"Saga","content":"`+long+
		`"},"1":{"uid":1,"key":["glade"],"comment":"Glade","content":"A quiet glade."}}}`)
	chat := writeChat(t, `["Tell the saga in the glade."]`)
	for _, tc := range []struct {
		name     string
		budget   string
		admitted []string
		used     int
	}{
		{"fits", "200000", []string{"Saga", "Glade"}, len(long) + len("A quiet glade.")},
		{"over budget: no part alone", "110000", []string{"Glade"}, len("A quiet glade.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", "--book", book, "--chat", chat, "--budget", tc.budget)
			require.Equal(t, 0, code, stderr)
			var out output
			require.NoError(t, json.Unmarshal([]byte(stdout), &out))
			var titles []string
			for _, a := range out.Admitted {
				titles = append(titles, a.Title)
				if a.Title == "Saga" {
					require.Equal(t, len(long), len(a.Content), "the whole content, joined")
					require.True(t, a.Content == long, "the parts joined in order")
				}
			}
			require.ElementsMatch(t, tc.admitted, titles)
			require.Len(t, out.Trace, 2, "one verdict per entry")
			require.Equal(t, tc.used, out.Budget.Used)
		})
	}
}

// TestBooksReadToTheCeilings: loregate activate reads a book as convert
// does, to the safety ceilings rather than the store's limits
// (docs/formats.md "Limits"): a JSON book over 2 MB is read, not refused
// with the deployment's LOREGATE_MAX_JSON_BYTES, and an entry over 4,000
// characters stays whole.
func TestBooksReadToTheCeilings(t *testing.T) {
	for _, tc := range []struct {
		name, book string
		content    int
	}{
		{"json over 2 MB", `{"entries":{"0":{"uid":0,"key":["saga"],"comment":"Saga","content":"A saga."}},"pad":"` +
			strings.Repeat("x", 2_100_000) + `"}`, len("A saga.")},
		{"entry over 4,000 characters", `{"entries":{"0":{"uid":0,"key":["saga"],"comment":"Saga","content":"` +
			strings.Repeat("Saga. ", 1000) + `"}}}`, 6000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", "--book", writeBook(t, tc.book), "--chat", writeChat(t, `["the saga"]`))
			require.Equal(t, 0, code, stderr)
			var out output
			require.NoError(t, json.Unmarshal([]byte(stdout), &out))
			require.Len(t, out.Admitted, 1)
			require.Len(t, out.Admitted[0].Content, tc.content)
			require.Len(t, out.Trace, 1)
		})
	}
}
