package rsclient

import (
	"encoding/json"
	"errors"
	"fmt"
)

// TransportError codes. They mirror the adapter's error vocabulary so the
// adapter can surface them without translation.
const (
	// CodeTimeout: the call's deadline (Config.Timeout or the context's)
	// passed before a complete answer arrived.
	CodeTimeout = "rs_timeout"
	// CodeUnavailable: the RS could not be reached or dropped the connection
	// (refused, reset, DNS failure).
	CodeUnavailable = "rs_unavailable"
	// CodeCancelled: the caller gave up (its context was cancelled, e.g.
	// the MCP client went away); the RS is not at fault.
	CodeCancelled = "cancelled"
	// CodeResponseTooLarge: the body exceeded Config.MaxBodyBytes.
	CodeResponseTooLarge = "response_too_large"
	// CodeBusy: reading the answer would exceed Config.MaxBytesInFlight
	// across the calls in progress; retrying shortly may succeed.
	CodeBusy = "rs_busy"
	// CodeInvalidResponse: a 2xx body that is not the expected JSON shape.
	CodeInvalidResponse = "invalid_response"
	// CodeOffOrigin: the RS redirected to a different origin; not followed.
	CodeOffOrigin = "off_origin_redirect"
)

// Forms of an RS error body, reported in Error.Form.
const (
	FormEnvelope  = "envelope"   // {"error":{...}} — the PDPP envelope
	FormOAuth     = "oauth"      // {"error":"x","error_description":"y"}
	FormOtherJSON = "other_json" // any other JSON, e.g. Fastify's 404 body
	FormNonJSON   = "non_json"   // empty, HTML, text, truncated JSON…
)

// Sentinel errors returned before any request is made.
var (
	// ErrNoBearer: an authenticated call was made with an empty bearer.
	ErrNoBearer = errors.New("rsclient: empty bearer token")
	// ErrInvalidBearer: the bearer contains characters that cannot appear in
	// an Authorization header (whitespace, control characters, non-ASCII).
	ErrInvalidBearer = errors.New("rsclient: bearer token contains invalid characters")
)

// Error is a non-2xx RS answer, kept verbatim. Callers branch on Status and
// Code and can forward Envelope unchanged.
type Error struct {
	Status    int
	RequestID string
	// Type, Code, Message and Param come from the envelope (or its
	// normalisation for non-envelope bodies).
	Type, Code, Message, Param string
	// RetryWith is a string in the real RS and an object in some fixtures:
	// kept verbatim, nil when absent.
	RetryWith json.RawMessage
	// AvailableConnections is the verbatim array from 409 answers, nil when
	// absent.
	AvailableConnections json.RawMessage
	// Envelope is the `error` object as received (compacted, key order
	// kept), with request_id appended from the Request-Id header when the
	// body lacked it. Non-envelope bodies are normalised to
	// {"type","code","message"[,"request_id"]}. Always a JSON object.
	Envelope json.RawMessage
	// Form is one of FormEnvelope, FormOAuth, FormOtherJSON, FormNonJSON.
	Form string
}

// Error renders status, code, message and request id; never the bearer.
func (e *Error) Error() string {
	s := fmt.Sprintf("rsclient: RS answered HTTP %d", e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + boundText(e.Message)
	}
	if e.RequestID != "" {
		s += " (request_id " + e.RequestID + ")"
	}
	return s
}

// TransportError is a failure before a usable RS answer: timeout,
// unreachable RS, oversized or malformed body, off-origin redirect.
type TransportError struct {
	Code    string // one of the Code* constants
	Message string
	Err     error // underlying cause, may be nil
}

// Error renders the code and message.
func (e *TransportError) Error() string {
	return "rsclient: " + e.Code + ": " + e.Message
}

// Unwrap exposes the cause, e.g. context.DeadlineExceeded.
func (e *TransportError) Unwrap() error { return e.Err }

// QueryError reports an input the client refuses to encode; no request was
// made. Param names the offending parameter (e.g. "filter", "expand_limit",
// "stream").
type QueryError struct {
	Param   string
	Message string
}

// Error renders the parameter and the reason.
func (e *QueryError) Error() string {
	return "rsclient: invalid " + e.Param + ": " + e.Message
}
