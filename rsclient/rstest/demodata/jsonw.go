package demodata

import (
	"strconv"
	"time"
)

// obj appends one JSON object to a reusable buffer. Records are written by
// hand rather than with encoding/json because the field order must follow
// the fixtures (mockrs keeps Data verbatim) and because a million records
// must build in seconds.
type obj struct {
	b []byte
	n int
}

// begin starts a new object, reusing the buffer.
func (o *obj) begin() {
	o.b = append(o.b[:0], '{')
	o.n = 0
}

// end closes the object and returns its bytes; they stay valid only until
// the next begin, so callers copy them (see arena).
func (o *obj) end() []byte {
	o.b = append(o.b, '}')
	return o.b
}

func (o *obj) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *obj) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

// strOrNull writes null for the empty string: the fixtures use null, not
// "", for absent optional text.
func (o *obj) strOrNull(k, v string) {
	if v == "" {
		o.null(k)
		return
	}
	o.str(k, v)
}

func (o *obj) null(k string) {
	o.key(k)
	o.b = append(o.b, "null"...)
}

func (o *obj) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *obj) bool(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

// raw writes pre-encoded JSON.
func (o *obj) raw(k string, v []byte) {
	o.key(k)
	o.b = append(o.b, v...)
}

// time writes an RFC 3339 UTC timestamp with second precision, the format
// of the fixtures' *_at fields.
func (o *obj) time(k string, t time.Time) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = t.UTC().AppendFormat(o.b, time.RFC3339)
	o.b = append(o.b, '"')
}

func (o *obj) strs(k string, vs []string) {
	o.key(k)
	o.b = append(o.b, '[')
	for i, v := range vs {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendJSONString(o.b, v)
	}
	o.b = append(o.b, ']')
}

// appendJSONString appends s as a JSON string literal. Generated text is
// ASCII, but the escaping is complete so any input stays valid JSON.
func appendJSONString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// arena hands out record payloads carved from large shared chunks, which
// keeps a million-record build to a few hundred allocations instead of a
// million, and keeps the heap compact.
type arena struct{ chunk []byte }

const arenaChunk = 4 << 20

// copy stores b and returns a slice whose capacity equals its length, so
// an append by a consumer can never scribble over a neighbour.
func (a *arena) copy(b []byte) []byte {
	if cap(a.chunk)-len(a.chunk) < len(b) {
		a.chunk = make([]byte, 0, max(arenaChunk, len(b)))
	}
	start := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return a.chunk[start:len(a.chunk):len(a.chunk)]
}
