package rsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// queryCases drive every endpoint through a real Client; the request line
// the server saw (path + raw query) is the golden output.
var queryCases = []struct {
	name string
	call func(context.Context, *Client) error
}{
	{"schema_empty", func(ctx context.Context, c *Client) error {
		_, _, err := c.Schema(ctx, testBearer, SchemaQuery{})
		return err
	}},
	{"schema_compact_scoped", func(ctx context.Context, c *Client) error {
		_, _, err := c.Schema(ctx, testBearer, SchemaQuery{View: "compact", Stream: "messages", ConnectionID: "cin_5c0e1a2b3d4f5a6b7c8d9e0f"})
		return err
	}},
	{"schema_all_params", func(ctx context.Context, c *Client) error {
		_, _, err := c.Schema(ctx, testBearer, SchemaQuery{View: "compact", Detail: "full", Stream: "message bodies", ConnectionID: "cin_1"})
		return err
	}},
	{"streams", func(ctx context.Context, c *Client) error {
		_, _, err := c.Streams(ctx, testBearer, StreamsQuery{ConnectionID: "cin_5c0e1a2b3d4f5a6b7c8d9e0f"})
		return err
	}},
	{"stream_metadata", func(ctx context.Context, c *Client) error {
		_, _, err := c.StreamMetadata(ctx, testBearer, "message bodies/x:y", "cin_1")
		return err
	}},
	{"records_stream_only", func(ctx context.Context, c *Client) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "messages"})
		return err
	}},
	{"records_every_param", func(ctx context.Context, c *Client) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{
			Stream: "messages", Limit: 100, Cursor: "eyJhIjoxfQ+/x==", Order: "desc",
			Sort: []string{"-sent_at"}, Count: "exact", Fields: []string{"id", "text", "sent at"},
			View: "basic", Expand: []string{"thread", "author"},
			ExpandLimit:  []ExpandLimit{{"thread", 3}, {"author", 1}},
			ChangesSince: "beginning", ConnectionID: "cin_5c0e1a2b3d4f5a6b7c8d9e0f",
			Filter: Filter{
				{Field: "channel_id", Value: "C0123456789"},
				{Field: "sent_at", Range: []RangeBound{{OpLT, "2026-05-01T00:00:00Z"}, {OpGTE, "2026-04-01"}}},
				{Field: "score", Value: 0.5},
				{Field: "size_bytes", Range: []RangeBound{{OpGT, json.Number("1024")}, {OpLTE, int64(1 << 40)}}},
				{Field: "is_flagged", Value: false},
				{Field: "subject", Value: "a&b=c [x] ~ü"},
			},
		})
		return err
	}},
	{"record", func(ctx context.Context, c *Client) error {
		_, _, err := c.Record(ctx, testBearer, RecordQuery{
			Stream: "messages", RecordID: "C0123456789:1714032900.000002", ConnectionID: "cin_1",
			Fields: []string{"id", "text"}, Expand: []string{"thread"}, ExpandLimit: []ExpandLimit{{"thread", 5}},
		})
		return err
	}},
	{"record_compound_key", func(ctx context.Context, c *Client) error {
		_, _, err := c.Record(ctx, testBearer, RecordQuery{Stream: "daily", RecordID: `["user_123","2026-04-01"]`})
		return err
	}},
	{"field_window_offset", func(ctx context.Context, c *Client) error {
		_, _, err := c.FieldWindow(ctx, testBearer, FieldWindowQuery{
			Stream: "message_bodies", RecordID: "19659a5b3c1d4e2f", ConnectionID: "cin_1",
			Field: "body_text", OffsetChars: intp(0), LimitChars: intp(4096),
		})
		return err
	}},
	{"field_window_q", func(ctx context.Context, c *Client) error {
		_, _, err := c.FieldWindow(ctx, testBearer, FieldWindowQuery{
			Stream: "message_bodies", RecordID: "19659a5b3c1d4e2f", ConnectionID: "cin_1",
			Field: "body_text", Q: "integration testing", BeforeChars: intp(40), AfterChars: intp(60),
		})
		return err
	}},
	{"aggregate_grouped", func(ctx context.Context, c *Client) error {
		_, _, err := c.Aggregate(ctx, testBearer, AggregateQuery{
			Stream: "messages", Metric: "count", GroupByTime: "received_at", Granularity: "month",
			TimeZone: "America/Chicago", Limit: 12, ConnectionID: "cin_1",
		})
		return err
	}},
	{"aggregate_every_param", func(ctx context.Context, c *Client) error {
		_, _, err := c.Aggregate(ctx, testBearer, AggregateQuery{
			Stream: "messages", Metric: "sum", Field: "size_bytes", GroupBy: "labels", GroupByTime: "t",
			Granularity: "day", TimeZone: "UTC", Limit: 5, ConnectionID: "cin_1",
			Filter: Filter{{Field: "from_email", Value: "a+b@example.com"}},
		})
		return err
	}},
	{"search_lexical", func(ctx context.Context, c *Client) error {
		_, _, err := c.Search(ctx, testBearer, SearchQuery{
			Q: "threaded reply", Streams: []string{"messages", "channels"}, Limit: 10,
			Cursor: "eyJvZmYiOjI1LCJzbmFwIjoic25hcF80ZjFjMmE5YjdkM2U2YTEwIn0", ConnectionID: "cin_1",
		})
		return err
	}},
	{"search_lexical_filter", func(ctx context.Context, c *Client) error {
		_, _, err := c.Search(ctx, testBearer, SearchQuery{
			Mode: ModeLexical, Q: "Quartet", Streams: []string{"top_artists"},
			Filter: Filter{{Field: "popularity", Range: []RangeBound{{OpGTE, 40}}}},
		})
		return err
	}},
	{"search_semantic", func(ctx context.Context, c *Client) error {
		_, _, err := c.Search(ctx, testBearer, SearchQuery{Mode: ModeSemantic, Q: "project status", Limit: 5})
		return err
	}},
	{"search_hybrid", func(ctx context.Context, c *Client) error {
		_, _, err := c.Search(ctx, testBearer, SearchQuery{Mode: ModeHybrid, Q: "project status"})
		return err
	}},
	{"protected_resource_metadata", func(ctx context.Context, c *Client) error {
		_, _, err := c.ProtectedResourceMetadata(ctx)
		return err
	}},
}

// okBody is a minimal 200 body for r's route that passes its shape check.
func okBody(r *http.Request) string {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/field-window"):
		return `{"object":"field_window","stream":"s","record_id":"r","field":{"path":"f","type":"string"},` +
			`"window":{"text":"","total_chars":0,"start_chars":0,"end_chars":0,"limit_chars":4096,"complete":true,"has_more":false}}`
	case strings.HasSuffix(p, "/aggregate"):
		return `{"object":"aggregation","metric":"count","stream":"s","value":0,"filtered_record_count":0}`
	case strings.Contains(p, "/records/"):
		return `{"object":"record","id":"r","stream":"s","data":{}}`
	case p == "/v1/schema":
		return `{"object":"schema","connectors":[]}`
	case p == "/.well-known/oauth-protected-resource":
		return `{"resource":"http://rs.example"}`
	}
	return `{"object":"list","data":[],"has_more":false}`
}

func TestQueryGolden(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(okBody(r)))
	})
	c := newTestClient(t, srv.URL+"/ignored/prefix?x=1")
	var out strings.Builder
	for _, tc := range queryCases {
		before := len(srv.requests())
		if err := tc.call(t.Context(), c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		reqs := srv.requests()
		if len(reqs) != before+1 {
			t.Fatalf("%s: %d requests, want exactly 1", tc.name, len(reqs)-before)
		}
		fmt.Fprintf(&out, "%s\t%s\n", tc.name, reqs[len(reqs)-1].RequestURI)
	}
	want := checkGolden(t, "queries.golden", []byte(out.String()))
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("request lines (-want +got):\n%s", diff)
	}
}

// TestQueryMatchesTSAdapter pins queries observed from the reference TS
// adapter (ts-adapter-behavior.md) byte for byte.
func TestQueryMatchesTSAdapter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		q    RecordsQuery
		want string
	}{
		{"query_records", RecordsQuery{
			Limit: 25, Order: "asc", Sort: []string{"-emitted_at"}, Count: "exact",
			Fields: []string{"id", "amount"}, View: "basic", ChangesSince: "beginning",
			ConnectionID: "conn_orders", Filter: Filter{{Field: "user_id", Value: "U1"}},
		}, "limit=25&order=asc&sort=-emitted_at&count=exact&fields=id&fields=amount&view=basic&changes_since=beginning&connection_id=conn_orders&filter%5Buser_id%5D=U1"},
		{"typed_filter", RecordsQuery{Filter: Filter{
			{Field: "user_id", Value: "U1"},
			{Field: "created_at", Range: []RangeBound{{OpGTE, "2026-01-01"}, {OpLT, 5}}},
			{Field: "flag", Value: true},
		}}, "filter%5Buser_id%5D=U1&filter%5Bcreated_at%5D%5Bgte%5D=2026-01-01&filter%5Bcreated_at%5D%5Blt%5D=5&filter%5Bflag%5D=true"},
	}
	for _, tt := range tests {
		got, err := tt.q.encode()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestQueryRejected(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(okBody(r))) })
	c := newTestClient(t, srv.URL)
	records := func(q RecordsQuery) func(context.Context) error {
		return func(ctx context.Context) error {
			if q.Stream == "" {
				q.Stream = "messages"
			}
			_, _, err := c.Records(ctx, testBearer, q)
			return err
		}
	}
	filter := func(f Filter) func(context.Context) error { return records(RecordsQuery{Filter: f}) }
	tests := []struct {
		name      string
		call      func(context.Context) error
		wantParam string
	}{
		{"filter field with [", filter(Filter{{Field: "a[b", Value: "x"}}), "filter"},
		{"filter field with ]", filter(Filter{{Field: "a]", Value: "x"}}), "filter"},
		{"filter pre-encoded", filter(Filter{{Field: "user_id][gte", Value: "x"}}), "filter"},
		{"filter empty field", filter(Filter{{Field: "", Value: "x"}}), "filter"},
		{"filter empty entry", filter(Filter{{Field: "a"}}), "filter"},
		{"filter value and range", filter(Filter{{Field: "a", Value: 1, Range: []RangeBound{{OpGT, 1}}}}), "filter"},
		{"filter unknown op", filter(Filter{{Field: "a", Range: []RangeBound{{"between", 1}}}}), "filter"},
		{"filter nested object", filter(Filter{{Field: "a", Value: map[string]any{"gte": 1}}}), "filter"},
		{"filter array value", filter(Filter{{Field: "a", Value: []string{"x"}}}), "filter"},
		{"filter nested range operand", filter(Filter{{Field: "a", Range: []RangeBound{{OpGT, map[string]any{}}}}}), "filter"},
		{"filter null range operand", filter(Filter{{Field: "a", Range: []RangeBound{{OpGT, nil}}}}), "filter"},
		{"filter NaN", filter(Filter{{Field: "a", Value: json.Number("NaN")}}), "filter"},
		{"filter duplicate field", filter(Filter{{Field: "a", Value: 1}, {Field: "a", Value: 2}}), "filter"},
		{"filter duplicate op", filter(Filter{{Field: "a", Range: []RangeBound{{OpGT, 1}, {OpGT, 2}}}}), "filter"},
		{"expand with bracket", records(RecordsQuery{Expand: []string{"thread[0]"}}), "expand"},
		{"expand empty", records(RecordsQuery{Expand: []string{""}}), "expand"},
		{"expand_limit with bracket", records(RecordsQuery{ExpandLimit: []ExpandLimit{{"a]", 1}}}), "expand_limit"},
		{"expand_limit duplicate", records(RecordsQuery{ExpandLimit: []ExpandLimit{{"a", 1}, {"a", 2}}}), "expand_limit"},
		{"record expand_limit empty", func(ctx context.Context) error {
			_, _, err := c.Record(ctx, testBearer, RecordQuery{Stream: "s", RecordID: "r", ExpandLimit: []ExpandLimit{{"", 1}}})
			return err
		}, "expand_limit"},
		{"aggregate filter", func(ctx context.Context) error {
			_, _, err := c.Aggregate(ctx, testBearer, AggregateQuery{Stream: "s", Metric: "count", Filter: Filter{{Field: "x]"}}})
			return err
		}, "filter"},
		{"search filter", func(ctx context.Context) error {
			_, _, err := c.Search(ctx, testBearer, SearchQuery{Q: "x", Filter: Filter{{Field: "x", Value: struct{}{}}}})
			return err
		}, "filter"},
		{"search mode", func(ctx context.Context) error {
			_, _, err := c.Search(ctx, testBearer, SearchQuery{Mode: "fuzzy", Q: "x"})
			return err
		}, "mode"},
		{"records empty stream", func(ctx context.Context) error {
			_, _, err := c.Records(ctx, testBearer, RecordsQuery{})
			return err
		}, "stream"},
		{"aggregate empty stream", func(ctx context.Context) error {
			_, _, err := c.Aggregate(ctx, testBearer, AggregateQuery{Metric: "count"})
			return err
		}, "stream"},
		{"metadata empty stream", func(ctx context.Context) error {
			_, _, err := c.StreamMetadata(ctx, testBearer, "", "")
			return err
		}, "stream"},
		{"record empty id", func(ctx context.Context) error {
			_, _, err := c.Record(ctx, testBearer, RecordQuery{Stream: "s"})
			return err
		}, "record_id"},
		{"field window empty id", func(ctx context.Context) error {
			_, _, err := c.FieldWindow(ctx, testBearer, FieldWindowQuery{Stream: "s", Field: "f"})
			return err
		}, "record_id"},
	}
	for _, tt := range tests {
		err := tt.call(t.Context())
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("%s: err = %v, want *QueryError", tt.name, err)
			continue
		}
		if qe.Param != tt.wantParam {
			t.Errorf("%s: Param = %q, want %q (%v)", tt.name, qe.Param, tt.wantParam, qe)
		}
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("rejected queries made %d requests, want 0", n)
	}
}
