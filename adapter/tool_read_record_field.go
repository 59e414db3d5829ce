package adapter

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// Window bounds of seed 004.
const (
	defaultWindowChars  = 4096
	maxWindowChars      = 16384
	defaultContextChars = 2048
	maxContextChars     = 8192
)

var readRecordFieldTool = toolSpec{
	Name:  "read_record_field",
	Title: "Read PDPP record field window",
	Description: "Read a bounded window of one long text field. Identify the record by id " +
		"(`connection_id/stream:record_id` or pdpp://record/ URI) or by connection_id + stream + record_id. " +
		"Select with cursor (from a previous window), offset_chars + limit_chars, or q with before_chars/after_chars. " +
		"Default 4096 chars from the start.",
	Handle: handleReadRecordField,
}

type readFieldArgs struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id"`
	Stream       string `json:"stream"`
	RecordID     string `json:"record_id"`
	FieldPath    string `json:"field_path"`
	Cursor       string `json:"cursor"`
	OffsetChars  *int   `json:"offset_chars"`
	LimitChars   *int   `json:"limit_chars"`
	Q            string `json:"q"`
	BeforeChars  *int   `json:"before_chars"`
	AfterChars   *int   `json:"after_chars"`
}

func handleReadRecordField(ctx context.Context, s *Server, raw json.RawMessage) *mcp.CallToolResult {
	var a readFieldArgs
	if e := decodeArgs(raw, &a); e != nil {
		return errorResult(e)
	}
	req, te := a.windowRequest()
	if te != nil {
		return errorResult(te)
	}
	res, set, te := s.readWindow(ctx, req)
	if te != nil {
		return set.annotate(errorResult(te))
	}
	return res.toolResult(set.warnings())
}

// selectorError is the typed error for a bad combination of selectors.
func selectorError(msg string) *toolError {
	return newAdapterError("invalid_field_window_selector", msg)
}

// windowRequest checks identity and selector rules (seed 004) before any
// RS call and resolves defaults.
func (a readFieldArgs) windowRequest() (windowRequest, *toolError) {
	var req windowRequest
	explicit := a.ConnectionID != "" || a.Stream != "" || a.RecordID != ""
	switch {
	case a.ID != "" && explicit:
		return req, selectorError("`id` is exclusive with connection_id, stream and record_id; pass one identity form")
	case a.ID != "":
		ref, _, err := contentladder.ParseID(a.ID)
		if err != nil {
			return req, newAdapterError("invalid_id", err.Error(), field{"param", "id"})
		}
		if ref.ConnectionID == "" {
			return req, newAdapterError("invalid_id",
				"read_record_field needs a self-contained id (connection_id/stream:record_id) or connection_id + stream + record_id",
				field{"param", "id"})
		}
		req.Ref = ref
	case a.ConnectionID != "" && a.Stream != "" && a.RecordID != "":
		req.Ref = contentladder.RecordRef{ConnectionID: a.ConnectionID, Stream: a.Stream, RecordID: a.RecordID}
		if err := req.Ref.Validate(); err != nil {
			return req, newAdapterError("invalid_id", err.Error())
		}
	default:
		return req, selectorError("identify the record with `id`, or with all of connection_id, stream and record_id")
	}
	if err := contentladder.ValidateSegment("field_path", a.FieldPath); err != nil {
		return req, newAdapterError("invalid_id", err.Error(), field{"param", "field_path"})
	}
	req.FieldPath = a.FieldPath
	switch {
	case a.Cursor != "" && (a.OffsetChars != nil || a.Q != "" || a.BeforeChars != nil || a.AfterChars != nil):
		return req, selectorError("`cursor` is exclusive with offset_chars, q, before_chars and after_chars")
	case a.Q != "" && a.OffsetChars != nil:
		return req, selectorError("`q` is exclusive with offset_chars")
	case a.Q == "" && (a.BeforeChars != nil || a.AfterChars != nil):
		return req, selectorError("before_chars and after_chars require q")
	}
	req.Cursor = a.Cursor
	req.Limit = defaultWindowChars
	if a.LimitChars != nil {
		req.Limit = *a.LimitChars
		req.LimitSet = true
	}
	if a.Q != "" {
		req.Q = a.Q
		before, after := defaultContextChars, defaultContextChars
		if a.BeforeChars != nil {
			before = *a.BeforeChars
		}
		if a.AfterChars != nil {
			after = *a.AfterChars
		}
		req.Before, req.After = &before, &after
		return req, nil
	}
	if a.OffsetChars != nil {
		req.Offset = *a.OffsetChars
	}
	return req, nil
}
