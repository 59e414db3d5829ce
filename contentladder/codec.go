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
// instead of the ~130 of the TS JSON form.
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

// decodeBase64Lenient accepts what Node's lenient base64url decoder would
// have produced handles from: raw URL (ours), padded URL, and std alphabets.
func decodeBase64Lenient(s string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}
