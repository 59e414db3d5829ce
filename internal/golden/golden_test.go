package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// A missing golden fails rather than passing; a present one is returned
// as it is, whatever the test produced.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ft := &recordingTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		Read(ft, filepath.Join(dir, "missing.golden"), []byte("x"))
	}()
	if !ft.fatal {
		t.Error("a missing golden file did not fail the test")
	}
	if Updating() {
		return // -update writes what the test produced: nothing to compare
	}
	path := filepath.Join(dir, "hello.golden")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := string(Read(t, path, []byte("not what the file holds"))); got != "hello\n" {
		t.Errorf("Read = %q, want the file's bytes", got)
	}
}

// recordingTB records a Fatal instead of ending the test.
type recordingTB struct {
	testing.TB
	fatal bool
}

func (r *recordingTB) Fatalf(string, ...any) { r.fatal = true; panic("fatal") }
func (r *recordingTB) Fatal(...any)          { r.fatal = true; panic("fatal") }
func (r *recordingTB) Helper()               {}
