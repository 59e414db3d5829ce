package rsclient

import (
	"bytes"
	"context"
	"encoding/json"
)

// Schema calls GET /v1/schema and returns the capability document verbatim
// (it is large and parsed once, by the schema index, not here). The body
// must be an object with a "connectors" array.
func (c *Client) Schema(ctx context.Context, bearer string, q SchemaQuery) (json.RawMessage, *Response, error) {
	return getRaw(c, ctx, bearer, "/v1/schema", q.encode(), checkSchema)
}

// Records calls GET /v1/streams/{stream}/records.
func (c *Client) Records(ctx context.Context, bearer string, q RecordsQuery) (*RecordList, *Response, error) {
	p, err := pathOf("stream", q.Stream, "records")
	if err != nil {
		return nil, nil, err
	}
	query, err := q.encode()
	if err != nil {
		return nil, nil, err
	}
	return getTyped(c, ctx, bearer, p, query, checkRecordList)
}

// Record calls GET /v1/streams/{stream}/records/{id}. The record id may
// hold any character; it is sent as one percent-encoded path segment.
func (c *Client) Record(ctx context.Context, bearer string, q RecordQuery) (*Record, *Response, error) {
	p, err := recordPath(q.Stream, q.RecordID)
	if err != nil {
		return nil, nil, err
	}
	query, err := q.encode()
	if err != nil {
		return nil, nil, err
	}
	return getTyped(c, ctx, bearer, p, query, checkRecord)
}

// FieldWindow calls GET /v1/streams/{stream}/records/{id}/field-window.
func (c *Client) FieldWindow(ctx context.Context, bearer string, q FieldWindowQuery) (*FieldWindow, *Response, error) {
	p, err := recordPath(q.Stream, q.RecordID)
	if err != nil {
		return nil, nil, err
	}
	return getTyped(c, ctx, bearer, p+"/field-window", q.encode(), checkFieldWindow)
}

// Aggregate calls GET /v1/streams/{stream}/aggregate. The result keeps
// the answer verbatim in Raw.
func (c *Client) Aggregate(ctx context.Context, bearer string, q AggregateQuery) (*Aggregation, *Response, error) {
	p, err := pathOf("stream", q.Stream, "aggregate")
	if err != nil {
		return nil, nil, err
	}
	query, err := q.encode()
	if err != nil {
		return nil, nil, err
	}
	var agg *Aggregation
	resp, err := c.do(ctx, bearer, true, p, query, func(body []byte) (err error) {
		if agg, err = decodeSuccess(body, checkAggregation); err == nil {
			agg.Raw = bytes.TrimSpace(body)
		}
		return err
	})
	if err != nil {
		return nil, resp, err
	}
	return agg, resp, nil
}

// Search calls /v1/search, /v1/search/semantic or /v1/search/hybrid
// according to q.Mode. Semantic and hybrid answer a Fastify 404 (Form
// "other_json") when the RS has no embedding backend; check
// ProtectedResourceMetadata.SupportsMode first.
func (c *Client) Search(ctx context.Context, bearer string, q SearchQuery) (*SearchPage, *Response, error) {
	p, err := searchPath(q.Mode)
	if err != nil {
		return nil, nil, err
	}
	query, err := q.encode()
	if err != nil {
		return nil, nil, err
	}
	return getTyped(c, ctx, bearer, p, query, checkSearchPage)
}

// ProtectedResourceMetadata calls GET /.well-known/oauth-protected-resource
// without a bearer.
func (c *Client) ProtectedResourceMetadata(ctx context.Context) (*ProtectedResourceMetadata, *Response, error) {
	return get(c, ctx, "", false, "/.well-known/oauth-protected-resource", "", checkProtectedResourceMetadata)
}

// getTyped is the shared authenticated GET: one read of the body, one
// decode into T, then T's shape check.
func getTyped[T any](c *Client, ctx context.Context, bearer, path, query string, check func(*T) error) (*T, *Response, error) {
	return get(c, ctx, bearer, true, path, query, check)
}

func get[T any](c *Client, ctx context.Context, bearer string, auth bool, path, query string, check func(*T) error) (*T, *Response, error) {
	var v *T
	resp, err := c.do(ctx, bearer, auth, path, query, func(body []byte) (err error) {
		v, err = decodeSuccess(body, check)
		return err
	})
	if err != nil {
		return nil, resp, err
	}
	return v, resp, nil
}

// getRaw checks the body's shape through S and returns it verbatim
// (sharing the Response body's bytes).
func getRaw[S any](c *Client, ctx context.Context, bearer, path, query string, check func(*S) error) (json.RawMessage, *Response, error) {
	var raw json.RawMessage
	resp, err := c.do(ctx, bearer, true, path, query, func(body []byte) error {
		if _, err := decodeSuccess(body, check); err != nil {
			return err
		}
		raw = bytes.TrimSpace(body)
		return nil
	})
	if err != nil {
		return nil, resp, err
	}
	return raw, resp, nil
}

// pathOf builds /v1/streams/<enc(segment)>[/<suffix>]. Empty segments are
// refused: they would silently address a different route.
func pathOf(param, segment string, suffix ...string) (string, error) {
	if segment == "" {
		return "", &QueryError{Param: param, Message: "must not be empty"}
	}
	p := "/v1/streams/" + encodeURIComponent(segment)
	for _, s := range suffix {
		p += "/" + s
	}
	return p, nil
}

func recordPath(stream, id string) (string, error) {
	p, err := pathOf("stream", stream, "records")
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", &QueryError{Param: "record_id", Message: "must not be empty"}
	}
	return p + "/" + encodeURIComponent(id), nil
}
