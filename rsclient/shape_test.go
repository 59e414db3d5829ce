package rsclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// routeCall calls one route and reports only the error.
type routeCall func(context.Context, *Client) error

var shapeRoutes = map[string]routeCall{
	"records": func(ctx context.Context, c *Client) error {
		_, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "s"})
		return err
	},
	"record": func(ctx context.Context, c *Client) error {
		_, _, err := c.Record(ctx, testBearer, RecordQuery{Stream: "s", RecordID: "r"})
		return err
	},
	"aggregate": func(ctx context.Context, c *Client) error {
		_, _, err := c.Aggregate(ctx, testBearer, AggregateQuery{Stream: "s", Metric: "count"})
		return err
	},
	"search": func(ctx context.Context, c *Client) error {
		_, _, err := c.Search(ctx, testBearer, SearchQuery{Q: "x"})
		return err
	},
	"field window": func(ctx context.Context, c *Client) error {
		_, _, err := c.FieldWindow(ctx, testBearer, FieldWindowQuery{Stream: "s", RecordID: "r", Field: "f"})
		return err
	},
	"schema": func(ctx context.Context, c *Client) error {
		_, _, err := c.Schema(ctx, testBearer, SchemaQuery{})
		return err
	},
	"protected-resource metadata": func(ctx context.Context, c *Client) error {
		_, _, err := c.ProtectedResourceMetadata(ctx)
		return err
	},
	"streams": func(ctx context.Context, c *Client) error {
		_, _, err := c.Streams(ctx, testBearer, StreamsQuery{})
		return err
	},
}

// TestWrongShapeIsInvalidResponse: every route refuses a 200 that is JSON
// but not its answer, and accepts its minimal answer.
func TestWrongShapeIsInvalidResponse(t *testing.T) {
	t.Parallel()
	generic := []string{`{}`, `{"nope":1}`, `{"error":{"code":"x"}}`, `"nope"`, `[]`, `null`}
	specific := map[string][]string{
		"records": {`{"data":[{"id":"a","stream":"s"}]}`, `{"data":[{"stream":"s","data":{}}]}`,
			`{"data":[{"id":"a","data":{}}]}`, `{"data":[{"id":"a","stream":"s","data":"nope"}]}`, `{"data":{}}`},
		"record": {`{"id":"r","stream":"s"}`, `{"id":"r","stream":"s","data":[]}`, `{"stream":"s","data":{}}`, `{"id":"r","data":{}}`,
			`{"id":"r","stream":"s","data":"nope"}`},
		"aggregate": {`{"metric":"count","stream":"s"}`, `{"metric":"count","value":1}`, `{"stream":"s","value":1}`,
			`{"metric":"count","stream":"s","groups":[{"count":1}]}`, `{"metric":"count","stream":"s","value":1,"groups":{}}`},
		"search": {`{"data":[{"stream":"s"}]}`, `{"data":[{"record_key":"r"}]}`, `{"data":null}`},
		"field window": {`{"field":{"path":"f"}}`, `{"window":{"text":"x","start_chars":0,"end_chars":1,"total_chars":1,"limit_chars":1}}`,
			`{"field":{"path":"f"},"window":{"text":"","start_chars":0,"end_chars":5,"total_chars":9,"limit_chars":5}}`,
			`{"field":{"path":"f"},"window":{"text":"abc","start_chars":4,"end_chars":2,"total_chars":9,"limit_chars":5}}`,
			`{"field":{"path":"f"},"window":{"text":"abc","start_chars":0,"end_chars":3,"total_chars":2,"limit_chars":5}}`,
			`{"field":{"path":"f"},"window":{"text":"abc","start_chars":3,"end_chars":3,"total_chars":9,"limit_chars":5}}`},
		"schema":                      {`{"connectors":{}}`, `{"object":"schema"}`},
		"protected-resource metadata": {`{"authorization_servers":[]}`, `{"resource":7}`},
	}
	for name, call := range shapeRoutes {
		bodies := append(append([]string(nil), generic...), specific[name]...)
		for _, body := range bodies {
			t.Run(name+"/"+body, func(t *testing.T) {
				t.Parallel()
				srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) })
				err := call(t.Context(), newTestClient(t, srv.URL))
				var te *TransportError
				if !errors.As(err, &te) || te.Code != CodeInvalidResponse {
					t.Errorf("err = %v, want %s", err, CodeInvalidResponse)
				}
			})
		}
		t.Run(name+"/minimal answer", func(t *testing.T) {
			t.Parallel()
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(okBody(r))) })
			if err := call(t.Context(), newTestClient(t, srv.URL)); err != nil {
				t.Errorf("minimal answer refused: %v", err)
			}
		})
	}
}

// FuzzDecodeSuccess: any 2xx body is either CodeInvalidResponse or a
// value that passes its route's shape check and survives a re-encode and
// decode unchanged (Count keeps its wire form); nothing panics.
func FuzzDecodeSuccess(f *testing.F) {
	for _, body := range []string{`{"data":[]}`, `{"id":"r","stream":"s","data":{}}`, `{"metric":"count","stream":"s","value":null}`,
		`{"field":{"path":"f"},"window":{"text":"a","start_chars":0,"end_chars":1,"total_chars":1,"limit_chars":1}}`,
		`{"data":[{"stream":"s","record_key":"r"}],"meta":{"count":null}}`, `{"data":[],"meta":{"count":3}}`,
		`{"data":[],"meta":{"count":{"kind":"exact","value":2}}}`, `{"data":[{"id":"a"}]}`} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		decodeRoundTrip(t, body, checkRecordList)
		decodeRoundTrip(t, body, checkRecord)
		decodeRoundTrip(t, body, checkAggregation)
		decodeRoundTrip(t, body, checkSearchPage)
		decodeRoundTrip(t, body, checkFieldWindow)
	})
}

func decodeRoundTrip[T any](t *testing.T, body []byte, check func(*T) error) {
	t.Helper()
	v, err := decodeSuccess(body, check)
	if err != nil {
		var te *TransportError
		if !errors.As(err, &te) || te.Code != CodeInvalidResponse {
			t.Fatalf("%T: %q gave %v, want %s", v, body, err, CodeInvalidResponse)
		}
		return
	}
	again, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%T: re-encode: %v", v, err)
	}
	back, err := decodeSuccess(again, check)
	if err != nil {
		t.Fatalf("%T: %q decoded, but its re-encoding %s did not: %v", v, body, again, err)
	}
	// Verbatim members (data, value, keys) come back compacted.
	compact := cmp.Transformer("compact", func(r json.RawMessage) string {
		var b bytes.Buffer
		if json.Compact(&b, r) != nil {
			return string(r)
		}
		return b.String()
	})
	notRaw := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().Type() != reflect.TypeFor[json.RawMessage]() }, cmpopts.EquateEmpty())
	if diff := cmp.Diff(v, back, notRaw, compact); diff != "" {
		t.Fatalf("%T: re-decode of %q differs (-first +second):\n%s", v, body, diff)
	}
}
