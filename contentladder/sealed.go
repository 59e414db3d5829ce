package contentladder

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// maxSealedChars bounds a sealed value's encoded length on input, before
// any decoding, so a hostile string costs nothing to refuse.
const maxSealedChars = 16 << 10

// SealPayload authenticates an opaque continuation payload (the adapter's page
// cursors) for one purpose: unpadded base64url of payload | MAC, where MAC
// is HMAC-SHA256 over the purpose and payload, truncated to 128 bits.
// Replicas sharing the key accept each other's values; the purpose keeps a
// value sealed for one use from opening for another. The payload is
// integrity-protected, not secret: never put a bearer in it.
func (k *CursorKey) SealPayload(purpose string, payload []byte) string {
	out := append([]byte(nil), payload...)
	out = append(out, k.payloadMAC(purpose, payload)...)
	return base64.RawURLEncoding.EncodeToString(out)
}

// OpenPayload verifies s as sealed by SealPayload for purpose and returns
// the payload. Only the exact issued string opens: the decoding is strict
// base64url (no padding, no stray bits) and the MAC covers every payload
// byte. Errors are *Error with CodeInvalidCursor and ReasonMalformed or
// ReasonTampered; param names the argument in messages.
func (k *CursorKey) OpenPayload(purpose, param, s string) ([]byte, error) {
	bad := func(reason, why string) error {
		return newError(CodeInvalidCursor, reason, param,
			"%s %s; pass next_cursor exactly as printed, or repeat the first call without it", param, why)
	}
	if s == "" || len(s) > maxSealedChars {
		return nil, bad(ReasonMalformed, "is malformed (wrong length)")
	}
	raw, ok := decodeCanonical(s)
	if !ok || len(raw) <= macLen {
		return nil, bad(ReasonMalformed, "is malformed (not a value this server issued)")
	}
	payload, mac := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	if !hmac.Equal(mac, k.payloadMAC(purpose, payload)) {
		return nil, bad(ReasonTampered, "failed verification (altered, issued for another tool, or by a server with a different key)")
	}
	return payload, nil
}

func (k *CursorKey) payloadMAC(purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, k.mac)
	m.Write([]byte("pdpp-mcp sealed payload v1\x00" + purpose + "\x00"))
	m.Write(payload)
	return m.Sum(nil)[:macLen]
}
