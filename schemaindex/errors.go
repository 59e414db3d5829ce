package schemaindex

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors for errors.Is; the typed errors below carry the details.
var (
	// ErrNotSchema means the body is not an RS schema document (an error
	// envelope, another endpoint's body, malformed JSON).
	ErrNotSchema = errors.New("schemaindex: not a schema document")
	// ErrTooLarge means the body exceeds MaxBodyBytes or MaxStreams.
	ErrTooLarge = errors.New("schemaindex: schema document too large")
	// ErrUnknownStream means no granted source carries the stream.
	ErrUnknownStream = errors.New("schemaindex: unknown stream")
	// ErrUnknownConnection means no granted source has the connection id.
	ErrUnknownConnection = errors.New("schemaindex: unknown connection_id")
	// ErrInvalidFlags means a compact flag string does not follow the grammar.
	ErrInvalidFlags = errors.New("schemaindex: invalid capability flags")
)

// ParseError explains why Parse rejected a body. It matches ErrNotSchema or
// ErrTooLarge with errors.Is.
type ParseError struct {
	// Kind is ErrNotSchema or ErrTooLarge.
	Kind error
	// Detail names the offending part (e.g. `connectors[0].streams[3]: name missing`).
	Detail string
}

func (e *ParseError) Error() string { return e.Kind.Error() + ": " + e.Detail }

// Unwrap lets errors.Is match the sentinel kind.
func (e *ParseError) Unwrap() error { return e.Kind }

// UnknownStreamError is returned by Index.Stream when the stream is not
// granted (in the given connection, when one was given). Known lists a few
// granted names, closest first, so the model can retry without another call.
type UnknownStreamError struct {
	Stream       string
	ConnectionID string
	Known        []string
	Total        int
}

func (e *UnknownStreamError) Error() string {
	where := "this grant set"
	if e.ConnectionID != "" {
		where = fmt.Sprintf("connection_id %q", e.ConnectionID)
	}
	return fmt.Sprintf("unknown stream %q in %s; known streams (%d): %s",
		e.Stream, where, e.Total, knownList(e.Known, e.Total))
}

// Unwrap lets errors.Is match ErrUnknownStream.
func (e *UnknownStreamError) Unwrap() error { return ErrUnknownStream }

// UnknownConnectionError is returned by Index.Stream for a connection id no
// grant carries. Known lists a few granted connection ids.
type UnknownConnectionError struct {
	ConnectionID string
	Known        []string
	Total        int
}

func (e *UnknownConnectionError) Error() string {
	return fmt.Sprintf("unknown connection_id %q; granted connections (%d): %s",
		e.ConnectionID, e.Total, knownList(e.Known, e.Total))
}

// Unwrap lets errors.Is match ErrUnknownConnection.
func (e *UnknownConnectionError) Unwrap() error { return ErrUnknownConnection }

// FlagError names the token of a flag string that ParseFlags rejected.
type FlagError struct {
	Flags  string
	Token  string
	Reason string
}

func (e *FlagError) Error() string {
	return fmt.Sprintf("invalid capability flags %q: token %q: %s", clip(e.Flags, 200), clip(e.Token, 80), e.Reason)
}

// Unwrap lets errors.Is match ErrInvalidFlags.
func (e *FlagError) Unwrap() error { return ErrInvalidFlags }

func knownList(known []string, total int) string {
	if len(known) == 0 {
		return "none"
	}
	s := strings.Join(known, ", ")
	if total > len(known) {
		s += fmt.Sprintf(", … (%d more)", total-len(known))
	}
	return s
}

// clip bounds user-controlled text quoted in error messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…" // a cut rune is dropped, not mangled
}
