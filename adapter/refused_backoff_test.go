package adapter_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// bearerCounter counts the RS requests made with bearers in a set.
type bearerCounter struct {
	mu    sync.Mutex
	watch map[string]bool
	n     int
}

func (b *bearerCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		if b.watch[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] {
			b.n++
		}
		b.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (b *bearerCounter) count() int { b.mu.Lock(); defer b.mu.Unlock(); return b.n }

// A stdio credential cache full of tokens the RS refuses (401) costs one
// RS request per dead token once, not on every call: a refused token is
// left out (a credential_expired warning naming until when) for a minute,
// then asked again. The clock is injected.
func TestRefusedTokensAreNotAskedAgainForAWhile(t *testing.T) {
	t.Parallel()
	const dead = 40
	counter := &bearerCounter{watch: map[string]bool{}}
	grants := []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}
	for range dead {
		var b [16]byte
		_, _ = rand.Read(b[:])
		tok := hex.EncodeToString(b[:])
		counter.watch[tok] = true
		grants = append(grants, adapter.NewGrant(tok))
	}
	rs := testenv.StartRS(t, testenv.Options{Raw: counter.wrap, NoContract: true})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	srv, err := adapter.New(adapter.Config{RS: rc, Now: clk.Now, Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	type step struct {
		DeadRequests int
		Failed       bool
		Warned       bool
	}
	call := func(tool string, args map[string]any) step {
		before := counter.count()
		r := c.call(tool, args)
		return step{DeadRequests: counter.count() - before, Failed: r.IsError,
			Warned: strings.Contains(r.text(), "not asked again until 2026-03-01T12:")}
	}
	var got []step
	got = append(got, call("schema", map[string]any{}))
	clk.advance(5 * time.Second) // past the schema cache's error memory
	got = append(got, call("schema", map[string]any{}))
	got = append(got, call("search", map[string]any{"q": "roadmap"}))
	clk.advance(time.Minute) // the back-off is over: asked again, once
	got = append(got, call("schema", map[string]any{}))
	want := []step{{DeadRequests: dead}, {Warned: true}, {Warned: true}, {DeadRequests: dead}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RS requests with the %d refused tokens per call (-want +got):\n%s", dead, diff)
	}
}

// A credential cache with more grants than a session serves is refused
// with a message saying what to do.
func TestGrantCap(t *testing.T) {
	t.Parallel()
	rc, err := rsclient.New(rsclient.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	grants := make([]adapter.Grant, adapter.MaxGrants+1)
	for i := range grants {
		grants[i] = adapter.NewGrant(strings.Repeat("t", i+1))
	}
	if _, err := adapter.New(adapter.Config{RS: rc, Grants: grants[:adapter.MaxGrants]}); err != nil {
		t.Fatalf("%d grants: %v", adapter.MaxGrants, err)
	}
	_, err = adapter.New(adapter.Config{RS: rc, Grants: grants})
	if err == nil || !strings.Contains(err.Error(), "holds 65 grants; a session serves at most 64") || !strings.Contains(err.Error(), "remove the grants you no longer use") {
		t.Errorf("65 grants: %v", err)
	}
}
