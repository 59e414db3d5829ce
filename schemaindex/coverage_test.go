package schemaindex

import "testing"

// TestCoverageCovers pins the "covers" order routing uses between
// overlapping grants: every stream, connection and field of the other.
func TestCoverageCovers(t *testing.T) {
	t.Parallel()
	full := Coverage{"messages": {Connections: []string{"p", "w"}, Fields: []string{"id", "subject", "from"}}}
	narrow := Coverage{"messages": {Connections: []string{"w"}, Fields: []string{"id", "subject"}}}
	moreFields := Coverage{"messages": {Connections: []string{"w"}, Fields: []string{"id", "subject", "body"}}}
	twoStreams := Coverage{"messages": full["messages"], "threads": {Connections: []string{"w"}}}
	for _, tc := range []struct {
		name     string
		a, b     Coverage
		aCoversB bool
		bCoversA bool
	}{
		{"full over narrow", full, narrow, true, false},
		{"same", narrow, narrow, true, true},
		{"neither: connections vs fields", full, moreFields, false, false},
		{"an extra stream", twoStreams, full, true, false},
		{"empty", Coverage{}, narrow, false, true},
	} {
		if got := tc.a.Covers(tc.b); got != tc.aCoversB {
			t.Errorf("%s: a.Covers(b) = %t", tc.name, got)
		}
		if got := tc.b.Covers(tc.a); got != tc.bCoversA {
			t.Errorf("%s: b.Covers(a) = %t", tc.name, got)
		}
	}
}
