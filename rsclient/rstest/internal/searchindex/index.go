// Package searchindex is the retrieval engine of the mock PDPP resource
// server: lexical search with FTS5-like semantics (implicit AND, BM25 scores
// that are negative so lower is better, <mark> snippets), a deterministic
// dependency-free "semantic" search over hashed embeddings, and the hybrid
// round-robin merge of both.
//
// It is a pure package: it knows nothing of grants, streams or HTTP. Callers
// express visibility through Query.Allow and Query.FieldAllowed, which keeps
// grant logic in one place (the mock RS) while the index stays reusable.
//
// An Index is built with Add and then queried; queries never mutate it, so
// any number of goroutines may query concurrently once building is done.
package searchindex

import (
	"cmp"
	"math"
)

// DocKey identifies one indexed record the way the RS identifies a search
// hit: the connection it came from, its stream and its record id.
type DocKey struct{ ConnectionID, Stream, RecordID string }

// Field is one searchable field of a record. Every field given to Add is
// indexed lexically; Semantic additionally embeds it for semantic search,
// mirroring the RS where only some declared fields carry embeddings.
type Field struct {
	Name, Text string
	Semantic   bool
}

// Doc is one record to index.
type Doc struct {
	Key    DocKey
	Fields []Field
}

// Hit is one ranked search result. Score is lower-is-better for both modes
// (negated BM25 for lexical, cosine distance for semantic), matching the RS
// `score.order: "lower_is_better"`.
type Hit struct {
	Key           DocKey
	Score         float64
	MatchedFields []string
	SnippetField  string
	Snippet       string
	// Sources names the retrieval modes that produced the hit, a subset of
	// ["lexical", "semantic"] in that order.
	Sources []string
}

// Query is one search request. Allow filters whole documents (grant,
// requested streams, connection); FieldAllowed filters which fields may
// match and feed snippets (declared + granted fields). A nil func allows
// everything.
type Query struct {
	Text         string
	Allow        func(DocKey) bool
	FieldAllowed func(DocKey, string) bool
	// PerConnection keeps at most this many nearest documents per
	// connection in a semantic ranking (0: all), as the reference RS's
	// vector search keeps its k nearest per connection.
	PerConnection int
}

// Limits that keep every input and result bounded.
const (
	// MaxQueryTerms caps the distinct terms of a lexical query; the rest
	// are ignored so one huge q cannot make a query quadratic.
	MaxQueryTerms = 32
	// MaxQueryBytes caps how much of Query.Text is looked at.
	MaxQueryBytes = 4096
	// MaxFieldsPerDoc caps the fields Add keeps per document (field
	// indexes are stored as uint16 in posting lists).
	MaxFieldsPerDoc = math.MaxUint16
)

// Sources names used in Hit.Sources.
const (
	SourceLexical  = "lexical"
	SourceSemantic = "semantic"
)

// field is a stored field of one document.
type field struct {
	name     string
	text     string
	semantic int32 // index into doc.sem, -1 when not semantic
}

// doc is a stored document.
type doc struct {
	key    DocKey
	fields []field
	length int32      // lexical tokens over all fields, the BM25 document length
	sem    []semField // semantic fields, in field order
}

// posting records that a term occurs tf times in one field of one document.
// Postings of a term are appended in (doc, field) order by Add, which is what
// lets queries intersect lists with a merge instead of hashing.
type posting struct {
	doc   uint32
	field uint16
	tf    uint16
}

// term is the posting list of one token plus its document frequency.
type term struct {
	postings []posting
	df       int32 // distinct documents containing the term
}

// Index is an in-memory lexical + semantic index. Build it with New and Add;
// after the last Add it is safe for concurrent queries. Add must not run
// concurrently with queries or with another Add.
type Index struct {
	docs        []doc
	terms       map[string]*term
	totalTokens int64
	semDocs     []uint32 // docs with at least one semantic field, ascending
}

// New returns an empty Index.
func New() *Index {
	return &Index{terms: make(map[string]*term)}
}

// Len reports how many documents have been added.
func (ix *Index) Len() int { return len(ix.docs) }

// Add indexes d. Every field is indexed lexically; fields with Semantic set
// are also embedded. Fields beyond MaxFieldsPerDoc are dropped and term
// frequencies saturate at 65535 — both far beyond any real record.
func (ix *Index) Add(d Doc) {
	id := uint32(len(ix.docs))
	fields := d.Fields
	if len(fields) > MaxFieldsPerDoc {
		fields = fields[:MaxFieldsPerDoc]
	}
	nd := doc{key: d.Key, fields: make([]field, len(fields))}
	counts := make(map[string]int)
	seen := make(map[string]bool)
	for fi, f := range fields {
		nd.fields[fi] = field{name: f.Name, text: f.Text, semantic: -1}
		clear(counts)
		n := 0
		forEachToken(f.Text, func(tok string, _, _ int) bool {
			counts[tok]++
			n++
			return true
		})
		nd.length += int32(min(n, math.MaxInt32-int(nd.length)))
		for tok, c := range counts {
			t := ix.terms[tok]
			if t == nil {
				t = &term{}
				ix.terms[tok] = t
			}
			t.postings = append(t.postings, posting{doc: id, field: uint16(fi), tf: uint16(min(c, math.MaxUint16))})
			if !seen[tok] {
				seen[tok] = true
				t.df++
			}
		}
		if f.Semantic {
			nd.fields[fi].semantic = int32(len(nd.sem))
			nd.sem = append(nd.sem, embedField(uint16(fi), f.Text))
		}
	}
	ix.totalTokens += int64(nd.length)
	if len(nd.sem) > 0 {
		ix.semDocs = append(ix.semDocs, id)
	}
	ix.docs = append(ix.docs, nd)
}

// keyCompare orders keys by (Stream, ConnectionID, RecordID), the deterministic
// tie-break of equal scores.
func keyCompare(a, b DocKey) int {
	if c := cmp.Compare(a.Stream, b.Stream); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ConnectionID, b.ConnectionID); c != 0 {
		return c
	}
	return cmp.Compare(a.RecordID, b.RecordID)
}
