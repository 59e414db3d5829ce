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

// FuzzDecodeSearchCursor: arbitrary payloads never panic and decode only
// to in-range states, and only from their one canonical spelling.
func FuzzDecodeSearchCursor(f *testing.F) {
	f.Add(encodeSearchCursor(searchCursor{Version: 1, QueryHash: "h", Sources: []sourceState{{GrantTag: "abcdefgh", RSCursor: "c", Offset: 3, Returned: 9, FirstLimit: 25, LastHit: "AAAAAAAA"}},
		Args: searchShape{Q: "roadmap", Mode: "lexical", Streams: []string{"messages"}, Limit: 5}}))
	f.Add([]byte(""))
	f.Add([]byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeSearchCursor(b)
		if err != nil {
			return
		}
		if string(encodeSearchCursor(c)) != string(b) {
			t.Fatalf("non-canonical payload %q accepted", b)
		}
		if c.Version != 1 {
			t.Fatalf("version %d accepted", c.Version)
		}
		for _, st := range c.Sources {
			if st.Offset < 0 || st.Returned < 0 || st.Offset > 10000 || st.Returned > maxSourceHits || len(st.LastHit) > hitPrintLen ||
				st.FirstLimit < 0 || st.FirstLimit > maxRSPage {
				t.Fatalf("out-of-range state %+v", st)
			}
		}
	})
}

// FuzzDecodeRecordsCursor: a payload decodes only when it is exactly the
// encoding of the state it decodes to, and the state is bounded.
func FuzzDecodeRecordsCursor(f *testing.F) {
	for _, c := range []recordsCursor{
		{Stream: "messages", Grant: "abcdefgh", RS: "eyJhIjoxfQ==", Shape: recordsShape{Limit: 5}},
		{Stream: "messages", Conn: "cin_1", Grant: "g", Since: "tok", Changes: true,
			Shape: recordsShape{Fields: []string{"subject"}, Filter: json.RawMessage(`{"a":1}`)}},
		{Stream: "s", Grant: "g", RS: "not base64!", Shape: recordsShape{Order: "asc", Sort: "-t"}},
		// A page that held records back: the same RS page again, past them.
		{Stream: "messages", Conn: "cin_1", Grant: "g", RS: "eyJhIjoxfQ==", Skip: 30, Shape: recordsShape{Limit: 100}},
		{Stream: "messages", Grant: "g", Skip: 45, Shape: recordsShape{Limit: 100}},
		{Stream: "messages", Grant: "g", Since: "beginning", Changes: true, Skip: 7},
	} {
		f.Add(c.encode())
	}
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, ok := decodeRecordsCursor(b)
		if !ok {
			return
		}
		if got := c.encode(); string(got) != string(b) {
			t.Fatalf("decoded a non-canonical payload %q (canonical %q)", b, got)
		}
		if c.Shape.Limit < 0 || c.Shape.Limit > 100 {
			t.Fatalf("limit %d out of range", c.Shape.Limit)
		}
		if c.Skip < 0 || c.Skip > 100 {
			t.Fatalf("skip %d out of range", c.Skip)
		}
	})
}
