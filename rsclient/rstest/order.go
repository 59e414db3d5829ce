package rstest

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// sortKey is a record's position in (cursor_field, primary key) order.
// Null (or absent) cursor values sort after every value in both directions
// (spec-core §8 "nulls after values").
type sortKey struct {
	null bool
	rank int // 0 bool, 1 number, 2 string
	num  float64
	t    time.Time
	hasT bool
	str  string
	// val is the cursor value as it appears in the payload, kept for
	// cursor encoding.
	val any
	id  string
}

// newSortKey computes the key of a record.
func newSortKey(r *Record, cursorField string) sortKey {
	if cursorField == "" || r.Deleted {
		return sortKey{null: true, id: r.ID}
	}
	return keyOf(decodePayload(r.Data)[cursorField], r.ID)
}

// keyOf builds a key from a decoded cursor value.
func keyOf(v any, id string) sortKey {
	k := sortKey{id: id, val: v}
	switch x := v.(type) {
	case nil:
		k.null = true
	case bool:
		k.rank = 0
		if x {
			k.num = 1
		}
	case json.Number:
		k.rank = 1
		k.num, _ = strconv.ParseFloat(string(x), 64)
	case float64:
		k.rank = 1
		k.num = x
	case string:
		k.rank = 2
		k.str = x
		if t, ok := parseTime(x); ok {
			k.t, k.hasT = t, true
		}
	default:
		// Objects and arrays are not orderable cursor values; treat as null.
		k.null = true
		k.val = nil
	}
	return k
}

// parseTime accepts the date and date-time shapes records use.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// cmpValue orders two non-null values.
func cmpValue(a, b sortKey) int {
	if a.rank != b.rank {
		return cmp.Compare(a.rank, b.rank)
	}
	switch a.rank {
	case 2:
		if a.hasT && b.hasT {
			return a.t.Compare(b.t)
		}
		return strings.Compare(a.str, b.str)
	default:
		return cmp.Compare(a.num, b.num)
	}
}

// lessFor returns the strict order for "asc" or "desc".
func lessFor(order string) func(a, b sortKey) bool {
	desc := order == "desc"
	return func(a, b sortKey) bool {
		if a.null != b.null {
			return !a.null
		}
		c := 0
		if !a.null {
			c = cmpValue(a, b)
		}
		if c == 0 {
			c = strings.Compare(a.id, b.id)
		}
		if desc {
			return c > 0
		}
		return c < 0
	}
}
