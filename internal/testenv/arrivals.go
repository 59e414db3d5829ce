package testenv

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// Arrivals counts the mock RS's requests whose path starts with a prefix
// and lets a test wait for the n-th: the mock signals each arrival, so the
// test neither sleeps nor polls the request log. Pass Observe as
// Options.OnRequest.
type Arrivals struct {
	prefix string

	mu      sync.Mutex
	n       int
	changed chan struct{} // closed and replaced at every counted arrival
}

// NewArrivals counts the requests under prefix (e.g. "/v1/schema").
func NewArrivals(prefix string) *Arrivals {
	return &Arrivals{prefix: prefix, changed: make(chan struct{})}
}

// Observe counts r when its path is under the prefix. It never blocks.
func (a *Arrivals) Observe(r rstest.RecordedRequest) {
	if !strings.HasPrefix(r.Path, a.prefix) {
		return
	}
	a.mu.Lock()
	a.n++
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
}

// Await returns once n requests under the prefix have arrived. within only
// turns a hang into a failure; it decides nothing a passing run sees.
func (a *Arrivals) Await(t testing.TB, n int, within time.Duration) {
	t.Helper()
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		a.mu.Lock()
		got, changed := a.n, a.changed
		a.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("%d of %d requests under %s reached the mock RS in %s", got, n, a.prefix, within)
		}
	}
}
