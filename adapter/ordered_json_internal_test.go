package adapter

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encoderBytes is what page.MarshalNoEscape's Encoder path writes for v.
func encoderBytes(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}

func TestWriteNoEscapeMatchesEncoder(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		"", "plain id cin_1/messages:abc", "<mark>tag</mark> & more", `quote " and \ backslash`,
		"line\nbreak\ttab\b\f\x01", "ünï 😀", "\u2028\u2029", "bad \xff utf8", "~ tilde \x7f del",
		true, false, 0, -7, math.MaxInt64, int64(math.MinInt64), 3.5, nil, []string{"a", "<b>"},
		map[string]any{"k": 1},
	} {
		var buf bytes.Buffer
		writeNoEscape(&buf, v)
		if diff := cmp.Diff(encoderBytes(v), buf.String()); diff != "" {
			t.Errorf("%#v (-encoder +writeNoEscape):\n%s", v, diff)
		}
	}
}

// FuzzWriteNoEscapeString: every string is written as encoding/json
// (HTML escaping off) writes it.
func FuzzWriteNoEscapeString(f *testing.F) {
	for _, s := range []string{"", "abc", "<&>", "\"\\", "\x00\x1f\x7f\x80", "é", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		writeNoEscape(&buf, s)
		if want := encoderBytes(s); buf.String() != want {
			t.Fatalf("%q: got %s, want %s", s, buf.String(), want)
		}
	})
}
