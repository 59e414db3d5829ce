package rsclient

import (
	"context"
	"encoding/json"
)

// Schema calls GET /v1/schema and returns the capability document verbatim
// (it is large and consumed by the schema index, not here).
func (c *Client) Schema(ctx context.Context, bearer string, q SchemaQuery) (json.RawMessage, *Response, error) {
	return c.getRaw(ctx, bearer, "/v1/schema", q.encode())
}

// Streams calls GET /v1/streams.
func (c *Client) Streams(ctx context.Context, bearer string, q StreamsQuery) (*StreamList, *Response, error) {
	return getTyped(c, ctx, bearer, "/v1/streams", q.encode(), func(v *StreamList) error { return requireData(v.Data) }, func(v *StreamList, raw json.RawMessage) { v.Raw = raw })
}

// StreamMetadata calls GET /v1/streams/{stream}[?connection_id=] and returns
// the stream_metadata object verbatim.
func (c *Client) StreamMetadata(ctx context.Context, bearer, stream, connectionID string) (json.RawMessage, *Response, error) {
	p, err := pathOf("stream", stream)
	if err != nil {
		return nil, nil, err
	}
	return c.getRaw(ctx, bearer, p, StreamsQuery{ConnectionID: connectionID}.encode())
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
	return getTyped(c, ctx, bearer, p, query, func(v *RecordList) error { return requireData(v.Data) }, func(v *RecordList, raw json.RawMessage) { v.Raw = raw })
}

// Record calls GET /v1/streams/{stream}/records/{id}.
func (c *Client) Record(ctx context.Context, bearer string, q RecordQuery) (*Record, *Response, error) {
	p, err := recordPath(q.Stream, q.RecordID)
	if err != nil {
		return nil, nil, err
	}
	query, err := q.encode()
	if err != nil {
		return nil, nil, err
	}
	return getTyped[Record](c, ctx, bearer, p, query, nil, nil) // Record.UnmarshalJSON keeps Raw
}

// FieldWindow calls GET /v1/streams/{stream}/records/{id}/field-window.
func (c *Client) FieldWindow(ctx context.Context, bearer string, q FieldWindowQuery) (*FieldWindow, *Response, error) {
	p, err := recordPath(q.Stream, q.RecordID)
	if err != nil {
		return nil, nil, err
	}
	return getTyped(c, ctx, bearer, p+"/field-window", q.encode(), nil,
		func(v *FieldWindow, raw json.RawMessage) { v.Raw = raw })
}

// Aggregate calls GET /v1/streams/{stream}/aggregate.
func (c *Client) Aggregate(ctx context.Context, bearer string, q AggregateQuery) (*Aggregation, *Response, error) {
	p, err := pathOf("stream", q.Stream, "aggregate")
	if err != nil {
		return nil, nil, err
	}
	query, err := q.encode()
	if err != nil {
		return nil, nil, err
	}
	return getTyped(c, ctx, bearer, p, query, nil, func(v *Aggregation, raw json.RawMessage) { v.Raw = raw })
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
	return getTyped(c, ctx, bearer, p, query, func(v *SearchPage) error { return requireData(v.Data) }, func(v *SearchPage, raw json.RawMessage) { v.Raw = raw })
}

// ProtectedResourceMetadata calls GET /.well-known/oauth-protected-resource
// without a bearer.
func (c *Client) ProtectedResourceMetadata(ctx context.Context) (*ProtectedResourceMetadata, *Response, error) {
	resp, err := c.do(ctx, "", false, "/.well-known/oauth-protected-resource", "")
	if err != nil {
		return nil, resp, err
	}
	v, err := decodeSuccess[ProtectedResourceMetadata](resp.Body, nil)
	if err != nil {
		return nil, resp, invalidResponse(err)
	}
	return v, resp, nil
}

func (c *Client) getRaw(ctx context.Context, bearer, path, query string) (json.RawMessage, *Response, error) {
	resp, err := c.do(ctx, bearer, true, path, query)
	if err != nil {
		return nil, resp, err
	}
	var probe map[string]json.RawMessage
	if err := decodeObject(resp.Body, &probe); err != nil {
		return nil, resp, invalidResponse(err)
	}
	return rawCopy(resp.Body), resp, nil
}

// getTyped is the shared authenticated GET + decode. check validates shape
// beyond JSON types; setRaw stores the verbatim body on the result.
func getTyped[T any](c *Client, ctx context.Context, bearer, path, query string,
	check func(*T) error, setRaw func(*T, json.RawMessage)) (*T, *Response, error) {
	resp, err := c.do(ctx, bearer, true, path, query)
	if err != nil {
		return nil, resp, err
	}
	v, err := decodeSuccess(resp.Body, check)
	if err != nil {
		return nil, resp, invalidResponse(err)
	}
	if setRaw != nil {
		setRaw(v, rawCopy(resp.Body))
	}
	return v, resp, nil
}

func invalidResponse(err error) error {
	return &TransportError{Code: CodeInvalidResponse, Message: "2xx body is not the expected JSON shape: " + err.Error(), Err: err}
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
