package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestEveryHitContinues: for each search mode, every hit's continuation as
// the page describes it (q = a word the snippet marks; no marked word: the
// field from its start) reads text, and so does the page's resource link.
// A semantic hit's snippet need not contain the query's words, so a q
// built from the query fails there.
func TestEveryHitContinues(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, mode := range []string{"lexical", "semantic", "hybrid"} {
		for _, q := range []string{"invoice", "plans for the reunion weekend", "quarterly budget numbers"} {
			r := e.c.call("search", map[string]any{"q": q, "mode": mode, "streams": []string{"messages", "message_bodies"}, "limit": 5})
			if r.IsError {
				t.Fatalf("search %s %q: %s", mode, q, r.text())
			}
			var page struct {
				How  string      `json:"how"`
				Hits [][5]string `json:"hits"`
			}
			if err := json.Unmarshal(r.StructuredContent, &page); err != nil {
				t.Fatal(err)
			}
			if len(page.Hits) > 0 && (!strings.Contains(page.How, "no marked word") || !strings.Contains(r.text(), "no marked word")) {
				t.Errorf("the page does not say how a hit without a marked word continues:\n%s", page.How)
			}
			for _, h := range page.Hits {
				id, field, snippet := h[0], h[3], h[4]
				if field == "" {
					continue
				}
				args := map[string]any{"id": id, "field_path": field}
				if _, rest, ok := strings.Cut(snippet, "<mark>"); ok {
					args["q"], _, _ = strings.Cut(rest, "</mark>")
				}
				if w := e.c.call("read_record_field", args); w.IsError {
					t.Errorf("%s %q: hit continuation %v refused: %s", mode, q, args, w.text())
				}
			}
			for _, c := range r.Content[1:] {
				if !strings.HasPrefix(c.URI, "pdpp://field-window/") {
					continue
				}
				if _, err := e.c.rpcRaw("resources/read", map[string]any{"uri": c.URI}); err != nil {
					t.Errorf("%s %q: resource link %s: %v", mode, q, c.URI, err)
				}
			}
		}
	}
}
