package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// Resource reads fail as JSON-RPC errors, and mcp-go reports every error a
// resource handler returns as -32603 "Internal error" with the error's text
// as message. The adapter instead answers with one mapping:
// -32602 (invalid params) for a handle or argument the caller can fix — a
// malformed handle, a stream, connection or field the grant does not
// cover — -32002 (resource not found) for a record that does not exist
// (-32602 under protocol revisions from 2026-07-28, which fold "not found"
// into invalid params, as mcp-go does), and -32603 for anything else, each
// with the typed error as `data` ({error:{type, code, message, …},
// http_status?, next_steps?}), as a tool's error result would carry. The
// handler marks its error text; the transports pass every outgoing message
// through TypedErrors, which turns a marked -32603 into that error.
//
// A URI that matches no resource template never reaches a handler: mcp-go
// answers it "handler not found" without data. TypedErrors types that
// answer too (see typedNotFound); the templates take reserved characters
// ({+handle}) so that most malformed handles reach the handler, which
// names the exact fault.

// resourceErrorMark prefixes a resource handler's error text.
const resourceErrorMark = "pdpp-resource-error:"

// resourceFailure is what the mark carries to TypedErrors.
type resourceFailure struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// callerFixableCodes are the typed codes, beyond the invalid_, unknown_
// and ambiguous_ families, that name a part of a handle the caller can
// correct: a connection, field or query the grant or record does not have.
var callerFixableCodes = map[string]bool{
	"connection_not_found": true, "field_not_found": true, "query_not_found": true,
	"field_not_granted": true, "related_stream_not_granted": true,
}

// resourceRPCCode is the JSON-RPC code of a resource read that failed with
// te, under the request's protocol revision.
func resourceRPCCode(ctx context.Context, te *toolError) int {
	switch {
	case callerFixableCodes[te.Code], strings.HasPrefix(te.Code, "invalid_"),
		strings.HasPrefix(te.Code, "unknown_"), strings.HasPrefix(te.Code, "ambiguous_"):
		return mcp.INVALID_PARAMS
	case te.Status == 404 || strings.HasSuffix(te.Code, "not_found"):
		if mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
			return mcp.INVALID_PARAMS
		}
		return mcp.RESOURCE_NOT_FOUND
	}
	return mcp.INTERNAL_ERROR
}

// resourceError is a resource handler's error for te.
func resourceError(ctx context.Context, te *toolError) error {
	f := resourceFailure{Code: resourceRPCCode(ctx, te), Message: te.Message, Data: te.body()}
	if f.Message == "" {
		f.Message = "the resource could not be read: " + te.Code
	}
	b, _ := json.Marshal(f)
	return markedError(resourceErrorMark + string(b))
}

type markedError string

func (e markedError) Error() string { return string(e) }

// TypedErrors rewrites one outgoing JSON-RPC message (or batch) so that a
// resource read's failure carries its proper code and typed data. Any
// other message is returned unchanged.
func TypedErrors(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(resourceErrorMark)) && !bytes.Contains(msg, []byte(unmatchedURIPrefix)) &&
		!bytes.Contains(msg, []byte(unknownToolSuffix)) {
		return msg
	}
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil {
			return msg
		}
		changed := false
		for i, m := range batch {
			batch[i] = typedError(m)
			changed = changed || !bytes.Equal(batch[i], m)
		}
		out, err := json.Marshal(batch)
		if err != nil || !changed {
			return msg
		}
		return append(out, msg[len(bytes.TrimRight(msg, " \r\n\t")):]...)
	}
	out := typedError(trimmed)
	if bytes.Equal(out, trimmed) {
		return msg
	}
	return append(out, msg[len(bytes.TrimRight(msg, " \r\n\t")):]...)
}

// typedError rewrites one marked -32603 error response, or mcp-go's
// untyped answer to a URI no template matches.
func typedError(msg json.RawMessage) json.RawMessage {
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &resp) != nil || resp.Error == nil {
		return msg
	}
	var f resourceFailure
	ok := false
	switch resp.Error.Code {
	case mcp.INTERNAL_ERROR:
		f, ok = markedFailure(resp.Error.Message)
	case mcp.RESOURCE_NOT_FOUND, mcp.INVALID_PARAMS:
		if len(resp.Error.Data) == 0 {
			f, ok = unmatchedURIFailure(resp.Error.Code, resp.Error.Message)
		}
		if !ok && len(resp.Error.Data) == 0 {
			f, ok = unknownToolFailure(resp.Error.Code, resp.Error.Message)
		}
	}
	if !ok {
		return msg
	}
	out, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   resourceFailure `json:"error"`
	}{resp.JSONRPC, resp.ID, f})
	if err != nil {
		return msg
	}
	return out
}

// markedFailure decodes the failure a resource handler marked.
func markedFailure(message string) (resourceFailure, bool) {
	var f resourceFailure
	payload, ok := strings.CutPrefix(message, resourceErrorMark)
	if !ok || json.Unmarshal([]byte(payload), &f) != nil {
		return resourceFailure{}, false
	}
	return f, true
}

// unmatchedURIPrefix opens mcp-go's message for a resources/read URI that
// matches no template ("handler not found for resource URI '<uri>':
// resource not found"). TestResourceErrorMapping fails if mcp-go words it
// otherwise.
const unmatchedURIPrefix = "handler not found for resource URI '"

// maxEchoedURIBytes bounds how much of a refused URI an error quotes.
const maxEchoedURIBytes = 96

// unmatchedURIFailure types mcp-go's answer to a URI no template matches.
// Under a pdpp handle prefix the handle carries a character no issued
// handle has (a line break, a space, non-ASCII): an invalid handle. Any
// other URI names no resource of this server; the code mcp-go chose for
// that (per protocol revision) stays.
func unmatchedURIFailure(code int, message string) (resourceFailure, bool) {
	uri, ok := strings.CutPrefix(message, unmatchedURIPrefix)
	if ok {
		uri, ok = strings.CutSuffix(uri, "': "+server.ErrResourceNotFound.Error())
	}
	if !ok {
		return resourceFailure{}, false
	}
	quoted := strconv.Quote(truncateBytes(uri, maxEchoedURIBytes))
	var te *toolError
	if strings.HasPrefix(uri, contentladder.RecordURIPrefix) || strings.HasPrefix(uri, contentladder.FieldWindowURIPrefix) {
		code = mcp.INVALID_PARAMS
		te = newAdapterError("invalid_handle", "the handle in "+quoted+" is not one this server issued (a handle has only the characters A-Z a-z 0-9 - _); "+
			"use the URI exactly as a fetch, query_records, search or read_record_field result gives it")
	} else {
		te = newAdapterError("resource_not_found", "no resource has the URI "+quoted+"; this server reads "+
			contentladder.RecordURIPrefix+"{handle} and "+contentladder.FieldWindowURIPrefix+"{handle}, as fetch, query_records, search and read_record_field results give them")
	}
	return resourceFailure{Code: code, Message: te.Message, Data: te.body()}, true
}

// unknownToolSuffix closes mcp-go's answer to a tools/call of a name it has
// no tool for ("tool '<name>' not found: tool not found"), which it sends
// before any adapter code runs. TestUnknownToolDidYouMean fails if mcp-go
// words it otherwise.
var unknownToolSuffix = "' not found: " + server.ErrToolNotFound.Error()

// maxEchoedToolName bounds how much of an unknown tool name an error quotes.
const maxEchoedToolName = 64

// unknownToolFailure types mcp-go's answer to an unknown tool name, keeping
// its code: the closest tool names ("did you mean") and the six tools.
func unknownToolFailure(code int, message string) (resourceFailure, bool) {
	name, ok := strings.CutPrefix(message, "tool '")
	if ok {
		name, ok = strings.CutSuffix(name, unknownToolSuffix)
	}
	if !ok {
		return resourceFailure{}, false
	}
	tools := ToolNames()
	msg := "unknown tool " + strconv.Quote(truncateBytes(name, maxEchoedToolName))
	extras := []field{{"tools", tools}}
	if near := schemaindex.NearNames(name, tools, 2); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
		extras = append(extras, field{"did_you_mean", near})
	}
	msg += " This server's tools: " + strings.Join(tools, ", ") + "."
	te := newAdapterError("unknown_tool", msg, extras...)
	return resourceFailure{Code: code, Message: te.Message, Data: te.body()}, true
}

// TypedErrorWriter passes each write of a line-oriented transport (stdio:
// one JSON-RPC message and its newline per write) through TypedErrors.
func TypedErrorWriter(w io.Writer) io.Writer { return typedErrorWriter{w} }

type typedErrorWriter struct{ w io.Writer }

func (t typedErrorWriter) Write(p []byte) (int, error) {
	if _, err := t.w.Write(TypedErrors(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
