package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/ritest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The mock as a measured twin: the same calls, through the same adapter
// (`serve`), on the reference RS and on `pdpp-mcp mockrs` in the real
// RS's posture (--capabilities declared, the RS's 10-minute token
// lifetime). The two hold different data (the RI's seeded two Gmail
// connections, the mock's demo Gmail grant over two connections), so the
// test compares what does not depend on the values: a skeleton of each
// answer (twinSkeleton). Every difference left is one entry of
// twinDifferences, with its reason; a difference the table does not name
// fails the test, and so does an entry whose difference is gone.
// TestRITwinAuthorize does the same for the two authorization servers.

// twinSide is one server the calls run on, with the values that name its
// data (connection ids, a word its lexical index holds).
type twinSide struct {
	name string
	// mcpURL and bearer reach `serve` in front of the side's RS.
	mcpURL, bearer string
	// work is one of the side's two Gmail connection ids.
	work string
	// hitQuery is a phrase whose lexical search finds more than two
	// messages, and bodyQuery a word in more than one message body.
	hitQuery, bodyQuery string
	// outsideStream is a Gmail or other stream the token's grant leaves
	// out.
	outsideStream string
}

// twinCall is one call of the comparison; args may use the side's values.
type twinCall struct {
	name string
	tool string
	args func(s twinSide, prior map[string]toolResult) map[string]any
}

// twinDifference is one skeleton line that differs between the RI and the
// mock, and why it is left.
type twinDifference struct {
	// call and line name the skeleton line ("call/line-kind"); ri and mock
	// are its value on each side ("" = absent).
	call, line, ri, mock string
	reason               string
}

// twinDifferences are the differences left between the reference RS and
// the mock in the real posture, each with its reason.
var twinDifferences = []twinDifference{}

// twinNoise is what varies between runs and data sets inside a skeleton
// value: ids, times, numbers, cursors.
var twinNoise = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`cin_[0-9a-f]+`), "cin_…"},
	{regexp.MustCompile(`grt_[0-9A-Za-z_-]+`), "grt_…"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d(T[0-9:.]+(Z|[+-]\d\d:\d\d)?)?`), "<time>"},
	{regexp.MustCompile(`\d+`), "N"},
}

// twinQuoted is a quoted value inside an RS message: the caller's input
// or the data's, not the wording.
var twinQuoted = regexp.MustCompile(`'[^']*'|"[^"]*"`)

func twinNormalize(s string) string {
	for _, n := range twinNoise {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// twinLineKind names a text line by its form, not its values: a `key:`
// header line by its key, a JSON line by its sorted keys, a bullet or
// numbered line by its marker, and other prose as "prose".
var (
	twinHeaderKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_ ]{0,40}):( |$)`)
	twinNumbered  = regexp.MustCompile(`^\d+[.)] `)
)

func twinLineKind(line string) string {
	line = strings.TrimSpace(line)
	switch {
	case line == "":
		return ""
	case strings.HasPrefix(line, "{"):
		var v map[string]any
		if json.Unmarshal([]byte(line), &v) == nil {
			return "json" + twinKeys(v)
		}
		return "json?"
	case twinNumbered.MatchString(line):
		return "numbered"
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "• "):
		return "bullet"
	}
	if m := twinHeaderKey.FindStringSubmatch(line); m != nil {
		return "key:" + m[1]
	}
	return "prose"
}

func twinKeys(v map[string]any) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "{" + strings.Join(keys, ",") + "}"
}

// twinSkeleton is an answer without its values: isError, the kinds of its
// text lines, structuredContent's key set, every code it names (error and
// warning codes) and http_status, and whether it pages on.
func twinSkeleton(tool string, r toolResult) map[string]string {
	sk := twinShape(tool, r)
	for k, x := range sk {
		sk[k] = twinNormalize(x)
	}
	return sk
}

// twinShape is twinSkeleton before its values are normalized.
func twinShape(tool string, r toolResult) map[string]string {
	sk := map[string]string{"isError": fmt.Sprint(r.IsError)}
	var kinds []string
	lines := strings.Split(r.Text, "\n")
	if len(lines) > 1 && strings.HasPrefix(lines[0], "{") && json.Valid([]byte(lines[0])) {
		// A window: its header line, then the field's text, whose lines
		// are the data's and not the adapter's.
		kinds = append(kinds, "text-body")
		lines = lines[:1]
	}
	if !strings.HasPrefix(lines[0], "{") {
		// The header line: its words and key= names, not their values.
		sk["text.header"] = twinHeader(lines[0])
	}
	for i, line := range lines {
		if i > 0 && tool == "schema" && strings.HasPrefix(line, " ") {
			// A schema source's option lines (sort, count, aggregate,
			// search, filters, expand, fields): what the RS offers, which
			// is its behaviour and not its data.
			sk["schema."+twinSchemaLine(line)] = twinSchemaValue(line)
			continue
		}
		if strings.HasPrefix(line, "source_mix:") {
			continue
		}
		if k := twinLineKind(line); k != "" && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	sk["text.lines"] = strings.Join(kinds, " ")
	var v any
	if r.Structured == nil || json.Unmarshal(r.Structured, &v) != nil {
		sk["structured"] = "absent"
		return sk
	}
	if m, ok := v.(map[string]any); ok {
		// source_mix shows when a page's hits come from more than one
		// connection: a property of the data.
		delete(m, "source_mix")
		sk["structured"] = twinKeys(m)
		sk["record.times"] = twinTimeFields(m["records"])
		sk["has_more"] = fmt.Sprint(m["has_more"])
		_, cursor := m["next_cursor"]
		sk["next_cursor"] = fmt.Sprint(cursor)
	}
	var codes, statuses []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch s := fmt.Sprint(x); k {
				case "code":
					codes = append(codes, s)
				case "http_status":
					statuses = append(statuses, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	if m, ok := v.(map[string]any); ok {
		if e, ok := m["error"].(map[string]any); ok && e["type"] != "adapter_error" {
			// The RS's wording; the adapter's own messages name the
			// grant's streams, which differ by data set.
			sk["error.message"] = twinQuoted.ReplaceAllString(fmt.Sprint(e["message"]), "'…'")
		}
		if steps, ok := m["next_steps"].([]any); ok {
			var tools []string
			for _, st := range steps {
				var names []string
				for _, h := range hintsInProse(fmt.Sprint(st)) {
					names = append(names, h.Tool)
				}
				tools = append(tools, "["+strings.Join(names, ",")+"]")
			}
			sk["next_steps"] = strings.Join(tools, " ")
		}
	}
	sort.Strings(codes)
	sk["codes"] = strings.Join(slices.Compact(codes), " ")
	sort.Strings(statuses)
	sk["http_status"] = strings.Join(slices.Compact(statuses), " ")
	return sk
}

// twinHeader is a page's first line without its values: each word, and
// each key= by its key.
func twinHeader(line string) string {
	var out []string
	for _, w := range strings.Fields(line) {
		if k, _, ok := strings.Cut(w, "="); ok {
			out = append(out, k+"=")
		} else if !strings.ContainsAny(w, "0123456789") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// twinSchemaLine is the name of a schema option line ("sort", "fields").
func twinSchemaLine(line string) string {
	k, _, _ := strings.Cut(strings.TrimSpace(line), ":")
	k, _, _ = strings.Cut(k, "(")
	return k
}

// twinSchemaValue is a schema option line with the data's values (quoted
// strings, ids, numbers) normalized; the per-field list keeps each
// field's bracketed flags, so a field the RS declares differently shows.
func twinSchemaValue(line string) string {
	_, v, _ := strings.Cut(strings.TrimSpace(line), ":")
	if twinSchemaLine(line) == "connection_id" {
		return ""
	}
	return twinNormalize(strings.TrimSpace(v))
}

// twinTimeFields names the fields of a page's first record whose value is
// an ISO 8601 time: a field the RS serves as a time on one side and in
// another form (an RFC 2822 date) on the other differs here.
func twinTimeFields(records any) string {
	rs, _ := records.([]any)
	if len(rs) == 0 {
		return ""
	}
	row, _ := rs[0].([]any)
	if len(row) < 2 {
		return ""
	}
	fields, _ := row[1].(map[string]any)
	var out []string
	for k, v := range fields {
		if s, ok := v.(string); ok && twinISOTime.MatchString(s) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

var twinISOTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)

// twinCalls are the calls compared: reads of every kind and every refusal.
func twinCalls() []twinCall {
	fixed := func(a map[string]any) func(twinSide, map[string]toolResult) map[string]any {
		return func(twinSide, map[string]toolResult) map[string]any { return a }
	}
	work := func(a map[string]any) func(twinSide, map[string]toolResult) map[string]any {
		return func(s twinSide, _ map[string]toolResult) map[string]any {
			b := map[string]any{"connection_id": s.work}
			for k, v := range a {
				b[k] = v
			}
			return b
		}
	}
	const miss = "xylophone quasar nebula"
	return []twinCall{
		{"schema_index", "schema", fixed(map[string]any{})},
		{"schema_messages", "schema", fixed(map[string]any{"stream": "messages"})},
		{"messages_fan_in", "query_records", fixed(map[string]any{"stream": "messages", "limit": 5})},
		{"messages_one_connection", "query_records", work(map[string]any{"stream": "messages", "limit": 5})},
		{"bodies_one_connection", "query_records", work(map[string]any{"stream": "message_bodies", "limit": 1, "fields": []string{"id"}})},
		{"changes_since", "query_records", work(map[string]any{"stream": "messages", "changes_since": "beginning", "limit": 5})},
		{"aggregate_count", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "count"})},
		{"aggregate_group_by", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "count", "group_by": "is_seen"})},
		{"aggregate_group_by_time", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "count", "group_by_time": "received_at", "granularity": "month", "limit": 24})},
		{"search_hit", "search", func(s twinSide, _ map[string]toolResult) map[string]any {
			return map[string]any{"q": s.hitQuery, "limit": 2}
		}},
		{"search_miss", "search", fixed(map[string]any{"q": miss})},
		{"search_semantic_weak", "search", fixed(map[string]any{"q": miss, "mode": "semantic", "limit": 8})},
		{"search_semantic_threads", "search", fixed(map[string]any{"q": miss, "mode": "semantic", "streams": []string{"threads"}, "limit": 3})},
		{"search_hybrid", "search", func(s twinSide, _ map[string]toolResult) map[string]any {
			return map[string]any{"q": s.hitQuery, "mode": "hybrid", "limit": 4}
		}},
		{"fetch", "fetch", func(_ twinSide, prior map[string]toolResult) map[string]any {
			return map[string]any{"id": textReader{}.firstFetchID(prior["search_hit"].Text)}
		}},
		{"read_record_field", "read_record_field", func(_ twinSide, prior map[string]toolResult) map[string]any {
			id := ""
			if rs := (textReader{}).records(prior["bodies_one_connection"].Text); len(rs) > 0 {
				id = rs[0].id
			}
			return map[string]any{"id": id, "field_path": "body_text", "limit_chars": 2000}
		}},
		{"messages_page_two", "query_records", func(s twinSide, prior map[string]toolResult) map[string]any {
			return map[string]any{"stream": "messages", "connection_id": s.work, "cursor": textReader{}.nextCursor(prior["messages_one_connection"].Text)}
		}},
		{"messages_count_exact", "query_records", work(map[string]any{"stream": "messages", "limit": 2, "count": "exact", "fields": []string{"subject", "received_at"}})},
		{"threads", "query_records", work(map[string]any{"stream": "threads", "limit": 2})},
		{"aggregate_sum", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "sum", "field": "size_bytes"})},
		{"aggregate_max_time", "aggregate", work(map[string]any{"stream": "messages", "metric": "max", "field": "received_at"})},
		{"aggregate_count_distinct_one_connection", "aggregate", work(map[string]any{"stream": "messages", "metric": "count_distinct", "field": "from_email"})},
		{"search_page_two", "search", func(_ twinSide, prior map[string]toolResult) map[string]any {
			return map[string]any{"cursor": textReader{}.nextCursor(prior["search_hit"].Text)}
		}},
		{"search_one_connection", "search", func(s twinSide, _ map[string]toolResult) map[string]any {
			return map[string]any{"q": s.hitQuery, "connection_id": s.work, "streams": []string{"messages"}, "limit": 2}
		}},
		{"search_bodies", "search", func(s twinSide, _ map[string]toolResult) map[string]any {
			return map[string]any{"q": s.bodyQuery, "streams": []string{"message_bodies"}, "limit": 1}
		}},
		{"read_record_field_query_missing", "read_record_field", func(_ twinSide, prior map[string]toolResult) map[string]any {
			id := ""
			if rs := (textReader{}).records(prior["bodies_one_connection"].Text); len(rs) > 0 {
				id = rs[0].id
			}
			return map[string]any{"id": id, "field_path": "body_text", "q": "xylophonequasar"}
		}},
		{"refuse_bad_sort", "query_records", work(map[string]any{"stream": "messages", "sort": "-recieved_at"})},
		{"refuse_unknown_field", "query_records", work(map[string]any{"stream": "messages", "filter": map[string]any{"subjet": "budget"}})},
		{"refuse_filter", "query_records", work(map[string]any{"stream": "messages", "filter": map[string]any{"from_email": "ada@work.example"}})},
		{"refuse_expand", "query_records", work(map[string]any{"stream": "messages", "expand": []string{"thread"}})},
		{"refuse_count_distinct", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "count_distinct", "field": "from_email"})},
		{"refuse_outside_grant", "query_records", func(s twinSide, _ map[string]toolResult) map[string]any {
			return map[string]any{"stream": s.outsideStream}
		}},
		{"refuse_unknown_fields", "query_records", work(map[string]any{"stream": "messages", "fields": []string{"id", "subjet"}})},
		{"refuse_sort_unsortable", "query_records", work(map[string]any{"stream": "messages", "sort": "subject"})},
		{"refuse_sum_text", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "sum", "field": "subject"})},
		{"refuse_group_by_unknown", "aggregate", fixed(map[string]any{"stream": "messages", "metric": "count", "group_by": "subjet"})},
		{"refuse_bad_changes_since", "query_records", work(map[string]any{"stream": "messages", "changes_since": "yesterday"})},
		{"refuse_fetch_missing", "fetch", func(s twinSide, _ map[string]toolResult) map[string]any {
			return map[string]any{"id": s.work + "/messages:no-such-record"}
		}},
		{"refuse_read_not_text", "read_record_field", func(_ twinSide, prior map[string]toolResult) map[string]any {
			id := ""
			if rs := (textReader{}).records(prior["messages_one_connection"].Text); len(rs) > 0 {
				id = rs[0].id
			}
			return map[string]any{"id": id, "field_path": "is_draft"}
		}},
		{"refuse_bad_cursor", "query_records", work(map[string]any{"stream": "messages", "cursor": "bm90LWEtY3Vyc29y"})},
	}
}

// twinRun makes every call on one side and returns each answer's skeleton.
func twinRun(t *testing.T, side twinSide) map[string]map[string]string {
	t.Helper()
	s := connectHTTP(t, side.mcpURL, side.bearer, defaultProtocol)
	prior := map[string]toolResult{}
	out := map[string]map[string]string{}
	for _, c := range twinCalls() {
		args := c.args(side, prior)
		r := s.call(c.tool, args)
		prior[c.name] = r
		out[c.name] = twinSkeleton(c.tool, r)
		t.Logf("%s %s %v:\n%s\nstructured: %s", side.name, c.tool, args, r.Text, r.Structured)
	}
	return out
}

// twinMock runs `pdpp-mcp mockrs` in the real RS's posture and `serve` in
// front of it, and returns the side.
func twinMock(t *testing.T) twinSide {
	t.Helper()
	rs := startBoundedMockRS(t, "--capabilities", "declared", "--token-ttl", "10m")
	return twinSide{name: "mock", mcpURL: riServe(t, mockContractProxy(t, rs.RSURL)), bearer: rs.bearer(t, demodata.GmailGrantID),
		work: demodata.GmailWorkConnectionID, hitQuery: "roadmap", bodyQuery: "roadmap", outsideStream: "channels"}
}

// startBoundedMockRS starts a private mock RS with args and returns its
// ready line.
func startBoundedMockRS(t *testing.T, args ...string) mockRSSummary {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"mockrs", "--addr", "127.0.0.1:0", "--json"}, args...)...)
	cmd.Stderr = &testLogWriter{t: t, prefix: "mockrs: "}
	line := startReady(t, cmd, "mockrs")
	var sum mockRSSummary
	if err := json.Unmarshal([]byte(line), &sum); err != nil || sum.RSURL == "" {
		t.Fatalf("mockrs ready line %q: %v", line, err)
	}
	return sum
}

// TestRITwin runs the same calls on the RI and on the mock in the real
// posture and compares their skeletons; every difference must be listed
// in twinDifferences, and every entry there must still differ.
func TestRITwin(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	// The RI grant projects messages and message_bodies as the mock's
	// demo Gmail grant does (demodata's grants), so both schemas withhold
	// the same fields.
	tok := riMint(t, ri, ritest.MintOptions{Fields: map[string][]string{
		"messages": {"id", "thread_id", "subject", "from_name", "from_email", "to", "cc", "date",
			"received_at", "message_id", "in_reply_to", "references", "size_bytes", "labels", "is_draft", "is_flagged",
			"is_seen", "is_answered", "has_attachments", "snippet"},
		"message_bodies": {"id", "message_id", "message_received_at", "body_text", "body_source"},
	}})
	riSide := twinSide{name: "ri", mcpURL: riServe(t, riContractProxy(t, ri.RSURL)), bearer: tok.AccessToken,
		work: ri.Connections["work"], hitQuery: "kayak itinerary", bodyQuery: "zephyr", outsideStream: "labels"}
	riSk := twinRun(t, riSide)
	mockSk := twinRun(t, twinMock(t))

	type key struct{ call, line string }
	got := map[key][2]string{}
	for _, c := range twinCalls() {
		a, b := riSk[c.name], mockSk[c.name]
		lines := map[string]bool{}
		for k := range a {
			lines[k] = true
		}
		for k := range b {
			lines[k] = true
		}
		for line := range lines {
			if a[line] != b[line] {
				got[key{c.name, line}] = [2]string{a[line], b[line]}
			}
		}
	}
	listed := map[key]bool{}
	for _, d := range twinDifferences {
		k := key{d.call, d.line}
		listed[k] = true
		if diff := cmp.Diff([2]string{d.ri, d.mock}, got[k]); diff != "" {
			t.Errorf("twinDifferences entry %s/%s (%s) no longer holds as listed (-listed +now):\n%s", d.call, d.line, d.reason, diff)
		}
	}
	var unlisted []string
	for k, v := range got {
		if !listed[k] {
			unlisted = append(unlisted, fmt.Sprintf("{call: %q, line: %q, ri: %q, mock: %q, reason: \"\"},", k.call, k.line, v[0], v[1]))
		}
	}
	sort.Strings(unlisted)
	if len(unlisted) > 0 {
		t.Errorf("the mock differs from the RI where twinDifferences does not say why:\n%s", strings.Join(unlisted, "\n"))
	}
}

// TestTwinSkeleton pins what a skeleton keeps of an answer and what it
// drops (values, a window's text, source_mix).
func TestTwinSkeleton(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, tool string
		r          toolResult
		want       map[string]string
	}{
		{"window", "read_record_field", toolResult{
			Text:       "{\"id\":\"cin_1/b:x\",\"start_chars\":0}\nSubject: a body line\n- not a bullet of ours",
			Structured: json.RawMessage(`{"id":"cin_1/b:x","start_chars":0,"text":"Subject: a body line"}`)},
			map[string]string{"isError": "false", "text.lines": "json{id,start_chars} text-body", "structured": "{id,start_chars,text}",
				"record.times": "", "has_more": "<nil>", "next_cursor": "false", "codes": "", "http_status": ""}},
		{"search page", "search", toolResult{
			Text: "search: 2 hits. first_fetch_id=cin_ab/messages:m1 has_more=true next_cursor=eyJ2 (any limit)\nsource_mix:cin_ab(gmail)=1 cin_cd(gmail)=1\n" +
				"warning nearest_neighbours: judge each\n1. cin_ab/messages:m1 \"t\" (Work) subject: (the title)",
			Structured: json.RawMessage(`{"has_more":true,"next_cursor":"eyJ2","source_mix":"x","hits":[],"warnings":["warning nearest_neighbours: judge"]}`)},
			map[string]string{"isError": "false", "text.header": "search: hits. first_fetch_id= has_more= next_cursor= (any limit)",
				"text.lines": "key:search key:warning nearest_neighbours numbered", "structured": "{has_more,hits,next_cursor,warnings}",
				"record.times": "", "has_more": "true", "next_cursor": "true", "codes": "", "http_status": ""}},
		{"refusal", "query_records", toolResult{IsError: true,
			Text:       `{"error":{"code":"invalid_sort","message":"Sort field 'x' is not advertised"},"http_status":400,"next_steps":["did you mean","checked: schema {\"stream\":\"messages\"}"]}`,
			Structured: json.RawMessage(`{"error":{"code":"invalid_sort","message":"Sort field 'x' is not advertised","type":"invalid_request_error"},"http_status":400,"next_steps":["did you mean","checked: schema {\"stream\":\"messages\"}"]}`)},
			map[string]string{"isError": "true", "text.lines": "json{error,http_status,next_steps}", "structured": "{error,http_status,next_steps}",
				"record.times": "", "has_more": "<nil>", "next_cursor": "false", "codes": "invalid_sort", "http_status": "N",
				"error.message": "Sort field '…' is not advertised", "next_steps": "[] [schema]"}},
		{"records", "query_records", toolResult{
			Text:       "query_records stream=messages records=1 has_more=false",
			Structured: json.RawMessage(`{"has_more":false,"records":[["cin_a/messages:1",{"date":"Mon, 24 Apr 2026 10:30:45 +0000","received_at":"2026-04-24T10:30:45Z"}]]}`)},
			map[string]string{"isError": "false", "text.header": "query_records stream= records= has_more=", "text.lines": "prose",
				"structured": "{has_more,records}", "record.times": "received_at", "has_more": "false", "next_cursor": "false", "codes": "", "http_status": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, twinSkeleton(c.tool, c.r)); diff != "" {
				t.Errorf("skeleton (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzTwinSkeleton: any text and structuredContent give a skeleton
// without panicking.
func FuzzTwinSkeleton(f *testing.F) {
	f.Add("schema", "PDPP schema\n sort: x\n", `{"data":{}}`)
	f.Add("search", "{\"a\":1}\nbody", `{"records":[["x",{"d":"2026-01-01T00:00:00Z"}]],"error":{"code":3}}`)
	f.Fuzz(func(t *testing.T, tool, text, structured string) {
		_ = twinSkeleton(tool, toolResult{Text: text, Structured: json.RawMessage(structured)})
	})
}

// twinSelections are authorize requests' authorization_details, each
// README's Gmail entry with one member changed (nil deletes it), over the
// side's two connections.
func twinSelections(both []string) []struct {
	name string
	edit map[string]any
} {
	stream := func(m map[string]any) []map[string]any { return []map[string]any{m} }
	return []struct {
		name string
		edit map[string]any
	}{
		{"the entry as written", nil},
		{"every stream", map[string]any{"streams": stream(map[string]any{"name": "*", "instance_ids": both})}},
		{"single use", map[string]any{"access_mode": "single_use"}},
		{"source without kind", map[string]any{"source": map[string]any{"id": "https://registry.pdpp.dev/connectors/gmail"}}},
		{"a short source id", map[string]any{"source": map[string]any{"kind": "connector", "id": "gmail"}}},
		{"the .org type", map[string]any{"type": "https://pdpp.org/data-access"}},
		{"no type", map[string]any{"type": nil}},
		{"no purpose", map[string]any{"purpose_code": nil}},
		{"a purpose that is no URI", map[string]any{"purpose_code": "assistant"}},
		{"no access mode", map[string]any{"access_mode": nil}},
		{"an unknown access mode", map[string]any{"access_mode": "forever"}},
		{"no streams", map[string]any{"streams": nil}},
		{"empty instance_ids", map[string]any{"streams": stream(map[string]any{"name": "messages", "instance_ids": []string{}})}},
		{"an unknown connection", map[string]any{"streams": stream(map[string]any{"name": "messages", "instance_ids": []string{"cin_000000000000000000000000"}})}},
		{"an unknown stream", map[string]any{"streams": stream(map[string]any{"name": "calendar", "instance_ids": both})}},
		{"a stream member the AS does not take", map[string]any{"streams": stream(map[string]any{"name": "messages", "instance_ids": both, "limit": 3})}},
	}
}

// twinAuthorize sends one authorize request to the AS at base for a fresh
// public client and returns its verdict: "accepted" (a redirect to
// consent or the callback) or the refusal's status, error and
// description, normalized.
func twinAuthorize(t *testing.T, base, doc string) string {
	t.Helper()
	const callback = "http://127.0.0.1:18999/callback"
	body, _ := json.Marshal(map[string]any{"client_name": "twin", "redirect_uris": []string{callback},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	res, err := http.Post(base+"/oauth/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var cl struct {
		ClientID string `json:"client_id"`
	}
	err = json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&cl)
	res.Body.Close()
	if err != nil || cl.ClientID == "" {
		t.Fatalf("register at %s: %d %v", base, res.StatusCode, err)
	}
	q := url.Values{"response_type": {"code"}, "client_id": {cl.ClientID}, "redirect_uri": {callback}, "state": {"s"},
		"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}, "authorization_details": {doc}}
	noRedirect := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noRedirect.Get(base + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusFound || res.StatusCode == http.StatusSeeOther {
		if loc, _ := url.Parse(res.Header.Get("Location")); loc != nil && loc.Query().Get("error") != "" {
			return fmt.Sprintf("redirected error %s: %s", loc.Query().Get("error"), twinNormalize(loc.Query().Get("error_description")))
		}
		return "accepted"
	}
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&e)
	return fmt.Sprintf("%d %s: %s", res.StatusCode, e.Error, twinNormalize(e.Description))
}

// twinEntry is README's Gmail entry over both connections, with edit.
func twinEntry(both []string, edit map[string]any) string {
	entry := map[string]any{"type": "https://pdpp.dev/data-access",
		"source":       map[string]any{"kind": "connector", "id": "https://registry.pdpp.dev/connectors/gmail"},
		"access_mode":  "continuous",
		"purpose_code": "https://pdpp.dev/purpose/personal_ai_assistant",
		"streams":      []map[string]any{{"name": "messages", "instance_ids": both}}}
	for k, v := range edit {
		if v == nil {
			delete(entry, k)
		} else {
			entry[k] = v
		}
	}
	doc, _ := json.Marshal([]any{entry})
	return string(doc)
}

// twinAuthDifferences are the selections the mock's AS (real posture)
// answers differently from the reference AS, with the reason.
var twinAuthDifferences = map[string]struct{ ri, mock, reason string }{
	"an unknown connection": {ri: "accepted", mock: `400 invalid_request: no grant of connector "gmail" covers connections [cin_…]`,
		reason: "the reference AS checks a selection's shape at /oauth/authorize and sends the owner to consent, where the connections are chosen; the mock has no person and no consent step, so it resolves the selection to a dataset grant at authorize and must refuse there a connection no grant covers"},
}

// TestRITwinAuthorize sends the same authorization_details to the
// reference AS and to the mock's AS in the real AS's posture: each is
// accepted by both or refused by both with the same status, error and
// description, unless twinAuthDifferences says why not.
func TestRITwinAuthorize(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	ds, err := demodata.Build(demodata.Options{Records: 5})
	if err != nil {
		t.Fatal(err)
	}
	mock := rstest.NewServer(ds, rstest.WithRealAuthServer())
	t.Cleanup(mock.Close)
	riBoth := []string{ri.Connections["work"], ri.Connections["personal"]}
	mockBoth := []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID}
	seen := map[string]bool{}
	for i, sel := range twinSelections(riBoth) {
		mockSel := twinSelections(mockBoth)[i]
		got := [2]string{twinAuthorize(t, ri.ASURL, twinEntry(riBoth, sel.edit)), twinAuthorize(t, mock.URL, twinEntry(mockBoth, mockSel.edit))}
		t.Logf("%s: ri %s | mock %s", sel.name, got[0], got[1])
		d, listed := twinAuthDifferences[sel.name]
		seen[sel.name] = listed
		switch {
		case listed && got != [2]string{d.ri, d.mock}:
			t.Errorf("twinAuthDifferences[%q] (%s) no longer holds: ri %q, mock %q", sel.name, d.reason, got[0], got[1])
		case !listed && got[0] != got[1]:
			t.Errorf("%s: the reference AS answers %q, the mock %q", sel.name, got[0], got[1])
		}
	}
	for name := range twinAuthDifferences {
		if _, ok := seen[name]; !ok {
			t.Errorf("twinAuthDifferences[%q] names no selection", name)
		}
	}
}
