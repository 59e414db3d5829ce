package searchindex

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fruitCorpus is the hand-checked ranking corpus: four interesting docs and
// six fillers (3 tokens each) so idf is not clamped. Token totals: 9+5+6+2
// +6*3 = 40, N = 10, avgdl = 4.
func fruitCorpus() *Index {
	ix := New()
	add := func(id string, fields ...Field) {
		ix.Add(Doc{Key: DocKey{ConnectionID: "c1", Stream: "notes", RecordID: id}, Fields: fields})
	}
	add("1", Field{Name: "title", Text: "Apple pie"}, Field{Name: "body", Text: "A recipe for apple pie with apples."})
	add("2", Field{Name: "title", Text: "Banana bread"}, Field{Name: "body", Text: "apple and banana"})
	add("3", Field{Name: "title", Text: "Cherry"}, Field{Name: "body", Text: "apple, APPLE; apple cherry tart"})
	add("4", Field{Name: "body", Text: "nothing here"})
	for _, id := range []string{"f1", "f2", "f3", "f4", "f5", "f6"} {
		add(id, Field{Name: "body", Text: "lorem ipsum dolor"})
	}
	return ix
}

// handBM25 is FTS5's bm25() for one term, written out independently of the
// implementation: N=10, avgdl=4, k1=1.2, b=0.75.
func handBM25(df, tf, dl float64) float64 {
	idf := math.Log((10 - df + 0.5) / (df + 0.5))
	return -idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/4))
}

func key(id string) DocKey { return DocKey{ConnectionID: "c1", Stream: "notes", RecordID: id} }

func TestLexicalRanking(t *testing.T) {
	t.Parallel()
	ix := fruitCorpus()
	titleOnly := func(_ DocKey, f string) bool { return f == "title" }
	bodyOnly := func(_ DocKey, f string) bool { return f == "body" }
	not3 := func(k DocKey) bool { return k.RecordID != "3" }
	tests := []struct {
		name string
		q    Query
		want []Hit
	}{
		{"single term ranked by bm25", Query{Text: "apple"}, []Hit{
			{Key: key("3"), Score: handBM25(3, 3, 6), MatchedFields: []string{"body"}, SnippetField: "body",
				Snippet: "<mark>apple</mark>, <mark>APPLE</mark>; <mark>apple</mark> cherry tart"},
			{Key: key("1"), Score: handBM25(3, 2, 9), MatchedFields: []string{"title", "body"}, SnippetField: "title",
				Snippet: "<mark>Apple</mark> pie"},
			{Key: key("2"), Score: handBM25(3, 1, 5), MatchedFields: []string{"body"}, SnippetField: "body",
				Snippet: "<mark>apple</mark> and banana"},
		}},
		{"implicit AND", Query{Text: "apple cherry"}, []Hit{
			{Key: key("3"), Score: handBM25(3, 3, 6) + handBM25(1, 2, 6), MatchedFields: []string{"title", "body"},
				SnippetField: "body", Snippet: "<mark>apple</mark>, <mark>APPLE</mark>; <mark>apple</mark> <mark>cherry</mark> tart"},
		}},
		{"AND across fields", Query{Text: "BREAD and"}, []Hit{
			{Key: key("2"), Score: handBM25(1, 1, 5) + handBM25(1, 1, 5), MatchedFields: []string{"title", "body"},
				SnippetField: "title", Snippet: "Banana <mark>bread</mark>"},
		}},
		{"AND across fields, one field hidden", Query{Text: "bread and", FieldAllowed: bodyOnly}, nil},
		{"unknown term matches nothing", Query{Text: "apple zebra"}, nil},
		{"punctuation only", Query{Text: " -- !? "}, nil},
		{"field filter", Query{Text: "apple", FieldAllowed: titleOnly}, []Hit{
			{Key: key("1"), Score: handBM25(3, 1, 9), MatchedFields: []string{"title"}, SnippetField: "title",
				Snippet: "<mark>Apple</mark> pie"},
		}},
		{"doc filter", Query{Text: "apple", Allow: not3}, []Hit{
			{Key: key("1"), Score: handBM25(3, 2, 9), MatchedFields: []string{"title", "body"}, SnippetField: "title",
				Snippet: "<mark>Apple</mark> pie"},
			{Key: key("2"), Score: handBM25(3, 1, 5), MatchedFields: []string{"body"}, SnippetField: "body",
				Snippet: "<mark>apple</mark> and banana"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ix.Lexical(tt.q)
			for i := range tt.want {
				tt.want[i].Sources = []string{SourceLexical}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Lexical(%q) mismatch (-want +got):\n%s", tt.q.Text, diff)
			}
		})
	}
}

func TestLexicalScoresNegative(t *testing.T) {
	t.Parallel()
	for _, h := range fruitCorpus().Lexical(Query{Text: "apple"}) {
		if h.Score >= 0 {
			t.Errorf("%v: score %v, want negative like FTS5", h.Key, h.Score)
		}
	}
}

func TestLexicalDeterministicTies(t *testing.T) {
	t.Parallel()
	ix := New()
	// Identical documents added in scrambled order must come back ordered
	// by (Stream, ConnectionID, RecordID).
	keys := []DocKey{
		{"c2", "b", "1"}, {"c1", "b", "2"}, {"c1", "a", "9"}, {"c1", "b", "1"}, {"c0", "c", "0"}, {"c2", "a", "1"},
	}
	for _, k := range keys {
		ix.Add(Doc{Key: k, Fields: []Field{{Name: "text", Text: "same words here"}}})
	}
	want := []DocKey{{"c1", "a", "9"}, {"c2", "a", "1"}, {"c1", "b", "1"}, {"c1", "b", "2"}, {"c2", "b", "1"}, {"c0", "c", "0"}}
	for _, q := range []string{"same", "words here"} {
		var got []DocKey
		for _, h := range ix.Lexical(Query{Text: q}) {
			got = append(got, h.Key)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Lexical(%q) order (-want +got):\n%s", q, diff)
		}
	}
}

func TestLexicalPage(t *testing.T) {
	t.Parallel()
	ix := New()
	for i := range 50 {
		ix.Add(Doc{Key: DocKey{"c", "s", string(rune('A' + i))}, Fields: []Field{{Name: "t", Text: "common " + repeat("x ", i)}}})
	}
	all := ix.Lexical(Query{Text: "common"})
	if len(all) != 50 {
		t.Fatalf("Lexical: %d hits, want 50", len(all))
	}
	tests := []struct {
		offset, limit int
		want          []Hit
	}{
		{0, 3, all[:3]},
		{10, 5, all[10:15]},
		{48, 10, all[48:]},
		{50, 10, nil},
		{-5, 2, all[:2]},
		{0, 0, nil},
		{3, math.MaxInt, all[3:]},
	}
	for _, tt := range tests {
		got, total := ix.LexicalPage(Query{Text: "common"}, tt.offset, tt.limit)
		if total != 50 {
			t.Errorf("LexicalPage(%d, %d) total = %d, want 50", tt.offset, tt.limit, total)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("LexicalPage(%d, %d) (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestLexicalUnicode(t *testing.T) {
	t.Parallel()
	ix := New()
	ix.Add(Doc{Key: key("fr"), Fields: []Field{{Name: "t", Text: "Réunion à Zürich: ÉTÉ chaud"}}})
	ix.Add(Doc{Key: key("ja"), Fields: []Field{{Name: "t", Text: "東京 タワー、大阪"}}})
	ix.Add(Doc{Key: key("hi"), Fields: []Field{{Name: "t", Text: "नमस्ते दुनिया"}}})
	tests := []struct {
		q, wantID, wantSnippet string
	}{
		{"zürich", "fr", "Réunion à <mark>Zürich</mark>: ÉTÉ chaud"},
		{"été RÉUNION", "fr", "<mark>Réunion</mark> à Zürich: <mark>ÉTÉ</mark> chaud"},
		{"大阪", "ja", "東京 タワー、<mark>大阪</mark>"},
		{"दुनिया", "hi", "नमस्ते <mark>दुनिया</mark>"},
	}
	for _, tt := range tests {
		got := ix.Lexical(Query{Text: tt.q})
		if len(got) != 1 || got[0].Key.RecordID != tt.wantID || got[0].Snippet != tt.wantSnippet {
			t.Errorf("Lexical(%q) = %+v, want one hit %s with snippet %q", tt.q, got, tt.wantID, tt.wantSnippet)
		}
	}
}

func TestLexicalEmptyIndex(t *testing.T) {
	t.Parallel()
	hits, total := New().LexicalPage(Query{Text: "x"}, 0, 10)
	if hits != nil || total != 0 {
		t.Errorf("empty index: %v, %d", hits, total)
	}
}

// TestConcurrentQueries runs queries in parallel; under -race it proves
// queries only read the index.
func TestConcurrentQueries(t *testing.T) {
	t.Parallel()
	ix := New()
	for _, d := range benchDocs(500) {
		ix.Add(d)
	}
	want := ix.Lexical(Query{Text: benchVocab[0]})
	wantSem := ix.Semantic(Query{Text: benchVocab[1]})
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 5 {
				if diff := cmp.Diff(want, ix.Lexical(Query{Text: benchVocab[0]})); diff != "" {
					t.Errorf("concurrent Lexical differs:\n%s", diff)
				}
				if diff := cmp.Diff(wantSem, ix.Semantic(Query{Text: benchVocab[1]})); diff != "" {
					t.Errorf("concurrent Semantic differs:\n%s", diff)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	if len(want) == 0 || len(wantSem) == 0 {
		t.Fatalf("corpus too small: %d lexical, %d semantic hits", len(want), len(wantSem))
	}
}
