package adapter

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
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
		"Default 4096 chars from the start." + wholePage,
	Handle: readRecordFieldLogic.handle,
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
	GrantID      string `json:"grant_id"`
}

// readRecordFieldLogic is read_record_field's part of a call: one window
// of one record's field, routed to the grant that serves the record. The
// window read maps its own RS errors (it also serves field-window
// resources).
var readRecordFieldLogic = toolLogic[readFieldArgs, windowRequest]{
	check: func(_ *Server, a *readFieldArgs) (windowRequest, *toolError) {
		if e := validateSegments(seg{"grant_id", a.GrantID}); e != nil {
			return windowRequest{}, e
		}
		return a.windowRequest()
	},
	grantID: func(a readFieldArgs) string { return a.GrantID },
	source:  func(_ readFieldArgs, req windowRequest) (string, string) { return req.Ref.Stream, req.Ref.ConnectionID },
	run: func(ctx context.Context, c *routedCall, _ readFieldArgs, req windowRequest) (*mcp.CallToolResult, *toolError) {
		res, te := c.s.readRoutedWindow(ctx, c.set, c.grant, req)
		if te != nil {
			return nil, te
		}
		return pageResult(page.FieldWindow(res.window(), pageWarnings(c.set.warnings()))), nil
	},
}

// selectorError is the typed error for a bad combination of selectors.
func selectorError(msg string) *toolError {
	return newAdapterError("invalid_field_window_selector", msg)
}

// windowRequest checks identity and selector rules (seed 004) before any
// RS call and resolves defaults. Identity is checked first, then
// field_path, then the selectors: when several are wrong, the first names
// the error.
func (a readFieldArgs) windowRequest() (windowRequest, *toolError) {
	var req windowRequest
	ref, te := a.recordRef()
	if te != nil {
		return req, te
	}
	req.Ref = ref
	if err := contentladder.ValidateSegment("field_path", a.FieldPath); err != nil {
		return req, newAdapterError("invalid_id", err.Error(), field{"param", "field_path"})
	}
	req.FieldPath = a.FieldPath
	if te := a.checkSelectors(); te != nil {
		return req, te
	}
	a.resolveWindow(&req)
	return req, nil
}

// recordRef is the record the call names: by `id` or by the explicit
// connection_id + stream + record_id triple, never both.
func (a readFieldArgs) recordRef() (contentladder.RecordRef, *toolError) {
	explicit := a.ConnectionID != "" || a.Stream != "" || a.RecordID != ""
	switch {
	case a.ID != "" && explicit:
		return contentladder.RecordRef{}, selectorError("`id` is exclusive with connection_id, stream and record_id; pass one identity form")
	case a.ID != "":
		return selfContainedRef(a.ID)
	case a.ConnectionID != "" && a.Stream != "" && a.RecordID != "":
		return explicitRef(a.ConnectionID, a.Stream, a.RecordID)
	}
	return contentladder.RecordRef{}, selectorError("identify the record with `id`, or with all of connection_id, stream and record_id")
}

// selfContainedRef parses an `id` argument, which must carry its
// connection: a field window is read from one grant, with no fan-out to
// resolve a bare stream:record_id.
func selfContainedRef(id string) (contentladder.RecordRef, *toolError) {
	ref, _, err := contentladder.ParseID(id)
	if err != nil {
		return ref, newAdapterError("invalid_id", err.Error(), field{"param", "id"})
	}
	if ref.ConnectionID == "" {
		return ref, newAdapterError("invalid_id",
			"read_record_field needs a self-contained id (connection_id/stream:record_id) or connection_id + stream + record_id",
			field{"param", "id"})
	}
	return ref, nil
}

// explicitRef builds the record reference from the three identity
// arguments and checks each segment's grammar.
func explicitRef(connectionID, stream, recordID string) (contentladder.RecordRef, *toolError) {
	ref := contentladder.RecordRef{ConnectionID: connectionID, Stream: stream, RecordID: recordID}
	if err := ref.Validate(); err != nil {
		return ref, newAdapterError("invalid_id", err.Error())
	}
	return ref, nil
}

// checkSelectors rejects combinations of window selectors that contradict
// each other: cursor stands alone, q excludes offset_chars, and the
// context sizes around a match mean nothing without q.
func (a readFieldArgs) checkSelectors() *toolError {
	switch {
	case a.Cursor != "" && (a.OffsetChars != nil || a.Q != "" || a.BeforeChars != nil || a.AfterChars != nil):
		return selectorError("`cursor` is exclusive with offset_chars, q, before_chars and after_chars")
	case a.Q != "" && a.OffsetChars != nil:
		return selectorError("`q` is exclusive with offset_chars")
	case a.Q == "" && (a.BeforeChars != nil || a.AfterChars != nil):
		return selectorError("before_chars and after_chars require q")
	}
	return nil
}

// resolveWindow fills the selector part of req from checked arguments,
// with seed 004's defaults for what the call omits: a q window gets
// context on both sides of the match, any other window an offset.
func (a readFieldArgs) resolveWindow(req *windowRequest) {
	req.Cursor = a.Cursor
	req.Limit = defaultWindowChars
	if a.LimitChars != nil {
		req.Limit = *a.LimitChars
		req.LimitSet = true
	}
	if a.Q != "" {
		req.Q = a.Q
		before, after := valueOr(a.BeforeChars, defaultContextChars), valueOr(a.AfterChars, defaultContextChars)
		req.Before, req.After = &before, &after
		return
	}
	req.Offset = valueOr(a.OffsetChars, 0)
}

// valueOr is *p, or def when the argument was omitted.
func valueOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
