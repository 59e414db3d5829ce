package softcache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
)

// A token verdict cached until the token itself expires, whichever of TTL
// and expiry comes first.
func Example() {
	verdicts := softcache.New[string](softcache.Options{TTL: 30 * time.Second, MaxEntries: 4096})
	tokenExp := time.Now().Add(10 * time.Second)
	v, err := verdicts.Get(context.Background(), "token-hash", func(ctx context.Context) (string, time.Time, error) {
		return "client", tokenExp, nil // e.g. from introspection, under ctx's own deadline
	})
	fmt.Println(v, err)
	// Output: client <nil>
}
