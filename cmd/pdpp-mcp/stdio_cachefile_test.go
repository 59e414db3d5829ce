//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// A FIFO at the credential path or the cursor-secret path stops stdio at
// once with a message naming it (a plain open would wait for a writer
// forever; runBinary fails the test after 30 s instead of hanging); a
// credential file others can read starts with a warning naming the chmod.
func TestStdioCacheFilesThatAreNotPrivateFiles(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := testenv.StartRS(t, testenv.Options{})
	for _, tc := range []struct {
		name       string
		setup      func(t *testing.T, dir, cachePath string)
		code       int
		wantStderr string
	}{
		{"FIFO at the credential path", func(t *testing.T, _, cachePath string) {
			mkfifo(t, cachePath)
		}, exitConfig, "is a named pipe (FIFO), not a regular file"},
		{"FIFO at the cursor-secret path", func(t *testing.T, dir, cachePath string) {
			writeFile(t, cachePath, credJSON(demodata.GmailToken, ""), 0o600)
			mkfifo(t, filepath.Join(dir, ".pdpp", credcache.CursorSecretFile))
		}, exitOK, "mcp-cursor-secret is a named pipe (FIFO), not a regular file"},
		{"credential file readable by others", func(t *testing.T, _, cachePath string) {
			writeFile(t, cachePath, credJSON(demodata.GmailToken, ""), 0o644)
		}, exitOK, "is readable by other users (mode 0644); run: chmod 600"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cachePath, _ := credcache.CacheFilePath(filepath.Join(dir, ".pdpp"), rs.URL)
			if err := os.MkdirAll(filepath.Dir(cachePath), 0o700); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir, cachePath)
			r := runBinary(t, bin, dir, nil, mcpSession, "--provider-url", rs.URL)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", r.code, tc.code, tc.wantStderr, r.stderr)
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
