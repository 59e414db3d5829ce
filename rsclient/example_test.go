package rsclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// A Records call with a typed filter, then branching on the RS error.
func Example_records() {
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Request-Id", "req_0123456789abcdef")
		if r.URL.Query().Get("cursor") != "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"type":"invalid_request_error","code":"invalid_cursor","message":"Malformed cursor"}}`)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"object":"record","id":"C0123:1714.0002","stream":"messages",`+
			`"data":{"text":"hello"}}],"has_more":false,"meta":{"count":{"kind":"exact","value":1},"warnings":[]}}`)
	}))
	defer rs.Close()

	c, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	page, resp, err := c.Records(ctx, "client-token", rsclient.RecordsQuery{
		Stream: "messages",
		Limit:  10,
		Filter: rsclient.Filter{{Field: "sent_at", Range: []rsclient.RangeBound{{Op: rsclient.OpGTE, Value: "2026-04-01"}}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Status, resp.RequestID, *page.Meta.Count.Value)
	for _, r := range page.Data {
		fmt.Println(r.ID, string(r.Data))
	}

	_, _, err = c.Records(ctx, "client-token", rsclient.RecordsQuery{Stream: "messages", Cursor: "stale"})
	var rsErr *rsclient.Error
	if errors.As(err, &rsErr) {
		fmt.Println(rsErr.Status, rsErr.Code, string(rsErr.Envelope))
	}
	// Output:
	// 200 req_0123456789abcdef 1
	// C0123:1714.0002 {"text":"hello"}
	// 400 invalid_cursor {"type":"invalid_request_error","code":"invalid_cursor","message":"Malformed cursor","request_id":"req_0123456789abcdef"}
}
