package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// toolError is an error result: either the RS's own envelope (kept
// verbatim, with its HTTP status) or an adapter envelope with a typed code.
type toolError struct {
	// Envelope is the `error` object as JSON.
	Envelope json.RawMessage
	// Status is the RS HTTP status; 0 for adapter errors.
	Status int
}

func (e *toolError) Error() string { return string(e.Envelope) }

// field is one ordered key of an adapter error envelope.
type field struct {
	Key   string
	Value any
}

// newAdapterError builds {type:"adapter_error", code, message, extras…}
// with keys in a stable order.
func newAdapterError(code, message string, extras ...field) *toolError {
	fields := append([]field{{"type", "adapter_error"}, {"code", code}, {"message", message}}, extras...)
	return &toolError{Envelope: orderedJSON(fields)}
}

// orderedJSON marshals fields as one object, keeping their order and
// leaving `<`, `>` and `&` unescaped (snippets carry <mark> tags).
func orderedJSON(fields []field) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(marshalNoEscape(f.Key))
		buf.WriteByte(':')
		buf.Write(marshalNoEscape(f.Value))
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// marshalNoEscape is json.Marshal without HTML escaping and without the
// trailing newline an Encoder adds.
func marshalNoEscape(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`null`)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// fromError maps any failure of a tool call onto a toolError: RS envelopes
// verbatim, transport failures and local validation as typed adapter codes.
// Internal details (stack, addresses, tokens) never reach the result.
func fromError(err error) *toolError {
	var te *toolError
	var rsErr *rsclient.Error
	var trErr *rsclient.TransportError
	var qErr *rsclient.QueryError
	var clErr *contentladder.Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.As(err, &rsErr):
		return &toolError{Envelope: rsErr.Envelope, Status: rsErr.Status}
	case errors.As(err, &trErr):
		return newAdapterError(trErr.Code, trErr.Message)
	case errors.As(err, &qErr):
		code := "invalid_request"
		switch qErr.Param {
		case "filter":
			code = "invalid_filter"
		case "expand", "expand_limit":
			code = "invalid_expand"
		}
		return newAdapterError(code, qErr.Message, field{"param", qErr.Param})
	case errors.As(err, &clErr):
		return newAdapterError(clErr.Code, clErr.Message)
	case errors.Is(err, schemaindex.ErrNotSchema), errors.Is(err, schemaindex.ErrTooLarge):
		return newAdapterError("invalid_response", "the resource server returned a schema document this adapter cannot read")
	case errors.Is(err, context.DeadlineExceeded):
		return newAdapterError("rs_timeout", "the resource server did not answer in time")
	case errors.Is(err, context.Canceled):
		return newAdapterError("cancelled", "the request was cancelled")
	default:
		return newAdapterError("internal_error", "the adapter could not complete this call")
	}
}
