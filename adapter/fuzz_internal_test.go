package adapter

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseFilter: any JSON either becomes an ordered, bracket-free filter
// of scalars and known range operators, or a typed invalid_filter error.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"n":{"gte":1,"lt":"x"}}`, `{}`, `"filter[a]=b"`, `{"a[b]":1}`,
		`{"a":{"between":1}}`, `{"a":null}`, `{"a":[1]}`, `{"a":{"gte":{"x":1}}}`, `[1]`, `null`, `{"a":true,"b":1.5e3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		filter, te := parseFilter(raw)
		if te != nil {
			var env struct {
				Code string `json:"code"`
			}
			if err := json.Unmarshal(te.envelope(), &env); err != nil || env.Code != "invalid_filter" || te.Code != env.Code {
				t.Fatalf("error envelope %s (code %q)", te.envelope(), te.Code)
			}
			return
		}
		for _, ff := range filter {
			if ff.Field == "" || strings.ContainsAny(ff.Field, "[]") {
				t.Fatalf("bad field %q accepted", ff.Field)
			}
			if (ff.Value == nil) == (len(ff.Range) == 0) {
				t.Fatalf("field %q must be exact xor range", ff.Field)
			}
			for _, rb := range ff.Range {
				switch rb.Op {
				case "gte", "gt", "lte", "lt":
				default:
					t.Fatalf("op %q accepted", rb.Op)
				}
			}
		}
	})
}

// FuzzDecodeSearchCursor: arbitrary cursors never panic and decode only
// to in-range states.
func FuzzDecodeSearchCursor(f *testing.F) {
	f.Add(encodeSearchCursor(searchCursor{V: 1, H: "h", S: []sourceState{{K: "abcdefgh", C: "c", O: 3, R: 9}}}))
	f.Add("")
	f.Add("eyJ2IjoxfQ")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeSearchCursor(s)
		if err != nil {
			return
		}
		if c.V != 1 {
			t.Fatalf("version %d accepted", c.V)
		}
		for _, st := range c.S {
			if st.O < 0 || st.R < 0 || st.O > 10000 {
				t.Fatalf("out-of-range state %+v", st)
			}
		}
	})
}
