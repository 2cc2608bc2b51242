package activation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"loregate/lore/sharedtest"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
)

type behaviourCase struct {
	ID       string          `json:"id"`
	About    string          `json:"about"`
	Format   string          `json:"format"`
	Settings caseSettings    `json:"settings"`
	Book     json.RawMessage `json:"book"`
	Runs     []caseRun       `json:"runs"`
	RunsNote string          `json:"runs_note"`
}

type caseSettings struct {
	ScanDepth       *int  `json:"scan_depth"`
	MatchWholeWords *bool `json:"match_whole_words"`
	CaseSensitive   *bool `json:"case_sensitive"`
	Recursive       *bool `json:"recursive"`
	BudgetTokens    *int  `json:"budget_tokens"`
}

type caseRun struct {
	Chat                  []string                   `json:"chat"`
	ExpectActive          []string                   `json:"expect_active"`
	ExpectDroppedByBudget []string                   `json:"expect_dropped_by_budget"`
	Random                *float64                   `json:"random"`
	Trials                int                        `json:"trials"`
	ExpectRate            map[string][2]float64      `json:"expect_rate"`
	BookPatch             map[string]json.RawMessage `json:"book_patch"`
}

// wordCount is the case tokenizer: one whitespace-separated word, one token
// (cases/README.md: "a test tokenizer where one word is one token is fine").
type wordCount struct{}

func (wordCount) CountTokens(s string) int { return len(strings.Fields(s)) }

func loadCases(t *testing.T) []behaviourCase {
	data := sharedtest.Read(t, "cases", "activation-cases.json")
	var cases []behaviourCase
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases)
	return cases
}

// TestBehaviourCases runs every run of ../shared/cases/activation-cases.json
// through the real importer (lore/format) and the real engine.
func TestBehaviourCases(t *testing.T) {
	for _, c := range loadCases(t) {
		if len(c.Runs) == 0 {
			// Import/export-only cases (BUG-24: an embedded book re-imported
			// with few fields; BUG-32: a null character_book failing the card)
			// are lore/format's tests.
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			for i, r := range c.Runs {
				name := fmt.Sprintf("run%d", i)
				t.Run(name, func(t *testing.T) {
					book := expandPlaceholders(t, applyPatch(t, c.Book, r.BookPatch))
					entries := importBook(t, c, book)
					opts := caseOptions(c.Settings)
					in := activation.Input{
						Entries:     entries,
						Collections: map[string]lore.Collection{lore.DefaultCollection: {Name: lore.DefaultCollection, Enabled: true}},
						Messages:    r.Chat,
					}
					if r.Trials > 0 {
						checkRate(t, in, opts, r)
						return
					}
					if r.Random != nil {
						v := *r.Random
						opts.Random = func() float64 { return v }
					} else {
						opts.Random = func() float64 { panic("this run sets no random draw") }
					}
					res, err := activation.Activate(t.Context(), in, opts)
					require.NoError(t, err)
					got := []string{}
					for _, a := range res.Admitted() {
						got = append(got, a.Entry.Title)
					}
					require.ElementsMatch(t, orEmpty(r.ExpectActive), got, "%s: %s\ntrace: %+v", c.ID, c.About, res.Trace)
					for _, title := range r.ExpectDroppedByBudget {
						found := false
						for _, tr := range res.Trace {
							if tr.Title == title {
								found = true
								require.Equal(t, activation.VerdictOverBudget, tr.Verdict, "%s must be dropped by the budget", title)
							}
						}
						require.True(t, found, "entry %q not imported", title)
					}
				})
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func caseOptions(s caseSettings) activation.Options {
	var o activation.Options
	if s.ScanDepth != nil {
		o.ScanDepth = s.ScanDepth
	}
	if s.MatchWholeWords != nil {
		o.Substring = !*s.MatchWholeWords
	}
	if s.CaseSensitive != nil {
		o.CaseSensitive = *s.CaseSensitive
	}
	if s.Recursive != nil {
		o.Recursive = *s.Recursive
	}
	if s.BudgetTokens != nil {
		o.TokenBudget, o.Tokenizer = *s.BudgetTokens, wordCount{}
	}
	// The service default for new servers (lore.DefaultServerSettings).
	o.RegexKeys = lore.DefaultServerSettings().RegexKeys
	return o
}

// importBook converts the case's book with format.Import and gives the
// entries a scope: Serverwide, collection General, unique ids.
func importBook(t *testing.T, c behaviourCase, book []byte) []lore.Entry {
	res, err := format.Import(c.ID+".json", book, format.Options{})
	require.NoError(t, err, "import of %s (%s)", c.ID, c.Format)
	if c.Format != "auto" {
		require.Equal(t, c.Format, string(res.Format), "detected format")
	}
	entries := slices.Clone(res.Book.Entries)
	for i := range entries {
		entries[i].ID = int64(i + 1)
		entries[i].Collection = lore.DefaultCollection
	}
	return entries
}

func checkRate(t *testing.T, in activation.Input, opts activation.Options, r caseRun) {
	rng := rand.New(rand.NewPCG(19, 2026))
	opts.Random = rng.Float64
	m := activation.Compile(in.Entries, opts.MatchOptions())
	counts := map[string]int{}
	for range r.Trials {
		res, err := m.Activate(context.Background(), in, opts)
		require.NoError(t, err)
		for _, a := range res.Admitted() {
			counts[a.Entry.Title]++
		}
	}
	for title, bounds := range r.ExpectRate {
		rate := float64(counts[title]) / float64(r.Trials)
		require.GreaterOrEqual(t, rate, bounds[0], "rate of %s", title)
		require.LessOrEqual(t, rate, bounds[1], "rate of %s", title)
	}
}

// applyPatch merges book_patch (entry key -> fields) into the book's
// entries object.
func applyPatch(t *testing.T, book json.RawMessage, patch map[string]json.RawMessage) []byte {
	if len(patch) == 0 {
		return book
	}
	var b map[string]any
	require.NoError(t, json.Unmarshal(book, &b))
	entries, ok := b["entries"].(map[string]any)
	require.True(t, ok, "book_patch needs an entries object")
	for k, raw := range patch {
		var fields map[string]any
		require.NoError(t, json.Unmarshal(raw, &fields))
		e, ok := entries[k].(map[string]any)
		require.True(t, ok, "book_patch names a missing entry %s", k)
		for f, v := range fields {
			e[f] = v
		}
	}
	out, err := json.Marshal(b)
	require.NoError(t, err)
	return out
}

var placeholder = regexp.MustCompile(`^<(\d+) (words|tokens of filler text mentioning the (.+))>$`)

// expandPlaceholders replaces string values like "<120 words>" by
// generated text of that many words (cases/README.md).
func expandPlaceholders(t *testing.T, book []byte) []byte {
	var v any
	require.NoError(t, json.Unmarshal(book, &v))
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, y := range x {
				x[k] = walk(y)
			}
		case []any:
			for i, y := range x {
				x[i] = walk(y)
			}
		case string:
			m := placeholder.FindStringSubmatch(x)
			if m == nil {
				return x
			}
			n, _ := strconv.Atoi(m[1])
			words := make([]string, n)
			for i := range words {
				words[i] = "filler"
			}
			if m[3] != "" && n > 0 {
				words[n/2] = m[3]
			}
			return strings.Join(words, " ")
		}
		return x
	}
	out, err := json.Marshal(walk(v))
	require.NoError(t, err)
	return out
}
