package contentladder

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/golden"
)

// checkGolden compares got with testdata/name. A missing golden file is a
// failure (not a silent pass): run `go test ./contentladder -update` once and
// review the diff.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	want := golden.Read(t, path, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// errOf returns err as *Error or fails the test.
func errOf(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %v (%T) is not *Error", err, err)
	}
	return e
}
