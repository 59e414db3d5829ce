package contentladder

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecordHandleRoundTrip(t *testing.T) {
	t.Parallel()
	refs := []RecordRef{
		{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "message_bodies", "19659a5b3c1d4e2f"},
		{"", "orders", "o1"},
		{"c", "messages", "C0123:1714032900.000002"},
		{"c", "s", strings.Repeat("é", 256)},
	}
	for _, ref := range refs {
		t.Run(ref.ID(), func(t *testing.T) {
			t.Parallel()
			h := RecordHandle(ref)
			if strings.ContainsAny(h, "+/=%") {
				t.Errorf("handle %q is not URL-safe", h)
			}
			got, err := ParseRecordHandle(h)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ref, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRecordHandleTSForm(t *testing.T) {
	t.Parallel()
	enc := func(js string) string { return base64.RawURLEncoding.EncodeToString([]byte(js)) }
	tests := []struct {
		name, h string
		want    RecordRef
		reason  string
	}{
		{"ts", "eyJ2IjoxLCJraW5kIjoicmVjb3JkIiwiY29ubmVjdGlvbl9pZCI6ImNvbm5fb3JkZXJzIiwic3RyZWFtIjoib3JkZXJzIiwicmVjb3JkX2lkIjoibzIifQ",
			RecordRef{"conn_orders", "orders", "o2"}, ""},
		{"ts padded std", base64.StdEncoding.EncodeToString([]byte(`{"v":1,"kind":"record","connection_id":"c","stream":"s","record_id":"r?"}`)),
			RecordRef{"c", "s", "r?"}, ""},
		{"wrong kind", enc(`{"v":1,"kind":"field-window","connection_id":"c","stream":"s","record_id":"r"}`), RecordRef{}, ReasonMalformed},
		{"wrong version", enc(`{"v":2,"kind":"record","connection_id":"c","stream":"s","record_id":"r"}`), RecordRef{}, ReasonMalformed},
		{"no connection", enc(`{"v":1,"kind":"record","stream":"s","record_id":"r"}`), RecordRef{}, ReasonMalformed},
		{"traversal", enc(`{"v":1,"kind":"record","connection_id":"c","stream":"..","record_id":"r"}`), RecordRef{}, ReasonInvalidCharacters},
		{"slash in record id", enc(`{"v":1,"kind":"record","connection_id":"c","stream":"s","record_id":"a/b"}`), RecordRef{"c", "s", "a/b"}, ""},
		{"dot segment in record id", enc(`{"v":1,"kind":"record","connection_id":"c","stream":"s","record_id":"a/../b"}`), RecordRef{}, ReasonInvalidCharacters},
		{"trailing json", enc(`{"v":1,"kind":"record","connection_id":"c","stream":"s","record_id":"r"} {}`), RecordRef{}, ReasonMalformed},
		{"not base64", "!!!", RecordRef{}, ReasonMalformed},
		{"empty", "", RecordRef{}, ReasonMalformed},
		{"huge", strings.Repeat("A", 6000), RecordRef{}, ReasonMalformed},
		{"window handle", FieldWindowHandle(WindowSpec{Ref: RecordRef{"c", "s", "r"}, FieldPath: "f"}), RecordRef{}, ReasonMalformed},
		{"trailing bytes", RecordHandle(RecordRef{"c", "s", "r"}) + "AA", RecordRef{}, ReasonMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRecordHandle(tt.h)
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			e := errOf(t, err)
			if e.Code != CodeInvalidHandle || e.Reason != tt.reason {
				t.Errorf("got %s/%s (%s), want %s/%s", e.Code, e.Reason, e.Message, CodeInvalidHandle, tt.reason)
			}
		})
	}
}

func TestFieldWindowHandle(t *testing.T) {
	t.Parallel()
	ref := RecordRef{"cin_x", "message_bodies", "m1"}
	tsJSON := `{"v":1,"kind":"field-window","connection_id":"conn_orders","stream":"orders","record_id":"o2","field_path":"text","offset_chars":0,"limit_chars":8}`
	tests := []struct {
		name   string
		h      string
		want   WindowSpec
		reason string
	}{
		{"offset", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "body_text", OffsetChars: 4096, LimitChars: 4096}),
			WindowSpec{Ref: ref, FieldPath: "body_text", OffsetChars: 4096, LimitChars: 4096}, ""},
		{"q", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "body_text", Q: "integration", BeforeChars: 40, AfterChars: 60}),
			WindowSpec{Ref: ref, FieldPath: "body_text", Q: "integration", BeforeChars: 40, AfterChars: 60, HasQ: true}, ""},
		{"ts", base64.RawURLEncoding.EncodeToString([]byte(tsJSON)),
			WindowSpec{Ref: RecordRef{"conn_orders", "orders", "o2"}, FieldPath: "text", LimitChars: 8}, ""},
		{"ts cursor", base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"kind":"field-window","connection_id":"c","stream":"s","record_id":"r","field_path":"f","cursor":"1256"}`)),
			WindowSpec{Ref: RecordRef{"c", "s", "r"}, FieldPath: "f", OffsetChars: 1256}, ""},
		{"q and offset", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", OffsetChars: 3, Q: "x"}), WindowSpec{}, ReasonMalformed},
		{"limit too big", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", LimitChars: MaxWindowChars + 1}), WindowSpec{}, ReasonMalformed},
		{"negative offset", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", OffsetChars: -1}), WindowSpec{}, ReasonMalformed},
		{"context too big", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", Q: "x", AfterChars: MaxContextChars + 1}), WindowSpec{}, ReasonMalformed},
		{"empty q", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", HasQ: true}), WindowSpec{}, ReasonMalformed},
		{"ts context without q", base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"kind":"field-window","connection_id":"c","stream":"s","record_id":"r","field_path":"f","before_chars":3}`)),
			WindowSpec{}, ReasonMalformed},
		{"bad field path", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "a/b"}), WindowSpec{}, ReasonInvalidCharacters},
		{"record handle", RecordHandle(ref), WindowSpec{}, ReasonMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFieldWindowHandle(tt.h)
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			e := errOf(t, err)
			if e.Code != CodeInvalidHandle || e.Reason != tt.reason {
				t.Errorf("got %s/%s (%s), want %s/%s", e.Code, e.Reason, e.Message, CodeInvalidHandle, tt.reason)
			}
		})
	}
}

// TestHandleGolden pins the wire format: a change breaks URIs already in
// agent transcripts and must be deliberate.
func TestHandleGolden(t *testing.T) {
	t.Parallel()
	ref := RecordRef{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "message_bodies", "19659a5b3c1d4e2f"}
	var b strings.Builder
	fmt.Fprintf(&b, "record_uri %s\n", RecordURI(ref))
	fmt.Fprintf(&b, "legacy_record_uri %s\n", RecordURI(RecordRef{Stream: "orders", RecordID: "o1"}))
	fmt.Fprintf(&b, "offset_window_uri %s\n", FieldWindowURI(WindowSpec{Ref: ref, FieldPath: "body_text", OffsetChars: 512, LimitChars: 4096}))
	fmt.Fprintf(&b, "q_window_uri %s\n", FieldWindowURI(WindowSpec{Ref: ref, FieldPath: "body_text", Q: "integration", BeforeChars: 40, AfterChars: 60, HasQ: true}))
	checkGolden(t, "handles.golden", []byte(b.String()))
}

func FuzzParseRecordHandle(f *testing.F) {
	f.Add(RecordHandle(RecordRef{"c", "s", "r"}))
	f.Add(RecordHandle(RecordRef{"", "orders", "o:1"}))
	f.Add("eyJ2IjoxLCJraW5kIjoicmVjb3JkIiwiY29ubmVjdGlvbl9pZCI6ImNvbm5fb3JkZXJzIiwic3RyZWFtIjoib3JkZXJzIiwicmVjb3JkX2lkIjoibzIifQ")
	f.Add("")
	f.Fuzz(func(t *testing.T, h string) {
		ref, err := ParseRecordHandle(h)
		if err != nil {
			if e := errOf(t, err); e.Code != CodeInvalidHandle {
				t.Fatalf("code %q", e.Code)
			}
			return
		}
		if err := ref.Validate(); err != nil {
			t.Fatalf("accepted invalid ref %+v: %v", ref, err)
		}
		back, err := ParseRecordHandle(RecordHandle(ref))
		if err != nil || back != ref {
			t.Fatalf("round trip %+v -> %+v, %v", ref, back, err)
		}
	})
}

func FuzzParseFieldWindowHandle(f *testing.F) {
	ref := RecordRef{"c", "s", "r"}
	f.Add(FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", OffsetChars: 10, LimitChars: 20}))
	f.Add(FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", Q: "q", BeforeChars: 1, AfterChars: 2}))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"kind":"field-window","connection_id":"c","stream":"s","record_id":"r","field_path":"f","cursor":"7"}`)))
	f.Fuzz(func(t *testing.T, h string) {
		w, err := ParseFieldWindowHandle(h)
		if err != nil {
			if e := errOf(t, err); e.Code != CodeInvalidHandle {
				t.Fatalf("code %q", e.Code)
			}
			return
		}
		if err := validateWindow(w); err != nil {
			t.Fatalf("accepted invalid spec %+v: %v", w, err)
		}
		back, err := ParseFieldWindowHandle(FieldWindowHandle(w))
		if err != nil {
			t.Fatalf("re-encoded %+v rejected: %v", w, err)
		}
		if diff := cmp.Diff(w, back); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}
