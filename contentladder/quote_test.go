package contentladder

import (
	"strings"
	"testing"
)

// TestQuoteBoundsAndEscapes pins the cut quote makes of untrusted input:
// at most 80 runes with the ellipsis as the 80th, never inside a rune,
// each invalid byte one U+FFFD, control bytes escaped.
func TestQuoteBoundsAndEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "a/b:c", `"a/b:c"`},
		{"exactly 80 runes", strings.Repeat("é", 80), `"` + strings.Repeat("é", 80) + `"`},
		{"81 runes cut to 79 and an ellipsis", strings.Repeat("é", 81), `"` + strings.Repeat("é", 79) + `…"`},
		{"2 KiB of garbage", strings.Repeat("x", 2048), `"` + strings.Repeat("x", 79) + `…"`},
		{"each invalid byte one replacement", "a\xff\xfeb", "\"a\ufffd\ufffdb\""},
		{"invalid bytes count as runes", strings.Repeat("\xff", 81), `"` + strings.Repeat("\ufffd", 79) + `…"`},
		{"control bytes escaped", "a\x00\nb", `"a\x00\nb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := quote(tt.in); got != tt.want {
				t.Errorf("quote(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
