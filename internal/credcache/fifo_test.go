//go:build unix

package credcache_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// within runs f and fails the test when it has not returned in 10 s: a
// read that blocks on a FIFO must fail the test, not hang the suite.
func within(t *testing.T, f func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("blocked on a FIFO")
	}
}

// A FIFO at the credential path or the cursor-secret path is refused at
// once with a message naming it: opening it plainly would wait for a
// writer forever.
func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		at   func(root string) string
		run  func(root string) error
		// named: the error names the FIFO (else only "does not block").
		named bool
	}{
		{"credential cache", func(root string) string {
			p, _ := credcache.CacheFilePath(root, credProvider)
			return p
		}, func(root string) error {
			_, _, err := credcache.Load(root, credProvider, credNow)
			return err
		}, true},
		{"stamp, renew command and refresh", func(root string) string {
			p, _ := credcache.CacheFilePath(root, credProvider)
			return p
		}, func(root string) error {
			credcache.RenewCommand(root, credProvider)
			credcache.Stamp(filepath.Join(root, "clients", "127.0.0.1_7662.json"))
			_, err := credcache.Refresher{CacheRoot: root, ProviderURL: credProvider}.Refresh(context.Background(), "x")
			if err != nil {
				return err
			}
			return os.ErrInvalid // each passed the FIFO by without blocking
		}, false},
		{"cursor secret", func(root string) string { return filepath.Join(root, credcache.CursorSecretFile) }, func(root string) error {
			_, _, _, err := credcache.CursorSecret(root)
			return err
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := tc.at(root)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			var err error
			within(t, func() { err = tc.run(root) })
			if err == nil {
				t.Fatal("a FIFO was accepted")
			}
			if tc.named && (!strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), path)) {
				t.Errorf("message does not name the FIFO at %s: %v", path, err)
			}
		})
	}
}

// A credential file other users can read is named with the chmod that
// fixes it; a private one is not.
func TestPermissionWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode os.FileMode
		want bool
	}{{0o600, false}, {0o644, true}, {0o640, true}} {
		path := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(path, []byte("{}"), tc.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, tc.mode); err != nil {
			t.Fatal(err)
		}
		w := credcache.PermissionWarning(path)
		if got := w != "" && strings.Contains(w, "chmod 600 "+path); got != tc.want {
			t.Errorf("mode %#o: warning %q", tc.mode, w)
		}
	}
}
