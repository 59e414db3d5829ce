package rstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecordDetail(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	tests := []struct {
		name, path, tok string
		status          int
		code            string
	}{
		{"unique", "/v1/streams/messages/records/m010", gmailTok, 200, ""},
		{"ambiguous", "/v1/streams/messages/records/m001", gmailTok, 409, "ambiguous_connection"},
		{"scoped", "/v1/streams/messages/records/m001?connection_id=" + connB, gmailTok, 200, ""},
		{"missing", "/v1/streams/messages/records/zzz", gmailTok, 404, "not_found"},
		{"tombstone", "/v1/streams/messages/records/gone", gmailTok, 404, "not_found"},
		{"time-constrained", "/v1/streams/message_bodies/records/old", gmailTok, 404, "not_found"},
		{"encoded slash", "/v1/streams/message_bodies/records/uni%2Fcode", gmailTok, 200, ""},
		{"not granted", "/v1/streams/attachments/records/x", gmailTok, 401, "context.stream_not_allowed"},
		{"bad connection", "/v1/streams/messages/records/m010?connection_id=cin_nope", gmailTok, 401, "context.instance_mismatch"},
		{"owner bad connection", "/v1/streams/messages/records/m010?connection_id=cin_nope", ownerTok, 404, "connection_not_found"},
		{"client expand", "/v1/streams/messages/records/m010?expand=message_bodies", gmailTok, 400, "invalid_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := get(t, ts.URL, tc.path, tc.tok)
			if code, _ := r.errCode(); r.status != tc.status || code != tc.code {
				t.Errorf("got %d %s, want %d %s: %s", r.status, code, tc.status, tc.code, r.raw)
			}
		})
	}
	t.Run("shape", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/records/m010?fields=id,subject", gmailTok)
		want := map[string]any{
			"connector_key": "https://registry.pdpp.dev/connectors/gmail", "object": "record", "id": "m010", "stream": "messages",
			"data":       map[string]any{"id": "m010", "subject": "Project update 10"},
			"emitted_at": "2026-04-01T00:10:00.000Z", "connection_id": connA, "connector_instance_id": connA, "display_name": "Personal Gmail",
			"links": map[string]any{"self": "/v1/streams/messages/records/m010?fields=id,subject"},
			"meta":  map[string]any{"count": map[string]any{"kind": "none"}, "warnings": []any{}},
			// The stored record's size, not the projection's (capture 0148).
			"record_json_bytes": float64(437),
		}
		if d := cmp.Diff(want, r.body); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("ambiguity body", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/records/m001", gmailTok)
		want := []any{map[string]any{"connection_id": connA, "display_name": "Personal Gmail"},
			map[string]any{"connection_id": connB, "display_name": "Work Gmail"}}
		if d := cmp.Diff(want, at(r.body, "error", "available_connections")); d != "" || at(r.body, "error", "type") != "api_error" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
}

func TestFieldWindow(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	fw := "/v1/streams/message_bodies/records/19659a5b3c1d4e2f/field-window?connection_id=" + connA + "&field=body_text"
	uni := "/v1/streams/message_bodies/records/uni%2Fcode/field-window?field=body_text"
	type win = map[string]any
	tests := []struct {
		name, path string
		status     int
		code       string
		want       win
	}{
		{"contract example", fw + "&q=integration&before_chars=40&after_chars=60", 200, "", win{
			"text": "steps include implementation review and integration testing scheduled for next week.", "total_chars": 284.0,
			"start_chars": 200.0, "end_chars": 284.0, "limit_chars": 111.0, "complete": false, "has_more": false,
			"match_start_chars": 240.0, "match_end_chars": 251.0, "next_offset_chars": nil, "previous_offset_chars": 89.0}},
		{"offset paging", fw + "&offset_chars=10&limit_chars=8", 200, "", win{
			"text": "e latest", "total_chars": 284.0, "start_chars": 10.0, "end_chars": 18.0, "limit_chars": 8.0, "complete": false,
			"has_more": true, "match_start_chars": nil, "match_end_chars": nil, "next_offset_chars": 18.0, "previous_offset_chars": 2.0}},
		{"multibyte never split", uni + "&offset_chars=12&limit_chars=3", 200, "", win{
			"text": "🎉 ü", "total_chars": 27.0, "start_chars": 12.0, "end_chars": 15.0, "limit_chars": 3.0, "complete": false,
			"has_more": true, "match_start_chars": nil, "match_end_chars": nil, "next_offset_chars": 15.0, "previous_offset_chars": 9.0}},
		{"multibyte q", uni + "&q=w%C3%B6rld", 200, "", win{
			"text": "wörld 🎉 ünïcode — fin", "total_chars": 27.0, "start_chars": 6.0, "end_chars": 27.0, "limit_chars": 4096.0, "complete": false,
			"has_more": false, "match_start_chars": 6.0, "match_end_chars": 11.0, "next_offset_chars": nil, "previous_offset_chars": 0.0}},
		{"whole field", uni, 200, "", win{
			"text": "héllo wörld 🎉 ünïcode — fin", "total_chars": 27.0, "start_chars": 0.0, "end_chars": 27.0, "limit_chars": 4096.0, "complete": true,
			"has_more": false, "match_start_chars": nil, "match_end_chars": nil, "next_offset_chars": nil, "previous_offset_chars": nil}},
		{"missing field", "/v1/streams/message_bodies/records/uni%2Fcode/field-window", 400, "invalid_field_path", nil},
		{"dotted field", uni + ".x", 400, "invalid_field_path", nil},
		{"bad offset", uni + "&offset_chars=x", 400, "invalid_window", nil},
		{"offset and q", uni + "&offset_chars=1&q=a", 400, "invalid_window", nil},
		{"context without q", uni + "&before_chars=3", 400, "invalid_window", nil},
		{"context too big", uni + "&q=fin&after_chars=9000", 400, "invalid_window", nil},
		{"zero limit", uni + "&limit_chars=0", 400, "invalid_window", nil},
		{"query not found", uni + "&q=FIN", 404, "query_not_found", nil},
		{"not granted", "/v1/streams/message_bodies/records/uni%2Fcode/field-window?field=charset", 403, "field_not_granted", nil},
		{"unknown field", "/v1/streams/message_bodies/records/uni%2Fcode/field-window?field=nope", 403, "field_not_granted", nil},
		{"not text", "/v1/streams/message_bodies/records/uni%2Fcode/field-window?field=body_text_bytes&connector_id=gmail", 422, "field_not_text", nil},
		{"record missing", "/v1/streams/message_bodies/records/zz/field-window?field=body_text", 404, "not_found", nil},
		{"ambiguous", "/v1/streams/messages/records/m001/field-window?field=subject", 409, "ambiguous_connection", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tok := gmailTok
			if tc.code == "field_not_text" {
				tok = ownerTok // every granted message_bodies field is a string
			}
			r := get(t, ts.URL, tc.path, tok)
			if code, _ := r.errCode(); r.status != tc.status || code != tc.code {
				t.Fatalf("got %d %s, want %d %s: %s", r.status, code, tc.status, tc.code, r.raw)
			}
			if tc.want != nil {
				if d := cmp.Diff(tc.want, r.body["window"]); d != "" {
					t.Errorf("window (-want +got):\n%s", d)
				}
			}
		})
	}
	t.Run("limit clamp warning", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, uni+"&limit_chars=20000", gmailTok)
		if at(r.body, "meta", "warnings", 0, "param") != "limit_chars" || at(r.body, "window", "limit_chars") != 16384.0 {
			t.Errorf("%s", r.raw)
		}
	})
}

// TestFieldWindowNotText: a field that is not a JSON string is refused
// 422 field_not_text, naming its class in the reference's words and with
// no param, as the reference RS answers (a null included: it has no
// window either).
func TestFieldWindowNotText(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	base := "/v1/streams/messages/records/m010/field-window?connection_id=" + connA + "&field="
	for _, tc := range []struct{ field, class string }{
		{"is_draft", "boolean"},
		{"to", "array"},
		{"in_reply_to", "null"},
		{"size_bytes", "number"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			t.Parallel()
			r := get(t, ts.URL, base+tc.field, gmailTok)
			want := map[string]any{"code": "field_not_text", "type": "api_error",
				"message": "field '" + tc.field + "' is " + tc.class + ", not a readable text field; non-text and binary fields are metadata-only"}
			e, _ := r.body["error"].(map[string]any)
			got := map[string]any{}
			for k, v := range e {
				if k != "request_id" {
					got[k] = v
				}
			}
			if r.status != 422 {
				t.Errorf("status %d, want 422", r.status)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}
