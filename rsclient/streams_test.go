package rsclient

import (
	"context"
	"encoding/json"
)

// GET /v1/streams is the simplest authenticated RS read, so the transport,
// client and decoding tests exercise it; the adapter never calls it (the
// schema document carries the stream list), so it lives here rather than
// in the client's API.

// Streams calls GET /v1/streams.
func (c *Client) Streams(ctx context.Context, bearer string, q StreamsQuery) (*StreamList, *Response, error) {
	return getTyped(c, ctx, bearer, "/v1/streams", q.encode(), checkStreamList)
}

// StreamMetadata calls GET /v1/streams/{stream}[?connection_id=] and returns
// the stream_metadata object verbatim.
func (c *Client) StreamMetadata(ctx context.Context, bearer, stream, connectionID string) (json.RawMessage, *Response, error) {
	p, err := pathOf("stream", stream)
	if err != nil {
		return nil, nil, err
	}
	return getRaw(c, ctx, bearer, p, StreamsQuery{ConnectionID: connectionID}.encode(), checkAnyObject)
}

// StreamsQuery selects GET /v1/streams parameters.
type StreamsQuery struct {
	ConnectionID string
}

func (q StreamsQuery) encode() string {
	var b queryBuilder
	b.addIf("connection_id", q.ConnectionID)
	return b.String()
}

// StreamList is the answer of GET /v1/streams.
type StreamList struct {
	Data []StreamInfo `json:"data"`
}

// StreamInfo is one (stream, connection) entry of GET /v1/streams.
type StreamInfo struct {
	Name         string `json:"name"`
	ConnectionID string `json:"connection_id,omitempty"`
	DisplayName  string `json:"display_name,omitempty"`
	RecordCount  int64  `json:"record_count"`
	LastUpdated  string `json:"last_updated,omitempty"`
}

func checkStreamList(v *StreamList) error {
	if v.Data == nil {
		return errNoData
	}
	return nil
}

// anyObject accepts any JSON object and keeps nothing of it.
type anyObject struct{}

func checkAnyObject(*anyObject) error { return nil }
