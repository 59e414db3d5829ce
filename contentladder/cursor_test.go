package contentladder

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/golden"
)

var (
	testNow = time.Date(2026, 4, 24, 10, 30, 0, 0, time.UTC)
	testRef = RecordRef{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "message_bodies", "19659a5b3c1d4e2f"}
)

func testKey(t testing.TB, fill byte) *CursorKey {
	t.Helper()
	k, err := NewCursorKey(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func testCursor() Cursor {
	return Cursor{Ref: testRef, FieldPath: "body_text", OffsetChars: 4096, LimitChars: 4096,
		Digest: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Grant:  "grt_0000000000000001", Expires: testNow.Add(time.Hour)}
}

func testBinding() Binding {
	return Binding{Ref: testRef, FieldPath: "body_text", Grant: "grt_0000000000000001", Now: testNow}
}

func TestNewCursorKeyRejectsShortSecret(t *testing.T) {
	t.Parallel()
	if _, err := NewCursorKey(make([]byte, 31)); err == nil {
		t.Fatal("31-byte secret accepted")
	}
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	c := testCursor()
	s := k.Seal(c)
	if !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(s) {
		t.Fatalf("cursor %q is not URL-safe", s)
	}
	if len(s) > 160 {
		t.Errorf("cursor is %d chars, budget 160", len(s))
	}
	// Replicas sharing the secret accept each other's cursors.
	got, err := testKey(t, 1).Open(s, testBinding())
	if err != nil {
		t.Fatal(err)
	}
	want := c
	want.Digest = got.Digest // a fingerprint; compared via CheckDigest below
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := CheckDigest(got, c.Digest); err != nil {
		t.Errorf("CheckDigest(same digest) = %v", err)
	}
	if err := CheckDigest(got, "sha256:other"); err == nil || errOf(t, err).Reason != ReasonStale {
		t.Errorf("CheckDigest(other digest) = %v, want stale", err)
	}
	if strings.Contains(s, "bearer") || strings.Contains(got.Digest, "9f86d0") {
		t.Error("cursor leaks its inputs")
	}
	// Resealing an opened cursor keeps the digest binding.
	again, err := k.Open(k.Seal(got), testBinding())
	if err != nil || CheckDigest(again, c.Digest) != nil || CheckDigest(again, "x") == nil {
		t.Errorf("reseal lost the digest: %v", err)
	}
}

func TestCursorOpenRejects(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	good := k.Seal(testCursor())
	other := RecordRef{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "message_bodies", "other"}
	mut := func(f func(*Binding)) Binding { b := testBinding(); f(&b); return b }
	tests := []struct {
		name, cursor string
		b            Binding
		reason       string
	}{
		{"empty", "", testBinding(), ReasonMalformed},
		{"decimal TS cursor", "1256", testBinding(), ReasonMalformed},
		{"not base64", good[:20] + "*" + good[21:], testBinding(), ReasonMalformed},
		{"too long", strings.Repeat("A", 300), testBinding(), ReasonMalformed},
		{"truncated", good[:len(good)-4], testBinding(), ReasonMalformed},
		{"truncated whole bytes", reencode(t, good, func(b []byte) []byte { return b[:len(b)-1] }), testBinding(), ReasonTampered},
		{"payload edited", reencode(t, good, func(b []byte) []byte { b[3]++; return b }), testBinding(), ReasonTampered},
		{"other key", testKey(t, 2).Seal(testCursor()), testBinding(), ReasonTampered},
		{"flipped char", good[:10] + flip(good[10]) + good[11:], testBinding(), ReasonTampered},
		{"foreign grant", good, mut(func(b *Binding) { b.Grant = "grt_0000000000000002" }), ReasonForeignGrant},
		{"wrong record", good, mut(func(b *Binding) { b.Ref = other }), ReasonWrongRecord},
		{"legacy form of same record", good, mut(func(b *Binding) { b.Ref.ConnectionID = "" }), ReasonWrongRecord},
		{"wrong field", good, mut(func(b *Binding) { b.FieldPath = "subject" }), ReasonWrongField},
		{"expired", good, mut(func(b *Binding) { b.Now = testNow.Add(2 * time.Hour) }), ReasonExpired},
		{"expires exactly now", good, mut(func(b *Binding) { b.Now = testNow.Add(time.Hour) }), ReasonExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := k.Open(tt.cursor, tt.b)
			if err == nil {
				t.Fatalf("Open accepted: %+v", c)
			}
			e := errOf(t, err)
			if e.Code != CodeInvalidCursor || e.Reason != tt.reason {
				t.Errorf("got %s/%s, want %s/%s (%s)", e.Code, e.Reason, CodeInvalidCursor, tt.reason, e.Message)
			}
			wantPrefix := fmt.Sprintf("cursor for field %q of record %q ", tt.b.FieldPath, tt.b.Ref.ID())
			if !strings.HasPrefix(e.Message, wantPrefix) || !strings.Contains(e.Message, "restart with offset_chars") {
				t.Errorf("message %q lacks field/record or recovery hint", e.Message)
			}
		})
	}
}

func TestCursorExpiredMessage(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	ref := RecordRef{"cin_x", "message_bodies", "m1"}
	s := k.Seal(Cursor{Ref: ref, FieldPath: "body_text", Expires: testNow})
	_, err := k.Open(s, Binding{Ref: ref, FieldPath: "body_text", Now: testNow.Add(time.Second)})
	want := `cursor for field "body_text" of record "cin_x/message_bodies:m1" has expired; restart with offset_chars (or omit the cursor)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestCursorDefaults(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	s := k.Seal(Cursor{Ref: testRef, FieldPath: "f", OffsetChars: -5})
	c, err := k.Open(s, Binding{Ref: testRef, FieldPath: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if c.OffsetChars != 0 || c.Digest != "" {
		t.Errorf("negative offset/empty digest: %+v", c)
	}
	if d := time.Until(c.Expires); d < DefaultCursorTTL-time.Minute || d > DefaultCursorTTL {
		t.Errorf("default expiry %v from now, want ~%v", d, DefaultCursorTTL)
	}
	if CheckDigest(c, "anything") != nil {
		t.Error("cursor without digest reported stale")
	}
	if r := RandomCursorKey(); r.Seal(c) == RandomCursorKey().Seal(c) {
		t.Error("two random keys sealed identically")
	}
}

// TestCursorGolden pins the cursor format and its length for a typical ref.
func TestCursorGolden(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	c := testCursor()
	noDigest := c
	noDigest.Digest = ""
	got := fmt.Sprintf("grant %s\ncursor %s\nlen %d\ncursor_no_digest_len %d\n",
		"grt_0000000000000001", k.Seal(c), len(k.Seal(c)), len(k.Seal(noDigest)))
	golden.Check(t, filepath.Join("testdata", "cursor.golden"), []byte(got))
}

// TestCursorEveryByteChange flips each character of a cursor to every other
// base64url character: all must be rejected.
func TestCursorEveryByteChange(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	s := k.Seal(testCursor())
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(s) {
		for _, r := range alphabet {
			if byte(r) == s[i] {
				continue
			}
			m := s[:i] + string(r) + s[i+1:]
			if _, err := k.Open(m, testBinding()); err == nil {
				t.Fatalf("mutation at %d (%q) accepted", i, m)
			}
		}
	}
}

// reencode edits a cursor's bytes and re-encodes them, producing a
// well-formed cursor whose MAC no longer matches.
func reencode(t *testing.T, s string, edit func([]byte) []byte) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(edit(b))
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// FuzzCursorOpen fails on any accepted cursor that is not exactly the
// issued string: Seal of what Open returned must give the input back.
func FuzzCursorOpen(f *testing.F) {
	k := testKey(f, 1)
	good := k.Seal(testCursor())
	f.Add(good)
	f.Add("1256")
	f.Add(good[:len(good)-1])
	for _, v := range nonCanonical(good) {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := k.Open(s, testBinding())
		if err == nil {
			if s != good {
				t.Fatalf("forged cursor %q accepted: %+v", s, c)
			}
			if again := k.Seal(c); again != s {
				t.Fatalf("accepted cursor %q re-seals as %q", s, again)
			}
			return
		}
		if e := errOf(t, err); e.Code != CodeInvalidCursor {
			t.Fatalf("code %q", e.Code)
		}
	})
}

func FuzzCursorRoundTrip(f *testing.F) {
	k := testKey(f, 1)
	f.Add("c", "s", "r", "f", "g", "d", 0, 10, uint(5), 3600)
	f.Add("cin_x", "message_bodies", "m:1", "body_text", "grt_t", "", 1<<20, 16384, uint(0), 1)
	f.Fuzz(func(t *testing.T, conn, stream, rec, fieldPath, grant, digest string, off, limit int, pos uint, ttl int) {
		if off < 0 || off > MaxOffsetChars || limit < 0 || limit > MaxWindowChars || ttl <= 0 {
			return
		}
		ref := RecordRef{conn, stream, rec}
		c := Cursor{Ref: ref, FieldPath: fieldPath, OffsetChars: off, LimitChars: limit, Digest: digest,
			Grant: grant, Expires: testNow.Add(time.Duration(ttl) * time.Second)}
		b := Binding{Ref: ref, FieldPath: fieldPath, Grant: grant, Now: testNow}
		s := k.Seal(c)
		got, err := k.Open(s, b)
		if err != nil {
			t.Fatalf("Open(Seal(%+v)): %v", c, err)
		}
		if got.OffsetChars != off || got.LimitChars != limit || !got.Expires.Equal(c.Expires) || CheckDigest(got, digest) != nil {
			t.Fatalf("round trip %+v -> %+v", c, got)
		}
		// One changed byte anywhere must be rejected.
		i := int(pos % uint(len(s)))
		m := []byte(s)
		m[i] ^= 1 + byte(pos>>8)%0x7f
		if _, err := k.Open(string(m), b); err == nil {
			t.Fatalf("mutated cursor %q (from %q) accepted", m, s)
		}
	})
}

// TestCursorIsExactlyTheIssuedString: every other spelling of an issued
// cursor is malformed, including one whose MAC verifies over a payload
// that is not what Seal writes.
func TestCursorIsExactlyTheIssuedString(t *testing.T) {
	t.Parallel()
	k := testKey(t, 1)
	good := k.Seal(testCursor())
	variants := nonCanonical(good)
	// Same values, offset spelled as a longer varint, MAC recomputed.
	c := testCursor()
	canonical := cursorPayload(uint64(c.Expires.Unix()), uint64(c.OffsetChars), uint64(c.LimitChars),
		fingerprint("grant", c.Grant), fingerprint("record", c.Ref.ID()), fingerprint("field", c.FieldPath), digestFP(c.Digest))
	overlong := encoder{b: append([]byte(nil), canonical.b...)}
	// 4096 = 0x80 0x20 canonically; 0x80 0xA0 0x00 is the same value in three bytes.
	if !bytes.Contains(overlong.b, []byte{0x80, 0x20}) {
		t.Fatal("test assumes offset 4096 encodes as 0x80 0x20")
	}
	overlong.b = bytes.Replace(overlong.b, []byte{0x80, 0x20}, []byte{0x80, 0xa0, 0x00}, 1)
	overlong.raw(k.sum(overlong.b))
	variants["overlong varint, valid MAC"] = overlong.base64url()
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := k.Open(v, testBinding())
			if err == nil {
				t.Fatalf("non-canonical cursor %q (issued %q) accepted: %+v", v, good, got)
			}
			// Extra bytes shift the MAC, so those read as tampered.
			if e := errOf(t, err); e.Code != CodeInvalidCursor || (e.Reason != ReasonMalformed && e.Reason != ReasonTampered) {
				t.Errorf("got %s/%s (%s), want %s/%s or %s", e.Code, e.Reason, e.Message, CodeInvalidCursor, ReasonMalformed, ReasonTampered)
			}
		})
	}
}
