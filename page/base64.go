package page

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
	sc, ok := scanBase64(s)
	return ok && sc.plausible(strict)
}

// base64Class is what one byte can be in a base64 payload.
type base64Class uint8

const (
	b64Invalid base64Class = iota // outside both alphabets (and all non-ASCII)
	b64Alnum                      // A-Z a-z 0-9: shared by both alphabets
	b64Std                        // '+' '/': standard alphabet only
	b64URL                        // '-' '_': URL-safe alphabet only
	b64Pad                        // '='
	b64Break                      // '\r' '\n': MIME line breaks, ignored
)

// base64Classes is a lookup table rather than a switch so the per-byte scan
// stays one load per byte on multi-kilobyte candidates.
var base64Classes = func() (t [256]base64Class) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = b64Alnum
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = b64Alnum
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = b64Alnum
	}
	t['+'], t['/'] = b64Std, b64Std
	t['-'], t['_'] = b64URL, b64URL
	t['='] = b64Pad
	t['\r'], t['\n'] = b64Break, b64Break
	return t
}()

// base64Scan is what one pass over a candidate payload learns.
type base64Scan struct {
	std, url bool // saw a character only the standard / URL-safe alphabet has
	distinct int  // distinct payload characters (padding and breaks excluded)
	n        int  // payload characters plus padding, line breaks excluded
	pad      int  // '=' count
}

// scanBase64 tallies s; ok is false at the first byte no base64 text can
// hold there: one outside both alphabets, or data after padding.
func scanBase64(s string) (sc base64Scan, ok bool) {
	var seen [128]bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch base64Classes[c] {
		case b64Break:
			continue
		case b64Pad:
			sc.pad++
			sc.n++
			continue
		case b64Invalid:
			return sc, false
		case b64Std:
			sc.std = true
		case b64URL:
			sc.url = true
		}
		if sc.pad > 0 {
			return sc, false // data after padding
		}
		if !seen[c] {
			seen[c] = true
			sc.distinct++
		}
		sc.n++
	}
	return sc, true
}

// plausible applies the whole-payload rules to a successful scan: enough
// variety to be data rather than a run of one character, at most two pads,
// one alphabet, and (strict) a length an encoder could have produced.
func (sc base64Scan) plausible(strict bool) bool {
	switch {
	case sc.distinct < 4 || sc.pad > 2 || (sc.std && sc.url):
		return false
	case !strict:
		return true
	case !sc.std && sc.pad == 0:
		// URL-safe or alphanumeric-only, unpadded (RawURLEncoding): any
		// length but one that leaves a lone 6-bit group.
		return sc.n%4 != 1
	default:
		return sc.n%4 == 0
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
