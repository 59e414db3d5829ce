package rsclient

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// innerError returns the verbatim `error` member of a capture body.
func innerError(t *testing.T, body []byte) json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	return top["error"]
}

func TestDecodeErrorCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		capture string
		want    Error // Envelope filled from the capture below
	}{
		{"rs-raw-no-token", Error{Status: 401, RequestID: "req_18280f52695d35ac", Type: "authentication_error",
			Code: "authentication_error", Message: "Missing Bearer token", Form: FormEnvelope}},
		{"rs-raw-unknown-stream", Error{Status: 401, RequestID: "req_b5cb395075d0f0db", Type: "authentication_error",
			Code: "context.stream_not_allowed", Message: "Token introspection failed closed", Form: FormEnvelope}},
		{"rs-raw-schema-full-nostream", Error{Status: 400, RequestID: "req_d624a9a0424671a4", Type: "invalid_request_error",
			Code: "invalid_request", Param: "detail", Form: FormEnvelope,
			Message: "schema detail \"full\" requires `stream`; call /v1/schema?view=compact for global discovery, then /v1/schema?stream=<name>&connection_id=<cin>&detail=full for exhaustive detail."}},
		{"rs-raw-aggregate", Error{Status: 400, RequestID: "req_633f8bd287024257", Type: "invalid_request_error",
			Code: "invalid_request", Message: "Aggregations are not declared for stream 'top_artists'", Form: FormEnvelope}},
	}
	for _, tt := range tests {
		c := loadCapture(t, tt.capture)
		tt.want.Envelope = innerError(t, c.body) // verbatim: captures already carry request_id
		got := decodeError(c.status, c.header, c.body)
		if diff := cmp.Diff(&tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.capture, diff)
		}
	}
}

func TestDecodeError(t *testing.T) {
	t.Parallel()
	withID := http.Header{"Request-Id": {"req_hdr"}}
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   Error
	}{
		{"ambiguous connection, id from header appended", 409, withID,
			`{"error":{"code":"ambiguous_connection","message":"Retry with connection_id.","type":"api_error","available_connections":[{"connection_id":"cin_a","display_name":"Personal Gmail"},{"connection_id":"cin_b"}],"retry_with":"connection_id"}}`,
			Error{Status: 409, RequestID: "req_hdr", Type: "api_error", Code: "ambiguous_connection", Message: "Retry with connection_id.",
				RetryWith:            json.RawMessage(`"connection_id"`),
				AvailableConnections: json.RawMessage(`[{"connection_id":"cin_a","display_name":"Personal Gmail"},{"connection_id":"cin_b"}]`),
				Envelope:             json.RawMessage(`{"code":"ambiguous_connection","message":"Retry with connection_id.","type":"api_error","available_connections":[{"connection_id":"cin_a","display_name":"Personal Gmail"},{"connection_id":"cin_b"}],"retry_with":"connection_id","request_id":"req_hdr"}`),
				Form:                 FormEnvelope}},
		{"retry_with object kept verbatim, pretty body compacted in order", 409, nil,
			"{\n  \"error\": {\n    \"type\": \"api_error\",\n    \"code\": \"ambiguous_connection\",\n    \"retry_with\": {\"field\": \"connection_id\", \"guidance\": \"pick one\"},\n    \"request_id\": \"req_body\"\n  }\n}\n",
			Error{Status: 409, RequestID: "req_body", Type: "api_error", Code: "ambiguous_connection",
				RetryWith: json.RawMessage(`{"field": "connection_id", "guidance": "pick one"}`),
				Envelope:  json.RawMessage(`{"type":"api_error","code":"ambiguous_connection","retry_with":{"field":"connection_id","guidance":"pick one"},"request_id":"req_body"}`),
				Form:      FormEnvelope}},
		{"header id wins, body envelope untouched", 404, withID,
			`{"error":{"type":"not_found_error","code":"not_found","message":"gone","request_id":"req_body"}}`,
			Error{Status: 404, RequestID: "req_hdr", Type: "not_found_error", Code: "not_found", Message: "gone",
				Envelope: json.RawMessage(`{"type":"not_found_error","code":"not_found","message":"gone","request_id":"req_body"}`), Form: FormEnvelope}},
		{"empty envelope object", 500, withID, `{"error":{}}`,
			Error{Status: 500, RequestID: "req_hdr", Envelope: json.RawMessage(`{"request_id":"req_hdr"}`), Form: FormEnvelope}},
		{"oauth style", 401, withID, `{"error":"invalid_token","error_description":"The token expired"}`,
			Error{Status: 401, RequestID: "req_hdr", Type: "invalid_token", Code: "invalid_token", Message: "The token expired",
				Envelope: json.RawMessage(`{"type":"invalid_token","code":"invalid_token","message":"The token expired","request_id":"req_hdr"}`), Form: FormOAuth}},
		{"oauth without description, body request id", 400, nil, `{"error":"invalid_grant","request_id":"req_b"}`,
			Error{Status: 400, RequestID: "req_b", Type: "invalid_grant", Code: "invalid_grant", Message: "invalid_grant",
				Envelope: json.RawMessage(`{"type":"invalid_grant","code":"invalid_grant","message":"invalid_grant","request_id":"req_b"}`), Form: FormOAuth}},
		{"fastify 404", 404, nil, `{"message":"Route GET:/v1/search/semantic not found","error":"Not Found","statusCode":404}`,
			Error{Status: 404, Type: "rs_error", Code: "http_404", Message: "Route GET:/v1/search/semantic not found",
				Envelope: json.RawMessage(`{"type":"rs_error","code":"http_404","message":"Route GET:/v1/search/semantic not found"}`), Form: FormOtherJSON}},
		{"json array", 500, nil, `[1,2]`,
			Error{Status: 500, Type: "rs_error", Code: "http_500", Message: "Resource server returned HTTP 500",
				Envelope: json.RawMessage(`{"type":"rs_error","code":"http_500","message":"Resource server returned HTTP 500"}`), Form: FormOtherJSON}},
		{"html", 502, withID, "<html><body>Bad Gateway</body></html>\n",
			Error{Status: 502, RequestID: "req_hdr", Type: "rs_error", Code: "http_502", Message: "<html><body>Bad Gateway</body></html>",
				Envelope: json.RawMessage(`{"type":"rs_error","code":"http_502","message":"\u003chtml\u003e\u003cbody\u003eBad Gateway\u003c/body\u003e\u003c/html\u003e","request_id":"req_hdr"}`), Form: FormNonJSON}},
		{"empty body", 503, nil, "",
			Error{Status: 503, Type: "rs_error", Code: "http_503", Message: "Resource server returned HTTP 503",
				Envelope: json.RawMessage(`{"type":"rs_error","code":"http_503","message":"Resource server returned HTTP 503"}`), Form: FormNonJSON}},
		{"truncated json", 500, nil, `{"error":{"code":"x"`,
			Error{Status: 500, Type: "rs_error", Code: "http_500", Message: `{"error":{"code":"x"`,
				Envelope: json.RawMessage(`{"type":"rs_error","code":"http_500","message":"{\"error\":{\"code\":\"x\""}`), Form: FormNonJSON}},
		{"redirect without envelope", 302, nil, "",
			Error{Status: 302, Type: "rs_error", Code: "http_302", Message: "Resource server returned HTTP 302",
				Envelope: json.RawMessage(`{"type":"rs_error","code":"http_302","message":"Resource server returned HTTP 302"}`), Form: FormNonJSON}},
	}
	for _, tt := range tests {
		h := tt.header
		if h == nil {
			h = http.Header{}
		}
		got := decodeError(tt.status, h, []byte(tt.body))
		if diff := cmp.Diff(&tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestDecodeErrorBounds(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 3000)
	got := decodeError(500, http.Header{}, []byte(long))
	if n := utf8.RuneCountInString(got.Message); n != maxErrorText {
		t.Errorf("non-JSON message has %d runes, want %d", n, maxErrorText)
	}
	huge := `{"error":{"code":"x","message":"` + strings.Repeat("a", maxEnvelopeBytes) + `"}}`
	got = decodeError(500, http.Header{}, []byte(huge))
	if got.Form != FormOtherJSON || len(got.Envelope) > 200 {
		t.Errorf("oversized envelope: Form %q, %d bytes; want other_json, small", got.Form, len(got.Envelope))
	}
	if s := (&Error{Status: 500, Message: long}).Error(); utf8.RuneCountInString(s) > maxErrorText+64 {
		t.Errorf("Error() is %d runes long", utf8.RuneCountInString(s))
	}
}

func FuzzDecodeError(f *testing.F) {
	f.Add(401, []byte(`{"error":{"code":"authentication_error","message":"Missing Bearer token"}}`), "req_1")
	f.Add(409, []byte(`{"error":{"retry_with":{"field":"connection_id"},"available_connections":[]}}`), "")
	f.Add(400, []byte(`{"error":"invalid_grant","error_description":"x"}`), "req_2")
	f.Add(404, []byte(`{"message":"Route GET:/x not found","error":"Not Found","statusCode":404}`), "")
	f.Add(502, []byte("<html>"), "\xff")
	f.Add(500, []byte(""), "")
	f.Add(500, []byte(`{"error":{}}`), "req_3")
	f.Add(500, []byte(`{"error":null}`), "")
	f.Fuzz(func(t *testing.T, status int, body []byte, rid string) {
		h := http.Header{}
		if rid != "" {
			h.Set("Request-Id", rid)
		}
		e := decodeError(status, h, body)
		if !json.Valid(e.Envelope) || len(e.Envelope) == 0 || e.Envelope[0] != '{' {
			t.Fatalf("Envelope %q is not a JSON object", e.Envelope)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(e.Envelope, &obj); err != nil {
			t.Fatalf("Envelope %q: %v", e.Envelope, err)
		}
		switch e.Form {
		case FormEnvelope:
			if len(e.Envelope) > maxEnvelopeBytes+len(`,"request_id":`)+6*len(rid)+2 {
				t.Fatalf("envelope %d bytes exceeds bound", len(e.Envelope))
			}
		case FormOAuth, FormOtherJSON, FormNonJSON:
			if utf8.RuneCountInString(e.Message) > maxErrorText {
				t.Fatalf("normalised message has %d runes", utf8.RuneCountInString(e.Message))
			}
		default:
			t.Fatalf("unknown Form %q", e.Form)
		}
		if rid != "" && e.RequestID == "" {
			t.Fatalf("Request-Id header %q lost", rid)
		}
		_ = e.Error()
	})
}
