package adapter_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var jsonObjectRE = regexp.MustCompile(`\{[^{}]*\}`)

// schemaLine returns the text after " <name>: " in a schema(stream) text.
func schemaLine(t *testing.T, text, name string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, " "+name+": "); ok {
			return rest
		}
	}
	t.Fatalf("schema text has no %s line:\n%s", name, text)
	return ""
}

// tries decodes every JSON argument object a schema line suggests.
func tries(t *testing.T, line string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, raw := range jsonObjectRE.FindAllString(line, -1) {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("suggested arguments %s are not JSON: %v", raw, err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatalf("no call to try in %q", line)
	}
	return out
}

// TestDeclaredPostureTextOnlyClient, on the mock's
// declared posture (the real RS's D1: no sort field, aggregation or search
// field advertised, yet it sorts, aggregates and searches): the schema
// text says "not advertised", never "none", and a client that reads only
// that text sorts, aggregates and searches successfully with the exact
// arguments it suggests.
func TestDeclaredPostureTextOnlyClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	schema := e.c.call("schema", map[string]any{"stream": "messages"})
	if schema.IsError {
		t.Fatal(schema.text())
	}
	text := schema.text()
	for _, bad := range []string{"sort: none", "search: none", "no field aggregations", "usually", "expand: none"} {
		if strings.Contains(text, bad) {
			t.Errorf("schema text claims %q:\n%s", bad, text)
		}
	}
	containsAll(t, text, "not advertised", "filters: unavailable to this token")

	// sort
	sortTry := tries(t, schemaLine(t, text, "sort"))[0]
	sortTry["limit"] = 5
	r := e.c.call("query_records", sortTry)
	if r.IsError {
		t.Fatalf("query_records %v from the schema text: %s", sortTry, r.text())
	}
	if ids := recordLineRE.FindAllStringSubmatch(r.text(), -1); len(ids) < 5 {
		t.Errorf("sorted page shows %d records:\n%s", len(ids), r.text())
	}
	var page struct {
		Data struct {
			Data []struct {
				ConnectionID string         `json:"connection_id"`
				Data         map[string]any `json:"data"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.StructuredContent, &page); err != nil {
		t.Fatal(err)
	}
	// A fan-in page is each connection's page in turn (as the real RS
	// answers), so the order holds within each connection's run.
	field := strings.TrimPrefix(sortTry["sort"].(string), "-")
	for i := 1; i < len(page.Data.Data); i++ {
		if page.Data.Data[i-1].ConnectionID != page.Data.Data[i].ConnectionID {
			continue
		}
		a, _ := page.Data.Data[i-1].Data[field].(string)
		b, _ := page.Data.Data[i].Data[field].(string)
		if a < b {
			t.Errorf("page not newest first by %s: %q before %q", field, a, b)
		}
	}

	// aggregate: every suggested call works
	for _, args := range tries(t, schemaLine(t, text, "aggregate")) {
		r := e.c.call("aggregate", args)
		if r.IsError {
			t.Errorf("aggregate %v from the schema text: %s", args, r.text())
		}
	}

	// search, then the semantic retry the text names
	// The line says in words what to search with (a template's
	// placeholder run as written finds nothing): the streams it names,
	// with words the records contain.
	line := schemaLine(t, text, "search")
	sm := regexp.MustCompile(`search with "streams":\["(\w+)"\] and "q" set to words`).FindStringSubmatch(line)
	if sm == nil {
		t.Fatalf("search line says not what to search with: %s", line)
	}
	searchTry := map[string]any{"q": "invoice", "streams": []string{sm[1]}}
	r = e.c.call("search", searchTry)
	if r.IsError || !strings.Contains(r.text(), "first_fetch_id=") {
		t.Errorf("search %v from the schema text: %s", searchTry, r.text())
	}
	if m := regexp.MustCompile(`"mode":"(\w+)" ranks by meaning`).FindStringSubmatch(line); m == nil {
		t.Errorf("search line names no other mode to try: %s", line)
	} else {
		searchTry["mode"] = m[1]
		if r := e.c.call("search", searchTry); r.IsError {
			t.Errorf("search %v: %s", searchTry, r.text())
		}
	}
}
