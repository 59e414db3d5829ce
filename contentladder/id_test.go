package contentladder

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseIDAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want RecordRef
		form IDForm
	}{
		{"cin_aaa/orders:o1", RecordRef{"cin_aaa", "orders", "o1"}, FormSelfContained},
		{"orders:o1", RecordRef{"", "orders", "o1"}, FormLegacy},
		{"messages:C0123456789:1714032900.000002", RecordRef{"", "messages", "C0123456789:1714032900.000002"}, FormLegacy},
		{"cin_a/messages:C01:17.2", RecordRef{"cin_a", "messages", "C01:17.2"}, FormSelfContained},
		{"cin_a/s:r with space", RecordRef{"cin_a", "s", "r with space"}, FormSelfContained},
		{"cin_a/s:ünïcødé", RecordRef{"cin_a", "s", "ünïcødé"}, FormSelfContained},
		{"pdpp://record/conn_orders%2Forders%3Ao2", RecordRef{"conn_orders", "orders", "o2"}, FormURI},
		{"pdpp://record/cin_a%2Fmessages%3Am1", RecordRef{"cin_a", "messages", "m1"}, FormURI},
		{"pdpp://record/orders%3Ao1", RecordRef{"", "orders", "o1"}, FormURI},
		{"pdpp://record/" + RecordHandle(RecordRef{"cin_x", "message_bodies", "m:1"}), RecordRef{"cin_x", "message_bodies", "m:1"}, FormURI},
		{"pdpp://record/abcd:e", RecordRef{"", "abcd", "e"}, FormURI},
		// Record ids hold any character: '/' and ':' included (Gmail labels).
		{"cin_w/labels:Projects/Roadmap", RecordRef{"cin_w", "labels", "Projects/Roadmap"}, FormSelfContained},
		{"labels:Projects/Roadmap", RecordRef{"", "labels", "Projects/Roadmap"}, FormLegacy},
		{"cin_w/labels:a/b:c/d", RecordRef{"cin_w", "labels", "a/b:c/d"}, FormSelfContained},
		{"cin:a/orders:o1", RecordRef{"", "cin", "a/orders:o1"}, FormLegacy},
		{"cin_a/s:https://example.com/x//y?z=1#f", RecordRef{"cin_a", "s", "https://example.com/x//y?z=1#f"}, FormSelfContained},
		{"cin_a/s:a..b", RecordRef{"cin_a", "s", "a..b"}, FormSelfContained},
		{"cin_a/s:.hidden/..x", RecordRef{"cin_a", "s", ".hidden/..x"}, FormSelfContained},
		{"cin_a/s:%2E%2E", RecordRef{"cin_a", "s", "%2E%2E"}, FormSelfContained},
		{"pdpp://record/cin_w%2Flabels%3AProjects%2FRoadmap", RecordRef{"cin_w", "labels", "Projects/Roadmap"}, FormURI},
		{"pdpp://record/" + RecordHandle(RecordRef{"cin_w", "labels", "Projects/Roadmap"}), RecordRef{"cin_w", "labels", "Projects/Roadmap"}, FormURI},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, form, err := ParseID(tt.in)
			if err != nil {
				t.Fatalf("ParseID(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseID(%q) (-want +got):\n%s", tt.in, diff)
			}
			if form != tt.form {
				t.Errorf("form = %v, want %v", form, tt.form)
			}
		})
	}
}

// TestParseIDRejects pins the whole rejection table of ts-adapter-behavior
// §3.2 plus the extra cases of DESIGN R-8.
func TestParseIDRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, reason, msg string // msg: regexp the message must match
	}{
		{"", ReasonEmpty, "id is required"},
		{"   ", ReasonEmpty, "required"},
		{"\t\n", ReasonEmpty, "required"},
		{"noseparator", ReasonFormat, `no ':'`},
		{"orders:", ReasonFormat, "empty record_id"},
		{":o1", ReasonFormat, "empty stream"},
		{"cin_aaa/orders:../../etc/passwd", ReasonInvalidCharacters, "invalid characters"},
		{"orders:../../etc/passwd", ReasonInvalidCharacters, "invalid characters"},
		{"../cin_aaa/orders:o1", ReasonInvalidCharacters, "invalid characters"},
		{"../x/orders:o1", ReasonInvalidCharacters, "invalid characters"},
		{"cin_aaa/", ReasonFormat, "nothing after connection_id"},
		{"/orders:o1", ReasonFormat, "empty connection_id"},
		{"cin_aaa/orders", ReasonFormat, `no ':'`},
		{"cin_aaa/extra/orders:o1", ReasonInvalidCharacters, "invalid characters.*more than one '/'"},
		{"a/b/orders:o1", ReasonInvalidCharacters, "more than one '/'"},
		{`cin_a/or\ders:o1`, ReasonInvalidCharacters, "invalid characters"},
		{"cin_a/orders:..", ReasonInvalidCharacters, `"." or ".." segment`},
		{"cin_a/orders:.", ReasonInvalidCharacters, `"." or ".." segment`},
		{"cin_a/orders:a/./b", ReasonInvalidCharacters, `"." or ".." segment`},
		{"cin_a/orders:a/..", ReasonInvalidCharacters, `"." or ".." segment`},
		{`cin_a/orders:a\..\b`, ReasonInvalidCharacters, `"." or ".." segment`},
		{"cin_a/or..ders:o1", ReasonInvalidCharacters, "path traversal"},
		{"cin_a/:o1", ReasonFormat, "empty stream"},
		{"cin_a/orders: ", ReasonEmpty, "record_id is blank"},
		{"cin_a/orders:a\nb", ReasonInvalidCharacters, "control characters"},
		{"cin_a/orders:o\x001", ReasonInvalidCharacters, "control characters"},
		{"cin_a/ :o1", ReasonEmpty, "stream is blank"},
		{"cin_a/orders:\xff", ReasonInvalidUTF8, "UTF-8"},
		{"orders:" + strings.Repeat("x", 513), ReasonTooLong, "record_id is 513 bytes"},
		{strings.Repeat("x", 2049), ReasonTooLong, "2049 bytes"},
		{"pdpp://record/", ReasonFormat, "empty handle"},
		{"pdpp://record/garbage", ReasonFormat, `"garbage" has no ':'`},
		{"pdpp://record/%zz", ReasonFormat, "percent-encoding"},
		{"pdpp://record/..%2Fx%2Forders%3Ao1", ReasonInvalidCharacters, "invalid characters"},
		{"pdpp://record/pdpp%3A%2F%2Frecord%2Fx", ReasonFormat, "another pdpp://"},
		{"pdpp://field-window/abc", ReasonFormat, "not a record id"},
		{"pdpp://record/" + RecordHandle(RecordRef{"c", "..", "r"}), ReasonInvalidCharacters, "invalid characters"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			ref, _, err := ParseID(tt.in)
			if err == nil {
				t.Fatalf("ParseID(%q) = %+v, want error", tt.in, ref)
			}
			e := errOf(t, err)
			if e.Code != CodeInvalidID || e.Reason != tt.reason {
				t.Errorf("code/reason = %s/%s, want %s/%s (%s)", e.Code, e.Reason, CodeInvalidID, tt.reason, e.Message)
			}
			if !regexp.MustCompile(tt.msg).MatchString(e.Message) {
				t.Errorf("message %q does not match %q", e.Message, tt.msg)
			}
			if len(e.Message) > 400 {
				t.Errorf("message is %d bytes; untrusted input must be bounded", len(e.Message))
			}
		})
	}
}

func TestValidateSegment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		label, v, reason string // reason "" = valid
	}{
		{"stream", "orders", ""},
		{"record_id", "a:b:c", ""},
		{"record_id", "a.b", ""},
		{"record_id", strings.Repeat("é", 256), ""},
		{"record_id", strings.Repeat("x", 513), ReasonTooLong},
		{"stream", "", ReasonEmpty},
		{"stream", " \u00a0", ReasonEmpty},
		{"stream", ".", ReasonInvalidCharacters},
		{"stream", "..", ReasonInvalidCharacters},
		{"stream", "a..b", ReasonInvalidCharacters},
		{"stream", "a/b", ReasonInvalidCharacters},
		{"stream", `a\b`, ReasonInvalidCharacters},
		{"stream", "a\u0085b", ReasonInvalidCharacters},
		{"stream", "a\x7fb", ReasonInvalidCharacters},
		{"stream", "a\xc3", ReasonInvalidUTF8},
		{"connection_id", "cin:1", ReasonInvalidCharacters},
		{"stream", "s:1", ReasonInvalidCharacters},
		{"record_id", "cin:1", ""},
		{"record_id", "Projects/Roadmap", ""},
		{"record_id", "a..b", ""},
		{"record_id", "../x", ReasonInvalidCharacters},
		{"record_id", `x\.`, ReasonInvalidCharacters},
		{"record_id", "a\tb", ReasonInvalidCharacters},
	}
	for _, tt := range tests {
		t.Run(tt.label+"/"+tt.v, func(t *testing.T) {
			t.Parallel()
			err := ValidateSegment(tt.label, tt.v)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("ValidateSegment(%q, %q) = %v, want nil", tt.label, tt.v, err)
				}
				return
			}
			e := errOf(t, err)
			if e.Reason != tt.reason || e.Field != tt.label || e.Code != CodeInvalidID {
				t.Errorf("got %s/%s/%s, want %s/%s/%s", e.Code, e.Reason, e.Field, CodeInvalidID, tt.reason, tt.label)
			}
			if !strings.HasPrefix(e.Message, tt.label) {
				t.Errorf("message %q does not name %q", e.Message, tt.label)
			}
		})
	}
}

func TestRecordRefID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref  RecordRef
		want string
	}{
		{RecordRef{"cin_a", "messages", "m1"}, "cin_a/messages:m1"},
		{RecordRef{"", "messages", "m:1"}, "messages:m:1"},
		{RecordRef{"cin_w", "labels", "Projects/Roadmap"}, "cin_w/labels:Projects/Roadmap"},
		{RecordRef{"", "labels", "a/b:c"}, "labels:a/b:c"},
	}
	for _, tt := range tests {
		if got := tt.ref.ID(); got != tt.want {
			t.Errorf("%+v.ID() = %q, want %q", tt.ref, got, tt.want)
		}
		back, _, err := ParseID(tt.want)
		if err != nil || back != tt.ref {
			t.Errorf("ParseID(%q) = %+v, %v; want %+v", tt.want, back, err, tt.ref)
		}
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"cin_aaa/orders:o1", "orders:o1", "a/b/orders:o1", "orders:../../etc/passwd",
		"pdpp://record/cin_a%2Fmessages%3Am1", "pdpp://record/" + RecordHandle(RecordRef{"c", "s", "r"}), ":", "/:", "x/y:z:w",
		"cin_w/labels:Projects/Roadmap", "labels:a/../b", "c/s:./x", `c/s:a\..`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, form, err := ParseID(s)
		if err != nil {
			if e := errOf(t, err); e.Code != CodeInvalidID {
				t.Fatalf("code %q", e.Code)
			}
			return
		}
		for _, seg := range []string{ref.ConnectionID, ref.Stream} {
			if strings.ContainsAny(seg, `/\:`) || strings.Contains(seg, "..") || !utf8.ValidString(seg) || len(seg) > MaxSegmentBytes {
				t.Fatalf("accepted unsafe segment %q from %q", seg, s)
			}
		}
		for piece := range strings.FieldsFuncSeq(ref.RecordID, func(r rune) bool { return r == '/' || r == '\\' }) {
			if piece == "." || piece == ".." {
				t.Fatalf("accepted traversal record id %q from %q", ref.RecordID, s)
			}
		}
		if !utf8.ValidString(ref.RecordID) || len(ref.RecordID) > MaxSegmentBytes || strings.ContainsFunc(ref.RecordID, unicode.IsControl) {
			t.Fatalf("accepted unsafe record id %q from %q", ref.RecordID, s)
		}
		if ref.Stream == "" || ref.RecordID == "" {
			t.Fatalf("accepted incomplete ref %+v from %q", ref, s)
		}
		back, _, err := ParseID(ref.ID())
		if err != nil || back != ref {
			t.Fatalf("round trip %q -> %+v -> %q -> %+v, %v", s, ref, ref.ID(), back, err)
		}
		if form != FormURI && ref.ID() != s {
			t.Fatalf("text id %q re-rendered as %q", s, ref.ID())
		}
		if uriRef, _, err := ParseID(RecordURI(ref)); err != nil || uriRef != ref {
			t.Fatalf("RecordURI round trip of %+v: %+v, %v", ref, uriRef, err)
		}
	})
}
