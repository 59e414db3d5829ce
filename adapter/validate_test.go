package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// A filter value is a scalar of one of three types or a range object of
// gte/gt/lte/lt number or string bounds, spelled as single-type anyOf
// branches (portable to single-type schema dialects). A wrong value still
// gets one message per place, naming every type it may have — not one
// message per branch — and a wrong name is reported where it sits.
func TestFilterValueTypeErrorsReadAsOneUnion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	for _, tc := range []struct {
		name   string
		filter map[string]any
		want   string
	}{
		{"null value", map[string]any{"a": nil},
			"input validation failed: filter.a: got null, want boolean or number or object or string"},
		{"array value", map[string]any{"a": []any{1}},
			"input validation failed: filter.a: got array, want boolean or number or object or string"},
		{"null bound", map[string]any{"a": map[string]any{"gte": nil}},
			"input validation failed: filter.a: got object, want boolean or number or string; filter.a.gte: got null, want number or string"},
		// The RS ranges only numbers and date strings.
		{"boolean bound", map[string]any{"a": map[string]any{"lt": true}},
			"input validation failed: filter.a: got object, want boolean or number or string; filter.a.lt: got boolean, want number or string"},
		{"unknown operator", map[string]any{"a": map[string]any{"between": 1}},
			`input validation failed: filter.a: got object, want boolean or number or string; filter: property name "between": value must be one of 'gte', 'gt', 'lte', 'lt'`},
		// Property name failures name the argument and the offending name.
		{"bracket field name", map[string]any{"a[x]": 1},
			`input validation failed: filter: property name "a[x]": 'a[x]' does not match pattern '^[^\\[\\]]+$'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range []string{"query_records", "aggregate", "search"} {
				args := map[string]any{"stream": "messages", "filter": tc.filter}
				switch tool {
				case "aggregate":
					args["metric"] = "count"
				case "search":
					args = map[string]any{"q": "x", "filter": tc.filter}
				}
				r := e.c.call(tool, args)
				var env struct {
					Error struct {
						Code, Message, Param string
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(r.text()), &env); err != nil || !r.IsError {
					t.Fatalf("%s: want an error envelope, got isError=%v %s", tool, r.IsError, r.text())
				}
				got := env.Error
				if diff := cmp.Diff(struct{ Code, Message, Param string }{"invalid_arguments", tc.want, "filter"}, got); diff != "" {
					t.Errorf("%s filter %v (-want +got):\n%s", tool, tc.filter, diff)
				}
			}
		})
	}
}
