package page

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendJSONString appends s as a JSON string literal, byte for byte what
// a json.Encoder with SetEscapeHTML(false) writes (without its newline):
// `"` and `\` escaped, \b \f \n \r \t short, other controls as \u00XX,
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped. Snippet tags stay
// readable (<mark>, not \u003cmark\u003e). Every record page encodes its
// strings through here, so it appends in place instead of building an
// Encoder and a buffer per string. It stays one loop over the bytes on
// purpose (cyclomatic 16): splitting the escape cases into calls costs
// the per-byte speed that is its reason to exist.
//
//gocyclo:ignore
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendBinaryStub appends what previews show instead of an inlined
// binary payload: {"binary":true,"mime_type":…,"size_bytes":…} (no
// mime_type when unknown).
func AppendBinaryStub(dst []byte, mime string, size int64) []byte {
	dst = append(dst, `{"binary":true`...)
	if mime != "" {
		dst = append(dst, `,"mime_type":`...)
		dst = AppendJSONString(dst, mime)
	}
	dst = append(dst, `,"size_bytes":`...)
	dst = strconv.AppendInt(dst, size, 10)
	return append(dst, '}')
}

// StringInfo is what previews and the ladder need of one string value.
type StringInfo struct {
	// Prefix is the decoded value's first runes (ScanString's prefixRunes),
	// all of it when it is shorter.
	Prefix string
	// Runes is the decoded value's length in runes.
	Runes int
	// Binary is IsLargeBase64 of the value; MIMEType and SizeBytes are
	// then its base64 metadata (the MIME type of a data: URL only).
	Binary    bool
	MIMEType  string
	SizeBytes int64
}

// ScanString reads lit, one JSON string literal (quotes included) that
// json.Valid accepted, decoding only its first prefixRunes runes: a 50,000
// character body previewed in 1,000 is counted, not copied. Values are
// decoded exactly as json.Unmarshal decodes them (escapes resolved,
// invalid UTF-8 and lone surrogates as U+FFFD).
func ScanString(lit []byte, prefixRunes int) StringInfo {
	body := lit[1 : len(lit)-1]
	escaped := bytes.IndexByte(body, '\\') >= 0
	// Decoding grows an invalid byte into U+FFFD (3 bytes), so a short
	// literal can still decode to minBase64Chars.
	if 3*len(body) >= minBase64Chars && mayBeBase64(body) {
		// Rare: decode it whole and apply the exact rule.
		var v string
		if !escaped && utf8.Valid(body) {
			v = unsafe.String(unsafe.SliceData(body), len(body)) // read only; copied below
		} else {
			v = DecodeJSONString(lit)
		}
		if IsLargeBase64(v) {
			mime, size := base64Meta(v)
			return StringInfo{Prefix: string(runePrefix(v, prefixRunes)), Runes: utf8.RuneCountInString(v),
				Binary: true, MIMEType: mime, SizeBytes: size}
		}
	}
	if !escaped && utf8.Valid(body) {
		v := unsafe.String(unsafe.SliceData(body), len(body))
		return StringInfo{Prefix: string(runePrefix(v, prefixRunes)), Runes: utf8.RuneCount(body)}
	}
	// Escapes or invalid bytes: decode the prefix, count the rest.
	out := make([]byte, 0, min(len(body), prefixRunes*utf8.UTFMax))
	runes, i := 0, 0
	for ; i < len(body) && runes < prefixRunes; runes++ {
		c := body[i]
		var r rune
		switch {
		case c == '\\':
			r, i = unescape(body, i)
		case c < utf8.RuneSelf:
			r = rune(c)
			i++
		default:
			var size int
			r, size = utf8.DecodeRune(body[i:])
			i += size
		}
		out = utf8.AppendRune(out, r)
	}
	return StringInfo{Prefix: string(out), Runes: runes + escapedRuneCount(body[i:])}
}

// escapedRuneCount is the rune count of a literal's body (from a rune
// boundary) once decoded: utf8.RuneCount counts every byte of an escape
// as a rune (they are ASCII) and each invalid byte as one U+FFFD, as the
// decoder does, so only the escapes need correcting. Long bodies are
// counted at RuneCount's speed, not rune by rune.
func escapedRuneCount(rest []byte) int {
	n := utf8.RuneCount(rest)
	for i := 0; ; {
		k := bytes.IndexByte(rest[i:], '\\')
		if k < 0 {
			return n
		}
		i += k
		_, next := unescape(rest, i)
		n -= next - i - 1 // the escape's bytes are one rune
		i = next
	}
}

// runePrefix is v's first n runes (all of v when shorter).
func runePrefix(v string, n int) string {
	i := 0
	for kept := 0; kept < n && i < len(v); kept++ {
		if v[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(v[i:])
		i += w
	}
	return v[:i]
}

// mayBeBase64 is a cheap superset of IsLargeBase64 on a literal's raw
// body: a data: URL, or nothing but base64 alphabet, padding and escapes
// (MIME line breaks arrive as \r\n). Prose fails at its first space.
func mayBeBase64(body []byte) bool {
	if bytes.HasPrefix(body, []byte("data:")) {
		return true
	}
	for _, c := range body {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '+' || c == '/' || c == '-' || c == '_' || c == '=' || c == '\\':
		default:
			return false
		}
	}
	return true
}

// JSONStringLen is len(AppendJSONString(nil, s)), counted without
// writing: fitting a page asks for string sizes at many cut lengths.
func JSONStringLen(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // most bytes: no call
			n += int(asciiJSONCost[c]) - 1
			i++
			continue
		}
		w, c := JSONRuneCost(s, i)
		n += c - w
		i += w
	}
	return n
}

// JSONRuneCost is the byte width of the rune (or invalid byte) at s[i]
// and how many bytes AppendJSONString writes for it.
func JSONRuneCost(s string, i int) (width, cost int) {
	if c := s[i]; c < utf8.RuneSelf {
		return 1, int(asciiJSONCost[c])
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	if (r == utf8.RuneError && w == 1) || r == '\u2028' || r == '\u2029' {
		return w, 6 // \ufffd, \u2028, \u2029
	}
	return w, w
}

// asciiJSONCost is what AppendJSONString writes for each ASCII byte.
var asciiJSONCost = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"', c == '\\', c == '\b', c == '\f', c == '\n', c == '\r', c == '\t':
			t[c] = 2
		case c < 0x20:
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}()
