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

// refusalCase is a call the RS refuses and what its next steps must say.
type refusalCase struct {
	name string
	tool string
	args map[string]any
	want []string // substrings of the joined steps
	not  []string // substrings the steps must not have
}

// refusalCases are refusals of the real RS's posture for a client token:
// filters of every kind, expand, a misspelt sort, a filtered search with
// and without streams.
var refusalCases = []refusalCase{
	{"text filter", "query_records", map[string]any{"stream": "messages", "filter": map[string]any{"from_name": "Priya"}},
		[]string{`search {"q":"Priya","streams":["messages"]}`, `"sort":"-received_at"`}, nil},
	{"filter on a misspelt field", "query_records", map[string]any{"stream": "messages", "filter": map[string]any{"subjet": "budget"}},
		[]string{`search {"q":"budget","streams":["messages"]}`, `no granted field "subjet" in messages; did you mean "subject"`}, []string{`"subjet"]`, `"subjet",`}},
	{"boolean filter", "query_records", map[string]any{"stream": "messages", "filter": map[string]any{"is_draft": true}},
		[]string{`"sort":"-received_at","fields":["received_at","is_draft",`}, []string{"search {"}},
	{"range filter", "query_records", map[string]any{"stream": "messages", "filter": map[string]any{"received_at": map[string]any{"gte": "2025-01-01"}}},
		[]string{`to read the time range newest first and stop at its start: query_records {"stream":"messages","sort":"-received_at","fields":["received_at",`}, []string{"search {"}},
	{"aggregate filter", "aggregate", map[string]any{"stream": "messages", "metric": "count", "filter": map[string]any{"is_seen": false}},
		[]string{`"fields":["received_at","is_seen",`}, nil},
	{"expand", "query_records", map[string]any{"stream": "messages", "expand": []string{"message_bodies"}, "fields": []string{"subject"}},
		[]string{`the same read without expand: query_records {"stream":"messages","fields":["subject"]}`}, []string{"cannot filter"}},
	{"misspelt sort", "query_records", map[string]any{"stream": "messages", "sort": "-recieved_at"},
		[]string{`did you mean "received_at"`, `query_records {"stream":"messages","sort":"-received_at"}`}, nil},
	{"unsortable field", "query_records", map[string]any{"stream": "messages", "sort": "-subject"},
		[]string{`query_records {"stream":"messages","sort":"-received_at"}`}, []string{"did you mean"}},
	{"threads: the sort is the newest-change time", "query_records", map[string]any{"stream": "threads", "sort": "-subject"},
		[]string{`query_records {"stream":"threads","sort":"-last_message_date"}`}, []string{"did you mean"}},
	{"threads: the refused field is not tried again", "query_records", map[string]any{"stream": "threads", "sort": "-first_message_date"},
		[]string{`query_records {"stream":"threads","sort":"-last_message_date"}`}, []string{"did you mean"}},
	{"count_distinct across connections, declared nowhere", "aggregate", map[string]any{"stream": "messages", "metric": "count_distinct", "field": "from_email"},
		[]string{"scoped to one connection the RS refuses it too", "no call computes it", `schema {"stream":"messages"}`}, []string{"aggregate {"}},
	{"search filter without streams", "search", map[string]any{"q": "invoice", "filter": map[string]any{"from_name": "Priya"}},
		[]string{`search {"q":"invoice"}`}, nil},
	{"search filter with streams", "search", map[string]any{"q": "invoice", "mode": "semantic", "streams": []string{"messages"}, "filter": map[string]any{"from_name": "Priya"}},
		[]string{`search {"q":"invoice","mode":"semantic","streams":["messages"]}`}, nil},
}

// TestRefusalStepsRunAsWritten: on the mock in the real RS's posture,
// every refusal names steps; each step's call has no placeholder, runs as
// written, and a scan names no field empty on every record it reads. The
// steps are the same whether or not schema(stream) ran before (its
// capability probe is cached for ten minutes), and a refusal costs at
// most one RS read besides the refused one.
func TestRefusalStepsRunAsWritten(t *testing.T) {
	t.Parallel()
	for _, tc := range refusalCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var first []string
			for _, warm := range []bool{false, true} {
				e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
				if warm {
					e.c.call("schema", map[string]any{"stream": "messages"})
				} else {
					e.c.call("query_records", map[string]any{"stream": "threads", "limit": 1}) // the grant's schema, not the stream's probe
				}
				e.rs.Server.ResetRequests()
				steps := nextSteps(t, e.c.call(tc.tool, tc.args))
				if n := e.rs.RSCalls(); n > 2 {
					t.Errorf("warm=%v: the refusal cost %d RS requests, want the refused one and at most one more", warm, n)
				}
				joined := strings.Join(steps, "\n")
				for _, w := range tc.want {
					if !strings.Contains(joined, w) {
						t.Errorf("warm=%v: steps lack %s:\n%s", warm, w, joined)
					}
				}
				for _, w := range tc.not {
					if strings.Contains(joined, w) {
						t.Errorf("warm=%v: steps have %s:\n%s", warm, w, joined)
					}
				}
				if warm && strings.Join(first, "\n") != joined {
					t.Errorf("steps depend on a cached schema(stream):\ncold %q\nwarm %q", first, steps)
				}
				first = steps
				runSteps(t, e, steps)
			}
		})
	}
}

// runSteps runs every call the steps name, exactly as written.
func runSteps(t *testing.T, e *env, steps []string) {
	t.Helper()
	for _, st := range steps {
		if placeholderRE.MatchString(st) {
			t.Errorf("step %q has a placeholder", st)
		}
		for _, m := range suggestedCallRE.FindAllStringSubmatch(st, -1) {
			var args map[string]any
			if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
				t.Fatalf("step %q: %v", st, err)
			}
			res := e.c.call(m[1], args)
			if res.IsError {
				t.Errorf("step %s %s is refused: %s", m[1], m[2], res.text())
			}
			if strings.Contains(res.text(), "no record here carries requested field") {
				t.Errorf("step %s %s names fields no record has:\n%s", m[1], m[2], res.text())
			}
		}
	}
}

// TestRefusalReadsNothingWhenTheSchemaNamesTheSort: where the schema
// advertises the cursor field, a refused sort's steps name it without
// any RS read besides the refused one.
func TestRefusalReadsNothingWhenTheSchemaNamesTheSort(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	e.c.call("query_records", map[string]any{"stream": "channels", "limit": 1})
	e.rs.Server.ResetRequests()
	steps := nextSteps(t, e.c.call("query_records", map[string]any{"stream": "messages", "sort": "text"}))
	if n := e.rs.RSCalls(); n != 1 {
		t.Errorf("the refusal cost %d RS requests, want only the refused one", n)
	}
	if joined := strings.Join(steps, "\n"); !strings.Contains(joined, `query_records {"stream":"messages","sort":"-sent_at"}`) {
		t.Errorf("steps lack the advertised sort:\n%s", joined)
	}
	runSteps(t, e, steps)
}
