package searchindex

// Hybrid merges lexical and semantic results the way the RS hybrid route
// does: round-robin (lexical first), deduplicated by key, at most limit hits.
// A hit found by both modes keeps the fields of its first occurrence (so its
// Score and Snippet come from the mode that placed it) and gets Sources
// ["lexical", "semantic"]; callers that need both scores look the key up in
// the inputs. The inputs are not modified.
func Hybrid(lex, sem []Hit, limit int) []Hit {
	if limit <= 0 {
		return nil
	}
	inLex := make(map[DocKey]bool, len(lex))
	for _, h := range lex {
		inLex[h.Key] = true
	}
	inSem := make(map[DocKey]bool, len(sem))
	for _, h := range sem {
		inSem[h.Key] = true
	}
	seen := make(map[DocKey]bool)
	out := make([]Hit, 0, min(limit, len(lex)+len(sem)))
	take := func(h Hit) {
		if len(out) >= limit || seen[h.Key] {
			return
		}
		seen[h.Key] = true
		h.Sources = nil
		if inLex[h.Key] {
			h.Sources = append(h.Sources, SourceLexical)
		}
		if inSem[h.Key] {
			h.Sources = append(h.Sources, SourceSemantic)
		}
		h.MatchedFields = append([]string(nil), h.MatchedFields...)
		out = append(out, h)
	}
	for i := 0; i < max(len(lex), len(sem)) && len(out) < limit; i++ {
		if i < len(lex) {
			take(lex[i])
		}
		if i < len(sem) {
			take(sem[i])
		}
	}
	return out
}
