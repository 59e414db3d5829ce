package page

import (
	"strings"
	"testing"
)

// FuzzStripMarks: StripMarks removes exactly the tags tokenizeMarks reads
// (the one definition TruncateMarked uses too).
func FuzzStripMarks(f *testing.F) {
	for _, s := range []string{"", "plain", "<mark>a</mark> b", "<<mark>>", "</mark><mark>", "<mar", "a<", "<MARK>x</MARK>", "<mark></mark>", "x</mark"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want strings.Builder
		for _, tok := range tokenizeMarks(s) {
			if tok.tag == 0 {
				want.WriteString(tok.text)
			}
		}
		if got := StripMarks(s); got != want.String() {
			t.Fatalf("StripMarks(%q) = %q, want %q", s, got, want.String())
		}
	})
}
