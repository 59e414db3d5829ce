package adapter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// TestCursorCandidates: the one sort a refusal tries is a stream's
// newest-change time, not when its series began.
func TestCursorCandidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want []string }{
		{[]string{"first_message_date", "last_message_date"}, []string{"last_message_date", "first_message_date"}},
		{[]string{"received_at", "date"}, []string{"received_at", "date"}},
		{[]string{"earliest_at", "first_seen", "updated_at"}, []string{"updated_at", "earliest_at", "first_seen"}},
		{nil, nil},
	} {
		if diff := cmp.Diff(tc.want, cursorCandidates(tc.in)); diff != "" {
			t.Errorf("cursorCandidates(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestCallText: a step's call lists its members in order, leaves out
// empty ones, and escapes nothing a model must not retype.
func TestCallText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kv   []any
		want string
	}{
		{[]any{"stream", "messages", "connection_id", "", "fields", []string(nil)}, `query_records {"stream":"messages"}`},
		{[]any{"stream", "m", "sort", "-a", "fields", []string{"a", "<b>"}}, `query_records {"stream":"m","sort":"-a","fields":["a","<b>"]}`},
		{[]any{"q", `say "hi"`}, `query_records {"q":"say \"hi\""}`},
	} {
		if got := callText("query_records", tc.kv...); got != tc.want {
			t.Errorf("callText(%v) = %s, want %s", tc.kv, got, tc.want)
		}
	}
}

// TestScanFields: the sort field, then the filtered fields, then ranked
// fields the read record has a value in, at most maxScanFields of them.
func TestScanFields(t *testing.T) {
	t.Parallel()
	ranked := []string{"subject", "date", "bcc", "cc", "from_name", "snippet"}
	rec := []byte(`{"subject":"s","date":"d","bcc":[],"cc":null,"from_name":"f","snippet":""}`)
	for _, tc := range []struct {
		name   string
		sort   string
		lead   []string
		record []byte
		want   []string
	}{
		{"no record: ranked order", "received_at", []string{"is_draft"}, nil, []string{"received_at", "is_draft", "subject", "date", "bcc"}},
		{"empty on the record: skipped", "received_at", nil, rec, []string{"received_at", "subject", "date", "from_name"}},
		{"no sort", "", []string{"subject"}, rec, []string{"subject", "date", "from_name"}},
	} {
		if diff := cmp.Diff(tc.want, scanFields(tc.sort, tc.lead, ranked, tc.record)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestFilterText: only a non-blank string value becomes search words.
func TestFilterText(t *testing.T) {
	t.Parallel()
	f := rsclient.Filter{{Field: "is_draft", Value: true}, {Field: "received_at", Range: []rsclient.RangeBound{{Op: "gte", Value: "2026"}}},
		{Field: "to", Value: "  "}, {Field: "from_name", Value: "Priya"}}
	if got := filterText(f); got != "Priya" {
		t.Errorf("filterText = %q, want Priya", got)
	}
	if got := filterText(f[:3]); got != "" {
		t.Errorf("filterText without a text value = %q, want none", got)
	}
}
