package semantic_test

import (
	"slices"
	"testing"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/semantic"
	"loregate/lore/sharedtest"
)

// vectorizedBook imports the corpus's vectorized Date a Live world info
// through the real importer and returns its keyless vectorized entries as
// lexical candidates, by title.
func vectorizedBook(t testing.TB) ([]semantic.Doc, map[int64]string) {
	t.Helper()
	data := sharedtest.Read(t, "corpus", "st-worldinfo", "archkrrr__Date_a_Live_12.0.0_Vectorized.json")
	res, err := format.Import("Date a Live (Vectorized).json", data, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []semantic.Doc
	titles := map[int64]string{}
	for i, e := range lore.JoinSplit(res.Book.Entries) {
		if e.Constant || len(e.Keys) > 0 || !e.Vectorized {
			continue
		}
		id := int64(i + 1)
		docs = append(docs, semantic.Doc{ID: id, Title: e.Title, Text: semantic.EmbedText(e.Content)})
		titles[id] = e.Title
	}
	if len(docs) < 90 {
		t.Fatalf("%d keyless vectorized entries, want the book's 98 minus its constants", len(docs))
	}
	return docs, titles
}

// admitted is what the default threshold and cap let through, by title.
func admitted(scores []semantic.Score, titles map[int64]string) []string {
	semantic.SortScores(scores)
	var out []string
	for _, s := range scores {
		if s.Score < semantic.DefaultThreshold || len(out) == semantic.DefaultMaxEntries {
			break
		}
		out = append(out, titles[s.ID])
	}
	return out
}

// TestLexicalVectorizedBook: on the corpus's vectorized book (106 of its
// 107 entries have no keys), unrelated chats and greetings admit nothing at
// the default threshold and relevant chats admit the entries they are
// about.
func TestLexicalVectorizedBook(t *testing.T) {
	docs, titles := vectorizedBook(t)
	x := semantic.NewLexical(docs)
	cases := []struct {
		name, query string
		want        []string
	}{
		{"weather small talk", "The weather was pleasant and we walked along the river.", nil},
		{"greeting", "Hello! How are you today?", nil},
		{"morning greeting", "Good morning! Did you sleep well?", nil},
		{"portuguese greeting", "Oi! Tudo bem com você hoje?", nil},
		{"spanish greeting", "¡Hola! ¿Qué tal tu día?", nil},
		{"shopping small talk", "I want to go shopping later, maybe buy some new shoes.", nil},
		{"lollipop", "Kotori, why do you always have a lollipop in your mouth?", []string{"Lollipop"}},
		{"spacequake alarm", "The spacequake alarm is ringing across Tengu City.", []string{"Spacequake Alarm", "Tengu City"}},
		{"zafkiel", "Kurumi fired Zafkiel's bullets at me!", []string{"Zafkiel's Bullets"}},
		{"two messages", "Tell me about Sandalphon.\nIt is Tohka's Angel, a great throne and a sword.", []string{"Tohka Yatogami", "Sandalphon", "Demon King Nahemah"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := admitted(x.Score(c.query), titles)
			if !slices.Equal(got, c.want) {
				t.Errorf("admitted %q, want %q", got, c.want)
			}
		})
	}
}

// TestLexicalScores checks the ranker's invariants on the corpus book:
// scores in 0-1, an entry's own text scores highest against itself, and
// the same query scores alike in a second index built from the same docs.
func TestLexicalScores(t *testing.T) {
	docs, _ := vectorizedBook(t)
	x, y := semantic.NewLexical(docs), semantic.NewLexical(docs)
	for _, d := range docs[:20] {
		s := x.Score(d.Title + "\n" + d.Text)
		if !slices.Equal(s, y.Score(d.Title+"\n"+d.Text)) {
			t.Fatalf("two indexes of the same docs score %q differently", d.Title)
		}
		semantic.SortScores(s)
		if len(s) == 0 || s[0].ID != d.ID {
			t.Errorf("%q: its own text does not rank it first (%v)", d.Title, s[:min(len(s), 3)])
		}
		for _, v := range s {
			if v.Score <= 0 || v.Score > 1 {
				t.Fatalf("score %v outside (0, 1]", v.Score)
			}
		}
	}
	if got := x.Score(""); got != nil {
		t.Errorf("empty query scored %v", got)
	}
	if got := semantic.NewLexical(nil).Score("spirit"); got != nil {
		t.Errorf("empty index scored %v", got)
	}
}

// TestLexicalScoresByID: Lexical.Scores gives every candidate Score's
// number (0 for those sharing no term) and no other id, whether the
// candidates' ids lie close together (the dense index) or far apart (the
// map).
func TestLexicalScoresByID(t *testing.T) {
	docs, _ := vectorizedBook(t)
	sparse := slices.Clone(docs)
	for i := range sparse {
		sparse[i].ID = int64(i)*1_000_003 + 7
	}
	for name, ds := range map[string][]semantic.Doc{"dense": docs, "sparse": sparse} {
		t.Run(name, func(t *testing.T) {
			x := semantic.NewLexical(ds)
			const query = "Tell me about Sandalphon.\nIt is Tohka's Angel, a great throne and a sword."
			want := map[int64]float64{}
			for _, s := range x.Score(query) {
				want[s.ID] = s.Score
			}
			got := x.Scores(query)
			for _, d := range ds {
				s, ok := got.Score(d.ID)
				if !ok || s != want[d.ID] {
					t.Fatalf("candidate %d: %v %v, want %v", d.ID, s, ok, want[d.ID])
				}
			}
			for _, id := range []int64{ds[0].ID - 1, ds[len(ds)-1].ID + 1, 3, -5} {
				if s, ok := got.Score(id); ok && !slices.ContainsFunc(ds, func(d semantic.Doc) bool { return d.ID == id }) {
					t.Errorf("id %d is no candidate but scored %v", id, s)
				}
			}
			if s, ok := x.Scores("").Score(ds[0].ID); !ok || s != 0 {
				t.Errorf("empty query: %v %v, want 0 true", s, ok)
			}
		})
	}
}
