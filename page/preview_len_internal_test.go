package page

import (
	"strings"
	"testing"
)

// moreFieldsLen counts exactly what moreFields writes, across digit
// boundaries and every combination of shown, left and empty members.
func TestMoreFieldsLenIsItsLength(t *testing.T) {
	t.Parallel()
	counts := []int{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345}
	for _, shown := range []int{0, 1, 2, 100} {
		for _, left := range counts {
			for _, empty := range counts {
				if got, want := moreFieldsLen(shown, left, empty), len(moreFields(shown, left, empty)); got != want {
					t.Errorf("moreFieldsLen(%d, %d, %d) = %d, want %d (%q)", shown, left, empty, got, want, moreFields(shown, left, empty))
				}
			}
		}
	}
}

// FuzzOneLine: the no-copy check agrees with the general normalisation.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " ", "a b", "a  b", " a", "a ", "a\tb", "a\u00a0b", "é b\u2028", "\xff x", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
