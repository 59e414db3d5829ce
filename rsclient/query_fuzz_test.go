package rsclient

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzQueryEncoding: any filter either encodes to a query that a standard
// form decoder reads back as exactly the intended pairs, in order, or is
// refused with a *QueryError.
func FuzzQueryEncoding(f *testing.F) {
	f.Add("user_id", "U1", uint8(0), "", 0.0)
	f.Add("created_at", "2026-01-01", uint8(4), "gte", 0.0)
	f.Add("a b&c=d", "x+y %", uint8(0), "", 0.0)
	f.Add("a[b]", "x", uint8(0), "", 0.0)
	f.Add("score", "", uint8(1), "", 1e21)
	f.Add("n", "12345678901234567890", uint8(3), "", 0.0)
	f.Add("t", "", uint8(4), "between", 0.0)
	f.Add("café", "\xff", uint8(2), "", 0.0)
	f.Fuzz(func(t *testing.T, field, s string, kind uint8, op string, num float64) {
		var v any
		switch kind % 5 {
		case 0:
			v = s
		case 1:
			v = num
		case 2:
			v = len(s)%2 == 0
		case 3:
			v = json.Number(s)
		case 4:
			v = nil // range form below
		}
		ff := FilterField{Field: field, Value: v}
		if v == nil {
			ff.Range = []RangeBound{{Op: op, Value: s}}
		}
		q := SearchQuery{Q: s, Filter: Filter{ff}}
		enc, err := q.encode()
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("error %v is not a *QueryError", err)
			}
			return
		}
		for i := 0; i < len(enc); i++ {
			if c := enc[i]; !isFormSafe(c) && !strings.ContainsRune("%+&=", rune(c)) {
				t.Fatalf("unencoded byte %q in %q", c, enc)
			}
		}
		wantKey := "filter[" + field + "]"
		if v == nil {
			wantKey += "[" + op + "]"
		}
		wantVal := s
		if v != nil {
			wantVal, _ = formatScalar(v)
		}
		var want [][2]string
		if s != "" {
			want = append(want, [2]string{"q", s})
		}
		want = append(want, [2]string{wantKey, wantVal})
		var got [][2]string
		for _, pair := range strings.Split(enc, "&") {
			k, val, _ := strings.Cut(pair, "=")
			dk, err1 := url.QueryUnescape(k)
			dv, err2 := url.QueryUnescape(val)
			if err1 != nil || err2 != nil {
				t.Fatalf("undecodable pair %q", pair)
			}
			got = append(got, [2]string{dk, dv})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decoded pairs of %q (-want +got):\n%s", enc, diff)
		}
		vals, err := url.ParseQuery(enc)
		if err != nil || len(vals[wantKey]) != 1 || vals[wantKey][0] != wantVal {
			t.Fatalf("url.ParseQuery(%q) = %v, %v", enc, vals, err)
		}
	})
}
