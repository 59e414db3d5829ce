package credcache_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// The advice names an absolute cache root (it is followed in another
// terminal) and quotes what a shell would split or expand.
func TestConnectCommand(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs(".pdpp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ url, root, want string }{
		{"https://rs.example", "", "pdpp-mcp connect https://rs.example"},
		{"https://rs.example", ".pdpp", "pdpp-mcp connect https://rs.example --cache-root " + abs},
		{"https://rs.example", "/home/a b/.pdpp", "pdpp-mcp connect https://rs.example --cache-root '/home/a b/.pdpp'"},
		{"https://rs.example/?a=1&b=2", "/c", "pdpp-mcp connect 'https://rs.example/?a=1&b=2' --cache-root /c"},
		{"https://rs.example", "/it's", `pdpp-mcp connect https://rs.example --cache-root '/it'\''s'`},
	} {
		if diff := cmp.Diff(tc.want, credcache.ConnectCommand(tc.url, tc.root)); diff != "" {
			t.Errorf("ConnectCommand(%q, %q) (-want +got):\n%s", tc.url, tc.root, diff)
		}
	}
}
