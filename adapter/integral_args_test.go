package adapter_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// JSON Schema's integer is a mathematical integer: the input schemas
// accept "limit": 5.0 or 1e1, as models sometimes write them, so the tools
// must answer exactly as they do for 5 or 10, not fail while decoding.
func TestIntegerArgumentsInAnySpelling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	conn := `"connection_id":"` + demodata.GmailWorkConnectionID + `"`
	for _, tc := range []struct {
		name, tool, plain, spelled string
	}{
		{"query_records limit 5.0", "query_records",
			`{"stream":"messages","limit":5,` + conn + `}`, `{"stream":"messages","limit":5.0,` + conn + `}`},
		{"search limit 1e1", "search", `{"q":"invoice","limit":10}`, `{"q":"invoice","limit":1e1}`},
		{"aggregate limit 3.00", "aggregate",
			`{"stream":"messages","metric":"count","group_by":"is_seen","limit":3,` + conn + `}`,
			`{"stream":"messages","metric":"count","group_by":"is_seen","limit":3.00,` + conn + `}`},
		{"read_record_field limit_chars 200.0, offset 2E2", "read_record_field",
			`{"id":"` + long + `","field_path":"body_text","limit_chars":200,"offset_chars":200}`,
			`{"id":"` + long + `","field_path":"body_text","limit_chars":200.0,"offset_chars":2E2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := e.c.call(tc.tool, json.RawMessage(tc.plain))
			got := e.c.call(tc.tool, json.RawMessage(tc.spelled))
			if want.IsError {
				t.Fatalf("plain spelling failed: %s", want.text())
			}
			// Window cursors carry their expiry second: compare without them.
			if diff := cmp.Diff(cursorToken.ReplaceAllString(want.text(), "<cursor>"), cursorToken.ReplaceAllString(got.text(), "<cursor>")); diff != "" {
				t.Errorf("%s answers differently from %s (-plain +spelled):\n%s", tc.spelled, tc.plain, diff)
			}
		})
	}
}

// A number with a fraction is still refused by the schema, and a whole
// number too large for the adapter is out of range: both in the words of
// every other invalid argument, naming the argument, never Go types.
func TestUnusableIntegerArgumentsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	for _, tc := range []struct {
		tool, args, param, words string
	}{
		{"query_records", `{"stream":"messages","limit":5.5}`, "limit", "limit"},
		{"read_record_field", `{"id":"` + long + `","field_path":"body_text","offset_chars":1e30}`, "offset_chars", "offset_chars: 1e30 is out of range"},
	} {
		r := e.c.call(tc.tool, json.RawMessage(tc.args))
		if code := r.errorCode(t); code != "invalid_arguments" {
			t.Fatalf("%s: code %q: %s", tc.args, code, r.text())
		}
		if strings.Contains(r.text(), "Go ") || strings.Contains(r.text(), "Args") || !strings.Contains(r.text(), `"param":"`+tc.param+`"`) ||
			!strings.Contains(r.text(), tc.words) {
			t.Errorf("%s: message should name %s in plain words: %s", tc.args, tc.param, r.text())
		}
	}
}

// cursorToken matches a printed cursor argument.
var cursorToken = regexp.MustCompile(`"cursor":"[^"]*"`)
