package rstest

import (
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/internal/searchindex"
)

// hitObj renders one search hit for the request's mode (§2.8).
func (s *Server) hitObj(sr *searchReq, h searchindex.Hit, lexScore, semScore map[searchindex.DocKey]float64) obj {
	t := sr.targets[csKey{h.Key.ConnectionID, h.Key.Stream}]
	r := t.set.byID[h.Key.RecordID]
	url := "/v1/streams/" + encodeURIComponent(h.Key.Stream) + "/records/" + encodeURIComponent(h.Key.RecordID)
	matched := h.MatchedFields
	if matched == nil {
		matched = []string{}
	}
	o := obj{{"connector_id", t.info.connector.Key}, {"emitted_at", rfc3339ms(r.EmittedAt)},
		{"matched_fields", matched}, {"object", "search_result"}, {"record_key", r.ID},
		{"record_url", url}, {"stream", h.Key.Stream}}
	if sr.mode != modeLexical {
		o = append(o, kv{"retrieval_mode", sr.mode})
	}
	p := decodePayload(r.Data)
	for _, f := range authoredFields {
		if v, ok := p[f].(string); ok && v != "" {
			o = append(o, kv{"authored_at", v})
			break
		}
	}
	o = append(o, kv{"connection_id", t.conn.ID}, kv{"connector_instance_id", t.conn.ID})
	if t.conn.DisplayName != "" {
		o = append(o, kv{"display_name", t.conn.DisplayName})
	}
	if h.SnippetField != "" {
		o = append(o, kv{"snippet", obj{{"field", h.SnippetField}, {"text", h.Snippet}}})
	}
	lex := obj{{"kind", "bm25"}, {"order", "lower_is_better"}, {"value", h.Score}}
	sem := obj{{"kind", "semantic_distance"}, {"order", "lower_is_better"}, {"value", h.Score}}
	switch sr.mode {
	case modeLexical:
		if h.SnippetField != "" {
			o = append(o, kv{"evidence_excerpts", []obj{evidence(t, r, h, url)}})
		}
		o = append(o, kv{"score", lex})
	case modeSemantic:
		o = append(o, kv{"score", sem})
	default:
		srcs, scores := []string{}, obj{}
		if v, ok := lexScore[h.Key]; ok {
			srcs = append(srcs, searchindex.SourceLexical)
			scores = append(scores, kv{"lexical", obj{{"kind", "bm25"}, {"order", "lower_is_better"}, {"value", v}}})
		}
		if v, ok := semScore[h.Key]; ok {
			srcs = append(srcs, searchindex.SourceSemantic)
			scores = append(scores, kv{"semantic", obj{{"kind", "semantic_distance"}, {"order", "lower_is_better"}, {"value", v}}})
		}
		o = append(o, kv{"retrieval_sources", srcs}, kv{"scores", scores})
	}
	return o
}

// evidence is the lexical evidence excerpt with its field-window read.
func evidence(t *target, r *rec, h searchindex.Hit, url string) obj {
	full, _ := decodePayload(r.Data)[h.SnippetField].(string)
	plain := strings.NewReplacer(searchindex.MarkOpen, "", searchindex.MarkClose, "").Replace(h.Snippet)
	read := obj{{"object", "field_window_read"}, {"method", "GET"}, {"route", url + "/field-window"},
		{"stream", r.Stream}, {"record_id", r.ID}, {"field", h.SnippetField}, {"connection_id", t.conn.ID}}
	return obj{{"field_path", h.SnippetField}, {"object", "evidence_excerpt"}, {"preview_text", h.Snippet},
		{"provenance", "lexical_match"}, {"truncated", plain != full}, {"read", read}}
}
