package contentladder

import "fmt"

// Error codes. They are part of the adapter's wire vocabulary (tool errors
// carry them verbatim), so they never change.
const (
	// CodeInvalidID: an id failed the record-id grammar or a segment rule.
	CodeInvalidID = "invalid_id"
	// CodeInvalidHandle: a record or field-window handle did not decode.
	CodeInvalidHandle = "invalid_handle"
	// CodeInvalidCursor: a continuation cursor was rejected; Reason says why.
	CodeInvalidCursor = "invalid_cursor"
)

// Reasons refine a Code so callers (and agents) can tell what to do next.
// Stable strings, like the codes.
const (
	// ReasonEmpty: a required value is empty or blank.
	ReasonEmpty = "empty"
	// ReasonTooLong: a value exceeds its byte bound.
	ReasonTooLong = "too_long"
	// ReasonInvalidUTF8: a value is not valid UTF-8.
	ReasonInvalidUTF8 = "invalid_utf8"
	// ReasonInvalidCharacters: separators, control characters or path
	// traversal inside a segment.
	ReasonInvalidCharacters = "invalid_characters"
	// ReasonFormat: the overall shape is wrong (missing or extra separators).
	ReasonFormat = "format"
	// ReasonMalformed: a handle or cursor does not decode.
	ReasonMalformed = "malformed"
	// ReasonTampered: a cursor's MAC does not verify (altered, or sealed
	// with another key).
	ReasonTampered = "tampered"
	// ReasonForeignGrant: a cursor was issued under a different grant.
	ReasonForeignGrant = "foreign_grant"
	// ReasonWrongRecord: a cursor was issued for a different record.
	ReasonWrongRecord = "wrong_record"
	// ReasonWrongField: a cursor was issued for a different field.
	ReasonWrongField = "wrong_field"
	// ReasonExpired: a cursor is past its expiry.
	ReasonExpired = "expired"
	// ReasonStale: the field changed (digest or revision) since the cursor
	// was issued, so its offsets no longer mean the same text.
	ReasonStale = "stale"
)

// Error is the typed error of this package. Callers branch on Code and
// Reason; Message is model-facing, names the offending input (bounded and
// quoted) and, for cursors, says how to recover.
type Error struct {
	Code    string // one of the Code* constants
	Reason  string // one of the Reason* constants
	Field   string // which input: "id", "connection_id", "stream", "record_id", "field_path", "handle", "cursor", …
	Message string
}

// Error returns the model-facing message.
func (e *Error) Error() string { return e.Message }

func newError(code, reason, field, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Field: field, Message: fmt.Sprintf(format, args...)}
}

// quotedRunes bounds the input quote renders.
const quotedRunes = 80

// quote renders untrusted input for an error message: bounded so a 2 KiB
// garbage id cannot bloat a tool result, and %q-escaped so control bytes stay
// visible and harmless. It cuts as page.TruncateRunes does (at most
// quotedRunes runes, the last an ellipsis when cut, each invalid byte one
// U+FFFD), written out here because page builds on this package.
func quote(s string) string {
	r := make([]rune, 0, min(len(s), quotedRunes))
	for _, c := range s { // an invalid byte arrives as U+FFFD, one per byte
		if len(r) == quotedRunes {
			r[quotedRunes-1] = '…'
			break
		}
		r = append(r, c)
	}
	return fmt.Sprintf("%q", string(r))
}
