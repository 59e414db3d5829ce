package searchindex

import (
	"math"
	"slices"
	"sort"
)

// BM25 parameters, the FTS5 defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// scored is a ranked match before its Hit (and snippet) is built.
type scored struct {
	doc   uint32
	score float64
}

// Lexical returns every document matching q, best first, each with its
// snippet. It is LexicalPage over the full range; prefer LexicalPage when
// only a page is shown, as snippets cost a re-tokenization per hit.
func (ix *Index) Lexical(q Query) []Hit {
	hits, _ := ix.LexicalPage(q, 0, math.MaxInt)
	return hits
}

// LexicalPage ranks every document matching q and returns the hits in
// [offset, offset+limit) together with the total number of matches.
// Snippets and matched fields are computed only for the returned page, so a
// query over a million documents costs its posting lists plus one page.
//
// Matching follows SQLite FTS5 defaults: the query is tokenized like the
// documents and a document matches when every query term occurs in at least
// one allowed field (implicit AND). Scores are FTS5 bm25() values: negative,
// lower is better. Equal scores are ordered by (Stream, ConnectionID,
// RecordID) so pages are stable.
func (ix *Index) LexicalPage(q Query, offset, limit int) (hits []Hit, total int) {
	terms := queryTerms(q.Text)
	ranked := ix.rankLexical(terms, q)
	total = len(ranked)
	lo, hi := pageBounds(offset, limit, total)
	if lo >= hi {
		return nil, total
	}
	selectTop(ranked, hi, func(a, b scored) int {
		return ix.compareScored(a, b)
	})
	hits = make([]Hit, 0, hi-lo)
	for _, s := range ranked[lo:hi] {
		hits = append(hits, ix.lexicalHit(s, terms, q))
	}
	return hits, total
}

// pageBounds clamps [offset, offset+limit) to [0, total] without overflow.
func pageBounds(offset, limit, total int) (lo, hi int) {
	lo = min(max(offset, 0), total)
	if limit <= 0 {
		return lo, lo
	}
	hi = total
	if limit < total-lo {
		hi = lo + limit
	}
	return lo, hi
}

// compareScored orders by score, then by document key.
func (ix *Index) compareScored(a, b scored) int {
	switch {
	case a.score < b.score:
		return -1
	case a.score > b.score:
		return 1
	}
	return keyCompare(ix.docs[a.doc].key, ix.docs[b.doc].key)
}

// selectTop orders s so that its first k elements are the k smallest in
// sorted order. For a small page of a large result set it sorts only a
// heap-selected prefix rather than every match.
func selectTop[T any](s []T, k int, cmp func(a, b T) int) {
	if k >= len(s)/4 {
		slices.SortFunc(s, cmp)
		return
	}
	// Max-heap of the k best seen so far in s[:k].
	h := s[:k]
	less := func(i, j int) bool { return cmp(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= k {
				return
			}
			if r := l + 1; r < k && less(r, l) {
				l = r
			}
			if !less(l, i) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < len(s); i++ {
		if k > 0 && cmp(s[i], h[0]) < 0 {
			h[0], s[i] = s[i], h[0]
			down(0)
		}
	}
	slices.SortFunc(h, cmp)
}

// rankLexical returns every allowed document containing all terms in some
// allowed field, with its BM25 score, in no particular order.
func (ix *Index) rankLexical(terms []string, q Query) []scored {
	if len(terms) == 0 || len(ix.docs) == 0 {
		return nil
	}
	lists := make([]*term, len(terms))
	for i, t := range terms {
		lists[i] = ix.terms[t]
		if lists[i] == nil {
			return nil // implicit AND: a missing term matches nothing
		}
	}
	// Walk the rarest list and probe the others, so the work is bounded by
	// the most selective term rather than by the corpus.
	order := make([]int, len(lists))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return len(lists[order[a]].postings) < len(lists[order[b]].postings)
	})
	n := float64(len(ix.docs))
	avgdl := float64(ix.totalTokens) / n
	idf := make([]float64, len(lists))
	for i, l := range lists {
		// FTS5 clamps idf to a tiny positive value so very common terms
		// still add to the score rather than subtract from it.
		idf[i] = max(math.Log((n-float64(l.df)+0.5)/(float64(l.df)+0.5)), 1e-6)
	}
	cursors := make([]int, len(lists))
	ranges := make([][]posting, len(lists))
	var fieldOK []int8 // per-field FieldAllowed memo: 0 unknown, 1 yes, -1 no
	var out []scored
	rare := lists[order[0]].postings
	for i := 0; i < len(rare); {
		d := rare[i].doc
		j := i
		for j < len(rare) && rare[j].doc == d {
			j++
		}
		ranges[order[0]] = rare[i:j]
		i = j
		if !ix.probe(d, lists, order[1:], cursors, ranges) {
			continue
		}
		dd := &ix.docs[d]
		if q.Allow != nil && !q.Allow(dd.key) {
			continue
		}
		fieldOK = resetMemo(fieldOK, len(dd.fields))
		score, ok := ix.bm25(dd, q, ranges, idf, avgdl, fieldOK)
		if ok {
			out = append(out, scored{doc: d, score: score})
		}
	}
	return out
}

// probe advances each non-driving list's cursor to document d and records
// its postings for d in ranges; it reports whether every list contains d.
func (ix *Index) probe(d uint32, lists []*term, others []int, cursors []int, ranges [][]posting) bool {
	for _, li := range others {
		p := lists[li].postings
		c := cursors[li]
		c += sort.Search(len(p)-c, func(k int) bool { return p[c+k].doc >= d })
		cursors[li] = c
		if c >= len(p) || p[c].doc != d {
			return false
		}
		e := c
		for e < len(p) && p[e].doc == d {
			e++
		}
		ranges[li] = p[c:e]
	}
	return true
}

// bm25 scores one candidate over its allowed fields. It reports false when
// some term occurs only in fields the caller may not see.
func (ix *Index) bm25(dd *doc, q Query, ranges [][]posting, idf []float64, avgdl float64, fieldOK []int8) (float64, bool) {
	dl := float64(dd.length)
	norm := bm25K1 * (1 - bm25B + bm25B*dl/avgdl)
	var score float64
	for i, r := range ranges {
		var tf float64
		for _, p := range r {
			if fieldAllowed(dd, q, p.field, fieldOK) {
				tf += float64(p.tf)
			}
		}
		if tf == 0 {
			return 0, false
		}
		score += idf[i] * tf * (bm25K1 + 1) / (tf + norm)
	}
	return -score, true
}

// fieldAllowed consults q.FieldAllowed once per field of the current doc.
func fieldAllowed(dd *doc, q Query, fi uint16, memo []int8) bool {
	if q.FieldAllowed == nil {
		return true
	}
	if memo[fi] == 0 {
		memo[fi] = -1
		if q.FieldAllowed(dd.key, dd.fields[fi].name) {
			memo[fi] = 1
		}
	}
	return memo[fi] == 1
}

// resetMemo returns a zeroed memo of length n, reusing buf when possible.
func resetMemo(buf []int8, n int) []int8 {
	if cap(buf) < n {
		return make([]int8, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}
