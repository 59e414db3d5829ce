package adapter_test

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// fakeCache is a credential cache file: its token and a stamp that
// changes on every write, read by Reload and CacheStamp.
type fakeCache struct {
	mu    sync.Mutex
	token string
	gen   int
	reads atomic.Int64
}

func (f *fakeCache) write(token string) {
	f.mu.Lock()
	f.token, f.gen = token, f.gen+1
	f.mu.Unlock()
}

func (f *fakeCache) load() ([]adapter.Grant, error) {
	f.reads.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return []adapter.Grant{adapter.NewGrant(f.token)}, nil
}

func (f *fakeCache) stamp() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.Itoa(f.gen)
}

// TestRewrittenCredentialServesTheNextCall: after
// credential_expired, a credential written to the cache serves the very
// next call — the adapter sees the file changed, it does not wait out a
// re-read interval (the clock here never moves, so without the change
// check the retry would fail) — and a burst of calls after a write shares
// one re-read.
func TestRewrittenCredentialServesTheNextCall(t *testing.T) {
	t.Parallel()
	clock := &struct {
		sync.Mutex
		t time.Time
	}{t: time.Now()}
	now := func() time.Time { clock.Lock(); defer clock.Unlock(); return clock.t }
	rs := testenv.StartRS(t, testenv.Options{TokenTTL: 10 * time.Minute, Now: now})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	cache := &fakeCache{token: demodata.GmailToken}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)},
		Reload: cache.load, CacheStamp: cache.stamp, Reconnect: "pdpp connect " + rs.URL, Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	read := map[string]any{"stream": "messages", "limit": 2}
	if r := c.call("query_records", read); r.IsError {
		t.Fatalf("fresh token: %s", r.text())
	}
	clock.Lock()
	clock.t = clock.t.Add(11 * time.Minute) // the RS's token lifetime passes
	clock.Unlock()
	if r := c.call("query_records", read); r.errorCode(t) != "credential_expired" {
		t.Fatalf("refused token, nothing fresh: %s", r.text())
	}
	fresh, err := rs.Server.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	cache.write(fresh.AccessToken)
	before := cache.reads.Load()
	var wg sync.WaitGroup
	const burst = 8
	errs := make([]string, burst)
	for i := range burst {
		wg.Go(func() {
			if r := c.call("query_records", read); r.IsError {
				errs[i] = r.text()
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("call %d right after the cache was rewritten: %s", i, e)
		}
	}
	if n := cache.reads.Load() - before; n != 1 {
		t.Errorf("%d cache re-reads for %d concurrent calls after one write; want 1", n, burst)
	}
}
