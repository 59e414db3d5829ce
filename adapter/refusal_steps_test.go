package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// nextSteps reads an error result's next_steps, checking the text and
// structuredContent carry the same list.
func nextSteps(t *testing.T, r toolResult) []string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("expected an error, got: %s", r.text())
	}
	var text, structured struct {
		NextSteps []string `json:"next_steps"`
	}
	if err := json.Unmarshal([]byte(r.text()), &text); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.StructuredContent, &structured); err != nil {
		t.Fatal(err)
	}
	if strings.Join(text.NextSteps, "\n") != strings.Join(structured.NextSteps, "\n") {
		t.Errorf("next_steps differ between channels:\ntext %v\nstructured %v", text.NextSteps, structured.NextSteps)
	}
	if len(text.NextSteps) == 0 {
		t.Fatalf("refusal names no next step: %s", r.text())
	}
	return text.NextSteps
}

// TestRefusalsNameStepsThatWork: a client-token filter refusal (D14) and a
// misspelt field each name next steps; every call a step names is run and
// succeeds; the filter's own value becomes the search.
func TestRefusalsNameStepsThatWork(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	// The probe of a first schema(stream) is what lets a step name a sort.
	e.c.call("schema", map[string]any{"stream": "messages"})
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"filter", "query_records", map[string]any{"stream": "messages", "filter": map[string]any{"from_name": "Priya"}},
			[]string{`search {"q":"Priya","streams":["messages"]}`, `"sort":"-received_at"`, `schema {"stream":"messages"}`}},
		{"aggregate filter", "aggregate", map[string]any{"stream": "messages", "metric": "count", "filter": map[string]any{"from_name": "Priya"}},
			[]string{`search {"q":"Priya","streams":["messages"]}`}},
		{"search filter: the same search without it", "search", map[string]any{"q": "invoice", "streams": []string{"messages"}, "filter": map[string]any{"from_name": "Priya"}},
			[]string{`search {"q":"invoice","streams":["messages"]}`}},
		{"misspelt field", "query_records", map[string]any{"stream": "messages", "fields": []string{"subjet"}},
			[]string{`did you mean "subject"`, `schema {"stream":"messages"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.c.call(tc.tool, tc.args)
			steps := nextSteps(t, r)
			joined := strings.Join(steps, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("next steps lack %s:\n%s", w, joined)
				}
			}
			for _, st := range steps {
				for _, m := range suggestedCallRE.FindAllStringSubmatch(st, -1) {
					var args map[string]any
					if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
						t.Fatalf("step %q: %v", st, err)
					}
					if res := e.c.call(m[1], args); res.IsError {
						t.Errorf("step %s %s is refused: %s", m[1], m[2], res.text())
					}
				}
			}
		})
	}
}

// TestUnknownArgumentDidYouMean: a misspelt argument names the argument
// meant, in both channels, and the corrected call works.
func TestUnknownArgumentDidYouMean(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("query_records", map[string]any{"strem": "messages", "limt": 2})
	joined := strings.Join(nextSteps(t, r), "\n")
	for _, w := range []string{`no argument "strem"; did you mean "stream"`, `no argument "limt"; did you mean "limit"`} {
		if !strings.Contains(joined, w) {
			t.Errorf("next steps lack %s:\n%s", w, joined)
		}
	}
	if r := e.c.call("query_records", map[string]any{"stream": "messages", "limit": 2}); r.IsError {
		t.Fatal(r.text())
	}
}
