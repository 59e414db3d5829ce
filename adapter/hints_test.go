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

// TestSeveralConnectionsNoteNamesOnlyWhatWorks: the schema's "pass
// connection_id to …" note names count_distinct only where a source
// advertises it, and then count_distinct with connection_id works; in the
// real RS's posture (nothing advertised, count_distinct declared nowhere
// on Gmail) it is not named, since the RS refuses it with or without
// connection_id.
func TestSeveralConnectionsNoteNamesOnlyWhatWorks(t *testing.T) {
	t.Parallel()
	for _, posture := range []rstest.Capabilities{rstest.CapabilitiesDeclared, rstest.CapabilitiesFull} {
		e := newEnv(t, testenv.Options{Capabilities: posture}, demodata.GmailToken)
		for _, stream := range indexStreams(t, e) {
			r := e.c.call("schema", map[string]any{"stream": stream})
			var note string
			for _, l := range strings.Split(r.text(), "\n") {
				if strings.HasPrefix(l, "stream has several connections") {
					note = l
				}
			}
			if note == "" || !strings.Contains(note, "count_distinct") {
				continue
			}
			field := countDistinctField(r.text())
			if field == "" {
				t.Errorf("%s schema(%s) names count_distinct but advertises no count_distinct field:\n%s", posture, stream, r.text())
				continue
			}
			agg := e.c.call("aggregate", map[string]any{"stream": stream, "metric": "count_distinct", "field": field,
				"connection_id": demodata.GmailWorkConnectionID})
			if agg.IsError {
				t.Errorf("%s schema(%s) says to pass connection_id to count_distinct; the RS refuses it: %s", posture, stream, agg.text())
			}
		}
	}
}

// countDistinctField is the first field a schema text lists under
// count_distinct=…, or "".
func countDistinctField(text string) string {
	_, rest, ok := strings.Cut(text, "count_distinct=")
	if !ok {
		return ""
	}
	end := strings.IndexAny(rest, "|;\n ")
	if end < 0 {
		return rest
	}
	return rest[:end]
}

// readRecordFieldRE finds a read_record_field call a page names.
var readRecordFieldRE = regexp.MustCompile(`read_record_field (\{[^{}]*\})`)

// TestRecordFooterNamesATextField: a records page's cut hint names
// read_record_field only on a text field — the RS refuses a boolean, a
// number or an array with field_not_text — so the call runs as written,
// from the text and from structuredContent alike.
func TestRecordFooterNamesATextField(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	for _, args := range []map[string]any{
		{"stream": "messages", "limit": 5},
		{"stream": "messages", "limit": 3, "count": "exact", "connection_id": demodata.GmailWorkConnectionID},
		{"stream": "messages", "limit": 25},
		{"stream": "message_bodies", "limit": 2},
		{"stream": "threads", "limit": 25},
	} {
		r := e.c.call("query_records", args)
		if r.IsError {
			t.Fatalf("%v: %s", args, r.text())
		}
		var sc struct {
			Cut string `json:"cut"`
		}
		if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{r.text(), sc.Cut} {
			for _, m := range readRecordFieldRE.FindAllStringSubmatch(text, -1) {
				var call map[string]any
				if err := json.Unmarshal([]byte(m[1]), &call); err != nil {
					t.Fatalf("%v names read_record_field %s: %v", args, m[1], err)
				}
				if res := e.c.call("read_record_field", call); res.IsError {
					t.Errorf("%v names read_record_field %s; it is refused: %s", args, m[1], res.text())
				}
			}
		}
	}
}
