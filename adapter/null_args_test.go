package adapter_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Function-calling formats that list every property teach models to send
// an unused optional argument as null. For every tool and every optional
// argument of its input schema, null answers exactly as leaving the
// argument out does; a required argument sent as null is still refused.
func TestOptionalArgumentsSentAsNullAreAbsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	base := map[string]map[string]any{
		"schema":            {},
		"query_records":     {"stream": "messages", "limit": 3, "connection_id": demodata.GmailWorkConnectionID},
		"aggregate":         {"stream": "messages", "metric": "count", "connection_id": demodata.GmailWorkConnectionID},
		"search":            {"q": "invoice", "limit": 3},
		"fetch":             {"id": long},
		"read_record_field": {"id": long, "field_path": "body_text", "limit_chars": 300},
	}
	for _, tool := range slices.Sorted(maps.Keys(base)) {
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		raw, err := os.ReadFile("toolschemas/" + tool + ".input.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		for _, prop := range slices.Sorted(maps.Keys(schema.Properties)) {
			args := maps.Clone(base[tool])
			given, inBase := args[prop]
			args[prop] = nil
			var want toolResult
			if inBase && !slices.Contains(schema.Required, prop) {
				delete(args, prop) // the answer without it...
				want = e.c.call(tool, args)
				args[prop] = nil // ...is the answer with it null
			} else if !inBase {
				want = e.c.call(tool, base[tool])
			}
			got := e.c.call(tool, args)
			t.Run(tool+"/"+prop, func(t *testing.T) {
				// Without these two the call cannot work at all (search
				// needs q, read_record_field an id): both answers are that
				// error. Every other pair must be a real answer.
				if needed := tool+"/"+prop == "search/q" || tool+"/"+prop == "read_record_field/id"; !needed &&
					!slices.Contains(schema.Required, prop) && (want.IsError || got.IsError) {
					t.Fatalf("want a real answer to compare: absent %s / null %s", want.text(), got.text())
				}
				if slices.Contains(schema.Required, prop) {
					if code := got.errorCode(t); code != "invalid_arguments" || !strings.Contains(got.text(), `"param":"`+prop+`"`) {
						t.Errorf("required %s: null accepted (given %v): %s", prop, given, got.text())
					}
					return
				}
				if diff := cmp.Diff(cursorToken.ReplaceAllString(want.text(), "<cursor>"), cursorToken.ReplaceAllString(got.text(), "<cursor>")); diff != "" {
					t.Errorf("%s: null answers differently from absent (-absent +null):\n%s", prop, diff)
				}
			})
		}
	}
}

// A null under a name the tool does not have is still an unknown
// argument: a misspelt name must not pass silently.
func TestUnknownArgumentSentAsNullRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("query_records", json.RawMessage(`{"stream":"messages","limt":null}`))
	if code := r.errorCode(t); code != "invalid_arguments" || !strings.Contains(r.text(), "limt") {
		t.Errorf("misspelt null argument: %s", r.text())
	}
}

// The null reading rests on this: no argument of any tool admits null, so
// null never carries a value a caller could mean.
func TestNoInputSchemaAdmitsNull(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"} {
		raw, err := os.ReadFile("toolschemas/" + tool + ".input.json")
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		for name, prop := range schema.Properties {
			if admitsNull(prop) {
				t.Errorf("%s.%s admits null: givenArguments would drop a value", tool, name)
			}
		}
	}
}

// admitsNull reports whether a property schema (at its top or in an
// anyOf/oneOf branch) names null as a type, an enum value or a const.
func admitsNull(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		if t == "null" {
			return true
		}
	case []any:
		if slices.Contains(t, any("null")) {
			return true
		}
	}
	if enum, ok := m["enum"].([]any); ok && slices.Contains(enum, nil) {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		branches, _ := m[k].([]any)
		if slices.ContainsFunc(branches, admitsNull) {
			return true
		}
	}
	return false
}
