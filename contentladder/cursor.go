package contentladder

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// Cursor format (version 1), unpadded base64url of
//
//	0x01 | flags | uvarint expires (unix s) | uvarint offset | uvarint limit |
//	grant fp (8) | record fp (8) | field fp (8) | [digest fp (8)] | MAC (16)
//
// where each fp is the first 8 bytes of SHA-256 over a labelled value and MAC
// is HMAC-SHA256 truncated to 128 bits over everything before it. Storing
// fingerprints rather than the values keeps a cursor ~80 chars whatever the
// id lengths, and still lets Open say *which* binding failed. The MAC is
// plain crypto/hmac rather than a JWT: a JWT header and JSON claims would
// triple the length for no added safety.
const (
	cursorVersion  byte = 0x01
	flagHasDigest  byte = 1
	fpLen               = 8
	macLen              = 16
	maxCursorChars      = 256
	// DefaultCursorTTL is applied by Seal when Cursor.Expires is zero. Long
	// enough for an agent to page a document, short enough that a leaked
	// transcript's cursors die quickly.
	DefaultCursorTTL = 24 * time.Hour
	// MinCursorSecretBytes is the shortest secret NewCursorKey accepts.
	MinCursorSecretBytes = 32
	digestFPPrefix       = "fp1:"
)

// CursorKey seals and opens cursors. Replicas configured with the same
// secret accept each other's cursors.
type CursorKey struct{ mac []byte }

// NewCursorKey derives a cursor key from a configured secret of at least
// MinCursorSecretBytes. The secret is run through HMAC with a fixed label so
// the same secret reused elsewhere cannot forge cursors (domain separation).
func NewCursorKey(secret []byte) (*CursorKey, error) {
	if len(secret) < MinCursorSecretBytes {
		return nil, errors.New("contentladder: cursor secret must be at least 32 bytes")
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("pdpp-mcp read_record_field cursor key v1"))
	return &CursorKey{mac: m.Sum(nil)}, nil
}

// RandomCursorKey returns a per-process key for when none is configured:
// cursors then stop working across restarts and replicas, which is safe
// (agents restart with offset_chars) but worth configuring away.
func RandomCursorKey() *CursorKey {
	secret := make([]byte, MinCursorSecretBytes)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails on supported platforms
	k, _ := NewCursorKey(secret)
	return k
}

// Cursor is the continuation state of read_record_field. After Open, Ref,
// FieldPath and Grant are the binding's values (they matched), Expires
// is second-granular UTC, and Digest is a fingerprint (compare it with
// CheckDigest, never with ==).
type Cursor struct {
	Ref         RecordRef
	FieldPath   string
	OffsetChars int
	LimitChars  int
	Digest      string // field digest or revision when known; "" = unknown
	// Grant names the grant the cursor continues under: the RS grant id
	// (so a refreshed token of the same grant continues the cursor), or a
	// one-way token hash when the RS names none. Never a bearer.
	Grant   string
	Expires time.Time
}

func fingerprint(label, v string) []byte {
	sum := sha256.Sum256([]byte("pdpp-mcp fp v1\x00" + label + "\x00" + v))
	return sum[:fpLen]
}

// digestFP maps a digest to its fingerprint, and a fingerprint to itself so
// Seal(Open(x)) is stable.
func digestFP(d string) []byte {
	if rest, ok := strings.CutPrefix(d, digestFPPrefix); ok {
		if b, err := base64.RawURLEncoding.Strict().DecodeString(rest); err == nil && len(b) == fpLen {
			return b
		}
	}
	return fingerprint("digest", d)
}

// Seal returns the opaque, URL-safe cursor for c. Negative offsets or limits
// are stored as 0; a zero Expires means now + DefaultCursorTTL.
func (k *CursorKey) Seal(c Cursor) string {
	exp := c.Expires
	if exp.IsZero() {
		exp = time.Now().Add(DefaultCursorTTL)
	}
	var digest []byte
	if c.Digest != "" {
		digest = digestFP(c.Digest)
	}
	e := cursorPayload(uint64(max(exp.Unix(), 0)), uint64(max(c.OffsetChars, 0)), uint64(max(c.LimitChars, 0)),
		fingerprint("grant", c.Grant), fingerprint("record", c.Ref.ID()), fingerprint("field", c.FieldPath), digest)
	e.raw(k.sum(e.b))
	return e.base64url()
}

// cursorPayload writes the part of a cursor the MAC covers. Open re-runs
// it on what it read, so a payload that decodes but is not byte-for-byte
// what Seal writes (an overlong varint, say) is refused.
func cursorPayload(exp, offset, limit uint64, grant, record, field, digest []byte) encoder {
	var e encoder
	e.byte1(cursorVersion)
	var flags byte
	if digest != nil {
		flags |= flagHasDigest
	}
	e.byte1(flags)
	e.uvarint(exp)
	e.uvarint(offset)
	e.uvarint(limit)
	e.raw(grant)
	e.raw(record)
	e.raw(field)
	e.raw(digest)
	return e
}

func (k *CursorKey) sum(payload []byte) []byte {
	m := hmac.New(sha256.New, k.mac)
	m.Write(payload)
	return m.Sum(nil)[:macLen]
}

// Binding is what the current request says a cursor must belong to.
type Binding struct {
	Ref       RecordRef
	FieldPath string
	Grant     string    // as Cursor.Grant
	Now       time.Time // zero = time.Now()
}

// Open verifies s against the key and the binding, in this order:
// malformed → tampered (bad MAC, including another key) → foreign_grant →
// wrong_record → wrong_field → expired. Errors are *Error with Code
// CodeInvalidCursor; messages name the binding's field and record (the
// caller's own request, so safe to echo) and say to restart with
// offset_chars.
func (k *CursorKey) Open(s string, b Binding) (Cursor, error) {
	payload, err := k.authenticPayload(s, b)
	if err != nil {
		return Cursor{}, err
	}
	c, fp, err := readCursorPayload(payload, b)
	if err != nil {
		return Cursor{}, err
	}
	if err := checkCursorBinding(fp, b); err != nil {
		return Cursor{}, err
	}
	if err := checkCursorExpiry(c, b); err != nil {
		return Cursor{}, err
	}
	return c, nil
}

// cursorError is an Open failure: the message names the binding's field and
// record (the caller's own request, so safe to echo) and says how to recover.
func cursorError(b Binding, reason, format string, args ...any) error {
	e := newError(CodeInvalidCursor, reason, "cursor", format, args...)
	e.Message = "cursor for field " + quote(b.FieldPath) + " of record " + quote(b.Ref.ID()) + " " + e.Message +
		"; restart with offset_chars (or omit the cursor)"
	return e
}

// authenticPayload bounds and decodes s and verifies its MAC in constant
// time, returning the MAC-covered payload. Nothing in the payload is read
// before this succeeds.
func (k *CursorKey) authenticPayload(s string, b Binding) ([]byte, error) {
	if s == "" || len(s) > maxCursorChars {
		return nil, cursorError(b, ReasonMalformed, "is malformed (wrong length; pass next_cursor exactly as returned)")
	}
	raw, ok := decodeCanonical(s)
	if !ok || len(raw) < 2+3+3*fpLen+macLen {
		return nil, cursorError(b, ReasonMalformed, "is malformed (not a cursor returned by read_record_field)")
	}
	payload, mac := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	if subtle.ConstantTimeCompare(mac, k.sum(payload)) != 1 {
		return nil, cursorError(b, ReasonTampered, "failed verification (altered, or issued by a server with a different key)")
	}
	return payload, nil
}

// cursorFingerprints are the bindings an authentic cursor carries, still
// to be compared with the request's.
type cursorFingerprints struct{ grant, record, field []byte }

// readCursorPayload decodes an authentic payload into the cursor it states
// (Ref, FieldPath and Grant taken from b, which Open then checks it
// matches) and refuses any payload that is not byte-for-byte what Seal
// would write.
func readCursorPayload(payload []byte, b Binding) (Cursor, cursorFingerprints, error) {
	d := decoder{b: payload}
	version, flags := d.byte1(), d.byte1()
	exp := d.uvarint()
	c := Cursor{Ref: b.Ref, FieldPath: b.FieldPath, Grant: b.Grant}
	c.OffsetChars = d.int(MaxOffsetChars)
	c.LimitChars = d.int(MaxWindowChars)
	var fp cursorFingerprints
	fp.grant, fp.record, fp.field = d.raw(fpLen), d.raw(fpLen), d.raw(fpLen)
	var digest []byte
	if flags&flagHasDigest != 0 {
		digest = d.raw(fpLen)
		c.Digest = digestFPPrefix + base64.RawURLEncoding.EncodeToString(digest)
	}
	if d.done() != nil || version != cursorVersion || flags&^flagHasDigest != 0 || exp > 1<<40 ||
		!bytes.Equal(cursorPayload(exp, uint64(c.OffsetChars), uint64(c.LimitChars), fp.grant, fp.record, fp.field, digest).b, payload) {
		// Authentic but unreadable: a future version or a sealing bug.
		return Cursor{}, cursorFingerprints{}, cursorError(b, ReasonMalformed, "has an unsupported format")
	}
	c.Expires = time.Unix(int64(exp), 0).UTC()
	return c, fp, nil
}

// checkCursorBinding compares the cursor's fingerprints with the request's
// in the order Open documents (grant, record, field), so a cursor wrong in
// several ways always gets the same reason.
func checkCursorBinding(fp cursorFingerprints, b Binding) error {
	switch {
	case !hmac.Equal(fp.grant, fingerprint("grant", b.Grant)):
		return cursorError(b, ReasonForeignGrant, "was issued under a different grant")
	case !hmac.Equal(fp.record, fingerprint("record", b.Ref.ID())):
		return cursorError(b, ReasonWrongRecord, "was issued for a different record")
	case !hmac.Equal(fp.field, fingerprint("field", b.FieldPath)):
		return cursorError(b, ReasonWrongField, "was issued for a different field of this record")
	}
	return nil
}

// checkCursorExpiry refuses a cursor at or after its expiry (b.Now, or the
// clock when b.Now is zero).
func checkCursorExpiry(c Cursor, b Binding) error {
	now := b.Now
	if now.IsZero() {
		now = time.Now()
	}
	if !now.Before(c.Expires) {
		return cursorError(b, ReasonExpired, "has expired")
	}
	return nil
}

// CheckDigest reports ReasonStale when the cursor carries a digest and the
// field's current digest (or revision) differs. Either side unknown ("")
// passes: there is nothing to compare.
func CheckDigest(c Cursor, current string) error {
	if c.Digest == "" || current == "" || c.Digest == current || hmac.Equal(digestFP(c.Digest), digestFP(current)) {
		return nil
	}
	return newError(CodeInvalidCursor, ReasonStale, "cursor",
		"cursor for field %s of record %s is stale: the field changed since the cursor was issued; restart with offset_chars (or omit the cursor)",
		quote(c.FieldPath), quote(c.Ref.ID()))
}
