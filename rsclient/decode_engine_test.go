package rsclient

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeLikeEncodingJSON: decodeObject (go-json-experiment with v1
// semantics, one pass, RawMessage members aliasing the body) accepts
// exactly the bodies encoding/json.Unmarshal accepted, and decodes them to
// the same values, for every result type. It pins the engine swap: no
// route may start accepting, refusing or reading differently what the RS
// sends.
func FuzzDecodeLikeEncodingJSON(f *testing.F) {
	for _, body := range []string{`{"data":[]}`, `{"id":"r","stream":"s","data":{}}`, `{"metric":"count","stream":"s","value":null}`,
		`{"field":{"path":"f"},"window":{"text":"a","start_chars":0,"end_chars":1,"total_chars":1,"limit_chars":1}}`,
		`{"data":[{"stream":"s","record_key":"r","score":1.5}],"meta":{"count":null}}`, `{"data":[],"meta":{"count":3}}`,
		`{"data":[],"meta":{"count":{"kind":"exact","value":2}}}`, `{"data":[{"id":"a","data":{"x":"\ud83d"}}]}`,
		`{"ID":"r","Stream":"s","DATA":{}}`, `{"id":"a","id":"b","stream":"s","data":{},"data":[1]}`,
		`{"id":null,"stream":"s","data":null}`, "{\"id\":\"\xff\",\"stream\":\"s\",\"data\":{\"k\":\"\xfe\"}}",
		`{"groups":[{"key":null,"count":1},{"key":"a","count":-2}],"metric":"count","stream":"s"}`,
		`{"data":[{"id":"a","stream":"s","data":{}}]} x`, `{"data":[{"id":1}]}`, `{"has_more":"true"}`,
		`{"window":{"total_chars":1e2}}`, `{"meta":{"warnings":[{"code":"c","detail":{"a":[1,2]}}]}}`} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameDecode[RecordList](t, body)
		sameDecode[Record](t, body)
		sameDecode[SearchPage](t, body)
		sameDecode[FieldWindow](t, body)
		sameDecode[Aggregation](t, body)
		sameDecode[ProtectedResourceMetadata](t, body)
		sameDecode[schemaShape](t, body)
	})
}

// sameDecode compares decodeObject with the encoding/json decoding it
// replaced (the same object-first check, then json.Unmarshal).
func sameDecode[T any](t *testing.T, body []byte) {
	t.Helper()
	want, got := new(T), new(T)
	wantErr := errNotObject
	if tr := bytes.TrimLeft(body, " \t\r\n"); len(tr) > 0 && tr[0] == '{' {
		wantErr = json.Unmarshal(tr, want)
	}
	gotErr := decodeObject(body, got)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%T: %q: encoding/json err = %v, decodeObject err = %v", got, body, wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%T: %q decodes differently (-encoding/json +decodeObject):\n%s", got, body, diff)
	}
	// The adapter relies on every decoded record's data being valid JSON.
	var recs []Record
	switch v := any(got).(type) {
	case *RecordList:
		recs = v.Data
	case *Record:
		recs = []Record{*v}
	}
	for _, r := range recs {
		if r.Data != nil && !json.Valid(r.Data) {
			t.Fatalf("%q: record data %q is not valid JSON", body, r.Data)
		}
	}
}

// The RawMessage members of a result are the body's own bytes (no copy),
// capped so that appending to one cannot overwrite the rest of the body.
func TestRawMembersShareTheBody(t *testing.T) {
	t.Parallel()
	body := []byte(`{"data":[{"id":"a","stream":"s","data": {"n":1} },{"id":"b","stream":"s","data":{"n":22}}],"meta":{"warnings":[{"code":"w","detail":[true]}]}}`)
	srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
	list, resp, err := newTestClient(t, srv.URL).Records(t.Context(), testBearer, RecordsQuery{Stream: "s"})
	if err != nil {
		t.Fatal(err)
	}
	raws := []json.RawMessage{list.Data[0].Data, list.Data[1].Data, list.Meta.Warnings[0].Detail}
	for _, want := range []string{`{"n":1}`, `{"n":22}`, `[true]`} {
		raw := raws[0]
		raws = raws[1:]
		at := bytes.Index(resp.Body, []byte(want))
		switch {
		case string(raw) != want:
			t.Errorf("raw member = %s, want %s", raw, want)
		case &raw[0] != &resp.Body[at]:
			t.Errorf("raw member %s is a copy, not the body's bytes", raw)
		case cap(raw) != len(raw):
			t.Errorf("raw member %s has capacity %d past its end: an append would overwrite the body", raw, cap(raw)-len(raw))
		}
	}
	_ = append(list.Data[0].Data, "garbage"...)
	if !bytes.Equal(resp.Body, body) {
		t.Errorf("appending to a record's data changed the body:\n%s", resp.Body)
	}
}

// FuzzCountLikeEncodingJSON: Count.UnmarshalJSON (on the one-pass engine)
// accepts and reads meta.count exactly like its encoding/json version,
// kept here as the reference (the fuzz test above goes through
// Count.UnmarshalJSON on both sides, so it cannot see a difference here).
func FuzzCountLikeEncodingJSON(f *testing.F) {
	for _, in := range []string{`{"kind":"exact","value":2}`, `{"kind":"none"}`, `38`, `null`, `"38"`, `1.5`, `[1]`, ` 5 `, `-0`, `1e2`,
		`{"KIND":"x","value":null}`, `{"kind":"a","kind":"b"}`, `{"value":-0}`, `{"value":9223372036854775808}`, `{"kind":"\ud800"}`, ``} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var got Count
		gotErr := got.UnmarshalJSON(in)
		want, wantErr := referenceCount(in)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: err = %v, reference err = %v", in, gotErr, wantErr)
		}
		if gotErr == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q (-reference +got):\n%s", in, diff)
			}
		}
	})
}

// referenceCount is Count.UnmarshalJSON as it was on encoding/json.
func referenceCount(b []byte) (Count, error) {
	b = bytes.TrimSpace(b)
	var c Count
	switch {
	case bytes.Equal(b, []byte("null")):
		c.Null, c.Bare = true, true
		return c, nil
	case len(b) > 0 && b[0] == '{':
		var w struct {
			Kind  string `json:"kind"`
			Value *int64 `json:"value"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return Count{}, err
		}
		c.Kind, c.Value = w.Kind, w.Value
		return c, nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return Count{}, err
	}
	c.Value, c.Bare = &n, true
	return c, nil
}
