package hosted

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeriesResolvesOncePerKey: concurrent callers get the same child per
// key, and each key is resolved exactly once.
func TestSeriesResolvesOncePerKey(t *testing.T) {
	t.Parallel()
	var resolved atomic.Int64
	s := newSeries(func(k routeStatus) *routeStatus {
		resolved.Add(1)
		return &k
	})
	keys := []routeStatus{{"/mcp", 200}, {"/mcp", 401}, {"/healthz", 200}, {"unmatched", 404}}
	got := make([][]*routeStatus, 8)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			for range 100 {
				got[g] = got[g][:0]
				for _, k := range keys {
					got[g] = append(got[g], s.get(k))
				}
			}
		})
	}
	wg.Wait()
	if n := resolved.Load(); n != int64(len(keys)) {
		t.Errorf("resolved %d times for %d keys", n, len(keys))
	}
	for g := range got {
		for i, k := range keys {
			if got[g][i] != got[0][i] {
				t.Errorf("goroutine %d got another child for %v", g, k)
			}
			if diff := cmp.Diff(k, *got[g][i], cmp.AllowUnexported(routeStatus{})); diff != "" {
				t.Errorf("child for %v (-want +got):\n%s", k, diff)
			}
		}
	}
}
