package adapter

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Resource reads fail as JSON-RPC errors, and mcp-go reports every error a
// resource handler returns as -32603 "Internal error" with the error's text
// as message. The adapter instead answers an invalid handle with -32602
// (invalid params), a record that does not exist with -32002 (resource not
// found), and anything else with -32603, each with the typed error as
// `data` ({error:{type, code, message, …}, http_status?}), as a tool's
// error result would carry. The handler marks its error text; the
// transports pass every outgoing message through TypedErrors, which turns
// a marked -32603 into that error.

// resourceErrorMark prefixes a resource handler's error text.
const resourceErrorMark = "pdpp-resource-error:"

// resourceFailure is what the mark carries to TypedErrors.
type resourceFailure struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// resourceError is a resource handler's error for te.
func resourceError(te *toolError) error {
	f := resourceFailure{Code: mcp.INTERNAL_ERROR, Message: te.Message, Data: te.body()}
	switch {
	case te.Code == "invalid_handle", te.Code == "invalid_cursor", strings.HasPrefix(te.Code, "invalid_"), te.Code == "unknown_stream", te.Code == "connection_not_found":
		f.Code = mcp.INVALID_PARAMS
	case te.Status == 404 || strings.HasSuffix(te.Code, "not_found"):
		f.Code = mcp.RESOURCE_NOT_FOUND
	}
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
	if !bytes.Contains(msg, []byte(resourceErrorMark)) {
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

// typedError rewrites one marked -32603 error response.
func typedError(msg json.RawMessage) json.RawMessage {
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &resp) != nil || resp.Error == nil || resp.Error.Code != mcp.INTERNAL_ERROR {
		return msg
	}
	payload, ok := strings.CutPrefix(resp.Error.Message, resourceErrorMark)
	if !ok {
		return msg
	}
	var f resourceFailure
	if json.Unmarshal([]byte(payload), &f) != nil {
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
