package credcache_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// TestCursorSecretIsCreatedOnceAndKept: the
// first use creates a private (0600) secret beside the credentials, every
// later use (another process, a restart) reads the same one, and
// concurrent first uses agree on one secret.
func TestCursorSecretIsCreatedOnceAndKept(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = 16
	secrets := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, path, warn, err := credcache.CursorSecret(root)
			if err != nil || warn != "" || path != filepath.Join(root, credcache.CursorSecretFile) {
				t.Errorf("first use %d: path %s, warn %q, err %v", i, path, warn, err)
			}
			secrets[i] = s
		})
	}
	wg.Wait()
	for i, s := range secrets {
		if len(s) < 32 || !bytes.Equal(s, secrets[0]) {
			t.Fatalf("use %d got %d bytes, different from use 0: concurrent first uses must agree", i, len(s))
		}
	}
	st, err := os.Stat(filepath.Join(root, credcache.CursorSecretFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file mode %v (err %v), want 0600", st.Mode().Perm(), err)
	}
	again, _, _, err := credcache.CursorSecret(root)
	if err != nil || !bytes.Equal(again, secrets[0]) {
		t.Errorf("a later use must read the kept secret (err %v)", err)
	}
	left, _ := filepath.Glob(filepath.Join(root, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestCursorSecretFileProblems: a secret readable by others still serves
// with a warning naming the fix; a file that is not ours is an error.
func TestCursorSecretFileProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		setup    func(path string) error
		wantErr  string
		wantWarn string
	}{
		{"readable by others", func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("k", 40)+"\n"), 0o644) }, "", "chmod 600"},
		{"too large", func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte("k"), 5000), 0o600) }, "too large", ""},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, "not a regular file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if err := tc.setup(filepath.Join(root, credcache.CursorSecretFile)); err != nil {
				t.Fatal(err)
			}
			s, _, warn, err := credcache.CursorSecret(root)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(s) != strings.Repeat("k", 40) || !strings.Contains(warn, tc.wantWarn) {
				t.Errorf("secret %q, warn %q, err %v", s, warn, err)
			}
		})
	}
}
