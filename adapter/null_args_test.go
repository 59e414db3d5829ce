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
