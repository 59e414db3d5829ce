package credcache_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// TestStampSeesEveryRewrite: every way `pdpp connect` may write the cache
// (in place with a same-length token, a new file renamed over the old,
// removal) gives another stamp; an untouched file keeps its stamp.
func TestStampSeesEveryRewrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rewrite func(path string) error
		same    bool
	}{
		{"untouched", func(string) error { return nil }, true},
		{"in place, same length", func(p string) error { return os.WriteFile(p, []byte(`{"credential":{"access_token":"bbbb"}}`), 0o600) }, false},
		{"renamed over", func(p string) error {
			tmp := p + ".new"
			if err := os.WriteFile(tmp, []byte(`{"credential":{"access_token":"aaaa"}}`), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, p)
		}, false},
		{"removed", os.Remove, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "cache.json")
			if err := os.WriteFile(path, []byte(`{"credential":{"access_token":"aaaa"}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			before := credcache.Stamp(path)
			if err := tc.rewrite(path); err != nil {
				t.Fatal(err)
			}
			if after := credcache.Stamp(path); (after == before) != tc.same {
				t.Errorf("stamp %q → %q; same = %t, want %t", before, after, after == before, tc.same)
			}
		})
	}
}
