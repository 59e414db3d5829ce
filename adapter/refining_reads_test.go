package adapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// inFlight counts the record reads the mock RS is serving at once and
// holds them until the test opens the gate, so every read the adapter
// allows is in flight together.
type inFlight struct {
	mu        sync.Mutex
	now, peak int
	atLimit   chan struct{} // closed when now first reaches limit
	limit     int
	gate      chan struct{}
}

func (f *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/records/") {
			next.ServeHTTP(w, r)
			return
		}
		f.mu.Lock()
		f.now++
		f.peak = max(f.peak, f.now)
		if f.now == f.limit {
			select {
			case <-f.atLimit:
			default:
				close(f.atLimit)
			}
		}
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.now--
			f.mu.Unlock()
		}()
		select {
		case <-f.gate:
		case <-r.Context().Done():
			return
		}
		next.ServeHTTP(w, r)
	})
}

// 32 users' first searches at once (hosted: one adapter, a token each, so
// no title is shared or cached) never have more title reads in flight at
// the RS than the process's configured limit, though each page starts all
// of its reads at once; pages whose reads are still queued or held answer
// within their budget with those titles marked pending.
func TestRefiningReadsBoundedAcrossConcurrentSearches(t *testing.T) {
	t.Parallel()
	const users, limit = 32, 3
	f := &inFlight{limit: limit, atLimit: make(chan struct{}), gate: make(chan struct{})}
	rs := testenv.StartRS(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared, Raw: f.wrap, NoContract: true})
	var once sync.Once
	open := func() { once.Do(func() { close(f.gate) }) }
	t.Cleanup(open) // before the server's Close waits for the held reads
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{RS: rc, MaxRefiningReads: limit,
		Waits: adapter.Waits{HitTitles: 30 * time.Millisecond, Source: adapter.Unbounded}})
	if err != nil {
		t.Fatal(err)
	}
	readsDone := make(chan struct{}, 1024)
	adapter.SetTitleReadDone(srv, func() { readsDone <- struct{}{} })
	args := map[string]any{"q": "invoice", "streams": []string{"messages"}, "limit": 10, "connection_id": demodata.GmailWorkConnectionID}
	results := make([]toolResult, users)
	var wg sync.WaitGroup
	for i := range users {
		tok, err := rs.Server.MintClientToken(demodata.GmailGrantID)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { results[i] = hostedSearch(t, srv, tok.AccessToken, args) })
	}
	wg.Wait()
	var pages []searchResults
	for _, r := range results {
		pages = append(pages, decodeSearch(t, r))
	}
	<-f.atLimit // the limit was reached, so the bound below was tested
	f.mu.Lock()
	peak := f.peak
	f.mu.Unlock()
	if peak > limit {
		t.Errorf("%d title reads in flight at the RS at once, want at most %d", peak, limit)
	}
	pending, reads := 0, 0
	for _, p := range pages {
		reads += len(p.Results)
		for _, h := range p.Results {
			if strings.HasPrefix(h.Title, "(title pending) ") {
				pending++
			}
		}
	}
	if pending == 0 {
		t.Errorf("no title is marked pending, though at most %d of %d reads could run before the pages were due", limit, reads)
	}
	// Let the held and queued reads finish (each hit's read ends once),
	// still under the limit.
	open()
	for range reads {
		<-readsDone
	}
	f.mu.Lock()
	peak = f.peak
	f.mu.Unlock()
	if peak > limit {
		t.Errorf("%d title reads in flight at the RS at once after the gate opened, want at most %d", peak, limit)
	}
}

// hostedSearch calls search as a hosted request of bearer's grant (safe
// to call from any goroutine: failures are t.Error).
func hostedSearch(t *testing.T, srv *adapter.Server, bearer string, args map[string]any) toolResult {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "search", "arguments": args}})
	g := adapter.NewGrant(bearer)
	ctx := adapter.WithRequest(context.Background(), adapter.Request{Grant: &g})
	raw, err := json.Marshal(srv.MCP().HandleMessage(ctx, b))
	var env struct {
		Result toolResult `json:"result"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &env)
	}
	if err != nil {
		t.Errorf("search: %v %s", err, raw)
	}
	return env.Result
}
