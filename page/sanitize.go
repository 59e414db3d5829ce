package page

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxSanitizeDepth bounds recursion on hostile payloads; a deeper payload
// is not previewed at all (SanitizeForPreview returns null).
const maxSanitizeDepth = 64

// SanitizeForPreview rewrites a JSON value for display: every large-base64
// string (IsLargeBase64) becomes {"binary":true,"mime_type":…,"size_bytes":…}
// and every other string longer than maxString runes is cut with an Ellipsis
// (maxString ≤ 0: no cut). Key order is kept; blob_ref objects are kept as
// they are (metadata, not bytes). Invalid JSON yields `null` rather than
// echoing unknown bytes into a preview. The output is compact.
//
// It runs on every record of every page, so it works on the bytes: one
// validity scan, then one pass that copies numbers, literals, keys and
// short plain strings as they are and decodes only strings that carry
// escapes or must change. (A json.Decoder token walk allocated for every
// token, a quarter of query_records' allocations.)
func SanitizeForPreview(payload json.RawMessage, maxString int) json.RawMessage {
	if !json.Valid(payload) {
		return json.RawMessage("null")
	}
	s := sanitizer{in: payload, max: maxString, out: make([]byte, 0, min(len(payload), 64<<10))}
	if err := s.value(0); err != nil {
		return json.RawMessage("null")
	}
	return s.out
}

// sanitizer walks JSON that json.Valid accepted, so it only has to find
// token boundaries, never to report syntax errors.
type sanitizer struct {
	in  []byte
	i   int
	out []byte
	max int
}

func (s *sanitizer) skipSpace() { s.i = skipSpace(s.in, s.i) }

func (s *sanitizer) value(depth int) error {
	s.skipSpace()
	switch open := s.in[s.i]; open {
	case '{', '[':
		if depth >= maxSanitizeDepth {
			return errTooDeep
		}
		end := byte(']')
		if open == '{' {
			end = '}'
		}
		s.out = append(s.out, open)
		s.i++
		s.skipSpace()
		if s.in[s.i] == end {
			s.i++
			s.out = append(s.out, end)
			return nil
		}
		for {
			if open == '{' {
				s.str(false)
				s.skipSpace()
				s.i++ // ':'
				s.out = append(s.out, ':')
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.skipSpace()
			if s.in[s.i] == ',' {
				s.i++
				s.out = append(s.out, ',')
				s.skipSpace()
				continue
			}
			s.i++ // end
			s.out = append(s.out, end)
			return nil
		}
	case '"':
		s.str(true)
	default: // number, true, false, null: copied as written
		j := s.i
		for j < len(s.in) && !endsLiteral(s.in[j]) {
			j++
		}
		s.out = append(s.out, s.in[s.i:j]...)
		s.i = j
	}
	return nil
}

// str copies the string literal at s.i: keys verbatim, values through the
// binary and length rules. A literal is copied as written when it is
// already what encoding/json would write (no escapes, valid UTF-8, no
// U+2028/U+2029); otherwise it is decoded and re-encoded.
func (s *sanitizer) str(isValue bool) {
	start := s.i
	end, escaped := SkipJSONString(s.in, start)
	raw, body := s.in[start:end], s.in[start+1:end-1]
	s.i = end
	plain := !escaped && utf8.Valid(body) && !bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
	if !isValue {
		if plain {
			s.out = append(s.out, raw...)
			return
		}
		s.out = AppendJSONString(s.out, DecodeJSONString(raw))
		return
	}
	var v string
	if plain {
		// A read-only view of the payload for the checks below: nothing
		// keeps it past this call (AppendJSONString copies).
		v = unsafe.String(unsafe.SliceData(body), len(body))
	} else {
		v = DecodeJSONString(raw)
	}
	switch {
	case IsLargeBase64(v):
		mime, size := base64Meta(v)
		s.out = AppendBinaryStub(s.out, mime, size)
	case s.max > 0 && utf8.RuneCountInString(v) > s.max:
		cut, _ := TruncateRunes(v, s.max)
		s.out = AppendJSONString(s.out, cut)
	case plain:
		s.out = append(s.out, raw...)
	default:
		s.out = AppendJSONString(s.out, v)
	}
}

// DecodeJSONString is the value of a string literal (quotes included) that
// json.Valid accepted, as
// json.Unmarshal decodes it (escapes resolved, invalid UTF-8 and lone
// surrogates as U+FFFD), without Unmarshal's second validity scan and
// reflection: bodies with line breaks take this path for every record.
func DecodeJSONString(raw []byte) string {
	body := raw[1 : len(raw)-1]
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			var r rune
			r, i = unescape(body, i)
			out = utf8.AppendRune(out, r)
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			out = utf8.AppendRune(out, r) // RuneError for a bad byte, as json does
			i += size
		}
	}
	return string(out)
}

// unescape decodes the escape at body[i] ('\\') and returns the rune and
// the index after it; a \u surrogate pair is one rune, a lone surrogate
// U+FFFD.
func unescape(body []byte, i int) (rune, int) {
	switch body[i+1] {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r := hex4(body[i+2 : i+6])
		i += 6
		if utf16.IsSurrogate(r) {
			if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
				if pair := utf16.DecodeRune(r, hex4(body[i+2:i+6])); pair != utf8.RuneError {
					return pair, i + 6
				}
			}
			return utf8.RuneError, i
		}
		return r, i
	default: // '"', '\\', '/'
		return rune(body[i+1]), i + 2
	}
}

// hex4 reads four hex digits json.Valid already checked.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

type sanitizeError string

func (e sanitizeError) Error() string { return string(e) }

const errTooDeep = sanitizeError("page: JSON nested too deeply for a preview")
