package searchindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// benchVocab is a fixed vocabulary; benchDoc draws from it with a Zipf
// skew so posting lists have realistic, uneven lengths.
var benchVocab = func() []string {
	v := make([]string, 5000)
	for i := range v {
		v[i] = fmt.Sprintf("w%x", i*2654435761%1000003)
	}
	return v
}()

func benchDoc(r *rand.Rand, z *rand.Zipf, i int) Doc {
	var sb strings.Builder
	for j := range 40 {
		if j > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(benchVocab[z.Uint64()])
	}
	return Doc{
		Key: DocKey{ConnectionID: "cin_bench", Stream: "messages", RecordID: fmt.Sprintf("r%07d", i)},
		Fields: []Field{
			{Name: "subject", Text: benchVocab[r.IntN(len(benchVocab))] + " " + benchVocab[r.IntN(len(benchVocab))]},
			{Name: "body", Text: sb.String(), Semantic: true},
		},
	}
}

func benchDocs(n int) []Doc {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, uint64(len(benchVocab)-1))
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = benchDoc(r, z, i)
	}
	return docs
}

var (
	bench100kOnce sync.Once
	bench100k     *Index
)

func index100k(b *testing.B) *Index {
	b.Helper()
	bench100kOnce.Do(func() {
		bench100k = New()
		for _, d := range benchDocs(100_000) {
			bench100k.Add(d)
		}
	})
	return bench100k
}

// BenchmarkIndex100k measures indexing (lexical plus one semantic field per
// document). One op adds a batch of 1,000 documents to an index that grows
// to 100k and then restarts, so -benchtime=100x indexes 100k documents.
func BenchmarkIndex100k(b *testing.B) {
	const batch = 1000
	docs := benchDocs(100_000)
	ix := New()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		off := i * batch % len(docs)
		if off == 0 {
			ix = New()
		}
		for _, d := range docs[off : off+batch] {
			ix.Add(d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/doc")
}

// BenchmarkLexicalPage100k queries a 100k-document index for one page of
// 25, with a common term (many matches, heap-selected page), a rare
// conjunction and a grant-style filter.
func BenchmarkLexicalPage100k(b *testing.B) {
	ix := index100k(b)
	for _, q := range []Query{
		{Text: benchVocab[0]},
		{Text: benchVocab[0] + " " + benchVocab[50]},
		{Text: benchVocab[3] + " " + benchVocab[7], Allow: func(k DocKey) bool { return k.RecordID[7] != '3' },
			FieldAllowed: func(_ DocKey, f string) bool { return f == "body" }},
	} {
		_, total := ix.LexicalPage(q, 0, 25)
		b.Run(fmt.Sprintf("%s_matches=%d", strings.ReplaceAll(q.Text, " ", "+"), total), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				ix.LexicalPage(q, 0, 25)
			}
		})
	}
}

// BenchmarkLexicalAll100k ranks and snippets every match (Lexical).
func BenchmarkLexicalAll100k(b *testing.B) {
	ix := index100k(b)
	q := Query{Text: benchVocab[20] + " " + benchVocab[30]}
	b.ReportAllocs()
	for range b.N {
		ix.Lexical(q)
	}
}

// BenchmarkSemanticPage100k scans 100k embedded fields for a page of 25.
func BenchmarkSemanticPage100k(b *testing.B) {
	ix := index100k(b)
	q := Query{Text: benchVocab[1] + " " + benchVocab[40]}
	b.ReportAllocs()
	for range b.N {
		ix.SemanticPage(q, 0, 25)
	}
}
