package hosted_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// While the RS's metadata never answers, concurrent
// unauthenticated GETs of the protected-resource metadata share one RS
// fetch instead of queueing behind a lock; each is answered within one
// bounded wait, and the failure is remembered so later GETs cost nothing.
//
// It takes about 5 s (0.1 s CPU), on purpose: the GETs answer after
// hosted's 2 s metadataWait, the 4 s bound must sit above that with room
// for a loaded machine, and the RS deadline (5 s) above the bound, or a GET
// queued behind the RS would pass too; cleanup then waits for the one
// shared fetch to reach that deadline.
func TestMetadataGETsDoNotQueueBehindSlowRS(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{NoContract: true})
	rs.Server.SetFaults(&rstest.Faults{PathPrefix: "/.well-known/oauth-protected-resource", Latency: time.Minute})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{PublicURL: publicURL}))
	t.Cleanup(hs.Close)

	const callers = 6
	var wg sync.WaitGroup
	start := time.Now()
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(hs.URL + "/.well-known/oauth-protected-resource/mcp")
			if err != nil {
				t.Errorf("GET %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			var doc struct {
				Resource string `json:"resource"`
			}
			if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&doc) != nil || doc.Resource != publicURL+"/mcp" {
				t.Errorf("GET %d: status %d, resource %q", i, resp.StatusCode, doc.Resource)
			}
		}()
	}
	wg.Wait()
	// One shared fetch (counted below) is what keeps the callers from
	// queueing behind one another; the time is logged, not bounded (a
	// loaded machine is slow).
	t.Logf("%d concurrent metadata GETs answered in %v", callers, time.Since(start))
	if n := prmRequests(rs); n != 1 {
		t.Errorf("the RS was asked for its metadata %d times, want 1 shared fetch", n)
	}
}

func prmRequests(rs *testenv.RS) int {
	n := 0
	for _, r := range rs.Server.Requests() {
		if strings.HasPrefix(r.Path, "/.well-known/oauth-protected-resource") {
			n++
		}
	}
	return n
}
