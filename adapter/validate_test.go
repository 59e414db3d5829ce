package adapter_test

import (
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Input validation failures are typed adapter errors that name the
// argument in plain words, with the same structure as every other error.
func TestInputValidationErrorsAreTypedAndReadable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		param string
		words []string
	}{
		{"query_records", map[string]any{"stream": "messages", "limit": 500}, "limit", []string{"limit", "100", "500"}},
		{"query_records", map[string]any{"stream": "messages", "bogus": 1}, "", []string{"bogus"}},
		{"query_records", map[string]any{"stream": "messages", "filter": "filter[a]=b"}, "filter", []string{"filter", "object"}},
		{"query_records", map[string]any{}, "", []string{"stream"}},
		{"aggregate", map[string]any{"stream": "messages", "metric": "median"}, "metric", []string{"metric", "count_distinct"}},
		{"search", map[string]any{"q": ""}, "q", []string{"q"}},
		{"read_record_field", map[string]any{"field_path": "body", "limit_chars": 20000}, "limit_chars", []string{"limit_chars", "16384"}},
	} {
		before := e.rs.RSCalls()
		r := e.c.call(tc.tool, tc.args)
		if got := r.errorCode(t); got != "invalid_arguments" {
			t.Errorf("%s %v: code %q", tc.tool, tc.args, got)
		}
		for _, w := range tc.words {
			if !strings.Contains(r.text(), w) {
				t.Errorf("%s %v: message lacks %q: %s", tc.tool, tc.args, w, r.text())
			}
		}
		if tc.param != "" && !strings.Contains(r.text(), `"param":"`+tc.param+`"`) {
			t.Errorf("%s: param %q not named: %s", tc.tool, tc.param, r.text())
		}
		if strings.Contains(r.text(), "&{") || string(r.StructuredContent) != r.text() {
			t.Errorf("%s: untidy or unstructured error: %s", tc.tool, r.text())
		}
		if n := e.rs.RSCalls() - before; n != 0 {
			t.Errorf("%s: %d RS calls before validation", tc.tool, n)
		}
	}
}
