package rstest

import (
	"encoding/base64"
	"testing"
)

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "a=1", "filter[f]=1&filter[f][gte]=2", "streams[]=a&streams=b", "expand_limit[r]=3",
		"filter[]=x", "a[b][c]=1", "%zz=1", "a]=1", "x[0]=1&x[1]=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseQuery(raw)
		if (q == nil) == (err == nil) {
			t.Fatalf("exactly one of query/error must be set: %v %v", q, err)
		}
		if q == nil {
			return
		}
		for _, n := range q.names {
			if n == "" {
				t.Fatal("empty parameter name")
			}
		}
		for f, ops := range q.filters {
			if f == "" || len(ops) == 0 {
				t.Fatalf("bad filter %q", f)
			}
		}
	})
}

func FuzzDecodePageCursor(f *testing.F) {
	k := keyOf("2026-04-01T00:00:00Z", "m1")
	f.Add(encodePageCursor(k, "desc", "messages", connA))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"kind":"page","session":"records","primary_key":[1]}`)))
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := decodePageCursor(raw, "desc", "messages", connA)
		if err != nil {
			if err.code != "invalid_cursor" {
				t.Fatalf("code %q", err.code)
			}
			return
		}
		// A cursor that decodes must re-encode to an equivalent position.
		again, err := decodePageCursor(encodePageCursor(got, "desc", "messages", connA), "desc", "messages", connA)
		if err != nil || lessFor("desc")(got, again) || lessFor("desc")(again, got) {
			t.Fatalf("round trip changed position: %+v vs %+v (%v)", got, again, err)
		}
	})
}

func FuzzDecodeChanges(f *testing.F) {
	s, err := New(testDataset(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(s.encodeChanges("messages", connA, changeKey{base, "m1"}))
	f.Add("beginning")
	f.Fuzz(func(t *testing.T, raw string) {
		if _, err := s.decodeChanges(raw, "messages", connA); err != nil && err.code != "invalid_cursor" && err.code != "cursor_expired" {
			t.Fatalf("code %q", err.code)
		}
	})
}
