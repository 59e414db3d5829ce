package searchindex

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func semCorpus() *Index {
	ix := New()
	add := func(id string, fields ...Field) {
		ix.Add(Doc{Key: DocKey{ConnectionID: "c1", Stream: "mail", RecordID: id}, Fields: fields})
	}
	add("meet", Field{Name: "subject", Text: "Quarterly planning meetings", Semantic: true},
		Field{Name: "body", Text: "Agenda for the planning meeting next week", Semantic: true})
	add("recipe", Field{Name: "body", Text: "Slow cooker chili with beans", Semantic: true})
	add("lexonly", Field{Name: "body", Text: "planning meeting notes"}) // no semantic field
	add("zz", Field{Name: "body", Text: "zzz qqq", Semantic: true})
	return ix
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Key.RecordID)
	}
	return out
}

// TestSemantic: the nearest document comes first, and every allowed
// document with an allowed semantic field is a neighbour, however
// unrelated — the reference RS's vector search has no relevance floor.
func TestSemantic(t *testing.T) {
	t.Parallel()
	ix := semCorpus()
	everySemantic := []string{"meet", "recipe", "zz"}
	tests := []struct {
		name  string
		q     Query
		first string   // the nearest hit ("" when none)
		all   []string // every hit, sorted
	}{
		{"related doc first, unrelated ones follow", Query{Text: "meeting planning"}, "meet", everySemantic},
		{"fuzzy: trigrams relate inflections", Query{Text: "meetings"}, "meet", everySemantic},
		{"chili", Query{Text: "chili beans"}, "recipe", everySemantic},
		{"nothing shared still gets neighbours", Query{Text: "xylophone"}, "", everySemantic},
		{"no word at all still gets neighbours", Query{Text: "  ,, "}, "meet", everySemantic},
		{"doc filter", Query{Text: "meeting", Allow: func(k DocKey) bool { return k.RecordID != "meet" }}, "", []string{"recipe", "zz"}},
		{"field filter hides every semantic field", Query{Text: "meeting",
			FieldAllowed: func(_ DocKey, f string) bool { return f == "title" }}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ix.Semantic(tt.q)
			sorted := ids(got)
			slices.Sort(sorted)
			if diff := cmp.Diff(tt.all, sorted); diff != "" {
				t.Errorf("Semantic(%q) ids (-want +got):\n%s", tt.q.Text, diff)
			}
			if tt.first != "" && (len(got) == 0 || got[0].Key.RecordID != tt.first) {
				t.Errorf("Semantic(%q) first hit: %v, want %s", tt.q.Text, ids(got), tt.first)
			}
			for i, h := range got {
				if h.Score < 0 || h.Score > 2 {
					t.Errorf("%s: distance %v outside [0,2]", h.Key.RecordID, h.Score)
				}
				if i > 0 && h.Score < got[i-1].Score {
					t.Errorf("%s: distance %v ranked after %v", h.Key.RecordID, h.Score, got[i-1].Score)
				}
				if strings.Contains(h.Snippet, "<mark>") {
					t.Errorf("%s: semantic snippet has marks: %q", h.Key.RecordID, h.Snippet)
				}
			}
		})
	}
}

func TestSemanticHitShape(t *testing.T) {
	t.Parallel()
	ix := semCorpus()
	got := ix.Semantic(Query{Text: "agenda for next week"})
	want := []Hit{{
		Key: DocKey{"c1", "mail", "meet"}, Score: got[0].Score, MatchedFields: []string{"body"},
		SnippetField: "body", Snippet: "Agenda for the planning meeting next week", Sources: []string{SourceSemantic},
	}}
	if len(got) == 0 {
		t.Fatal("no hits")
	}
	if diff := cmp.Diff(want, got[:1]); diff != "" {
		t.Errorf("nearest hit (-want +got):\n%s", diff)
	}
	// Hiding the best field falls back to the other semantic field.
	got = ix.Semantic(Query{Text: "agenda for next week planning", FieldAllowed: func(_ DocKey, f string) bool { return f != "body" }})
	if len(got) == 0 || got[0].Key.RecordID != "meet" || got[0].SnippetField != "subject" {
		t.Errorf("with body hidden: %+v, want the subject field", got)
	}
}

func TestSemanticDeterministic(t *testing.T) {
	t.Parallel()
	a, b := semCorpus(), semCorpus()
	for _, q := range []string{"meeting", "chili week", "planning meetings agenda"} {
		ha, hb := a.Semantic(Query{Text: q}), b.Semantic(Query{Text: q})
		if diff := cmp.Diff(ha, hb); diff != "" {
			t.Errorf("Semantic(%q) differs between identical indexes (-a +b):\n%s", q, diff)
		}
		if diff := cmp.Diff(ha, a.Semantic(Query{Text: q})); diff != "" {
			t.Errorf("Semantic(%q) differs between runs:\n%s", q, diff)
		}
	}
	v1, f1 := embed("Hello world")
	v2, f2 := embed("hello, WORLD")
	if v1 != v2 || !cmp.Equal(f1, f2) {
		t.Errorf("embedding depends on case or punctuation")
	}
	if d := 1 - cosine(&v1, &v1); d > 1e-6 || d < -1e-6 {
		t.Errorf("self distance %v, want 0", d)
	}
}

func TestSemanticTiesAndPages(t *testing.T) {
	t.Parallel()
	ix := New()
	for _, id := range []string{"d", "b", "a", "c"} {
		ix.Add(Doc{Key: DocKey{"c", "s", id}, Fields: []Field{{Name: "t", Text: "same text", Semantic: true}}})
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, ids(ix.Semantic(Query{Text: "same text"}))); diff != "" {
		t.Errorf("tie order (-want +got):\n%s", diff)
	}
	page, total := ix.SemanticPage(Query{Text: "same"}, 1, 2)
	if diff := cmp.Diff([]string{"b", "c"}, ids(page)); diff != "" || total != 4 {
		t.Errorf("page (-want +got):\n%s total %d", diff, total)
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		max  int
		want string
	}{
		{"short text", 240, "short text"},
		{"  padded  ", 240, "padded"},
		{"one two three four", 9, "one two"},
		{"one two three four", 7, "one two"},
		{"one two three four", 8, "one two"},
		{"abcdefghij klm", 5, "abcde"},
		{"héllo wörld ünïcode", 12, "héllo wörld"},
		{strings.Repeat("word ", 100), 240, strings.TrimSpace(strings.Repeat("word ", 48))},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.text, tt.max); got != tt.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tt.text, tt.max, got, tt.want)
		}
	}
}

func TestHybrid(t *testing.T) {
	t.Parallel()
	h := func(id, src string) Hit {
		return Hit{Key: DocKey{"c", "s", id}, Score: 1, Snippet: src + id, Sources: []string{src}}
	}
	hs := func(id, snip string, src ...string) Hit {
		return Hit{Key: DocKey{"c", "s", id}, Score: 1, Snippet: snip, Sources: src}
	}
	lex := []Hit{h("a", "lexical"), h("b", "lexical"), h("c", "lexical")}
	sem := []Hit{h("b", "semantic"), h("x", "semantic"), h("a", "semantic"), h("y", "semantic"), h("z", "semantic")}
	tests := []struct {
		name     string
		lex, sem []Hit
		limit    int
		want     []Hit
	}{
		{"round robin with dedupe", lex, sem, 10, []Hit{
			hs("a", "lexicala", "lexical", "semantic"), hs("b", "semanticb", "lexical", "semantic"),
			hs("x", "semanticx", "semantic"), hs("c", "lexicalc", "lexical"),
			hs("y", "semanticy", "semantic"), hs("z", "semanticz", "semantic"),
		}},
		{"limit", lex, sem, 3, []Hit{
			hs("a", "lexicala", "lexical", "semantic"), hs("b", "semanticb", "lexical", "semantic"),
			hs("x", "semanticx", "semantic"),
		}},
		{"lexical only", lex, nil, 2, []Hit{hs("a", "lexicala", "lexical"), hs("b", "lexicalb", "lexical")}},
		{"semantic only", nil, sem[:2], 5, []Hit{hs("b", "semanticb", "semantic"), hs("x", "semanticx", "semantic")}},
		{"zero limit", lex, sem, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Hybrid(tt.lex, tt.sem, tt.limit)); diff != "" {
				t.Errorf("Hybrid (-want +got):\n%s", diff)
			}
		})
	}
	if lex[0].Sources[0] != "lexical" || len(lex[0].Sources) != 1 {
		t.Errorf("Hybrid modified its input: %v", lex[0].Sources)
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add("one two three four", 7)
	f.Add("héllo wörld", 3)
	f.Add("\xff\xfe abc", 2)
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = n%300 + 1
		if n <= 0 {
			n += 300
		}
		got := Excerpt(text, n)
		if !strings.Contains(text, got) {
			t.Fatalf("Excerpt(%q, %d) = %q, not verbatim", text, n, got)
		}
		if c := len([]rune(got)); c > n {
			t.Fatalf("Excerpt(%q, %d) has %d runes", text, n, c)
		}
	})
}

// TestSemanticPerConnection: with PerConnection k, each connection keeps
// its k nearest documents, and the ranking and paging run over those.
func TestSemanticPerConnection(t *testing.T) {
	t.Parallel()
	ix := New()
	for _, c := range []string{"c1", "c2"} {
		for _, id := range []string{"a", "b", "c", "d"} {
			ix.Add(Doc{Key: DocKey{c, "s", id}, Fields: []Field{{Name: "t", Text: "text " + id, Semantic: true}}})
		}
	}
	all, total := ix.SemanticPage(Query{Text: "text a", PerConnection: 2}, 0, 100)
	if total != 4 || len(all) != 4 {
		t.Fatalf("total %d, %d hits; want 2 per connection", total, len(all))
	}
	per := map[string]int{}
	for _, h := range all {
		per[h.Key.ConnectionID]++
	}
	if per["c1"] != 2 || per["c2"] != 2 {
		t.Errorf("per connection: %v", per)
	}
	if all[0].Key.RecordID != "a" {
		t.Errorf("nearest first: %v", ids(all))
	}
	page, total := ix.SemanticPage(Query{Text: "text a", PerConnection: 2}, 1, 2)
	if diff := cmp.Diff(ids(all[1:3]), ids(page)); diff != "" || total != 4 {
		t.Errorf("page (-want +got):\n%s total %d", diff, total)
	}
	if _, total := ix.SemanticPage(Query{Text: "text a"}, 0, 1); total != 8 {
		t.Errorf("uncapped total %d, want 8", total)
	}
}
