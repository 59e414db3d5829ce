package contentladder

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Size bounds for ids. An id is model-supplied text that ends up in an RS
// URL path, so it is bounded before any parsing work.
const (
	// MaxIDBytes bounds a whole id or record URI.
	MaxIDBytes = 2048
	// MaxSegmentBytes bounds each of connection_id, stream, record_id and
	// field_path.
	MaxSegmentBytes = 512
)

// RecordURIPrefix and FieldWindowURIPrefix are the resource URI schemes of
// seed 004's tier 3.
const (
	RecordURIPrefix      = "pdpp://record/"
	FieldWindowURIPrefix = "pdpp://field-window/"
)

// IDForm tells which of the accepted spellings an id used, so fetch can echo
// the requested form and read_record_field can insist on a connection.
type IDForm int

const (
	// FormSelfContained is `connection_id/stream:record_id`.
	FormSelfContained IDForm = iota + 1
	// FormLegacy is `stream:record_id` (connection unknown).
	FormLegacy
	// FormURI is `pdpp://record/{handle}` with either an opaque record handle
	// or a percent-encoded grammar id.
	FormURI
)

// String names the form for logs and tests.
func (f IDForm) String() string {
	switch f {
	case FormSelfContained:
		return "self-contained"
	case FormLegacy:
		return "legacy"
	case FormURI:
		return "uri"
	}
	return "unknown"
}

// RecordRef identifies one record. ConnectionID is "" for legacy ids, whose
// connection the RS resolves (or reports as ambiguous).
type RecordRef struct {
	ConnectionID string
	Stream       string
	RecordID     string
}

// ID renders the model-visible id: self-contained when the connection is
// known, legacy otherwise.
func (r RecordRef) ID() string {
	if r.ConnectionID == "" {
		return r.Stream + ":" + r.RecordID
	}
	return r.ConnectionID + "/" + r.Stream + ":" + r.RecordID
}

// Validate checks every segment of r (ConnectionID only when non-empty).
func (r RecordRef) Validate() error {
	if r.ConnectionID != "" {
		if err := ValidateSegment("connection_id", r.ConnectionID); err != nil {
			return err
		}
	}
	if err := ValidateSegment("stream", r.Stream); err != nil {
		return err
	}
	return ValidateRecordID(r.RecordID)
}

const formatHint = "ids use connection_id/stream:record_id or stream:record_id"

// ParseID parses the three accepted id spellings (ts-adapter-behavior §3).
// The first '/' separates the connection; the first ':' after it separates
// stream from record id, so record ids may contain ':'. Every segment passes
// ValidateSegment, which is what makes the result safe to put in an RS path.
// Errors are *Error with Code CodeInvalidID.
func ParseID(s string) (RecordRef, IDForm, error) {
	if len(s) > MaxIDBytes {
		return RecordRef{}, 0, newError(CodeInvalidID, ReasonTooLong, "id",
			"id is %d bytes, more than the %d allowed", len(s), MaxIDBytes)
	}
	if strings.TrimSpace(s) == "" {
		return RecordRef{}, 0, newError(CodeInvalidID, ReasonEmpty, "id", "id is required; %s", formatHint)
	}
	if rest, ok := strings.CutPrefix(s, RecordURIPrefix); ok {
		ref, err := parseRecordURI(rest)
		return ref, FormURI, err
	}
	if strings.HasPrefix(s, "pdpp://") {
		return RecordRef{}, 0, newError(CodeInvalidID, ReasonFormat, "id",
			"id %s is not a record id or pdpp://record/ URI; %s", quote(s), formatHint)
	}
	ref, err := parseGrammar(s)
	if err != nil {
		return RecordRef{}, 0, err
	}
	if ref.ConnectionID == "" {
		return ref, FormLegacy, nil
	}
	return ref, FormSelfContained, nil
}

// parseRecordURI accepts our opaque handle (exactly as issued) or a
// percent-encoded grammar id (`cin_a%2Fmessages%3Am1`). A nested pdpp://
// URI is refused: there is no legitimate reason to wrap a URI in a URI.
func parseRecordURI(rest string) (RecordRef, error) {
	if rest == "" {
		return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "id", "record URI has an empty handle; %s", formatHint)
	}
	if ref, err := ParseRecordHandle(rest); err == nil {
		return ref, nil
	} else if e, ok := err.(*Error); ok && e.Reason != ReasonMalformed {
		// The handle decoded but carried an unsafe segment: say so instead
		// of the confusing grammar error its base64 text would produce.
		return RecordRef{}, &Error{Code: CodeInvalidID, Reason: e.Reason, Field: e.Field, Message: e.Message}
	}
	dec, err := url.PathUnescape(rest)
	if err != nil {
		return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "id",
			"record URI handle %s has malformed percent-encoding", quote(rest))
	}
	if strings.HasPrefix(dec, "pdpp://") {
		return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "id", "record URI handle must not contain another pdpp:// URI")
	}
	if strings.TrimSpace(dec) == "" {
		return RecordRef{}, newError(CodeInvalidID, ReasonEmpty, "id", "record URI has a blank handle; %s", formatHint)
	}
	return parseGrammar(dec)
}

// parseGrammar splits `connection_id/stream:record_id` or
// `stream:record_id`. The first ':' ends the stream; a '/' before it splits
// off the connection. Everything after that ':' is the record id, whatever
// it holds ('/' and ':' included): it travels to the RS as one encoded path
// segment. Connection and stream hold neither separator, so the split is
// unambiguous and RecordRef.ID round-trips.
func parseGrammar(s string) (RecordRef, error) {
	if !utf8.ValidString(s) {
		return RecordRef{}, newError(CodeInvalidID, ReasonInvalidUTF8, "id", "id %s is not valid UTF-8", quote(s))
	}
	head, recordID, ok := strings.Cut(s, ":")
	if !ok {
		if conn, after, slash := strings.Cut(s, "/"); slash && conn != "" && after == "" {
			return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "id",
				"id %s has nothing after connection_id; expected connection_id/stream:record_id", quote(s))
		}
		return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "id",
			"id %s has no ':' between stream and record_id; %s", quote(s), formatHint)
	}
	var ref RecordRef
	if conn, stream, slash := strings.Cut(head, "/"); slash {
		if conn == "" {
			return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "connection_id",
				"id %s has an empty connection_id before '/'; %s", quote(s), formatHint)
		}
		if strings.ContainsRune(stream, '/') {
			return RecordRef{}, newError(CodeInvalidID, ReasonInvalidCharacters, "id",
				"id %s contains invalid characters: more than one '/' before the ':' (%s)", quote(s), formatHint)
		}
		if err := ValidateSegment("connection_id", conn); err != nil {
			return RecordRef{}, err
		}
		ref.ConnectionID, head = conn, stream
	}
	switch {
	case head == "":
		return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "stream",
			"id %s has an empty stream before ':'; %s", quote(s), formatHint)
	case recordID == "":
		return RecordRef{}, newError(CodeInvalidID, ReasonFormat, "record_id",
			"id %s has an empty record_id after ':'; %s", quote(s), formatHint)
	}
	ref.Stream, ref.RecordID = head, recordID
	if err := ValidateSegment("stream", ref.Stream); err != nil {
		return RecordRef{}, err
	}
	if err := ValidateRecordID(ref.RecordID); err != nil {
		return RecordRef{}, err
	}
	return ref, nil
}

// ValidateRecordID checks a record id. Unlike the other segments it may
// hold any character, '/' and ':' included (Gmail label ids such as
// "Projects/Roadmap" are record ids): it travels as one percent-encoded path
// segment. What stays refused is what could still address another resource
// if an intermediary decoded %2F or %5C: a "." or ".." piece between
// slashes or backslashes. Also refused, as for every segment: empty or
// blank, more than MaxSegmentBytes, invalid UTF-8, control characters.
// Errors are *Error with Code CodeInvalidID and Field "record_id".
func ValidateRecordID(v string) error {
	const label = "record_id"
	if err := validateText(label, v); err != nil {
		return err
	}
	for piece := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if piece == "." || piece == ".." {
			return newError(CodeInvalidID, ReasonInvalidCharacters, label,
				`%s %s contains invalid characters: a "." or ".." segment (path traversal is not allowed)`, label, quote(v))
		}
	}
	return nil
}

// ValidateSegment checks one path segment (label names it in the error:
// "connection_id", "stream", "field_path", …): non-empty and not blank, at
// most MaxSegmentBytes, valid UTF-8, no control characters, no '/' or '\',
// not "." or "..", no ".." anywhere; a connection_id or stream also must not
// contain ':' (it would make the id ambiguous). Segments end up in RS URL
// paths, so this is the traversal guard. The label "record_id" gets
// ValidateRecordID's rules instead. Errors are *Error with Code CodeInvalidID
// and Field = label.
func ValidateSegment(label, v string) error {
	if label == "record_id" {
		return ValidateRecordID(v)
	}
	if err := validateText(label, v); err != nil {
		return err
	}
	bad := func(why string) error {
		return newError(CodeInvalidID, ReasonInvalidCharacters, label, "%s %s contains invalid characters: %s", label, quote(v), why)
	}
	switch {
	case strings.ContainsAny(v, `/\`):
		return bad(`'/' or '\'`)
	case v == "." || strings.Contains(v, ".."):
		return bad(`"." or ".." (path traversal is not allowed)`)
	case (label == "connection_id" || label == "stream") && strings.ContainsRune(v, ':'):
		return bad("':' (reserved as the stream:record_id separator)")
	}
	return nil
}

// validateText holds the rules every id segment shares: present, bounded,
// printable text.
func validateText(label, v string) error {
	switch {
	case v == "":
		return newError(CodeInvalidID, ReasonEmpty, label, "%s is required", label)
	case len(v) > MaxSegmentBytes:
		return newError(CodeInvalidID, ReasonTooLong, label,
			"%s is %d bytes, more than the %d allowed", label, len(v), MaxSegmentBytes)
	case !utf8.ValidString(v):
		return newError(CodeInvalidID, ReasonInvalidUTF8, label, "%s %s is not valid UTF-8", label, quote(v))
	case strings.TrimSpace(v) == "":
		return newError(CodeInvalidID, ReasonEmpty, label, "%s is blank", label)
	case strings.ContainsFunc(v, unicode.IsControl):
		return newError(CodeInvalidID, ReasonInvalidCharacters, label, "%s %s contains invalid characters: control characters", label, quote(v))
	}
	return nil
}
