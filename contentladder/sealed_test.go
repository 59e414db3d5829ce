package contentladder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

func sealKey(t testing.TB) *contentladder.CursorKey {
	t.Helper()
	k, err := contentladder.NewCursorKey([]byte(strings.Repeat("s", contentladder.MinCursorSecretBytes)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealedPayloadOpensOnlyAsIssued(t *testing.T) {
	t.Parallel()
	k := sealKey(t)
	payload := []byte("\x01\x00page state")
	s := k.SealPayload("records", payload)
	got, err := k.OpenPayload("records", "cursor", s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(payload, got); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
	other := contentladder.RandomCursorKey()
	flipped := []byte(s)
	flipped[3] ^= 1
	for _, tc := range []struct {
		name, purpose, value, reason string
		key                          *contentladder.CursorKey
	}{
		{"other purpose", "search", s, contentladder.ReasonTampered, k},
		{"other key", "records", s, contentladder.ReasonTampered, other},
		{"flipped byte", "records", string(flipped), contentladder.ReasonTampered, k},
		{"padding added", "records", s + "=", contentladder.ReasonMalformed, k},
		{"newline inserted", "records", s[:4] + "\n" + s[4:], contentladder.ReasonMalformed, k},
		{"truncated", "records", s[:len(s)-1], "", k},
		{"empty", "records", "", contentladder.ReasonMalformed, k},
		{"huge", "records", strings.Repeat("A", 20000), contentladder.ReasonMalformed, k},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.key.OpenPayload(tc.purpose, "cursor", tc.value)
			var ce *contentladder.Error
			if !errors.As(err, &ce) || ce.Code != contentladder.CodeInvalidCursor {
				t.Fatalf("err = %v, want invalid_cursor", err)
			}
			if tc.reason != "" && ce.Reason != tc.reason {
				t.Errorf("reason %q, want %q", ce.Reason, tc.reason)
			}
		})
	}
}

// FuzzOpenPayload: whatever opens is exactly the seal of what it opened
// to (one string per payload), and nothing else opens.
func FuzzOpenPayload(f *testing.F) {
	k := sealKey(f)
	for _, p := range []string{"", "x", "\x01\x02state", strings.Repeat("z", 300)} {
		f.Add(k.SealPayload("p", []byte(p)))
	}
	f.Add("AAAA")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		payload, err := k.OpenPayload("p", "cursor", s)
		if err != nil {
			return
		}
		if again := k.SealPayload("p", payload); again != s {
			t.Fatalf("opened a non-canonical value %q (canonical %q)", s, again)
		}
	})
}
