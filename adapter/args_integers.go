package adapter

import (
	"encoding/json"
	"math/big"
)

// JSON Schema's "integer" is a mathematical integer: 5, 5.0 and 5e0 are
// all valid for `"type": "integer"`, and models do send `"limit": 25.0`.
// Go's encoding/json refuses anything but digits for an int, so arguments
// the input schema accepted would fail to decode. integralNumber gives
// the plain-digit spelling of such a number; givenArguments (args.go)
// respells every top-level one before handlers decode, and plainIntegers
// the counts inside expand_limit.

// maxIntegralDigits bounds the number text integralNumber evaluates: a
// longer spelling (or an exponent that would expand to one) is not an
// argument any tool takes, and big.Rat's work grows with it.
const maxIntegralDigits = 64

// integralNumber reports the canonical digits of raw when raw is a JSON
// number with a fraction or exponent whose exact value is a whole number
// that fits an int64 ("25.0" → "25", "1e2" → "100"); otherwise ok is
// false. The value is decided exactly (big.Rat), as the schema validator
// decides it: "9007199254740993.0" stays 9007199254740993 and
// "1.0000000000000001" is not whole.
func integralNumber(raw []byte) (digits []byte, ok bool) {
	if len(raw) == 0 || len(raw) > maxIntegralDigits || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') ||
		!hasFractionOrExponent(raw) || !json.Valid(raw) { // big.Rat also reads "0.", "0x1p4" and "1/2", which JSON does not
		return nil, false
	}
	if exponentTooLarge(raw) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return nil, false
	}
	return r.Num().Append(nil, 10), true
}

// hasFractionOrExponent reports whether a number is spelled with a
// fraction or an exponent, the spellings Go will not decode into an int.
func hasFractionOrExponent(raw []byte) bool {
	for _, c := range raw {
		if c == '.' || c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// exponentTooLarge reports an exponent beyond ±99: no int64 needs one
// (19 digits at most, and a 64-char spelling cannot cancel more than 63
// places), and big.Rat would otherwise build 10^exponent to find out.
func exponentTooLarge(raw []byte) bool {
	for i, c := range raw {
		if c != 'e' && c != 'E' {
			continue
		}
		exp := raw[i+1:]
		if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		for len(exp) > 1 && exp[0] == '0' {
			exp = exp[1:]
		}
		return len(exp) > 2
	}
	return false
}
