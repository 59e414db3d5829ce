package searchindex

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSemanticSnippetRunes bounds a semantic snippet, a verbatim excerpt.
const MaxSemanticSnippetRunes = 240

// semScored is a ranked semantic match: its distance and best field.
type semScored struct {
	doc  uint32
	dist float64
	best uint16 // index into doc.sem
}

// Semantic returns every allowed document with an allowed semantic field,
// nearest first. See SemanticPage.
func (ix *Index) Semantic(q Query) []Hit {
	hits, _ := ix.SemanticPage(q, 0, math.MaxInt)
	return hits
}

// SemanticPage ranks documents by the cosine distance (1 - cos, in [0, 2])
// between the query embedding and their closest allowed semantic field, and
// returns the hits in [offset, offset+limit) plus the number of ranked
// documents. Like the reference RS's vector search there is no relevance
// floor: every document with an allowed semantic field is a neighbour, so
// any query — nonsense included — gets the nearest ones (reference
// implementation: server/search-semantic.ts, buildSemanticSnapshot, which
// keeps the k nearest per connection whatever their distance). Documents
// without semantic fields never appear. Ties are ordered by (Stream,
// ConnectionID, RecordID).
//
// Unlike lexical search this scans every semantic document — the RS's
// vector search is brute force in spirit as well — but only the returned
// page pays for hit construction.
func (ix *Index) SemanticPage(q Query, offset, limit int) (hits []Hit, total int) {
	text := q.Text
	if len(text) > MaxQueryBytes {
		text = text[:MaxQueryBytes]
	}
	qv, _ := embed(text)
	var ranked []semScored
	var fieldOK []int8
	for _, id := range ix.semDocs {
		dd := &ix.docs[id]
		if q.Allow != nil && !q.Allow(dd.key) {
			continue
		}
		fieldOK = resetMemo(fieldOK, len(dd.fields))
		best, bestDist := -1, math.Inf(1)
		for si := range dd.sem {
			sf := &dd.sem[si]
			d := 1 - cosine(&qv, &sf.vec)
			if d >= bestDist || !fieldAllowed(dd, q, sf.field, fieldOK) {
				continue
			}
			best, bestDist = si, d
		}
		if best >= 0 {
			ranked = append(ranked, semScored{doc: id, dist: bestDist, best: uint16(best)})
		}
	}
	nearer := func(a, b semScored) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return keyCompare(ix.docs[a.doc].key, ix.docs[b.doc].key)
	}
	if q.PerConnection > 0 {
		ranked = ix.nearestPerConnection(ranked, q.PerConnection, nearer)
	}
	total = len(ranked)
	lo, hi := pageBounds(offset, limit, total)
	if lo >= hi {
		return nil, total
	}
	selectTop(ranked, hi, nearer)
	hits = make([]Hit, 0, hi-lo)
	for _, s := range ranked[lo:hi] {
		dd := &ix.docs[s.doc]
		f := dd.fields[dd.sem[s.best].field]
		hits = append(hits, Hit{
			Key:           dd.key,
			Score:         s.dist,
			MatchedFields: []string{f.name},
			SnippetField:  f.name,
			Snippet:       Excerpt(f.text, MaxSemanticSnippetRunes),
			Sources:       []string{SourceSemantic},
		})
	}
	return hits, total
}

// nearestPerConnection keeps the k nearest of ranked per connection, in
// ranking order.
func (ix *Index) nearestPerConnection(ranked []semScored, k int, nearer func(a, b semScored) int) []semScored {
	slices.SortFunc(ranked, nearer)
	kept := ranked[:0]
	per := map[string]int{}
	for _, s := range ranked {
		c := ix.docs[s.doc].key.ConnectionID
		if per[c] < k {
			per[c]++
			kept = append(kept, s)
		}
	}
	return kept
}

// Excerpt returns the start of text, verbatim, at most maxRunes runes long,
// cut at the last word boundary that fits (hard-cut only when the first word
// alone is too long). Leading and trailing white space is dropped.
func Excerpt(text string, maxRunes int) string {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	if utf8.RuneCountInString(text) <= maxRunes {
		return strings.TrimRightFunc(text, unicode.IsSpace)
	}
	cut, n := 0, 0 // byte offset after maxRunes runes
	for cut < len(text) && n < maxRunes {
		_, size := utf8.DecodeRuneInString(text[cut:])
		cut += size
		n++
	}
	// The excerpt may end at a space, or right before one.
	end := cut
	for end > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:end])
		if unicode.IsSpace(r) {
			break
		}
		if end == cut {
			if next, _ := utf8.DecodeRuneInString(text[cut:]); unicode.IsSpace(next) {
				break
			}
		}
		end -= size
	}
	if end == 0 {
		end = cut
	}
	return strings.TrimRightFunc(text[:end], unicode.IsSpace)
}
