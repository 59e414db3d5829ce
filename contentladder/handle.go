package contentladder

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Handle and window bounds (seed 004 defaults and caps).
const (
	// MaxHandleBytes bounds a decoded handle payload.
	MaxHandleBytes = 4096
	// DefaultWindowChars is read_record_field's default limit_chars.
	DefaultWindowChars = 4096
	// MaxWindowChars caps limit_chars.
	MaxWindowChars = 16384
	// DefaultContextChars is the default before_chars/after_chars around a q match.
	DefaultContextChars = 2048
	// MaxContextChars caps before_chars and after_chars.
	MaxContextChars = 8192
	// MaxQBytes bounds a match query carried in a handle.
	MaxQBytes = 1024
	// MaxOffsetChars bounds offset_chars carried in handles and cursors.
	MaxOffsetChars = math.MaxInt32
)

// Kind bytes open every compact payload. They double as a version: a new
// layout gets a new byte, so old handles keep decoding or fail cleanly.
const (
	kindRecord      byte = 0xA1
	kindFieldWindow byte = 0xA2
	flagHasQ        byte = 1
)

// RecordHandle returns the opaque, URL-safe handle of r: unpadded base64url
// of a compact binary encoding. Handles name a record; they grant nothing.
func RecordHandle(r RecordRef) string {
	var e encoder
	e.byte1(kindRecord)
	e.str(r.ConnectionID)
	e.str(r.Stream)
	e.str(r.RecordID)
	return e.base64url()
}

// RecordURI is the tier-3 resource URI of r.
func RecordURI(r RecordRef) string { return RecordURIPrefix + RecordHandle(r) }

// ParseRecordHandle decodes a RecordHandle. Only the exact string
// RecordHandle issues is accepted: no padding, no standard alphabet, no
// inserted line breaks, no overlong lengths, no trailing bytes (a handle is
// re-encoded and compared). Every segment is re-validated: a handle is
// model-supplied text like any id. A handle may carry an empty connection
// (legacy ref). Errors are *Error with Code CodeInvalidHandle (Reason
// ReasonMalformed when it is not an issued handle).
func ParseRecordHandle(h string) (RecordRef, error) {
	b, err := decodeHandle(h)
	if err != nil {
		return RecordRef{}, err
	}
	d := decoder{b: b}
	if d.byte1() != kindRecord {
		return RecordRef{}, malformedHandle("record handle is not a record handle")
	}
	ref := RecordRef{ConnectionID: d.str(MaxSegmentBytes), Stream: d.str(MaxSegmentBytes), RecordID: d.str(MaxSegmentBytes)}
	if d.done() != nil {
		return RecordRef{}, malformedHandle("record handle is truncated or has trailing data")
	}
	if RecordHandle(ref) != h {
		return RecordRef{}, malformedHandle("record handle is not in the form the server issues; pass it exactly as returned")
	}
	if err := ref.Validate(); err != nil {
		return RecordRef{}, handleSegmentError(err)
	}
	return ref, nil
}

// WindowSpec is what a field-window handle names: a record, a field, and one
// window selector — an offset window, or (HasQ) a match-centred window. Zero
// LimitChars/BeforeChars/AfterChars mean "the tool's default".
type WindowSpec struct {
	Ref         RecordRef
	FieldPath   string
	OffsetChars int
	LimitChars  int
	Q           string
	BeforeChars int
	AfterChars  int
	HasQ        bool
}

// FieldWindowHandle returns the opaque handle of w. Pass a spec that
// ParseFieldWindowHandle would accept: out-of-range numbers are encoded
// as-is and the handle is then rejected on the way back in. A non-empty Q
// implies HasQ.
func FieldWindowHandle(w WindowSpec) string {
	var e encoder
	e.byte1(kindFieldWindow)
	e.str(w.Ref.ConnectionID)
	e.str(w.Ref.Stream)
	e.str(w.Ref.RecordID)
	e.str(w.FieldPath)
	var flags byte
	if w.HasQ || w.Q != "" {
		flags |= flagHasQ
	}
	e.byte1(flags)
	e.int(w.OffsetChars)
	e.int(w.LimitChars)
	if flags&flagHasQ != 0 {
		e.str(w.Q)
		e.int(w.BeforeChars)
		e.int(w.AfterChars)
	}
	return e.base64url()
}

// FieldWindowURI is the tier-3 resource URI of w.
func FieldWindowURI(w WindowSpec) string { return FieldWindowURIPrefix + FieldWindowHandle(w) }

// ParseFieldWindowHandle decodes a FieldWindowHandle, accepting only the
// exact string FieldWindowHandle issues (see ParseRecordHandle), and checks
// the segments and the selector rules of seed 004 (bounds; q excludes an
// offset). Errors are *Error with Code CodeInvalidHandle.
func ParseFieldWindowHandle(h string) (WindowSpec, error) {
	b, err := decodeHandle(h)
	if err != nil {
		return WindowSpec{}, err
	}
	d := decoder{b: b}
	if d.byte1() != kindFieldWindow {
		return WindowSpec{}, malformedHandle("field-window handle is not a field-window handle")
	}
	var w WindowSpec
	w.Ref = RecordRef{ConnectionID: d.str(MaxSegmentBytes), Stream: d.str(MaxSegmentBytes), RecordID: d.str(MaxSegmentBytes)}
	w.FieldPath = d.str(MaxSegmentBytes)
	flags := d.byte1()
	w.OffsetChars = d.int(MaxOffsetChars)
	w.LimitChars = d.int(MaxWindowChars)
	if flags&^flagHasQ != 0 {
		return WindowSpec{}, malformedHandle("field-window handle has unknown flags")
	}
	if flags&flagHasQ != 0 {
		w.HasQ = true
		w.Q = d.str(MaxQBytes)
		w.BeforeChars = d.int(MaxContextChars)
		w.AfterChars = d.int(MaxContextChars)
	}
	if d.done() != nil {
		return WindowSpec{}, malformedHandle("field-window handle is truncated, has trailing data, or a value out of range")
	}
	if FieldWindowHandle(w) != h {
		return WindowSpec{}, malformedHandle("field-window handle is not in the form the server issues; pass it exactly as returned")
	}
	if err := validateWindow(w); err != nil {
		return WindowSpec{}, err
	}
	return w, nil
}

// validateWindow checks a decoded field-window spec in a fixed order (what
// it names, then its numbers, then its q) so a handle with several faults
// always reports the same one.
func validateWindow(w WindowSpec) error {
	if err := validateWindowTarget(w); err != nil {
		return err
	}
	if err := validateWindowBounds(w); err != nil {
		return err
	}
	return validateWindowQuery(w)
}

// validateWindowTarget checks the record and field the window reads.
func validateWindowTarget(w WindowSpec) error {
	if err := w.Ref.Validate(); err != nil {
		return handleSegmentError(err)
	}
	if err := ValidateSegment("field_path", w.FieldPath); err != nil {
		return handleSegmentError(err)
	}
	return nil
}

// validateWindowBounds checks every character count against its limit; a
// handle is untrusted input, so nothing here trusts the encoder's caps.
func validateWindowBounds(w WindowSpec) error {
	switch {
	case !inRange(w.OffsetChars, MaxOffsetChars):
		return malformedHandle("field-window handle has offset_chars out of range")
	case !inRange(w.LimitChars, MaxWindowChars):
		return malformedHandle("field-window handle has limit_chars out of range")
	case !inRange(w.BeforeChars, MaxContextChars) || !inRange(w.AfterChars, MaxContextChars):
		return malformedHandle("field-window handle has before_chars/after_chars out of range")
	}
	return nil
}

// inRange reports 0 <= v <= limit.
func inRange(v, limit int) bool { return v >= 0 && v <= limit }

// validateWindowQuery checks that q and its context sizes come together,
// that q excludes an offset (a q window is positioned by its match), and
// that q itself is usable text.
func validateWindowQuery(w WindowSpec) error {
	switch {
	case !w.HasQ && (w.Q != "" || w.BeforeChars != 0 || w.AfterChars != 0):
		return malformedHandle("field-window handle has before_chars/after_chars without q")
	case w.HasQ && w.OffsetChars != 0:
		return malformedHandle("field-window handle has both q and offset_chars")
	case w.HasQ && !validQ(w.Q):
		return malformedHandle("field-window handle has an empty, oversized or non-text q")
	}
	return nil
}

func validQ(q string) bool {
	return q != "" && len(q) <= MaxQBytes && utf8.ValidString(q) && !strings.ContainsFunc(q, unicode.IsControl)
}

// decodeHandle bounds the text before decoding so a megabyte "handle" costs
// nothing.
func decodeHandle(h string) ([]byte, error) {
	if h == "" {
		return nil, malformedHandle("handle is empty")
	}
	if len(h) > (MaxHandleBytes*4+2)/3+2 {
		return nil, malformedHandle("handle is longer than any valid handle")
	}
	b, ok := decodeCanonical(h)
	if !ok {
		return nil, malformedHandle("handle is not unpadded base64url as issued")
	}
	if len(b) > MaxHandleBytes {
		return nil, malformedHandle("handle is longer than any valid handle")
	}
	return b, nil
}

func malformedHandle(msg string) *Error {
	return &Error{Code: CodeInvalidHandle, Reason: ReasonMalformed, Field: "handle", Message: msg}
}

// handleSegmentError re-codes a segment failure found inside a handle: the
// caller passed a handle, so the handle is what is invalid.
func handleSegmentError(err error) error {
	e, ok := err.(*Error)
	if !ok {
		return malformedHandle("handle is invalid: " + err.Error())
	}
	return &Error{Code: CodeInvalidHandle, Reason: e.Reason, Field: e.Field, Message: "handle names an invalid value: " + e.Message}
}
