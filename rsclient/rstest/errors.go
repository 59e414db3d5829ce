package rstest

import "fmt"

// ValidationError reports why New refused a Dataset.
type ValidationError struct {
	Problems []string
}

// Error lists the first few problems.
func (e *ValidationError) Error() string {
	const show = 5
	msg := fmt.Sprintf("mockrs: invalid dataset (%d problems)", len(e.Problems))
	for i, p := range e.Problems {
		if i == show {
			msg += "; …"
			break
		}
		msg += "; " + p
	}
	return msg
}

// apiError is one PDPP error envelope answer.
type apiError struct {
	status  int
	code    string
	message string
	param   string
	extra   obj // additional error members (available_connections, retry_with …)
}

// codeStatus is the reference code→status table (rs-contract §4.2); codes
// missing from it answer 500, as in the reference.
var codeStatus = map[string]int{
	"authentication_error":       401,
	"context.stream_not_allowed": 401,
	"context.instance_mismatch":  401,
	"grant_revoked":              403,
	"grant_expired":              403,
	"grant_invalid":              403,
	"permission_error":           403,
	"grant_stream_not_allowed":   403,
	"field_not_granted":          403,
	"insufficient_scope":         403,
	"invalid_request":            400,
	"invalid_argument":           400,
	"invalid_cursor":             400,
	"invalid_sort":               400,
	"invalid_expand":             400,
	"unknown_field":              400,
	"invalid_field_path":         400,
	"invalid_window":             400,
	"unsupported_version":        400,
	"not_found":                  404,
	"connection_not_found":       404,
	"field_not_found":            404,
	"query_not_found":            404,
	"ambiguous_connection":       409,
	"ambiguous_schema_detail":    409,
	"cursor_expired":             410,
	"field_not_text":             422,
	"api_error":                  500,
}

// errorType derives the envelope `type` from the status (§4.1).
func errorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 410:
		return "gone_error"
	case 413:
		return "request_entity_too_large_error"
	case 429:
		return "rate_limit_error"
	}
	return "api_error"
}

// newErr builds an error whose status comes from the code table.
func newErr(code, param, format string, args ...any) *apiError {
	st, ok := codeStatus[code]
	if !ok {
		st = 500
	}
	return &apiError{status: st, code: code, param: param, message: fmt.Sprintf(format, args...)}
}

// with adds an extra envelope member.
func (e *apiError) with(k string, v any) *apiError {
	e.extra = append(e.extra, kv{k, v})
	return e
}

// envelope renders the error body.
func (e *apiError) envelope(reqID string) obj {
	inner := obj{{"code", e.code}, {"message", e.message}, {"type", errorType(e.status)}}
	if e.param != "" {
		inner = append(inner, kv{"param", e.param})
	}
	inner = append(inner, e.extra...)
	inner = append(inner, kv{"request_id", reqID})
	return obj{{"error", inner}}
}
