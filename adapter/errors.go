package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/bearer"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// CodePackageToken is the typed code of a call made with a grant-package
// token, which the RS's /v1 API never serves (real-rs-differences D15).
const CodePackageToken = "package_token"

// toolError is the one typed error of a tool call: a code, a message and
// ordered extra fields, or the RS's own envelope kept verbatim with its HTTP
// status. Logs, metrics and routing read Code; only the result renders the
// envelope.
type toolError struct {
	// Code is the typed code: the adapter's, or the RS envelope's.
	Code string
	// Message is the human-readable explanation.
	Message string
	// Extra are further envelope keys in order (param, candidates, …).
	Extra []field
	// RSEnvelope is the RS's `error` object as received; nil for adapter
	// errors. When set it is rendered instead of Code, Message and Extra.
	RSEnvelope json.RawMessage
	// Status is the RS HTTP status; 0 for adapter errors.
	Status int
	// Warnings are the call's source warnings, rendered beside the error
	// object.
	Warnings []warning
	// Next are the calls that work instead, rendered beside
	// the error object in both channels.
	Next []string
}

func (e *toolError) Error() string { return string(e.envelope()) }

// envelope is the `error` object of the result: the RS's verbatim, or
// {type:"adapter_error", code, message, extras…} with keys in a stable order.
func (e *toolError) envelope() json.RawMessage {
	if e.RSEnvelope != nil {
		return e.RSEnvelope
	}
	fields := append([]field{{"type", "adapter_error"}, {"code", e.Code}, {"message", e.Message}}, e.Extra...)
	return orderedJSON(fields)
}

// errorBody is an error result: the error object, the RS's HTTP status
// when the RS answered, and the call's source warnings.
type errorBody struct {
	Error      json.RawMessage `json:"error"`
	HTTPStatus int             `json:"http_status,omitempty"`
	NextSteps  []string        `json:"next_steps,omitempty"`
	Warnings   []warning       `json:"warnings,omitempty"`
}

// body is the compact JSON of {error, http_status?, warnings?}: an error
// result's text and structured content, and a resource error's message.
func (e *toolError) body() json.RawMessage {
	return page.MarshalNoEscape(errorBody{Error: e.envelope(), HTTPStatus: e.Status, NextSteps: e.Next, Warnings: e.Warnings})
}

// field is one ordered member whose key comes from runtime data: an error
// envelope's extras, a record payload's or RS body's own keys. Results
// with fixed keys are structs (toolOutput).
type field struct {
	Key   string
	Value any
}

// newAdapterError builds an adapter error with a typed code; extras follow
// type, code and message in the envelope, in the order given.
func newAdapterError(code, message string, extras ...field) *toolError {
	return &toolError{Code: code, Message: message, Extra: extras}
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
		writeNoEscape(&buf, f.Key)
		buf.WriteByte(':')
		writeNoEscape(&buf, f.Value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// writeNoEscape appends page.MarshalNoEscape(v) to buf. The values record pages
// and hit lists are made of (keys, plain ASCII strings, numbers, booleans,
// JSON already encoded) are written directly: an Encoder per value was a
// thousand allocations per 25-record page. Anything else, and any string
// encoding/json would escape, takes the Encoder path.
func writeNoEscape(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case json.RawMessage:
		buf.Write(x)
		return
	case string:
		if plainJSONString(x) {
			buf.WriteByte('"')
			buf.WriteString(x)
			buf.WriteByte('"')
			return
		}
	case bool:
		buf.WriteString(strconv.FormatBool(x))
		return
	case int:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), int64(x), 10))
		return
	case int64:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), x, 10))
		return
	}
	buf.Write(page.MarshalNoEscape(v))
}

// plainJSONString reports whether encoding/json (HTML escaping off) writes
// s as its own bytes between quotes: printable ASCII without '"' or '\\'.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
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
	case errors.As(err, &rsErr) && bearer.UnknownSourceRefusal(rsErr.Status, rsErr.Message):
		// A grant-package token: the RS's words name no cause a person can
		// act on; say what the token is and how to get one the RS serves
		// (the hosted door's 401 description says the same).
		return &toolError{Code: CodePackageToken, Message: bearer.PackageTokenExplained + " " + bearer.ConnectAdvice,
			Extra: []field{{"rs_error", rsErr.Envelope}}, Status: rsErr.Status}
	case errors.As(err, &rsErr):
		return &toolError{Code: rsErr.Code, Message: rsErr.Message, RSEnvelope: rsErr.Envelope, Status: rsErr.Status}
	case errors.As(err, &trErr):
		if cause, ok := rsclient.Unreachable(trErr); ok {
			return newAdapterError(trErr.Code, unreachableMessage(cause))
		}
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
		return cancelledError()
	default:
		return newAdapterError("internal_error", "the adapter could not complete this call")
	}
}

// unreachableMessage tells the model that the data source itself is out
// of reach, so it reports that to the user rather than retrying with new
// arguments or asking for a new token. cause is rsclient.Unreachable's,
// which never carries the RS's address.
func unreachableMessage(cause string) string {
	return "the data source (the PDPP resource server) cannot be reached right now: " + cause +
		". Nothing is wrong with the call or the token; tell the user their data source is unreachable and try again once it is back"
}
