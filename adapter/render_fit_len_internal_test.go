package adapter

import "testing"

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
