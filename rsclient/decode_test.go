package rsclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func i64p(n int64) *int64 { return &n }
func boolp(b bool) *bool  { return &b }

func TestCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Count
		wantErr bool
	}{
		{`{"kind":"exact","value":2}`, Count{Kind: "exact", Value: i64p(2)}, false},
		{`{"kind":"none"}`, Count{Kind: "none"}, false},
		{`38`, Count{Value: i64p(38), Bare: true}, false},
		{`null`, Count{Null: true, Bare: true}, false},
		{`"38"`, Count{}, true},
		{`1.5`, Count{}, true},
		{`[1]`, Count{}, true},
	}
	for _, tt := range tests {
		var m Meta
		err := json.Unmarshal([]byte(`{"count":`+tt.in+`}`), &m)
		if (err != nil) != tt.wantErr {
			t.Errorf("count %s: err = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		if diff := cmp.Diff(tt.want, m.Count); diff != "" {
			t.Errorf("count %s (-want +got):\n%s", tt.in, diff)
		}
		back, err := json.Marshal(m.Count)
		if err != nil || string(back) != tt.in {
			t.Errorf("count %s re-encodes as %s, %v", tt.in, back, err)
		}
	}
	var m Meta
	if err := json.Unmarshal([]byte(`{"warnings":[]}`), &m); err != nil || m.Count != (Count{}) {
		t.Errorf("absent count = %+v, %v; want zero", m.Count, err)
	}
}

func TestDecodeCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		capture string
		call    func(context.Context, *Client) (any, *Response, error)
		want    any
	}{
		{"rs-raw-records", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.Records(ctx, testBearer, RecordsQuery{Stream: "top_artists", Limit: 1, Count: "exact"})
		}, &RecordList{
			Data: []Record{{Object: "record", ID: "railway-seed-artist-2", Stream: "top_artists",
				ConnectionID: "cin_59226620542ff12acd3c7699", EmittedAt: "2026-01-01T00:00:02.000Z",
				Data: json.RawMessage(`{"followers":20,"genres":["test-fixture"],"id":"railway-seed-artist-2","name":"Restart Survival Band","popularity":42,"source_updated_at":"2026-01-01T00:00:02.000Z"}`)}},
			HasMore:    true,
			NextCursor: "eyJjdXJzb3JfdmFsdWUiOiIyMDI2LTAxLTAxVDAwOjAwOjAyLjAwMFoiLCJraW5kIjoicGFnZSIsIm9yZGVyIjoiREVTQyIsInByaW1hcnlfa2V5IjpbInJhaWx3YXktc2VlZC1hcnRpc3QtMiJdLCJzZXNzaW9uIjoicmVjb3JkcyJ9",
			Meta:       Meta{Count: Count{Kind: "exact", Value: i64p(2)}, Warnings: []Warning{}},
			Links: Links{Self: "/v1/streams/top_artists/records?limit=1&count=exact",
				Next: "/v1/streams/top_artists/records?limit=1&count=exact&cursor=eyJjdXJzb3JfdmFsdWUiOiIyMDI2LTAxLTAxVDAwOjAwOjAyLjAwMFoiLCJraW5kIjoicGFnZSIsIm9yZGVyIjoiREVTQyIsInByaW1hcnlfa2V5IjpbInJhaWx3YXktc2VlZC1hcnRpc3QtMiJdLCJzZXNzaW9uIjoicmVjb3JkcyJ9"},
		}},
		{"rs-raw-record", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.Record(ctx, testBearer, RecordQuery{Stream: "top_artists", RecordID: "railway-seed-artist-1"})
		}, &Record{Object: "record", ID: "railway-seed-artist-1", Stream: "top_artists",
			ConnectionID: "cin_59226620542ff12acd3c7699", ConnectorKey: "https://registry.pdpp.dev/connectors/spotify",
			EmittedAt: "2026-01-01T00:00:01.000Z",
			Data:      json.RawMessage(`{"followers":10,"genres":["test-fixture"],"id":"railway-seed-artist-1","name":"Deploy Test Quartet","popularity":41,"source_updated_at":"2026-01-01T00:00:01.000Z"}`)}},
		{"rs-raw-streams", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.Streams(ctx, testBearer, StreamsQuery{})
		}, &StreamList{Data: []StreamInfo{
			{Name: "top_artists", ConnectionID: "cin_59226620542ff12acd3c7699", RecordCount: 2, LastUpdated: "2026-01-01T00:00:02.000Z"},
			{Name: "saved_tracks", ConnectionID: "cin_59226620542ff12acd3c7699"},
			{Name: "recently_played", ConnectionID: "cin_59226620542ff12acd3c7699"},
		}}},
		{"rs-raw-field-window", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.FieldWindow(ctx, testBearer, FieldWindowQuery{Stream: "top_artists", RecordID: "railway-seed-artist-1", Field: "name", LimitChars: intp(8)})
		}, func() *FieldWindow {
			fw := &FieldWindow{Stream: "top_artists", RecordID: "railway-seed-artist-1",
				Window: Window{Text: "Deploy T", TotalChars: 19, EndChars: 8, LimitChars: 8, HasMore: true, NextOffsetChars: intp(8)},
				Meta:   Meta{Count: Count{Kind: "none"}, Warnings: []Warning{}}}
			fw.Field.Path, fw.Field.Type = "name", "string"
			return fw
		}()},
		{"rs-raw-search", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.Search(ctx, testBearer, SearchQuery{Q: "Quartet"})
		}, &SearchPage{Data: []SearchHit{},
			Meta: Meta{Count: Count{Null: true, Bare: true}, CountAccuracy: "not_counted",
				Recall: &Recall{Complete: boolp(false), RankingScope: "unknown"},
				Warnings: []Warning{{Code: "source_skipped_not_applicable",
					Message: "Connection 'cin_59226620542ff12acd3c7699' under connector '' is not applicable to this query and was skipped.",
					Detail:  json.RawMessage(`{"source":"","connection_id":"cin_59226620542ff12acd3c7699"}`)}}},
			Links: Links{Self: "/v1/search?q=Quartet"}}},
		{"rs-raw-protected-resource-metadata", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.ProtectedResourceMetadata(ctx)
		}, &ProtectedResourceMetadata{Resource: "http://127.0.0.1:7673",
			AuthorizationServers: []string{"http://localhost:7672"}, TokenKindsSupported: []string{"owner", "client"},
			Lexical:  &RetrievalCapability{Supported: true, Endpoint: "/v1/search", CursorSupported: true, DefaultLimit: 25, MaxLimit: 100},
			Semantic: &RetrievalCapability{Supported: true, Endpoint: "/v1/search/semantic", CursorSupported: true, DefaultLimit: 25, MaxLimit: 100},
			Hybrid:   &RetrievalCapability{Supported: true, Endpoint: "/v1/search/hybrid", DefaultLimit: 25, MaxLimit: 100}}},
		{"rs-raw-schema-compact", func(ctx context.Context, c *Client) (any, *Response, error) {
			return c.Schema(ctx, testBearer, SchemaQuery{View: "compact"})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			t.Parallel()
			capt := loadCapture(t, tt.capture)
			srv := newRecorder(t, serveCapture(capt))
			got, resp, err := tt.call(t.Context(), newTestClient(t, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != capt.status || resp.RequestID != capt.header.Get("Request-Id") || string(resp.Body) != string(capt.body) {
				t.Errorf("Response = %d %q (%d bytes), want %d %q (%d bytes)", resp.Status, resp.RequestID, len(resp.Body),
					capt.status, capt.header.Get("Request-Id"), len(capt.body))
			}
			if raw, ok := got.(json.RawMessage); ok && string(raw) != string(capt.body) {
				t.Errorf("raw result is not the body verbatim:\n got %s\nwant %s", raw, capt.body)
			}
			if tt.want == nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// Shapes the captures do not cover, taken from rs-contract.md §2.7–2.8.
func TestDecodeSearchHitsAndAggregations(t *testing.T) {
	t.Parallel()
	lexical := `{"has_more":true,"object":"list","next_cursor":"eyJvZmYiOjI1fQ","data":[{"connector_id":"slack","emitted_at":"2026-04-24T12:05:10.221Z","matched_fields":["text"],"object":"search_result","record_key":"C0123456789:1714032900.000002","record_url":"/v1/streams/messages/records/C0123456789%3A1714032900.000002","stream":"messages","authored_at":"2026-04-24T12:01:40Z","connection_id":"cin_5c","display_name":"Acme Slack","snippet":{"field":"text","text":"This is a <mark>threaded</mark> reply."},"evidence_excerpts":[{"field_path":"text","object":"evidence_excerpt","preview_text":"a <mark>threaded</mark>","provenance":"lexical_match","truncated":true,"read":{"method":"GET"}}],"score":{"kind":"bm25","order":"lower_is_better","value":-7.4213}}],"meta":{"count":38,"count_accuracy":"exact","recall":{"complete":true,"ranking_scope":"all_matches","truncated":false,"ranked_candidate_count":38,"sources_searched_count":2},"warnings":[]}}`
	hybrid := `{"has_more":false,"object":"list","data":[{"connector_id":"gmail","record_key":"r1","stream":"messages","emitted_at":null,"matched_fields":[],"retrieval_mode":"hybrid","retrieval_sources":["lexical","semantic"],"scores":{"lexical":{"kind":"bm25","value":-1},"semantic":{"kind":"semantic_distance","value":0.2}},"snippet":null}],"meta":{"count":{"kind":"none"},"warnings":[]}}`
	grouped := `{"approximate":false,"field":null,"filtered_record_count":1287,"granularity":"month","group_by":null,"group_by_time":"received_at","groups":[{"key":"2026-02-01","count":402},{"key":null,"count":3}],"limit":12,"other_count":0,"metric":"count","object":"aggregation","stream":"messages","time_zone":"America/Chicago","meta":{"count":{"kind":"none"},"warnings":[]}}`
	scalar := `{"field":"size_bytes","filtered_record_count":1287,"metric":"sum","stream":"messages","time_zone":null,"value":18342211,"meta":{"count":{"kind":"none"}}}`
	bodies := map[string]string{"/v1/search": lexical, "/v1/search/hybrid": hybrid,
		"/v1/streams/messages/aggregate": grouped, "/v1/streams/sizes/aggregate": scalar}
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(bodies[r.URL.Path])) })
	c := newTestClient(t, srv.URL)

	page, _, err := c.Search(t.Context(), testBearer, SearchQuery{Q: "threaded"})
	if err != nil {
		t.Fatal(err)
	}
	wantLex := &SearchPage{HasMore: true, NextCursor: "eyJvZmYiOjI1fQ",
		Data: []SearchHit{{ConnectorID: "slack", ConnectionID: "cin_5c", Stream: "messages", RecordKey: "C0123456789:1714032900.000002",
			RecordURL: "/v1/streams/messages/records/C0123456789%3A1714032900.000002", EmittedAt: "2026-04-24T12:05:10.221Z",
			AuthoredAt: "2026-04-24T12:01:40Z", DisplayName: "Acme Slack", MatchedFields: []string{"text"},
			Snippet:          &Snippet{Field: "text", Text: "This is a <mark>threaded</mark> reply."},
			EvidenceExcerpts: json.RawMessage(`[{"field_path":"text","object":"evidence_excerpt","preview_text":"a <mark>threaded</mark>","provenance":"lexical_match","truncated":true,"read":{"method":"GET"}}]`),
			Score:            json.RawMessage(`{"kind":"bm25","order":"lower_is_better","value":-7.4213}`)}},
		Meta: Meta{Count: Count{Value: i64p(38), Bare: true}, CountAccuracy: "exact", Warnings: []Warning{},
			Recall: &Recall{Complete: boolp(true), RankingScope: "all_matches", RankedCandidateCount: intp(38), SourcesSearchedCount: intp(2)}}}
	if diff := cmp.Diff(wantLex, page); diff != "" {
		t.Errorf("lexical (-want +got):\n%s", diff)
	}
	excerpts, err := page.Data[0].Excerpts()
	wantExcerpts := []EvidenceExcerpt{{FieldPath: "text", PreviewText: "a <mark>threaded</mark>", Provenance: "lexical_match", Truncated: true}}
	if diff := cmp.Diff(wantExcerpts, excerpts); err != nil || diff != "" {
		t.Errorf("Excerpts() error %v, (-want +got):\n%s", err, diff)
	}
	if _, err := (SearchHit{EvidenceExcerpts: json.RawMessage(`"not a list"`)}).Excerpts(); err == nil {
		t.Error("Excerpts() of a string: no error")
	}

	page, _, err = c.Search(t.Context(), testBearer, SearchQuery{Mode: ModeHybrid, Q: "x"})
	if err != nil {
		t.Fatal(err)
	}
	wantHyb := &SearchPage{Data: []SearchHit{{ConnectorID: "gmail", RecordKey: "r1", Stream: "messages", MatchedFields: []string{},
		RetrievalMode: "hybrid", RetrievalSources: []string{"lexical", "semantic"},
		Scores: json.RawMessage(`{"lexical":{"kind":"bm25","value":-1},"semantic":{"kind":"semantic_distance","value":0.2}}`)}},
		Meta: Meta{Count: Count{Kind: "none"}, Warnings: []Warning{}}}
	if diff := cmp.Diff(wantHyb, page); diff != "" {
		t.Errorf("hybrid (-want +got):\n%s", diff)
	}

	agg, _, err := c.Aggregate(t.Context(), testBearer, AggregateQuery{Stream: "messages", Metric: "count"})
	if err != nil {
		t.Fatal(err)
	}
	wantGrouped := &Aggregation{Metric: "count", Stream: "messages", GroupByTime: "received_at", Granularity: "month",
		TimeZone: "America/Chicago", Groups: []Group{{json.RawMessage(`"2026-02-01"`), 402}, {json.RawMessage(`null`), 3}},
		Limit: intp(12), OtherCount: i64p(0), FilteredRecordCount: 1287, Meta: Meta{Count: Count{Kind: "none"}, Warnings: []Warning{}}}
	if diff := cmp.Diff(wantGrouped, agg, cmpopts.IgnoreFields(Aggregation{}, "Raw")); diff != "" {
		t.Errorf("grouped (-want +got):\n%s", diff)
	}
	agg, _, err = c.Aggregate(t.Context(), testBearer, AggregateQuery{Stream: "sizes", Metric: "sum", Field: "size_bytes"})
	if err != nil {
		t.Fatal(err)
	}
	wantScalar := &Aggregation{Metric: "sum", Stream: "messages", Field: "size_bytes", Value: json.RawMessage(`18342211`),
		FilteredRecordCount: 1287, Meta: Meta{Count: Count{Kind: "none"}}, Raw: json.RawMessage(scalar)}
	if diff := cmp.Diff(wantScalar, agg); diff != "" {
		t.Errorf("scalar (-want +got):\n%s", diff)
	}
}

func TestInvalidResponse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body string }{
		{"not json", "<html>ok</html>"},
		{"empty", ""},
		{"array", `[{"id":"a"}]`},
		{"data is an object", `{"data":{"id":"a"},"has_more":false}`},
		{"data missing", `{"has_more":false}`},
		{"data null", `{"data":null}`},
		{"count is a string", `{"data":[],"meta":{"count":"many"}}`},
		{"trailing garbage", `{"data":[]} {}`},
	}
	for _, tt := range tests {
		srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(tt.body)) })
		c := newTestClient(t, srv.URL)
		list, resp, err := c.Records(t.Context(), testBearer, RecordsQuery{Stream: "s"})
		var te *TransportError
		if !errors.As(err, &te) || te.Code != CodeInvalidResponse {
			t.Errorf("%s: err = %v, want %s", tt.name, err, CodeInvalidResponse)
		}
		if list != nil || resp == nil || resp.Status != 200 || string(resp.Body) != tt.body {
			t.Errorf("%s: list=%v resp=%+v; want nil list and the 200 answer", tt.name, list, resp)
		}
	}
}
