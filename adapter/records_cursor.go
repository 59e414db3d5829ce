package adapter

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// recordsCursorPurpose separates query_records cursors from every other
// value sealed with the same key.
const recordsCursorPurpose = "query_records page v1"

// recordsCursor is the whole continuation state of a query_records page,
// sealed (HMAC) into the next_cursor the text prints. Continuing needs only
// cursor with the same stream and connection_id: the cursor carries what
// the RS needs for the next page (its own cursor, or for an RS whose
// changes pages continue by token, that token) and the arguments that shape
// the page, so a client that repeats none of them still reads on exactly
// where it stopped. Nothing in it is secret; no bearer is ever in it.
type recordsCursor struct {
	Stream string `json:"s"`
	Conn   string `json:"c,omitempty"`
	Grant  string `json:"g"`            // grantTag: a cursor never crosses grants, and survives a refresh
	RS     string `json:"r,omitempty"`  // the RS's next_cursor
	Since  string `json:"cs,omitempty"` // changes_since to send when the RS gave no cursor
	// Changes marks a changes feed: next_changes_since is shown only on
	// its last page.
	Changes bool         `json:"ch,omitempty"`
	Shape   recordsShape `json:"a"`
	// Skip is how many records of the RS page this token (or, with no
	// token, the first page) starts with were already shown: a page that
	// showed only the records fitting the result ceiling continues with
	// the same RS page past them.
	Skip int `json:"k,omitempty"`
}

// recordsShape are the arguments that must stay the same across pages.
type recordsShape struct {
	Order       string          `json:"order,omitempty"`
	Sort        string          `json:"sort,omitempty"`
	Count       string          `json:"count,omitempty"`
	Fields      []string        `json:"fields,omitempty"`
	Filter      json.RawMessage `json:"filter,omitempty"`
	View        string          `json:"view,omitempty"`
	Expand      []string        `json:"expand,omitempty"`
	ExpandLimit json.RawMessage `json:"expand_limit,omitempty"`
	Limit       int             `json:"limit,omitempty"`
}

// shape is the call's recordsShape, filter and expand_limit canonical
// (expand_limit's counts in plain digits, so {"thread": 2.0} on one page
// and {"thread": 2} on the next are the same call). queryRecordsArgs
// repeats these fields rather than embedding recordsShape: the shape's
// JSON is the cursor's wire format, and it should not change when an
// argument is renamed or added.
func (a queryRecordsArgs) shape() recordsShape {
	return recordsShape{Order: a.Order, Sort: a.Sort, Count: a.Count, Fields: a.Fields, Filter: canonicalJSON(a.Filter),
		View: a.View, Expand: a.Expand, ExpandLimit: canonicalJSON(plainIntegers(a.ExpandLimit)), Limit: a.Limit}
}

// sealRecordsCursor returns the printed next_cursor for this state.
func (s *Server) sealRecordsCursor(c recordsCursor) string {
	return s.cfg.CursorKey.SealPayload(recordsCursorPurpose, c.encode())
}

// Binary layout of a records cursor (the text prints it, so it is kept
// short): version | flags | uvarint-length strings stream, connection,
// grant, token | uvarint limit | uvarint-length shape JSON (empty when no
// shaping argument was given). An RS token that is canonical standard
// base64 (the real RS's cursors are) is stored decoded: a quarter shorter.
const (
	recordsCursorV1   byte = 1
	flagChanges       byte = 1 << 0
	flagSince         byte = 1 << 1 // the token is a changes_since, not an RS cursor
	flagTokenDecoded  byte = 1 << 2 // the token is stored base64-decoded
	flagSkip          byte = 1 << 3 // a skip count follows the shape
	maxCursorFieldLen      = 8 << 10
)

func (c recordsCursor) encode() []byte {
	var flags byte
	tok := c.RS
	if c.Since != "" {
		flags |= flagSince
		tok = c.Since
	}
	if c.Changes {
		flags |= flagChanges
	}
	if c.Skip > 0 {
		flags |= flagSkip
	}
	if b, err := base64.StdEncoding.DecodeString(tok); err == nil && len(b) > 0 && base64.StdEncoding.EncodeToString(b) == tok {
		flags |= flagTokenDecoded
		tok = string(b)
	}
	out := []byte{recordsCursorV1, flags}
	for _, s := range []string{c.Stream, c.Conn, c.Grant, tok} {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	limit := c.Shape.Limit
	out = binary.AppendUvarint(out, uint64(max(limit, 0)))
	shape := c.Shape
	shape.Limit = 0
	var sj []byte
	if !isEmptyShape(shape) {
		sj, _ = json.Marshal(shape)
	}
	out = binary.AppendUvarint(out, uint64(len(sj)))
	out = append(out, sj...)
	if c.Skip > 0 {
		out = binary.AppendUvarint(out, uint64(c.Skip))
	}
	return out
}

// decodeRecordsCursor is the strict inverse of encode: every byte is
// accounted for and re-encoding must give the same bytes, so exactly one
// payload stands for each state.
func decodeRecordsCursor(b []byte) (recordsCursor, bool) {
	var c recordsCursor
	if len(b) < 2 || b[0] != recordsCursorV1 || b[1]&^(flagChanges|flagSince|flagTokenDecoded|flagSkip) != 0 {
		return c, false
	}
	flags := b[1]
	r := cursorReader{rest: b[2:]}
	var fields [4]string
	for i := range fields {
		s, ok := r.str()
		if !ok {
			return c, false
		}
		fields[i] = s
	}
	limit, ok := r.limit()
	if !ok {
		return c, false
	}
	sj, ok := r.str()
	if !ok || !decodeShape(sj, &c.Shape) {
		return c, false
	}
	if flags&flagSkip != 0 {
		skip, ok := r.limit() // a skip is within one page: at most 100 too
		if !ok || skip == 0 {
			return c, false
		}
		c.Skip = int(skip)
	}
	if len(r.rest) != 0 {
		return c, false
	}
	c.Stream, c.Conn, c.Grant = fields[0], fields[1], fields[2]
	c.setToken(flags, fields[3])
	c.Changes = flags&flagChanges != 0
	c.Shape.Limit = int(limit)
	if !bytes.Equal(c.encode(), b) {
		return c, false
	}
	return c, true
}

// cursorReader reads a records cursor payload front to back; rest is what
// is left unread.
type cursorReader struct {
	rest []byte
}

// str reads one uvarint-length string, at most maxCursorFieldLen bytes.
func (r *cursorReader) str() (string, bool) {
	n, k := binary.Uvarint(r.rest)
	if k <= 0 || n > maxCursorFieldLen || uint64(len(r.rest)-k) < n {
		return "", false
	}
	s := string(r.rest[k : k+int(n)])
	r.rest = r.rest[k+int(n):]
	return s, true
}

// limit reads the page limit: at most 100, query_records' largest.
func (r *cursorReader) limit() (uint64, bool) {
	limit, k := binary.Uvarint(r.rest)
	if k <= 0 || limit > 100 {
		return 0, false
	}
	r.rest = r.rest[k:]
	return limit, true
}

// decodeShape decodes the shape JSON into shape, rejecting members a
// recordsShape does not have; an empty sj is the empty shape.
func decodeShape(sj string, shape *recordsShape) bool {
	if sj == "" {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(sj))
	dec.DisallowUnknownFields()
	return dec.Decode(shape) == nil
}

// setToken restores the paging token encode stored: re-encoded to base64
// if it was stored decoded, and put back as a changes_since or an RS
// cursor as flags say.
func (c *recordsCursor) setToken(flags byte, tok string) {
	if flags&flagTokenDecoded != 0 {
		tok = base64.StdEncoding.EncodeToString([]byte(tok))
	}
	if flags&flagSince != 0 {
		c.Since = tok
	} else {
		c.RS = tok
	}
}

func isEmptyShape(s recordsShape) bool {
	return s.Order == "" && s.Sort == "" && s.Count == "" && s.Fields == nil && s.Filter == nil &&
		s.View == "" && s.Expand == nil && s.ExpandLimit == nil
}

// openRecordsCursor verifies a next_cursor and folds its state into the
// call's arguments: an argument the call repeats must equal the one the
// cursor was issued with; an omitted one is taken from the cursor. A
// different stream or connection_id, or changes_since beside a cursor
// (which would restart the feed at the RS), is a typed invalid_cursor.
func (s *Server) openRecordsCursor(a *queryRecordsArgs) (*recordsCursor, *toolError) {
	raw, err := s.cfg.CursorKey.OpenPayload(recordsCursorPurpose, "cursor", a.Cursor)
	if err != nil {
		return nil, cursorError("cursor", err.Error())
	}
	c, ok := decodeRecordsCursor(raw)
	// One token to continue from, or none on a first page resumed past
	// the records it showed.
	if !ok || c.Stream == "" || (c.RS != "" && c.Since != "") || (c.RS == "" && c.Since == "" && c.Skip == 0) {
		return nil, cursorError("cursor", "cursor has an unsupported format; repeat the first call without it")
	}
	switch {
	case c.Stream != a.Stream || c.Conn != a.ConnectionID:
		return nil, cursorError("cursor", fmt.Sprintf("this cursor continues stream=%s connection_id=%q; call query_records with exactly those and the cursor", c.Stream, c.Conn))
	case a.ChangesSince != "":
		return nil, cursorError("changes_since", "cursor already continues the changes feed; pass cursor alone (changes_since beside it would restart or skip the feed)")
	}
	if e := shapeMismatch(c, a.shape()); e != nil {
		return nil, e
	}
	want := c.Shape
	a.Order, a.Sort, a.Count, a.Fields, a.View, a.Expand = want.Order, want.Sort, want.Count, want.Fields, want.View, want.Expand
	a.Filter, a.ExpandLimit = want.Filter, want.ExpandLimit
	if a.Limit == 0 {
		a.Limit = want.Limit
	}
	return &c, nil
}

// shapeMismatch is the refusal of a call that repeats an argument with a
// value other than the one cursor c was issued with; nil when none does.
func shapeMismatch(c recordsCursor, got recordsShape) *toolError {
	want := c.Shape
	same := func(param string, given bool, equal bool) *toolError {
		if given && !equal {
			return cursorError(param, fmt.Sprintf("%s differs from the call this cursor continues; omit %s (the cursor keeps it) or repeat the first call without cursor", param, param))
		}
		return nil
	}
	for _, chk := range []*toolError{
		same("order", got.Order != "", got.Order == want.Order),
		same("sort", got.Sort != "", got.Sort == want.Sort),
		same("count", got.Count != "", got.Count == want.Count),
		same("fields", got.Fields != nil, slices.Equal(got.Fields, want.Fields)),
		same("filter", got.Filter != nil, bytes.Equal(got.Filter, want.Filter)),
		same("view", got.View != "", got.View == want.View),
		same("expand", got.Expand != nil, slices.Equal(got.Expand, want.Expand)),
		same("expand_limit", got.ExpandLimit != nil, bytes.Equal(got.ExpandLimit, want.ExpandLimit)),
		// A cursor that resumes an RS page past the records shown reads
		// that page again: only with the same limit is it the same page.
		same("limit", c.Skip > 0 && got.Limit != 0, got.Limit == want.Limit),
	} {
		if chk != nil {
			return chk
		}
	}
	return nil
}

// nextRecordsCursor turns the RS's paging tokens into the page's printed
// handles (R-3, D3). With more to come, next_cursor is the adapter's
// sealed cursor holding the RS's next_cursor (which alone continues a
// changes session on the real RS; its next_changes_since is the session's
// high-water mark, and resuming from it mid-feed skips the rest), so
// next_changes_since is withheld until the last page, where it is the
// bookmark for the next changes read. An RS that pages changes only by
// token gets that token back through the same cursor.
func (s *Server) nextRecordsCursor(list *rsclient.RecordList, a queryRecordsArgs, prev *recordsCursor, g Grant) {
	changes := a.ChangesSince != "" || (prev != nil && prev.Changes)
	next := recordsCursor{Stream: a.Stream, Conn: a.ConnectionID, Grant: grantTag(g), Changes: changes, Shape: a.shape()}
	switch {
	case !list.HasMore:
		list.NextCursor = ""
		return
	case list.NextCursor != "":
		next.RS = list.NextCursor
	case changes && list.NextChangesSince != "":
		next.Since = list.NextChangesSince
	default: // fan-in partial page: the text says to page per connection
		return
	}
	list.NextCursor = s.sealRecordsCursor(next)
	list.NextChangesSince = ""
}

// cursorError is the typed invalid_cursor error naming the argument.
func cursorError(param, msg string) *toolError {
	return newAdapterError("invalid_cursor", msg, field{"param", param})
}

// canonicalJSON re-encodes a JSON value with sorted object keys, so equal
// values compare equal whatever order the caller wrote; nil for absent.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}
