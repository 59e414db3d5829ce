package bearerauth

// MaxTokenBytes bounds a bearer token; longer ones are refused unread.
const MaxTokenBytes = 4096

// WellFormed reports whether tok can be sent as `Authorization: Bearer`:
// non-empty, at most MaxTokenBytes, printable ASCII without spaces (RFC
// 6750's b64token plus the other visible characters opaque tokens use).
// Control characters and non-ASCII could split or smuggle headers on the
// way to the resource server.
func WellFormed(tok string) bool {
	if tok == "" || len(tok) > MaxTokenBytes {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] >= 0x7f {
			return false
		}
	}
	return true
}
