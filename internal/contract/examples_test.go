package contract

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exampleCases are the JSON examples of rs-contract.md §2–§5, copied to
// testdata/examples, with the request each answers.
var exampleCases = []struct {
	file   string
	target string
	status int
}{
	{"streams-list.json", "/v1/streams", 200},
	{"records-list.json", "/v1/streams/messages/records?connection_id=cin_5c0e1a2b3d4f5a6b7c8d9e0f&limit=500&count=exact&fields=id,channel_id,sent_at,text", 200},
	{"record.json", "/v1/streams/messages/records/19659a5b3c1d4e2f?connection_id=cin_3f9a1c0e5b7d2a4c6e8f0a1b", 200},
	{"field-window.json", "/v1/streams/message_bodies/records/19659a5b3c1d4e2f/field-window?connection_id=cin_3f9a1c0e5b7d2a4c6e8f0a1b&field=body_text&q=integration&before_chars=40&after_chars=60", 200},
	{"aggregate-grouped.json", "/v1/streams/messages/aggregate?metric=count&group_by_time=received_at&granularity=month&time_zone=America/Chicago&limit=12", 200},
	{"aggregate-scalar.json", "/v1/streams/messages/aggregate?metric=sum&field=size_bytes", 200},
	{"search-lexical.json", "/v1/search?q=threaded&limit=25", 200},
	{"schema-compact-example-a.json", "/v1/schema?view=compact", 200},
	{"schema-compact-example-b-child.json", "/v1/schema?view=compact", 200},
	{"protected-resource-metadata.json", "/.well-known/oauth-protected-resource", 200},
	{"error-invalid-request.json", "/v1/streams/messages/records?filter[subject]=x", 400},
	{"error-ambiguous-connection.json", "/v1/streams/messages/records/19659a5b3c1d4e2f", 409},
}

func readExample(t *testing.T, file string) []byte {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestContractExamplesValidate(t *testing.T) {
	t.Parallel()
	v := validator(t)
	for _, tc := range exampleCases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			body := readExample(t, tc.file)
			if self := selfLink(t, body); self != "" {
				if diff := cmp.Diff(self, tc.target); diff != "" {
					t.Errorf("request target disagrees with links.self (-self +target):\n%s", diff)
				}
			}
			if err := v.ValidateExchange(get(tc.target), tc.status, rsHeaders(), body); err != nil {
				t.Errorf("example does not validate: %v", err)
			}
		})
	}
}

// TestRuntimeShapesValidate covers shapes rs-contract.md describes in prose
// rather than in an example: semantic and hybrid hits, tombstones, the
// Fastify 404 of an unmounted route, 5xx, HEAD, encoded record ids.
func TestRuntimeShapesValidate(t *testing.T) {
	t.Parallel()
	v := validator(t)
	cases := []struct {
		name   string
		method string
		target string
		status int
		body   string
	}{
		{"semantic hit, object count", "GET", "/v1/search/semantic?q=plan", 200, `{"object":"list","has_more":false,"next_cursor":null,"data":[
			{"object":"search_result","connector_id":"gmail","connection_id":"cin_1","stream":"messages","record_key":"m1",
			 "record_url":"/v1/streams/messages/records/m1","emitted_at":null,"matched_fields":[],"retrieval_mode":"semantic",
			 "snippet":{"field":"subject","text":"Project plan"},"score":{"kind":"semantic_distance","order":"lower_is_better","value":0.12}}],
			"meta":{"count":{"kind":"none"},"warnings":[]},"links":{"self":"/v1/search/semantic?q=plan","next":null}}`},
		{"hybrid hit with scores", "GET", "/v1/search/hybrid?q=plan&streams=messages&streams=threads", 200, `{"object":"list","has_more":false,"data":[
			{"object":"search_result","connector_id":"gmail","stream":"messages","record_key":"m1","retrieval_mode":"hybrid",
			 "retrieval_sources":["lexical","semantic"],"scores":{"lexical":{"kind":"bm25","order":"lower_is_better","value":-3.2},
			 "semantic":{"kind":"semantic_distance","order":"lower_is_better","value":0.2}}}],
			"meta":{"count":{"kind":"none"},"warnings":[{"code":"limit_clamped","param":"limit","message":"clamped","detail":{"requested_limit":500,"max_limit":100}}]},
			"links":{"self":"/v1/search/hybrid?q=plan","next":null}}`},
		{"changes_since tombstone page", "GET", "/v1/streams/messages/records?changes_since=beginning&connection_id=cin_1", 200, `{"object":"list","has_more":false,
			"next_changes_since":"Y2hhbmdlcw==","data":[{"object":"record","id":"m9","stream":"messages","data":null,"deleted":true,
			"deleted_at":"2026-04-24T12:00:00Z","emitted_at":"2026-04-24T12:00:00Z","connection_id":"cin_1"}],
			"meta":{"count":{"kind":"none"},"warnings":[],"window":{"total":3,"earliest_at":null,"latest_at":null}},
			"links":{"self":"/v1/streams/messages/records?changes_since=beginning","next":null}}`},
		{"fan-in partial page", "GET", "/v1/streams/messages/records", 200, `{"object":"list","has_more":true,"data":[],
			"meta":{"count":{"kind":"none"},"warnings":[{"code":"partial_results","param":"connection_id","message":"Retry with connection_id"}]},
			"links":{"self":"/v1/streams/messages/records","next":null}}`},
		{"unmounted semantic route", "GET", "/v1/search/semantic?q=x", 404,
			`{"message":"Route GET:/v1/search/semantic not found","error":"Not Found","statusCode":404}`},
		{"hybrid 404 with PDPP envelope", "GET", "/v1/search/hybrid?q=x&connection_id=cin_x", 404,
			`{"error":{"type":"not_found_error","code":"connection_not_found","message":"no","param":"connection_id","request_id":"req_1"}}`},
		{"500 api_error", "GET", "/v1/streams", 500, `{"error":{"type":"api_error","code":"api_error","message":"boom","request_id":"req_1"}}`},
		{"410 cursor_expired", "GET", "/v1/streams/messages/records?changes_since=old", 410,
			`{"error":{"type":"gone_error","code":"cursor_expired","message":"re-sync","request_id":"req_1"}}`},
		{"422 field_not_text", "GET", "/v1/streams/m/records/r/field-window?field=size", 422,
			`{"error":{"type":"api_error","code":"field_not_text","message":"not text","param":"field","request_id":"req_1"}}`},
		{"409 schema detail", "GET", "/v1/schema?stream=messages&detail=full", 409, `{"error":{"type":"api_error","code":"ambiguous_schema_detail",
			"message":"pick one","param":"connection_id","retry_with":"connection_id","request_id":"req_1",
			"available_connections":[{"connection_id":"cin_1","connector_key":"gmail","stream":"messages","display_name":"Personal Gmail"}]}}`},
		{"retry_with as upstream object", "GET", "/v1/streams/m/records/r", 409, `{"error":{"type":"api_error","code":"ambiguous_connection",
			"message":"pick one","retry_with":{"field":"connection_id","guidance":"pass it"},"request_id":"req_1"}}`},
		{"unknown error code", "GET", "/v1/streams/m/records", 403, `{"error":{"type":"permission_error","code":"some_future_code","message":"no","request_id":"req_1"}}`},
		{"aggregate min on a date", "GET", "/v1/streams/m/aggregate?metric=min&field=received_at", 200, `{"object":"aggregation","stream":"m","metric":"min",
			"field":"received_at","group_by":null,"group_by_time":null,"granularity":null,"time_zone":null,"approximate":false,
			"filtered_record_count":3,"value":"2026-01-01T00:00:00Z","links":{"self":"/v1/streams/m/aggregate?metric=min&field=received_at"},
			"meta":{"count":{"kind":"none"},"warnings":[]}}`},
		{"aggregate groups with boolean and null keys", "GET", "/v1/streams/m/aggregate?metric=count&group_by=is_seen", 200, `{"object":"aggregation",
			"stream":"m","metric":"count","field":null,"group_by":"is_seen","group_by_time":null,"granularity":null,"time_zone":null,
			"approximate":false,"filtered_record_count":3,"groups":[{"key":true,"count":2},{"key":null,"count":1}],"limit":10,"other_count":0,
			"links":{"self":"/v1/streams/m/aggregate?metric=count&group_by=is_seen"},"meta":{"count":{"kind":"none"},"warnings":[]}}`},
		{"encoded slash in record id", "GET", "/v1/streams/m/records/a%2Fb?connection_id=cin_1", 200, `{"object":"record","id":"a/b","stream":"m",
			"data":{},"emitted_at":"2026-01-01T00:00:00Z","links":{"self":"/v1/streams/m/records/a%2Fb"},"meta":{"count":{"kind":"none"},"warnings":[]}}`},
		{"HEAD skips the body", "HEAD", "/v1/streams", 200, ``},
		{"stream metadata", "GET", "/v1/streams/top_artists", 200, `{"object":"stream_metadata","name":"top_artists","primary_key":["id"],
			"cursor_field":"source_updated_at","schema":{"type":"object"},"query":{},"relationships":[],"views":[],
			"freshness":{"status":"current"},"field_capabilities":{"id":{"granted":true,"schema":{},
			"lexical_search":{"declared":false,"usable":false},"semantic_search":{"declared":true,"usable":false,"reason":"field_not_granted"},
			"aggregation":{},"range_filter":{"declared":true,"usable":true,"operators":["gte","lt"]}}},"expand_capabilities":[],
			"links":{"self":"/v1/streams/top_artists"},"meta":{"count":{"kind":"none"},"warnings":[]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tc.method, "http://rs.test"+tc.target, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.ValidateExchange(req, tc.status, rsHeaders(), []byte(tc.body)); err != nil {
				t.Errorf("valid shape rejected: %v", err)
			}
		})
	}
}
