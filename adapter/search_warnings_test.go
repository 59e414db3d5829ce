package adapter_test

import (
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestSearchKeepsRSWarnings, on the mock in the real RS's
// posture (D19): a semantic search over a stream without semantic fields
// answers 0 hits with source_skipped_not_applicable, and the page says so
// in both channels, naming the connection; a lexical miss there does not
// suggest a semantic retry that would find nothing, while a miss on a
// stream with semantic fields still does.
func TestSearchKeepsRSWarnings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	for _, tc := range []struct {
		name  string
		args  map[string]any
		want  []string // in the text and in structuredContent's warnings
		retry bool     // a semantic retry is suggested
	}{
		{"semantic over labels", map[string]any{"q": "travel", "mode": "semantic", "streams": []string{"labels"}},
			[]string{"warning source_skipped_not_applicable: ", "connection_id=" + demodata.GmailWorkConnectionID, "connection_id=" + demodata.GmailPersonalConnectionID}, false},
		{"lexical miss over labels", map[string]any{"q": "vendor", "streams": []string{"labels"}}, nil, false},
		{"lexical miss over messages", map[string]any{"q": "vendors", "streams": []string{"messages"}}, []string{"warning search_coverage: no lexical hits"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.c.call("search", tc.args)
			sr := decodeSearch(t, res)
			warns := strings.Join(sr.Warnings, "\n")
			for _, w := range tc.want {
				if !strings.Contains(res.text(), w) || !strings.Contains(warns, w) {
					t.Errorf("want %q in both channels:\ntext: %s\nstructured warnings: %s", w, res.text(), warns)
				}
			}
			if retry := strings.Contains(res.text(), `"mode":"semantic"`) && strings.Contains(warns, `"mode":"semantic"`); retry != tc.retry {
				t.Errorf("semantic retry suggested: %t, want %t:\n%s", retry, tc.retry, res.text())
			}
		})
	}
}
