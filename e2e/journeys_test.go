package e2e

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The journeys below read every handle they pass on (stream names,
// connection ids, cursors, fetch ids, continuation arguments) from
// content[0].text with these patterns, never from structuredContent: a
// client that shows the model only text must be able to walk them.
var (
	reGmailStreams   = regexp.MustCompile(`(?m)^connector gmail .*\bstreams\(\d+\)=(\S+)$`)
	reGmailSource    = regexp.MustCompile(`(?m)^source \d+/\d+ connector_key=gmail .*\n connection_id: (cin_[0-9a-f]+)\(`)
	reNextCursor     = regexp.MustCompile(`\bnext_cursor=(\S+)`)
	reRecordLine     = regexp.MustCompile(`(?m)^\d+\. (cin_[0-9a-f]+/[a-z_]+:\S+) `)
	reAggCount       = regexp.MustCompile(`(?m)^aggregate count\(messages\)(?: connection_id=\S+)? = (\d+) over (\d+) records$`)
	reAggGrouped     = regexp.MustCompile(`(?m)^aggregate count\(messages\)(?: connection_id=\S+)? by is_seen: (\d+) buckets over (\d+) records$`)
	reAggBucket      = regexp.MustCompile(`(?m)^(true|false) = (\d+)$`)
	reFirstFetchID   = regexp.MustCompile(`\bfirst_fetch_id=(\S+)`)
	reFirstHitField  = regexp.MustCompile(`(?m)^1\. \S+ "(?:[^"\\]|\\.)*"(?: \([^)]*\))? ([a-z_.]+): `)
	sharedSubject    = "Offsite agenda and travel details" // the subject of demodata.SharedRecordID
	errorEnvelopeKey = regexp.MustCompile(`^\{"error":\{`)
)

// match returns the first submatch of re in text or fails the test.
func match(t testing.TB, re *regexp.Regexp, text string) string {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("text has no %v:\n%s", re, text)
	}
	return m[1]
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ok fails the test when a call the journey needs came back as an error.
func ok(t testing.TB, r toolResult, what string) toolResult {
	t.Helper()
	if r.IsError {
		t.Fatalf("%s: isError result:\n%s", what, r.Text)
	}
	return r
}

// runGoJourneys runs every journey on one Go SDK session.
func runGoJourneys(t *testing.T, s *goSession) {
	t.Run("schema_query_paging", func(t *testing.T) { journeySchemaPaging(t, s) })
	t.Run("aggregate", func(t *testing.T) { journeyAggregate(t, s) })
	t.Run("search_fetch", func(t *testing.T) { journeySearchFetch(t, s) })
	t.Run("evidence", func(t *testing.T) { journeyEvidence(t, s) })
	t.Run("errors", func(t *testing.T) { journeyErrors(t, s) })
}

// journeySchemaPaging: schema → schema(stream) → query_records → page 2.
func journeySchemaPaging(t *testing.T, s *goSession) {
	index := ok(t, s.call("schema", map[string]any{}), "schema")
	streams := strings.Split(match(t, reGmailStreams, index.Text), "|")
	stream := ""
	for _, name := range streams {
		if name == "messages" {
			stream = name
		}
	}
	if stream == "" {
		t.Fatalf("gmail streams %v lack messages", streams)
	}
	detail := ok(t, s.call("schema", map[string]any{"stream": stream}), "schema(stream)")
	conn := match(t, reGmailSource, detail.Text)

	args := map[string]any{"stream": stream, "connection_id": conn, "limit": 3}
	page1 := ok(t, s.call("query_records", args), "query_records page 1")
	cursor := match(t, reNextCursor, page1.Text)
	args["cursor"] = cursor
	page2 := ok(t, s.call("query_records", args), "query_records page 2")

	ids1 := reRecordLine.FindAllStringSubmatch(page1.Text, -1)
	ids2 := reRecordLine.FindAllStringSubmatch(page2.Text, -1)
	if len(ids1) == 0 || len(ids2) == 0 {
		t.Fatalf("pages list no fetch ids:\n%s\n---\n%s", page1.Text, page2.Text)
	}
	seen := map[string]bool{}
	for _, m := range ids1 {
		seen[m[1]] = true
	}
	for _, m := range append(ids1, ids2...) {
		if !strings.HasPrefix(m[1], conn+"/"+stream+":") {
			t.Errorf("record %s is not from %s/%s", m[1], conn, stream)
		}
	}
	for _, m := range ids2 {
		if seen[m[1]] {
			t.Errorf("page 2 repeats %s from page 1", m[1])
		}
	}
}

// journeyAggregate: a total count, then the same count grouped; the
// buckets must add up to the total.
func journeyAggregate(t *testing.T, s *goSession) {
	conn := demodata.GmailWorkConnectionID
	total := ok(t, s.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": conn}), "aggregate count")
	n := atoi(t, match(t, reAggCount, total.Text))
	if n == 0 {
		t.Fatalf("count is 0:\n%s", total.Text)
	}
	grouped := ok(t, s.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "is_seen", "connection_id": conn}), "aggregate grouped")
	match(t, reAggGrouped, grouped.Text)
	sum := 0
	for _, b := range reAggBucket.FindAllStringSubmatch(grouped.Text, -1) {
		sum += atoi(t, b[2])
	}
	if sum != n {
		t.Errorf("buckets add up to %d, want the total %d:\n%s", sum, n, grouped.Text)
	}
}

// journeySearchFetch: the one email in both Gmail mailboxes is ambiguous
// by bare record id (the RS's 409 hosted; the adapter's own typed error
// when stdio serves several grants), but search's first_fetch_id, read
// from text alone, fetches it.
func journeySearchFetch(t *testing.T, s *goSession) {
	amb := s.call("fetch", map[string]any{"id": "messages:" + demodata.SharedRecordID})
	if !amb.IsError || !strings.Contains(amb.Text, `"code":"ambiguous_connection"`) || !strings.Contains(amb.Text, `"retry_with":"connection_id"`) {
		t.Errorf("unscoped fetch of the shared record: want an ambiguous_connection isError result, got isError=%v:\n%s", amb.IsError, amb.Text)
	}
	hits := ok(t, s.call("search", map[string]any{"q": sharedSubject, "streams": []string{"messages"}, "limit": 5}), "search")
	id := match(t, reFirstFetchID, hits.Text)
	if !strings.HasSuffix(id, "/messages:"+demodata.SharedRecordID) {
		t.Fatalf("first_fetch_id=%s is not the shared record:\n%s", id, hits.Text)
	}
	doc := ok(t, s.call("fetch", map[string]any{"id": id}), "fetch(first_fetch_id)")
	var got struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	if err := json.Unmarshal([]byte(doc.Text), &got); err != nil {
		t.Fatalf("fetch text is not the document JSON: %v\n%s", err, doc.Text)
	}
	if got.ID != id || !strings.Contains(got.Text, "Sending this to both of your addresses") {
		t.Errorf("fetch(%s) = id %q text %.80q, want the shared email", id, got.ID, got.Text)
	}
}

// windowHeader is the compact JSON first line of a read_record_field text.
type windowHeader struct {
	ID         string `json:"id"`
	FieldPath  string `json:"field_path"`
	Start      int    `json:"start_chars"`
	End        int    `json:"end_chars"`
	Total      int    `json:"total_chars"`
	Complete   bool   `json:"complete"`
	MatchStart *int   `json:"match_start_chars"`
	Next       *struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"next"`
}

// splitWindow parses a read_record_field text: header line, window text.
func splitWindow(t testing.TB, text string) (windowHeader, string) {
	t.Helper()
	head, body, _ := strings.Cut(text, "\n")
	var h windowHeader
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		t.Fatalf("read_record_field header %q: %v", head, err)
	}
	return h, body
}

// journeyEvidence: search the long body's unique term → read the field
// around the match → follow `next` from the header to the end of the
// field. The windows must tile the field and put the term where the
// dataset says it is.
func journeyEvidence(t *testing.T, s *goSession) {
	hits := ok(t, s.call("search", map[string]any{"q": demodata.LongBodyTerm}), "search")
	id := match(t, reFirstFetchID, hits.Text)
	field := match(t, reFirstHitField, hits.Text)
	r := ok(t, s.call("read_record_field", map[string]any{"id": id, "field_path": field, "q": demodata.LongBodyTerm}), "read_record_field(q)")
	h, body := splitWindow(t, r.Text)
	if h.MatchStart == nil || *h.MatchStart != demodata.LongBodyTermOffset {
		t.Errorf("match_start_chars = %v, want %d", h.MatchStart, demodata.LongBodyTermOffset)
	}
	if at := demodata.LongBodyTermOffset - h.Start; at < 0 || !strings.HasPrefix(body[at:], demodata.LongBodyTerm) {
		t.Errorf("window [%d,%d) does not hold %q at %d", h.Start, h.End, demodata.LongBodyTerm, demodata.LongBodyTermOffset)
	}
	end, pages := h.End, 1
	for h.Next != nil {
		if pages++; pages > 20 {
			t.Fatal("more than 20 windows: the continuation does not advance")
		}
		if h.Next.Tool != "read_record_field" {
			t.Fatalf("next.tool = %q", h.Next.Tool)
		}
		r = ok(t, s.call(h.Next.Tool, h.Next.Args), "read_record_field(next)")
		h, body = splitWindow(t, r.Text)
		if h.Start != end || len(body) != h.End-h.Start {
			t.Errorf("window %d is [%d,%d) with %d chars, want to start at %d", pages, h.Start, h.End, len(body), end)
		}
		end = h.End
	}
	// The last window says complete: nothing of the field follows it.
	want := windowHeader{ID: id, FieldPath: field, End: demodata.LongBodyLength, Total: demodata.LongBodyLength, Complete: true}
	got := windowHeader{ID: h.ID, FieldPath: h.FieldPath, End: h.End, Total: h.Total, Complete: h.Complete}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("last window (-want +got):\n%s", diff)
	}
	if pages < 3 {
		t.Errorf("read the rest of a %d-char field in %d windows; want paging", demodata.LongBodyLength, pages)
	}
}

// journeyErrors: one error of each family comes back as an isError result
// the client accepts (the session fails the test on a protocol error or a
// structuredContent that violates the tool's outputSchema).
func journeyErrors(t *testing.T, s *goSession) {
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		wantText   []string
	}{
		{"input_validation", "query_records", map[string]any{"stream": "messages", "limit": 500},
			[]string{`"code":"invalid_arguments"`, `"param":"limit"`, "100"}},
		{"adapter", "fetch", map[string]any{"id": "../x"}, []string{`"type":"adapter_error"`, `"code":"invalid_id"`}},
		{"rs_4xx", "query_records", map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "filter": map[string]any{"is_seen": true}},
			[]string{`"param":"filter"`, `"http_status":400`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.call(c.tool, c.args)
			if !r.IsError {
				t.Fatalf("%s(%v): want isError, got:\n%s", c.tool, c.args, r.Text)
			}
			for _, w := range c.wantText {
				if !strings.Contains(r.Text, w) {
					t.Errorf("error text lacks %s:\n%s", w, r.Text)
				}
			}
			if !errorEnvelopeKey.MatchString(r.Text) {
				t.Errorf("error text is not the compact envelope:\n%s", r.Text)
			}
		})
	}
}
