package rsclient

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

const upperHex = "0123456789ABCDEF"

// encodeURIComponent encodes one path segment exactly like JS
// encodeURIComponent: every UTF-8 byte is %XX-escaped except
// A-Z a-z 0-9 - _ . ! ~ * ' ( ). url.PathEscape differs (it keeps : @ & = +
// $ , ;), and the RS decodeURIComponent()s ids, so only this form
// round-trips every id. Invalid UTF-8 (which JS cannot represent) is
// escaped byte by byte, so it still round-trips through a percent-decoder.
func encodeURIComponent(s string) string {
	return escape(s, isURIComponentSafe, false)
}

// formEncode encodes one key or value like the WHATWG
// application/x-www-form-urlencoded serializer behind URLSearchParams:
// space → '+', A-Z a-z 0-9 * - . _ kept, every other byte %XX.
func formEncode(s string) string {
	return escape(s, isFormSafe, true)
}

func escape(s string, safe func(byte) bool, spaceAsPlus bool) string {
	n := 0 // bytes that change (a space becomes '+' or %20)
	for i := 0; i < len(s); i++ {
		if !safe(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case safe(c):
			b.WriteByte(c)
		case spaceAsPlus && c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isURIComponentSafe(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-_.!~*'()", c) >= 0
}

func isFormSafe(c byte) bool {
	return isAlnum(c) || c == '*' || c == '-' || c == '.' || c == '_'
}

// queryBuilder appends key=value pairs in call order, like
// URLSearchParams.append followed by toString().
type queryBuilder struct{ b strings.Builder }

func (q *queryBuilder) add(key, value string) {
	if q.b.Len() > 0 {
		q.b.WriteByte('&')
	}
	q.b.WriteString(formEncode(key))
	q.b.WriteByte('=')
	q.b.WriteString(formEncode(value))
}

// addIf appends key=value when value is non-empty (zero values are omitted).
func (q *queryBuilder) addIf(key, value string) {
	if value != "" {
		q.add(key, value)
	}
}

// addEach appends one key=value per element (repeated keys, not CSV).
func (q *queryBuilder) addEach(key string, values []string) {
	for _, v := range values {
		q.add(key, v)
	}
}

// addInt appends key=n when n is non-zero.
func (q *queryBuilder) addInt(key string, n int) {
	if n != 0 {
		q.add(key, strconv.Itoa(n))
	}
}

// addIntPtr appends key=*n when n is non-nil (an explicit 0 is sent).
func (q *queryBuilder) addIntPtr(key string, n *int) {
	if n != nil {
		q.add(key, strconv.Itoa(*n))
	}
}

func (q *queryBuilder) String() string { return q.b.String() }

// formatScalar renders a filter operand like JS String(v). Nested values
// (maps, slices, structs), nil and non-finite numbers are refused.
func formatScalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return formatJSNumber(x)
	case float32:
		return formatJSNumber(float64(x))
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case json.Number:
		return formatJSONNumber(x)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return formatJSNumber(rv.Float())
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), nil
	case reflect.Invalid:
		return "", fmt.Errorf("value is null")
	}
	return "", fmt.Errorf("value must be a string, number or boolean, not %T", v)
}

// formatJSONNumber renders a json.Number. Integer literals are kept
// verbatim (JS would round past 2^53, but the RS parses the text, so exact
// digits are the faithful choice); other literals are normalised like JS
// String(Number(s)).
func formatJSONNumber(n json.Number) (string, error) {
	s := string(n)
	if isIntLiteral(s) {
		return s, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !isJSONNumber(s) {
		return "", fmt.Errorf("value %q is not a number", s)
	}
	return formatJSNumber(f)
}

func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// formatJSNumber implements ECMAScript Number::toString(10): the shortest
// round-tripping digits, plain notation for 1e-7 < |x| < 1e21, exponent
// notation ("1e+21", "1.5e-7") outside it.
func formatJSNumber(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("value %v is not a finite number", f)
	}
	if f == 0 {
		return "0", nil // also -0, as in JS
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// 'e' with precision -1 yields the shortest digits: d.ddddde±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	k, n := len(digits), exp+1 // JS: value = 0.digits × 10^n
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		es := "+"
		if n-1 < 0 {
			es = "-"
		}
		ex := strconv.Itoa(abs(n - 1))
		if k == 1 {
			out = digits + "e" + es + ex
		} else {
			out = digits[:1] + "." + digits[1:] + "e" + es + ex
		}
	}
	return sign + out, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// isJSONNumber reports whether s is a JSON number literal; strconv alone
// would also accept "Inf", "0x1p3" and "1_000".
func isJSONNumber(s string) bool {
	return json.Valid([]byte(s)) && s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9')
}
