//go:build unix

package regularfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/regularfile"
)

// Open reads a regular file, refuses a FIFO (at once: a plain open would
// wait for a writer forever) and a directory, naming what it found; a
// file others may read gets a warning.
func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "secret")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, tc := range []struct {
		name, path, wantErr string
	}{
		{"regular", plain, ""},
		{"fifo", fifo, "named pipe"},
		{"directory", dir, "directory"},
	} {
		f, st, err := regularfile.Open(tc.path, "cursor secret")
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "cursor secret")):
			t.Errorf("%s: error %v, want one naming the cursor secret and %q", tc.name, err, tc.wantErr)
		}
		if f != nil {
			if w := regularfile.OthersMayRead(tc.path, "cursor secret", st); !strings.Contains(w, "chmod 600") {
				t.Errorf("%s: a 0644 file gave warning %q", tc.name, w)
			}
			f.Close()
		}
	}
}
