package rstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Field-window bounds (§2.6).
const (
	fwDefaultLimit = 4096
	fwMaxLimit     = 16384
	fwMaxContext   = 8192
)

// fwParams is a validated field-window selector.
type fwParams struct {
	field         string
	offset, limit int
	limitSet      bool
	q             string
	hasQ          bool
	before, after int
	contextSet    bool
	warnings      []any
}

// parseFieldWindow validates the selector parameters, in the reference's
// order: field, offset/limit, q, then the context around q.
func parseFieldWindow(q *query) (*fwParams, *apiError) {
	p := &fwParams{limit: fwDefaultLimit}
	p.field, _ = q.one("field")
	if p.field == "" || strings.ContainsAny(p.field, ".[]") {
		return nil, newErr("invalid_field_path", "field", "field must name a single top-level field")
	}
	offSet, err := p.parseSpan(q)
	if err != nil {
		return nil, err
	}
	if err := p.parseQ(q, offSet); err != nil {
		return nil, err
	}
	if err := p.parseContext(q); err != nil {
		return nil, err
	}
	return p, nil
}

// windowInt reads an optional integer parameter in [lo, hi] (hi 0 means
// unbounded) and whether it was given.
func windowInt(q *query, name string, lo, hi int) (int, bool, *apiError) {
	v, ok := q.one(name)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || (hi > 0 && n > hi) {
		return 0, true, newErr("invalid_window", name, "%s must be an integer in range", name)
	}
	return n, true, nil
}

// parseSpan reads offset_chars and limit_chars, clamping the limit with a
// warning; it reports whether offset_chars was given, which q forbids.
func (p *fwParams) parseSpan(q *query) (bool, *apiError) {
	var err *apiError
	var offSet bool
	if p.offset, offSet, err = windowInt(q, "offset_chars", 0, 0); err != nil {
		return offSet, err
	}
	if p.limit, p.limitSet, err = windowInt(q, "limit_chars", 1, 0); err != nil {
		return offSet, err
	}
	if !p.limitSet {
		p.limit = fwDefaultLimit
	}
	if p.limit > fwMaxLimit {
		// As capture 0151: no detail, unlike the records route's clamp.
		p.warnings = append(p.warnings, warning("limit_clamped", "limit_chars", nil,
			fmt.Sprintf("limit_chars clamped to %d", fwMaxLimit)))
		p.limit = fwMaxLimit
	}
	return offSet, nil
}

// parseQ reads q, which must be non-empty and excludes offset_chars.
func (p *fwParams) parseQ(q *query, offSet bool) *apiError {
	p.q, p.hasQ = q.one("q")
	if p.hasQ && p.q == "" {
		return newErr("invalid_window", "q", "q must be a non-empty string")
	}
	if p.hasQ && offSet {
		return newErr("invalid_window", "offset_chars", "offset_chars and q are mutually exclusive")
	}
	return nil
}

// parseContext reads before_chars and after_chars, which only mean
// something around a q match; the error names before_chars when both are set.
func (p *fwParams) parseContext(q *query) *apiError {
	var err *apiError
	var bSet, aSet bool
	if p.before, bSet, err = windowInt(q, "before_chars", 0, fwMaxContext); err != nil {
		return err
	}
	if p.after, aSet, err = windowInt(q, "after_chars", 0, fwMaxContext); err != nil {
		return err
	}
	p.contextSet = bSet || aSet
	if p.contextSet && !p.hasQ {
		name := "before_chars"
		if !bSet {
			name = "after_chars"
		}
		return newErr("invalid_window", name, "%s requires q", name)
	}
	return nil
}

// fieldWindow serves GET …/records/{id}/field-window.
func (s *Server) fieldWindow(c *call, stream, id string) (obj, *apiError) {
	p, err := parseFieldWindow(c.q)
	if err != nil {
		return nil, err
	}
	sc, err := s.streamScope(c, stream)
	if err != nil {
		return nil, err
	}
	t, r, err := s.locate(sc, id)
	if err != nil {
		return nil, err
	}
	// The reference checks the field against the granted projection, so a
	// field the schema does not know is "not granted" too (D7, capture 0138).
	if t.info.propIdx[p.field] == nil || !t.granted(p.field) {
		return nil, newErr("field_not_granted", "", "field '%s' is not within the granted projection for this stream", p.field)
	}
	raw, ok := rawField(r.Data, p.field)
	if !ok {
		return nil, newErr("field_not_found", "", "field '%s' is not present on this record", p.field)
	}
	// Only a JSON string has a window: a null, number, boolean, array or
	// object is refused with its class, in the reference's words
	// (reference-implementation/server/record-field-window.ts,
	// assertReadableStringField), null included.
	var text string
	if class := jsonClass(raw); class != "string" || json.Unmarshal(raw, &text) != nil {
		return nil, newErr("field_not_text", "", "field '%s' is %s, not a readable text field; non-text and binary fields are metadata-only", p.field, class)
	}
	win, err := windowOf(text, p)
	if err != nil {
		return nil, err
	}
	body := obj{{"field", obj{{"path", p.field}, {"type", "string"}}}, {"object", "field_window"},
		{"record_id", id}, {"stream", stream}, {"url", c.r.URL.Path}, {"window", win}}
	ws := append(append([]any{}, sc.warnings...), p.warnings...)
	body = append(body, kv{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", ws}}})
	return s.finish(c, body), nil
}

// jsonClass is the reference's coarse class of a JSON value: string,
// number, boolean, null, object or array.
func jsonClass(raw json.RawMessage) string {
	v := bytes.TrimLeft(raw, " \t\r\n")
	if len(v) == 0 {
		return "absent"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// rawField returns the verbatim value of a top-level payload member.
func rawField(data json.RawMessage, field string) (json.RawMessage, bool) {
	keys, vals, err := rawMembers(data)
	if err != nil {
		return nil, false
	}
	for i, k := range keys {
		if k == field {
			return vals[i], true
		}
	}
	return nil, false
}

// windowOf computes the window in Unicode code points, so a window never
// splits a character.
func windowOf(text string, p *fwParams) (obj, *apiError) {
	runes := []rune(text)
	total := len(runes)
	var start, end, limit int
	var ms, me any
	if p.hasQ {
		bi := strings.Index(text, p.q)
		if bi < 0 {
			return nil, newErr("query_not_found", "", "q was not found in field '%s'", p.field)
		}
		mStart := utf8.RuneCountInString(text[:bi])
		mEnd := mStart + utf8.RuneCountInString(p.q)
		ms, me = mStart, mEnd
		limit = p.limit
		if p.contextSet && !p.limitSet {
			limit = p.before + (mEnd - mStart) + p.after
		}
		start = max(0, mStart-p.before)
		end = min(total, start+limit)
	} else {
		limit = p.limit
		start = min(p.offset, total)
		end = min(total, start+limit)
	}
	hasMore := end < total
	var next, prev any
	if hasMore {
		next = end
	}
	if start > 0 {
		prev = max(0, start-limit)
	}
	return obj{{"text", string(runes[start:end])}, {"total_chars", total}, {"start_chars", start},
		{"end_chars", end}, {"limit_chars", limit}, {"complete", start == 0 && end == total},
		{"has_more", hasMore}, {"match_start_chars", ms}, {"match_end_chars", me},
		{"next_offset_chars", next}, {"previous_offset_chars", prev}}, nil
}
