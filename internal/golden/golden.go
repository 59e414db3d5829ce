// Package golden keeps test output in files under testdata/: a test
// compares what it produced with the file, and `go test -update` rewrites
// the file instead (then the diff is read in review). It registers the
// -update flag, once for every package that uses it, so only test files
// import it (internal/importrules says so).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Updating reports whether this run rewrites golden files (-update).
func Updating() bool { return *update }

// Read returns the golden file at path to compare got with; under
// -update it first writes got there. A missing file fails the test: a
// golden that is not there would otherwise pass silently.
func Read(t testing.TB, path string, got []byte) []byte {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test -update to create it, then read the diff)", path, err)
	}
	return want
}

// Check compares got with the golden file at path (Read), as text, and
// reports a difference as a test error with the diff.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	want := Read(t, path, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from its golden file (-want +got); rerun with -update if intended:\n%s", path, diff)
	}
}
