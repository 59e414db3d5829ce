package aggregation

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// num is a parsed numeric JSON value, kept as an integer when it is one so
// sums of integers stay exact and integral on the wire.
type num struct {
	i     int64
	f     float64
	isInt bool
}

// toNum parses the numeric forms a decoded record can hold.
func toNum(v any) (num, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return num{i: i, f: float64(i), isInt: true}, true
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return num{}, false
		}
		return num{f: f}, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return num{}, false
		}
		return num{f: x}, true
	case float32:
		return toNum(float64(x))
	case int:
		return num{i: int64(x), f: float64(x), isInt: true}, true
	case int64:
		return num{i: x, f: float64(x), isInt: true}, true
	case int32:
		return toNum(int64(x))
	}
	return num{}, false
}

// compareNum orders two numbers, exactly when both are integers.
func compareNum(a, b num) int {
	if a.isInt && b.isInt {
		switch {
		case a.i < b.i:
			return -1
		case a.i > b.i:
			return 1
		}
		return 0
	}
	switch {
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	}
	return 0
}

// sum accumulates a sum metric: exact int64 until a float value or an
// overflow forces float64.
type sum struct {
	i       int64
	f       float64
	isFloat bool
}

// add adds v when it is numeric; anything else is skipped (documented on
// Compute) because one malformed record must not fail the aggregate.
func (s *sum) add(v any) {
	n, ok := toNum(v)
	if !ok {
		return
	}
	if !s.isFloat && n.isInt {
		if r := s.i + n.i; (n.i >= 0) == (r >= s.i) {
			s.i = r
			return
		}
	}
	if !s.isFloat {
		s.isFloat, s.f = true, float64(s.i)
	}
	s.f += n.f
}

// value returns the sum as int64 or float64.
func (s *sum) value() any {
	if s.isFloat {
		return s.f
	}
	return s.i
}

// extreme tracks the min or max of values that are all numbers or all
// date/date-time strings (whichever kind comes first), keeping the original
// value so the response echoes the record's own representation.
type extreme struct {
	value any
	n     num
	t     time.Time
	kind  int // 0 none yet, 1 number, 2 time
}

// add offers v; wantMax selects max instead of min. Ties keep the earlier
// value so results are deterministic in row order.
func (e *extreme) add(v any, wantMax bool) {
	better := func(c int) bool { return (wantMax && c > 0) || (!wantMax && c < 0) }
	if n, ok := toNum(v); ok && e.kind != 2 {
		if e.kind == 0 || better(compareNum(n, e.n)) {
			e.value, e.n, e.kind = v, n, 1
		}
		return
	}
	s, ok := v.(string)
	if !ok || e.kind == 1 {
		return
	}
	t, ok := parseTime(s, time.UTC)
	if !ok {
		return
	}
	if e.kind == 0 || better(t.Compare(e.t)) {
		e.value, e.t, e.kind = v, t, 2
	}
}

// dateTimeLayouts are the date-time shapes records carry; zone-less forms
// are read as UTC, matching how the RS stores timestamps.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

// parseTime parses a date or date-time string. A bare date is a civil day,
// so it is placed at midnight in loc (the bucket zone) rather than in UTC,
// which would move it to the previous day west of Greenwich. Years outside
// 0002..9998 are refused: a zone shift or week start could otherwise produce
// a bucket key with a 5-digit or negative year, which breaks the
// string-is-chronological ordering of keys.
func parseTime(s string, loc *time.Location) (time.Time, bool) {
	if len(s) > 64 {
		return time.Time{}, false
	}
	for _, l := range dateTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, saneYear(t)
		}
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, saneYear(t)
	}
	return time.Time{}, false
}

func saneYear(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 2 && y <= 9998
}

// identity is the equality key of a JSON value for count_distinct and
// grouping: numbers compare by value (1 == 1.0), strings by bytes, and
// kinds never collide.
func identity(v any) string {
	if v == nil {
		return "z"
	}
	if n, ok := toNum(v); ok {
		if !n.isInt && n.f == math.Trunc(n.f) && math.Abs(n.f) < 1<<62 {
			n = num{i: int64(n.f), isInt: true}
		}
		if n.isInt {
			return "n:" + strconv.FormatInt(n.i, 10)
		}
		return "n:" + strconv.FormatFloat(n.f, 'g', -1, 64)
	}
	switch x := v.(type) {
	case string:
		return "s:" + x
	case bool:
		return "b:" + strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return "j:" + string(b)
}

// kindRank orders value kinds for group keys: bool, number, string, other,
// null last (the contract puts null keys after every other key).
func kindRank(v any) int {
	if v == nil {
		return 4
	}
	if _, ok := toNum(v); ok {
		return 1
	}
	switch v.(type) {
	case bool:
		return 0
	case string:
		return 2
	}
	return 3
}

// compareKeys orders two group keys ascending.
func compareKeys(a, b any) int {
	ra, rb := kindRank(a), kindRank(b)
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case 0:
		ab, bb := a.(bool), b.(bool)
		switch {
		case ab == bb:
			return 0
		case !ab:
			return -1
		}
		return 1
	case 1:
		na, _ := toNum(a)
		nb, _ := toNum(b)
		return compareNum(na, nb)
	case 2:
		as, bs := a.(string), b.(string)
		switch {
		case as < bs:
			return -1
		case as > bs:
			return 1
		}
		return 0
	case 3:
		ia, ib := identity(a), identity(b)
		switch {
		case ia < ib:
			return -1
		case ia > ib:
			return 1
		}
	}
	return 0
}
