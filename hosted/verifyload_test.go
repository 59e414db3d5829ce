package hosted_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/bearerauth"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// loadSeconds is how long TestManyUsersBehindOneAddress runs: 5 s by
// default, so CI on two cores can afford it; PDPP_MCP_LOAD_SECONDS=60 runs
// the full minute.
func loadSeconds(t *testing.T) time.Duration {
	if v := os.Getenv("PDPP_MCP_LOAD_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 600 {
			t.Fatalf("PDPP_MCP_LOAD_SECONDS=%q: want 1..600", v)
		}
		return time.Duration(n) * time.Second
	}
	return 5 * time.Second
}

// Load (loopback, bounded): 300 people with valid client
// tokens behind one address (a NAT, a hosted connector's egress) sign in
// at once and keep calling while their verdicts expire every second; one
// of them floods random bearers from the same address alongside. The valid
// users never see 429 (their first check spends no budget, their re-checks
// are vouched for); the flood costs the RS no more than one address's
// budget (burst + rate × time), which is at most 50 verification calls per
// 1,000 random bearers once the flood is that large. Takes loadSeconds
// plus the sign-in: it is a load test, real time is what it measures, and
// its bounds are counts, not times: on a loaded machine (CI runs it under
// -race beside every other package) the flood sends fewer bearers, and the
// budget bound still holds.
func TestManyUsersBehindOneAddress(t *testing.T) {
	t.Parallel()
	const users, userWorkers, floodWorkers = 300, 16, 8
	duration := loadSeconds(t)

	var valid sync.Map // bearer → true
	var validChecks, randomChecks atomic.Int64
	rs := testenv.StartRS(t, testenv.Options{NoContract: true, Raw: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/schema" {
				tok := r.Header.Get("Authorization")[len("Bearer "):]
				if _, ok := valid.Load(tok); ok {
					validChecks.Add(1)
				} else {
					randomChecks.Add(1)
				}
			}
			h.ServeHTTP(w, r)
		})
	}})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// Verdicts live 1 s (30 s in production), so each valid token is
	// re-checked several times within the run.
	hs := httptest.NewServer(hosted.New(a, hosted.Options{PublicURL: publicURL, Auth: bearerauth.Options{CacheTTL: time.Second}}))
	t.Cleanup(hs.Close)

	tokens := make([]string, users)
	for i := range tokens {
		m, err := rs.Server.MintClientToken(demodata.GmailGrantID)
		if err != nil {
			t.Fatal(err)
		}
		tokens[i] = m.AccessToken
		valid.Store(m.AccessToken, true)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: userWorkers + floodWorkers}}
	call := func(bearer string) int {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(toolsList))
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := client.Do(req)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}

	// Everyone signs in within moments: 300 new client tokens from one
	// address, as many at a time as the users' workers (a crowd's hosts
	// each open one request; a wave of 300 in the same millisecond would
	// only measure how long the machine takes to run them).
	signIn := statusCounts{}
	var wg sync.WaitGroup
	var nextSignIn atomic.Int64
	for range userWorkers {
		wg.Go(func() {
			for i := int(nextSignIn.Add(1)) - 1; i < users; i = int(nextSignIn.Add(1)) - 1 {
				signIn.add(call(tokens[i]))
			}
		})
	}
	wg.Wait()

	stop := time.Now().Add(duration)
	during, flood := statusCounts{}, statusCounts{}
	var next atomic.Int64
	for range userWorkers {
		wg.Go(func() {
			for time.Now().Before(stop) {
				during.add(call(tokens[int(next.Add(1))%users]))
			}
		})
	}
	floodStart, floodBegan := randomChecks.Load(), time.Now()
	var sent atomic.Int64
	for range floodWorkers {
		wg.Go(func() {
			for time.Now().Before(stop) {
				sent.Add(1)
				flood.add(call(randomBearer(t)))
			}
		})
	}
	wg.Wait()
	floodChecks := randomChecks.Load() - floodStart
	perThousand := float64(floodChecks) * 1000 / float64(max(sent.Load(), 1))
	// One address's budget over the flood: its burst, its rate for the
	// time the flood ran, one for a check under way at the end.
	budget := int64(defaultTestVerifyBurst + defaultTestVerifyRate*time.Since(floodBegan).Seconds() + 1)
	t.Logf("%v, %d users behind one address: sign-in %v; during the flood %v (%d valid re-checks at the RS); "+
		"flood %d random bearers %v → %d RS checks (%.1f per 1,000)",
		duration, users, signIn.snapshot(), during.snapshot(), validChecks.Load(), sent.Load(), flood.snapshot(), floodChecks, perThousand)
	if signIn.get(http.StatusOK) != users {
		t.Errorf("sign-in of %d valid users from one address: %v, want all 200", users, signIn.snapshot())
	}
	if n := during.total(); during.get(http.StatusOK) != n || n == 0 {
		t.Errorf("valid users during the flood: %v, want every call 200", during.snapshot())
	}
	if floodChecks > budget {
		t.Errorf("the flood cost %d RS checks, over one address's budget of %d", floodChecks, budget)
	}
	if sent.Load() >= 2000 && perThousand > 50 {
		t.Errorf("the flood cost %.1f RS checks per 1,000 random bearers, want ≤ 50", perThousand)
	}
	if flood.get(http.StatusUnauthorized)+flood.get(http.StatusTooManyRequests) != flood.total() {
		t.Errorf("random bearers: %v, want only 401 and 429", flood.snapshot())
	}
}

// The door's default budget for one address (hosted/verifylimit.go),
// which the flood's bound is computed from.
const (
	defaultTestVerifyRate  = 5
	defaultTestVerifyBurst = 30
)

// statusCounts counts HTTP statuses across goroutines.
type statusCounts struct {
	mu sync.Mutex
	n  map[int]int
}

func (s *statusCounts) add(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[int]int{}
	}
	s.n[status]++
}

func (s *statusCounts) get(status int) int { s.mu.Lock(); defer s.mu.Unlock(); return s.n[status] }

func (s *statusCounts) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.n {
		n += c
	}
	return n
}

func (s *statusCounts) snapshot() map[int]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int]int{}
	for k, v := range s.n {
		out[k] = v
	}
	return out
}
