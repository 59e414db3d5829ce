package contentladder

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/golden"
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

// nonCanonical returns spellings of the issued string h that a lenient
// base64 decoder maps to the same bytes. Each must be refused: a handle or
// cursor is exactly the string the server issued.
func nonCanonical(h string) map[string]string {
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		panic(err)
	}
	out := map[string]string{
		"CR inserted":      h[:len(h)/2] + "\r" + h[len(h)/2:],
		"LF inserted":      h[:3] + "\n" + h[3:],
		"CRLF appended":    h + "\r\n",
		"LF prepended":     "\n" + h,
		"padded":           base64.URLEncoding.EncodeToString(b),
		"std alphabet":     base64.StdEncoding.EncodeToString(b),
		"raw std alphabet": base64.RawStdEncoding.EncodeToString(b),
		"trailing byte":    base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), b...), 0)),
		"trailing char":    h + "A",
		"space inserted":   h[:4] + " " + h[4:],
		"percent-encoded":  strings.ReplaceAll(h, "_", "%5F"),
	}
	// A non-zero unused low bit in the last character decodes the same
	// bytes with a non-strict decoder.
	if r := len(b) % 3; r != 0 {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, h[len(h)-1])
		out["trailing bits set"] = h[:len(h)-1] + string(alphabet[last|1])
	}
	for name, v := range out {
		if v == h {
			delete(out, name) // e.g. no '_' to percent-encode, or a length with no padding
		}
	}
	return out
}

func TestHandlesAreExactlyTheIssuedString(t *testing.T) {
	t.Parallel()
	ref := RecordRef{"cin_w", "labels", "Projects/Roadmap"}
	issued := map[string]string{
		"record":         RecordHandle(ref),
		"legacy record":  RecordHandle(RecordRef{Stream: "orders", RecordID: "o:1"}),
		"offset window":  FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "name", OffsetChars: 300, LimitChars: 4096}),
		"q window":       FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "name", Q: "road", BeforeChars: 10, AfterChars: 20}),
		"overlong field": overlongRecordHandle(ref),
	}
	parse := func(h string) error {
		if _, err := ParseRecordHandle(h); err == nil {
			return nil
		}
		_, err := ParseFieldWindowHandle(h)
		return err
	}
	for name, h := range issued {
		if name == "overlong field" {
			if err := parse(h); err == nil {
				t.Errorf("record handle with an overlong length varint accepted: %q", h)
			}
			continue
		}
		if err := parse(h); err != nil {
			t.Fatalf("%s: issued handle %q refused: %v", name, h, err)
		}
		for variant, v := range nonCanonical(h) {
			t.Run(name+"/"+variant, func(t *testing.T) {
				t.Parallel()
				_, errRec := ParseRecordHandle(v)
				_, errWin := ParseFieldWindowHandle(v)
				for _, err := range []error{errRec, errWin} {
					if err == nil {
						t.Fatalf("non-canonical handle %q (issued %q) accepted", v, h)
					}
					if e := errOf(t, err); e.Code != CodeInvalidHandle || e.Reason != ReasonMalformed {
						t.Errorf("got %s/%s, want %s/%s", e.Code, e.Reason, CodeInvalidHandle, ReasonMalformed)
					}
				}
				if got, _, err := ParseID(RecordURIPrefix + v); err == nil {
					t.Errorf("record URI with non-canonical handle %q resolved to %+v", v, got)
				}
			})
		}
	}
}

// overlongRecordHandle encodes ref like RecordHandle but spells the first
// length as a two-byte varint: same values, different bytes.
func overlongRecordHandle(ref RecordRef) string {
	var e encoder
	e.byte1(kindRecord)
	e.raw([]byte{byte(len(ref.ConnectionID)) | 0x80, 0x00})
	e.raw([]byte(ref.ConnectionID))
	e.str(ref.Stream)
	e.str(ref.RecordID)
	return e.base64url()
}

func TestParseRecordHandleRejects(t *testing.T) {
	t.Parallel()
	enc := func(js string) string { return base64.RawURLEncoding.EncodeToString([]byte(js)) }
	tests := []struct {
		name, h string
		reason  string
	}{
		{"TS JSON form (never issued here)", enc(`{"v":1,"kind":"record","connection_id":"c","stream":"s","record_id":"r"}`), ReasonMalformed},
		{"traversal", RecordHandle(RecordRef{"c", "..", "r"}), ReasonInvalidCharacters},
		{"dot segment in record id", RecordHandle(RecordRef{"c", "s", "a/../b"}), ReasonInvalidCharacters},
		{"not base64", "!!!", ReasonMalformed},
		{"empty", "", ReasonMalformed},
		{"huge", strings.Repeat("A", 6000), ReasonMalformed},
		{"window handle", FieldWindowHandle(WindowSpec{Ref: RecordRef{"c", "s", "r"}, FieldPath: "f"}), ReasonMalformed},
		{"trailing bytes", RecordHandle(RecordRef{"c", "s", "r"}) + "AA", ReasonMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRecordHandle(tt.h)
			if err == nil {
				t.Fatalf("accepted %q as %+v", tt.h, got)
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
		{"TS JSON form (never issued here)", base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"kind":"field-window","connection_id":"c","stream":"s","record_id":"r","field_path":"f","cursor":"1256"}`)),
			WindowSpec{}, ReasonMalformed},
		{"q and offset", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", OffsetChars: 3, Q: "x"}), WindowSpec{}, ReasonMalformed},
		{"limit too big", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", LimitChars: MaxWindowChars + 1}), WindowSpec{}, ReasonMalformed},
		{"negative offset", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", OffsetChars: -1}), WindowSpec{}, ReasonMalformed},
		{"context too big", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", Q: "x", AfterChars: MaxContextChars + 1}), WindowSpec{}, ReasonMalformed},
		{"empty q", FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", HasQ: true}), WindowSpec{}, ReasonMalformed},
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
	golden.Check(t, filepath.Join("testdata", "handles.golden"), []byte(b.String()))
}

func FuzzParseRecordHandle(f *testing.F) {
	f.Add(RecordHandle(RecordRef{"c", "s", "r"}))
	f.Add(RecordHandle(RecordRef{"", "orders", "o:1"}))
	f.Add(RecordHandle(RecordRef{"cin_w", "labels", "Projects/Roadmap"}))
	for _, v := range nonCanonical(RecordHandle(RecordRef{"c", "s", "r"})) {
		f.Add(v)
	}
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
		if issued := RecordHandle(ref); issued != h {
			t.Fatalf("accepted non-canonical handle %q for %+v (issued form %q)", h, ref, issued)
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
	for _, v := range nonCanonical(FieldWindowHandle(WindowSpec{Ref: ref, FieldPath: "f", Q: "q", BeforeChars: 1, AfterChars: 2})) {
		f.Add(v)
	}
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
		if issued := FieldWindowHandle(w); issued != h {
			t.Fatalf("accepted non-canonical handle %q for %+v (issued form %q)", h, w, issued)
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
