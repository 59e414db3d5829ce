package hosted

import (
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
)

// FuzzBearerToken: whatever the header, an accepted token is non-empty,
// bounded, printable ASCII without spaces, and a valid token round-trips.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer  abc ", "Basic abc", "Bearer", "Bearer a b", "Bearer \x00", "Bearer é", "Bearer " + strings.Repeat("x", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := bearerToken([]string{header})
		if !ok {
			if tok != "" {
				t.Fatalf("refused header returned token %q", tok)
			}
			return
		}
		if tok == "" || !bearer.WellFormed(tok) {
			t.Fatalf("accepted unusable token %q from %q", tok, header)
		}
		if again, ok := bearerToken([]string{"Bearer " + tok}); !ok || again != tok {
			t.Fatalf("token %q does not round-trip", tok)
		}
		if _, ok := bearerToken([]string{header, header}); ok {
			t.Fatal("two Authorization headers accepted")
		}
	})
}
