package adapter_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// probeCalls counts the RS calls of schema(stream) other than the schema
// documents and the public metadata: the capability probes, and with
// detail:"full" the exhaustive document. With hold set it holds each until
// want of them are in flight at once.
type probeCalls struct {
	mu             sync.Mutex
	seen, now, max int
	want           int
	all            chan struct{}
}

func (p *probeCalls) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		compact := r.URL.Path == "/v1/schema" && r.URL.Query().Get("detail") != "full"
		if compact || strings.HasPrefix(r.URL.Path, "/.well-known/") {
			next.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.seen++
		p.now++
		p.max = max(p.max, p.now)
		if p.now == p.want && p.all != nil {
			close(p.all)
		}
		all := p.all
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			p.now--
			p.mu.Unlock()
		}()
		if all != nil {
			select {
			case <-all:
			case <-r.Context().Done():
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// schema(stream)'s first-time capability probes, and detail:"full"'s
// exhaustive document beside them, are one wave: every call is in flight
// at once (the RS holds each until all have arrived, so probes made a few
// at a time, or the document read after the probes, never get answers).
func TestSchemaStreamProbesInOneWave(t *testing.T) {
	t.Parallel()
	args := map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "detail": "full"}
	// How many calls the page makes, counted without holding any.
	count := &probeCalls{}
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared, Raw: count.wrap}, demodata.GmailToken)
	if r := e.c.call("schema", args); r.IsError {
		t.Fatalf("schema: %s", r.text())
	}
	if count.seen < 2 {
		t.Fatalf("the page makes %d calls besides its schema; the test needs probes and the document", count.seen)
	}
	held := &probeCalls{want: count.seen, all: make(chan struct{})}
	e = newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared, Raw: held.wrap}, demodata.GmailToken)
	r := e.c.call("schema", args)
	held.mu.Lock()
	defer held.mu.Unlock()
	if held.max != count.seen || r.IsError || strings.Contains(r.text(), "could not be checked now") {
		t.Errorf("%d of %d calls in flight at once (want all); page:\n%s", held.max, count.seen, r.text())
	}
}
