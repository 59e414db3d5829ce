package rstest

import (
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/internal/searchindex"
)

// buildSearch indexes every live record's declared lexical and semantic
// string fields once; grants are applied at query time.
func (ix *indexes) buildSearch() {
	ix.search = searchindex.New()
	for k, set := range ix.recs {
		cn := ix.connections[k.conn]
		info := ix.streams[cn.ConnectorKey][k.stream]
		sd := info.decl.Query.Search
		if sd == nil || (len(sd.LexicalFields) == 0 && len(sd.SemanticFields) == 0) {
			continue
		}
		names := append(append([]string{}, sd.LexicalFields...), sd.SemanticFields...)
		for _, r := range set.asc {
			p := decodePayload(r.Data)
			var fields []searchindex.Field
			seen := map[string]bool{}
			for _, n := range names {
				if seen[n] {
					continue
				}
				seen[n] = true
				if txt, ok := p[n].(string); ok && strings.TrimSpace(txt) != "" {
					fields = append(fields, searchindex.Field{Name: n, Text: txt, Semantic: contains(sd.SemanticFields, n)})
				}
			}
			if len(fields) > 0 {
				ix.search.Add(searchindex.Doc{Key: searchindex.DocKey{ConnectionID: k.conn, Stream: k.stream, RecordID: r.ID}, Fields: fields})
			}
		}
	}
}

// encodeURIComponent escapes like JavaScript's encodeURIComponent, which
// is what the reference uses for record_url.
func encodeURIComponent(s string) string {
	const keep = "-_.!~*'()"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
	}
	return b.String()
}
