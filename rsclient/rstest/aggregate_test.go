package rstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAggregateRules(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	a := "/v1/streams/messages/aggregate?connection_id=" + connA + "&"
	tests := []statusCase{
		{"metric required", a + "field=size_bytes", gmailTok, 400, "invalid_request", ""},
		{"bad metric", a + "metric=distinct_count", gmailTok, 400, "invalid_request", ""},
		{"unknown param", a + "metric=count&order=asc", gmailTok, 400, "invalid_request", "order"},
		{"client filter", a + "metric=count&filter[is_seen]=true", gmailTok, 400, "invalid_request", "filter"},
		{"count with field", a + "metric=count&field=size_bytes", gmailTok, 400, "invalid_request", ""},
		{"sum undeclared field", a + "metric=sum&field=thread_id", gmailTok, 400, "invalid_request", ""},
		{"sum unknown field", a + "metric=sum&field=nope", gmailTok, 400, "unknown_field", ""},
		{"sum ungranted field", a + "metric=sum&field=bcc", gmailTok, 403, "field_not_granted", ""},
		{"grouping non-count", a + "metric=sum&field=size_bytes&group_by=is_seen", gmailTok, 400, "invalid_request", ""},
		{"group xor", a + "metric=count&group_by=is_seen&group_by_time=received_at&granularity=day", gmailTok, 400, "invalid_request", ""},
		{"granularity missing", a + "metric=count&group_by_time=received_at", gmailTok, 400, "invalid_request", ""},
		{"granularity bad", a + "metric=count&group_by_time=received_at&granularity=fortnight", gmailTok, 400, "invalid_request", ""},
		{"granularity without time", a + "metric=count&granularity=day", gmailTok, 400, "invalid_request", ""},
		{"tz without time", a + "metric=count&time_zone=UTC", gmailTok, 400, "invalid_request", ""},
		{"tz unknown", a + "metric=count&group_by_time=received_at&granularity=day&time_zone=Mars/Base", gmailTok, 400, "invalid_request", ""},
		{"limit without grouping", a + "metric=count&limit=5", gmailTok, 400, "invalid_request", ""},
		{"limit too big", a + "metric=count&group_by=is_seen&limit=101", gmailTok, 400, "invalid_request", ""},
		{"limit zero", a + "metric=count&group_by=is_seen&limit=0", gmailTok, 400, "invalid_request", ""},
		{"group_by undeclared", a + "metric=count&group_by=thread_id", gmailTok, 400, "invalid_request", ""},
		{"count undeclared", "/v1/streams/message_bodies/aggregate?metric=count", gmailTok, 400, "invalid_request", ""},
		{"count_distinct fan-in", "/v1/streams/messages/aggregate?metric=count_distinct&field=channel_id&connector_id=slack", ownerTok, 400, "invalid_request", ""},
		{"stream not granted", "/v1/streams/attachments/aggregate?metric=count", gmailTok, 401, "context.stream_not_allowed", ""},
		{"connection not granted", "/v1/streams/messages/aggregate?metric=count&connection_id=" + connSlack, gmailTok, 401, "context.instance_mismatch", ""},
		{"tz ok", a + "metric=count&group_by_time=received_at&granularity=day&time_zone=America/Chicago", gmailTok, 200, "", ""},
	}
	checkStatusCases(t, ts.URL, tests)
	t.Run("undeclared message matches capture", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/top_artists/aggregate?metric=count", spotifyTok)
		if want := readJSON(t, "rs-raw-aggregate.json"); at(r.body, "error", "message") != at(want, "error", "message") {
			t.Errorf("%s", r.raw)
		}
	})
}

func TestAggregateResults(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	t.Run("sum single connection", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/aggregate?metric=sum&field=size_bytes&connection_id="+connB, gmailTok)
		want := map[string]any{"approximate": false, "field": "size_bytes", "filtered_record_count": 5.0, "granularity": nil,
			"group_by": nil, "group_by_time": nil, "metric": "sum", "object": "aggregation", "stream": "messages", "time_zone": nil,
			"value": 510.0, "links": map[string]any{"self": "/v1/streams/messages/aggregate?metric=sum&field=size_bytes&connection_id=" + connB},
			"meta": map[string]any{"count": map[string]any{"kind": "none"}, "warnings": []any{}}}
		if d := cmp.Diff(want, r.body); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("fan-in count merged", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/aggregate?metric=count&group_by=is_flagged", gmailTok)
		if r.status != 200 || r.body["filtered_record_count"] != 35.0 || r.body["other_count"] != nil {
			t.Errorf("%s", r.raw)
		}
	})
	t.Run("time buckets", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/aggregate?metric=count&group_by_time=received_at&granularity=day&connection_id="+connB+"&limit=2", gmailTok)
		want := []any{map[string]any{"key": "2026-04-01", "count": 1.0}, map[string]any{"key": "2026-04-02", "count": 1.0}}
		if d := cmp.Diff(want, r.body["groups"]); d != "" || r.body["other_count"] != 3.0 || r.body["time_zone"] != "UTC" {
			t.Errorf("(-want +got):\n%s\n%s", d, r.raw)
		}
	})
}
