package contentladder

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// errCodec is internal: callers turn it into a typed *Error with context.
var errCodec = errors.New("contentladder: truncated or oversized field")

// encoder builds the compact binary payloads of handles and cursors:
// uvarint lengths and integers, so a typical handle is a few dozen bytes
// instead of the ~130 of the TS adapter's JSON form.
type encoder struct{ b []byte }

func (e *encoder) byte1(v byte)      { e.b = append(e.b, v) }
func (e *encoder) uvarint(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)         { e.uvarint(uint64(v)) } // negative → huge → rejected on decode
func (e *encoder) str(s string)      { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) raw(p []byte)      { e.b = append(e.b, p...) }
func (e *encoder) base64url() string { return base64.RawURLEncoding.EncodeToString(e.b) }

// decoder reads what encoder wrote, failing (sticky) on any overrun so a
// hostile payload cannot make it allocate or loop.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte1() byte {
	if d.err != nil || len(d.b) < 1 {
		d.err = errCodec
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCodec
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a non-negative integer no larger than max.
func (d *decoder) int(max int) int {
	v := d.uvarint()
	if v > uint64(max) {
		d.err = errCodec
		return 0
	}
	return int(v)
}

func (d *decoder) str(max int) string {
	n := d.uvarint()
	if d.err != nil || n > uint64(max) || n > uint64(len(d.b)) {
		d.err = errCodec
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) raw(n int) []byte {
	if d.err != nil || len(d.b) < n {
		d.err = errCodec
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

// done reports success only if every byte was consumed: trailing garbage
// means the payload is not one we wrote.
func (d *decoder) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errCodec
	}
	return d.err
}

// decodeCanonical decodes s only if it is exactly what encoder.base64url
// writes for the decoded bytes: unpadded base64url with zero trailing bits.
// encoding/base64 alone is not enough: it skips '\r' and '\n' anywhere in
// the input even in Strict mode, so several strings would decode to the
// same payload and a handle or cursor would not be one exact string.
func decodeCanonical(s string) ([]byte, bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || base64.RawURLEncoding.EncodeToString(b) != s {
		return nil, false
	}
	return b, true
}
