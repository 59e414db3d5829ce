package page

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// objectFieldsReference is the json.Decoder walk objectFields replaced;
// FuzzObjectFieldsMatchesReference holds the byte walk to its result.
func objectFieldsReference(payload json.RawMessage) ([]field, bool) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []field
	index := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if i, dup := index[key]; dup {
			out[i].value = v
			continue
		}
		index[key] = len(out)
		out = append(out, field{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return out, true
}

// FuzzObjectFieldsMatchesReference: same members, order and values as the
// token walk for every valid JSON document; nothing for invalid ones.
func FuzzObjectFieldsMatchesReference(f *testing.F) {
	for _, in := range []string{`{"a":1,"b":[1,{"c":"}"}],"a":"x\"y"}`, ` { "k\u00e9" : { } , "e" : [ ] } `, `{}`, `[1]`, `"s"`,
		`{"a":1} {}`, `{"\ud800":null,"x":-1.5e3,"y":true}`, `{` + string(bytes.Repeat([]byte(`"k":0,`), 20)) + `"k":1}`} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, gotOK := objectFields(json.RawMessage(in))
		want, wantOK := objectFieldsReference(json.RawMessage(in))
		if !json.Valid([]byte(in)) {
			want, wantOK = nil, false // the token walk let trailing bytes through
		}
		if gotOK != wantOK {
			t.Fatalf("objectFields(%q) ok = %v, reference %v", in, gotOK, wantOK)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(field{}), cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })); diff != "" {
			t.Fatalf("objectFields(%q) (-reference +got):\n%s", in, diff)
		}
	})
}

// FuzzObjectMembersMatchesTokenStream: every member, repeats included, in
// order, as a json.Decoder token walk reads them from a valid document.
func FuzzObjectMembersMatchesTokenStream(f *testing.F) {
	for _, in := range []string{`{"a":1,"b":[1,{"c":"}"}],"a":"x\"y"}`, ` { "k\u00e9" : { } , "e" : [ ] } `, `{}`, `[1]`, `"s"`,
		`{"a":1} {}`, "{\"\xff\":0}", `{"\ud800":null,"x":-1.5e3,"y":true}`} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, gotOK := ObjectMembers([]byte(in))
		var want []Member
		wantOK := json.Valid([]byte(in))
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			wantOK = false
		}
		for wantOK && dec.More() {
			tok, _ := dec.Token()
			var v json.RawMessage
			_ = dec.Decode(&v)
			want = append(want, Member{Key: tok.(string), Value: v})
		}
		if gotOK != wantOK {
			t.Fatalf("ObjectMembers(%q) ok = %v, token walk %v", in, gotOK, wantOK)
		}
		if !wantOK {
			return
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })); diff != "" {
			t.Fatalf("ObjectMembers(%q) (-token walk +got):\n%s", in, diff)
		}
	})
}
