package contentladder

import "strings"

// minBase64Chars is where a string stops being a plausible token or id and
// starts being an encoded payload worth hiding from previews.
const minBase64Chars = 256

// IsLargeBase64 reports whether s looks like an inlined binary payload: at
// least 256 characters of the standard alphabet (padded, length%4==0) or the
// URL-safe alphabet (padding optional), at least 4 distinct characters, with
// MIME-style line breaks ignored; or a `data:…;base64,` URL of that size.
func IsLargeBase64(s string) bool {
	if len(s) < minBase64Chars {
		return false
	}
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		return ok && strings.HasSuffix(strings.ToLower(meta), ";base64") && base64Body(payload, false)
	}
	return base64Body(s, true)
}

// base64Body checks the alphabet; strict demands the std-alphabet length
// rule (data: URL payloads are often sloppy about it).
func base64Body(s string, strict bool) bool {
	var std, url bool
	var seen [128]bool
	distinct, n, pad := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' || c == '\n':
			continue
		case c == '=':
			pad++
			n++
			continue
		case pad > 0 || c >= 128:
			return false // data after padding, or non-ASCII
		case c == '+' || c == '/':
			std = true
		case c == '-' || c == '_':
			url = true
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			return false
		}
		if !seen[c] {
			seen[c] = true
			distinct++
		}
		n++
	}
	switch {
	case distinct < 4 || pad > 2 || (std && url):
		return false
	case !strict:
		return true
	case !std && pad == 0:
		// URL-safe or alphanumeric-only, unpadded (RawURLEncoding): any
		// length but one that leaves a lone 6-bit group.
		return n%4 != 1
	default:
		return n%4 == 0
	}
}

// base64Meta returns the MIME type (data: URLs only) and the decoded size of
// a base64 string, so binary entries can say how big the payload is without
// decoding it.
func base64Meta(s string) (mime string, size int64) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, payload, _ := strings.Cut(rest, ",")
		mime, _, _ = strings.Cut(meta, ";")
		s = payload
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\r' && c != '\n' && c != '=' {
			n++ // padding carries no payload bits
		}
	}
	return mime, n * 3 / 4
}
