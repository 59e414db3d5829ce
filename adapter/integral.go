package adapter

import (
	"encoding/json"
	"math"
	"strconv"
)

// JSON Schema's "integer" is a mathematical integer: 5, 5.0 and 5e0 are
// all valid for `"type": "integer"`, and models do send `"limit": 25.0`.
// Go's encoding/json refuses anything but digits for an int, so arguments
// the input schema accepted would fail to decode. integralNumber gives
// the plain-digit spelling of such a number; the handlers then see the
// value the schema validated.

// maxExactInt is the largest integer a float64 holds exactly (2^53): an
// integral spelling beyond it is left alone (every integer argument's
// schema maximum is far below it).
const maxExactInt = 1 << 53

// integralNumber reports the canonical digits of raw when raw is a JSON
// number with a fraction or exponent whose value is a whole number within
// ±2^53 ("25.0" → "25", "1e2" → "100"); otherwise ok is false.
func integralNumber(raw []byte) (digits []byte, ok bool) {
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') || !hasFractionOrExponent(raw) ||
		!json.Valid(raw) { // ParseFloat also takes "0.", "0x1.8p1" and "1_0.0", which JSON does not
		return nil, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxExactInt {
		return nil, false
	}
	return strconv.AppendInt(nil, int64(f), 10), true
}

func hasFractionOrExponent(raw []byte) bool {
	for _, c := range raw {
		if c == '.' || c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// withIntegralMembers rewrites the top-level members of an arguments
// object that are integral numbers in another spelling to plain digits
// (all integer arguments are top-level); ok is false when there is
// nothing to rewrite.
func withIntegralMembers(raw json.RawMessage) (json.RawMessage, bool) {
	members, err := orderedObject(raw)
	if err != nil {
		return nil, false
	}
	changed := false
	fields := make([]field, len(members))
	for i, m := range members {
		fields[i] = field{m.key, m.value}
		if digits, ok := integralNumber(m.value); ok {
			fields[i].Value = json.RawMessage(digits)
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	return orderedJSON(fields), true
}
