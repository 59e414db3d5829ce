package contract

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// mutateJSON decodes body, applies edit and re-encodes: each negative case
// is one deliberate defect in an otherwise valid RS response.
func mutateJSON(t *testing.T, body []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

func first(m map[string]any, key string) map[string]any { return m[key].([]any)[0].(map[string]any) }

func TestDefectsAreRejected(t *testing.T) {
	t.Parallel()
	v := validator(t)
	_, _, records := readCapture(t, "rs-raw-records.headers", "rs-raw-records.json")
	_, _, window := readCapture(t, "rs-raw-field-window.headers", "rs-raw-field-window.json")
	_, _, noToken := readCapture(t, "rs-raw-no-token.headers", "rs-raw-no-token.json")
	_, _, compact := readCapture(t, "rs-raw-schema-compact.headers", "rs-raw-schema-compact.json")
	_, _, full := readCapture(t, "rs-raw-schema-full-stream.headers", "rs-raw-schema-full-stream.json")
	_, _, prm := readCapture(t, "rs-raw-prm.headers", "rs-raw-protected-resource-metadata.json")
	search := readExample(t, "search-lexical.json")
	agg := readExample(t, "aggregate-scalar.json")
	ambiguous := readExample(t, "error-ambiguous-connection.json")

	const (
		recordsURL = "/v1/streams/top_artists/records?limit=1&count=exact"
		windowURL  = "/v1/streams/top_artists/records/r1/field-window?field=name"
	)
	without := func(name string) http.Header { h := rsHeaders(); h.Del(name); return h }
	cases := []struct {
		name    string
		method  string
		target  string
		status  int
		header  http.Header
		body    []byte
		wantErr error // a sentinel, or nil for any error
	}{
		{name: "has_more as string", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) { m["has_more"] = "true" })},
		{name: "records without meta", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) { delete(m, "meta") })},
		{name: "list links without next", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) { delete(obj(m, "links"), "next") })},
		{name: "meta.count as string", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) { obj(m, "meta")["count"] = "2" })},
		{name: "warning without code", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) {
				obj(m, "meta")["warnings"] = []any{map[string]any{"message": "clamped"}}
			})},
		{name: "record id as number", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) { first(m, "data")["id"] = 7 })},
		{name: "window.start_chars as string", target: windowURL, status: 200,
			body: mutateJSON(t, window, func(m map[string]any) { obj(m, "window")["start_chars"] = "0" })},
		{name: "window without next_offset_chars", target: windowURL, status: 200,
			body: mutateJSON(t, window, func(m map[string]any) { delete(obj(m, "window"), "next_offset_chars") })},
		{name: "error without code", target: recordsURL, status: 401,
			body: mutateJSON(t, noToken, func(m map[string]any) { delete(obj(m, "error"), "code") })},
		{name: "error without request_id", target: recordsURL, status: 401,
			body: mutateJSON(t, noToken, func(m map[string]any) { delete(obj(m, "error"), "request_id") })},
		{name: "error type disagrees with status", target: recordsURL, status: 404,
			body: mutateJSON(t, noToken, func(m map[string]any) {})},
		{name: "retry_with as number", target: "/v1/streams/m/records/r", status: 409,
			body: mutateJSON(t, ambiguous, func(m map[string]any) { obj(m, "error")["retry_with"] = 1 })},
		{name: "available connection without id", target: "/v1/streams/m/records/r", status: 409,
			body: mutateJSON(t, ambiguous, func(m map[string]any) {
				obj(m, "error")["available_connections"] = []any{map[string]any{"display_name": "x"}}
			})},
		{name: "bare error string", target: recordsURL, status: 400, body: []byte(`{"error":"invalid_request"}`)},
		{name: "missing Request-Id header", target: recordsURL, status: 200, header: without("Request-Id"),
			body: records, wantErr: ErrMissingRequestID},
		{name: "missing PDPP-Version header", target: recordsURL, status: 200, header: without("Pdpp-Version"), body: records},
		{name: "wrong PDPP-Version header", target: recordsURL, status: 200,
			header: func() http.Header { h := rsHeaders(); h.Set("PDPP-Version", "2025-01-01"); return h }(), body: records},
		{name: "non-JSON content type", target: recordsURL, status: 200,
			header: func() http.Header { h := rsHeaders(); h.Set("Content-Type", "text/html"); return h }(), body: records},
		{name: "malformed JSON", target: recordsURL, status: 200, body: []byte(`{"object":"list",`)},
		{name: "undeclared status", target: "/v1/schema", status: 418, body: noToken, wantErr: ErrUndeclaredStatus},
		{name: "410 on record detail", target: "/v1/streams/m/records/r", status: 410, body: noToken, wantErr: ErrUndeclaredStatus},
		{name: "unknown route", target: "/v1/blobs/b1", status: 200, body: records, wantErr: ErrUnknownRoute},
		{name: "unknown method", method: http.MethodPost, target: "/v1/schema", status: 200, body: compact, wantErr: ErrUnknownRoute},
		{name: "compact flag string malformed", target: "/v1/schema?view=compact", status: 200,
			body: mutateJSON(t, compact, func(m map[string]any) {
				obj(first(first(m, "connectors"), "streams"), "field_capabilities")["id"] = ",lex"
			})},
		{name: "field capability neither object nor string", target: "/v1/schema?view=compact", status: 200,
			body: mutateJSON(t, compact, func(m map[string]any) {
				obj(first(first(m, "connectors"), "streams"), "field_capabilities")["id"] = 5
			})},
		{name: "full capability without granted", target: "/v1/schema?stream=top_artists&detail=full", status: 200,
			body: mutateJSON(t, full, func(m map[string]any) {
				delete(obj(obj(first(first(m, "connectors"), "streams"), "field_capabilities"), "id"), "granted")
			})},
		{name: "bearer of unknown kind", target: "/v1/schema", status: 200,
			body: mutateJSON(t, compact, func(m map[string]any) { obj(m, "bearer")["token_kind"] = "package" })},
		{name: "connector without source", target: "/v1/schema", status: 200,
			body: mutateJSON(t, compact, func(m map[string]any) { delete(first(m, "connectors"), "source") })},
		{name: "search hit without record_key", target: "/v1/search?q=x", status: 200,
			body: mutateJSON(t, search, func(m map[string]any) { delete(first(m, "data"), "record_key") })},
		{name: "search score value as string", target: "/v1/search?q=x", status: 200,
			body: mutateJSON(t, search, func(m map[string]any) { obj(first(m, "data"), "score")["value"] = "-7" })},
		{name: "recall with unknown ranking_scope", target: "/v1/search?q=x", status: 200,
			body: mutateJSON(t, search, func(m map[string]any) { obj(obj(m, "meta"), "recall")["ranking_scope"] = "everything" })},
		{name: "Fastify 404 on the always-mounted lexical route", target: "/v1/search?q=x", status: 404,
			body: []byte(`{"message":"Route GET:/v1/search not found","error":"Not Found","statusCode":404}`)},
		{name: "aggregation with neither value nor groups", target: "/v1/streams/m/aggregate?metric=sum&field=f", status: 200,
			body: mutateJSON(t, agg, func(m map[string]any) { delete(m, "value") })},
		{name: "aggregation metric outside the enum", target: "/v1/streams/m/aggregate?metric=sum&field=f", status: 200,
			body: mutateJSON(t, agg, func(m map[string]any) { m["metric"] = "distinct_count" })},
		{name: "next_offset_chars as string", target: windowURL, status: 200,
			body: mutateJSON(t, window, func(m map[string]any) { obj(m, "window")["next_offset_chars"] = "8" })},
		{name: "emitted_at as number", target: recordsURL, status: 200,
			body: mutateJSON(t, records, func(m map[string]any) { first(m, "data")["emitted_at"] = 1 })},
		{name: "granularity outside the enum", target: "/v1/streams/m/aggregate?metric=sum&field=f", status: 200,
			body: mutateJSON(t, agg, func(m map[string]any) { m["granularity"] = "fortnight" })},
		{name: "schema document without bearer", target: "/v1/schema", status: 200,
			body: mutateJSON(t, compact, func(m map[string]any) { delete(m, "bearer") })},
		{name: "PRM token kind outside the enum", target: "/.well-known/oauth-protected-resource", status: 200,
			body: mutateJSON(t, prm, func(m map[string]any) { m["pdpp_token_kinds_supported"] = []any{"owner", "bogus"} })},
		{name: "PRM without lexical capability", target: "/.well-known/oauth-protected-resource", status: 200,
			body: mutateJSON(t, prm, func(m map[string]any) { delete(obj(m, "capabilities"), "lexical_retrieval") })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			header := tc.header
			if header == nil {
				header = rsHeaders()
			}
			req, err := http.NewRequest(method, "http://rs.test"+tc.target, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = v.ValidateExchange(req, tc.status, header, tc.body)
			if err == nil {
				t.Fatal("defective response accepted")
			}
			t.Logf("rejected as expected: %v", err)
			var xe *ExchangeError
			if !errors.As(err, &xe) || xe.Status != tc.status || xe.Method != method {
				t.Errorf("error %v is not an *ExchangeError naming %s %d", err, method, tc.status)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
