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

// decodeRecordsCursor is the records-list cursor path: parse, then
// position for order.
func decodeRecordsCursor(raw, order string) (sortKey, *apiError) {
	pc, ok := parsePageCursor(raw)
	if !ok {
		return sortKey{}, newErr("invalid_cursor", "", malformedCursor)
	}
	return recordsPosition(pc, order)
}

func FuzzDecodePageCursor(f *testing.F) {
	k := keyOf("2026-04-01T00:00:00Z", "m1")
	f.Add(encodePageCursor(k, "desc"))
	f.Add(encodePageCursor(keyOf(nil, `["a",1]`), "desc"))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"kind":"page","session":"records","primary_key":[1]}`)))
	f.Add(encodeChangesPage(0, 5, 30))
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := decodeRecordsCursor(raw, "desc")
		if err != nil {
			if err.code != "invalid_cursor" || err.param != "" {
				t.Fatalf("code %q param %q", err.code, err.param)
			}
			return
		}
		// A cursor that decodes must re-encode to an equivalent position.
		again, err := decodeRecordsCursor(encodePageCursor(got, "desc"), "desc")
		if err != nil || lessFor("desc")(got, again) || lessFor("desc")(again, got) {
			t.Fatalf("round trip changed position: %+v vs %+v (%v)", got, again, err)
		}
	})
}

func FuzzChangesRequest(f *testing.F) {
	f.Add(encodeChangesSince(30), "")
	f.Add("beginning", encodeChangesPage(0, 5, 30))
	f.Add("", encodeChangesPage(0, 5, 30))
	f.Add("2026-01-01T00:00:00Z", "garbage")
	f.Fuzz(func(t *testing.T, cs, cursor string) {
		var pc *wireCursor
		if cursor != "" {
			pc, _ = parsePageCursor(cursor)
		}
		cr, isChanges, err := changesRequest(cs, cs != "", pc)
		if err != nil {
			if err.code != "invalid_cursor" || isChanges {
				t.Fatalf("code %q changes %v", err.code, isChanges)
			}
			return
		}
		if cs != "" && (!isChanges || cr.max != -1 || cr.since != cr.after) {
			t.Fatalf("changes_since must open a fresh session: %+v", cr)
		}
		if isChanges && cs != "" && cs != "beginning" {
			if v, ok := parseChangesSince(encodeChangesSince(cr.since)); !ok || v != cr.since {
				t.Fatalf("round trip: %d -> %d", cr.since, v)
			}
		}
	})
}
