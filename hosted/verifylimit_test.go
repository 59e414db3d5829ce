package hosted_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func randomBearer(t *testing.T) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// 1,000 fresh random bearers from one client cost at most
// burst + rate × elapsed RS calls; the rest are 429 before any authority
// is asked. Another client (a different X-Forwarded-For hop behind the
// trusted proxy) keeps its own budget, and a token verified before the
// flood keeps working.
func TestUnknownBearerVerificationIsLimitedPerClient(t *testing.T) {
	t.Parallel()
	const rate, burst = 5, 10
	env := startHosted(t, hosted.Options{PublicURL: publicURL, VerifyRate: rate, VerifyBurst: burst,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}, adapter.Config{})
	from := func(client string) map[string]string { return map[string]string{"X-Forwarded-For": client} }
	if res := post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, from("203.0.113.7")); res.Status != http.StatusOK {
		t.Fatalf("known token before the flood: %d %s", res.Status, res.Body)
	}
	before := len(env.rs.Server.Requests())

	statuses := map[int]int{}
	start := time.Now()
	for range 1000 {
		// The client forges a left-most hop; the proxy appends the real one.
		res := post(t, env.url, "Bearer "+randomBearer(t), toolsCallSchema, from("198.51.100.1, 203.0.113.7"))
		statuses[res.Status]++
	}
	elapsed := time.Since(start)
	rsCalls := len(env.rs.Server.Requests()) - before
	t.Logf("1,000 random bearers from one client: %d RS calls, statuses %v, in %v", rsCalls, statuses, elapsed)
	if bound := burst + int(rate*elapsed.Seconds()) + 1; rsCalls > bound {
		t.Errorf("1,000 random bearers cost %d RS calls in %v; bound is %d", rsCalls, elapsed, bound)
	}
	if statuses[http.StatusUnauthorized] != rsCalls || statuses[http.StatusTooManyRequests] != 1000-rsCalls {
		t.Errorf("statuses %v for %d RS calls: each verified one is 401, every other one 429", statuses, rsCalls)
	}

	type outcome struct{ Known, OtherClient int }
	got := outcome{
		Known:       post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, from("203.0.113.7")).Status,
		OtherClient: post(t, env.url, "Bearer "+randomBearer(t), toolsCallSchema, from("203.0.113.8")).Status,
	}
	if diff := cmp.Diff(outcome{Known: http.StatusOK, OtherClient: http.StatusUnauthorized}, got); diff != "" {
		t.Errorf("after the flood (-want +got):\n%s", diff)
	}
}

// The verification budget is spent on authority calls, not on requests:
// requests whose token check is already under way, or whose check just
// failed and is remembered, cost nothing and are never 429. Found by the
// soak: once the two demo tokens' verdicts expired, 64
// clients behind one address spent the burst in a moment waiting on the
// one shared re-check, and valid tokens got 429 "too many unrecognised
// tokens" — during an RS fault and after it.
func TestVerificationBudgetIsSpentOnAuthorityCallsOnly(t *testing.T) {
	t.Parallel()
	const burst, callers = 5, 40
	cases := []struct {
		name   string
		faults rstest.Faults
		want   int // status every caller gets
	}{
		// The shared check is slow: every caller waits on the one flight.
		{"check under way", rstest.Faults{PathPrefix: "/v1/schema", Latency: 300 * time.Millisecond}, http.StatusOK},
		// The check failed and is remembered (ErrorTTL): the answer is the
		// outage, not the caller's rate.
		{"failure remembered", rstest.Faults{PathPrefix: "/v1/schema", Status5xx: http.StatusServiceUnavailable}, http.StatusServiceUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checks := testenv.NewArrivals("/v1/schema")
			env := startHostedOn(t, testenv.Options{OnRequest: checks.Observe},
				hosted.Options{PublicURL: publicURL, VerifyRate: 0.001, VerifyBurst: burst}, adapter.Config{})
			f := tc.faults
			env.rs.Server.SetFaults(&f)
			first := make(chan int, 1)
			go func() { first <- post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, nil).Status }()
			// The rest start once the RS has seen the first check, so the
			// flight is under way or its failure stored.
			checks.Await(t, 1, 10*time.Second)
			if tc.want != http.StatusOK {
				<-first // its failure is stored once it is answered
			}
			statuses := map[int]int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range callers {
				wg.Go(func() {
					s := post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, nil).Status
					mu.Lock()
					statuses[s]++
					mu.Unlock()
				})
			}
			wg.Wait()
			if diff := cmp.Diff(map[int]int{tc.want: callers}, statuses); diff != "" {
				t.Errorf("statuses of %d callers sharing one check (-want +got):\n%s", callers, diff)
			}
		})
	}
}

func schemaRequests(env *hostedEnv) int {
	n := 0
	for _, r := range env.rs.Server.Requests() {
		if r.Path == "/v1/schema" {
			n++
		}
	}
	return n
}

// A flood of random bearers from 40 addresses and from 200 addresses of
// one IPv6 /64 (all behind the trusted proxy) cannot lock out others:
// every one of 12 new valid tokens from another client is admitted, and
// so is a host's refreshed token (a new bearer from an address the RS
// served before). The clock is injected and stands still, so nothing
// refills: the outcome is counts, never timings; the latency of the valid
// requests is logged for the record only.
func TestFloodFromManyAddressesAdmitsNewTokens(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}, adapter.Config{})
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	mint := func() string {
		tok, err := env.rs.Server.MintClientToken(demodata.GmailGrantID)
		if err != nil {
			t.Fatal(err)
		}
		return tok.AccessToken
	}
	const returning = "203.0.113.60"
	if s := post(t, env.url, "Bearer "+mint(), toolsCallSchema, from(returning)).Status; s != http.StatusOK {
		t.Fatalf("the returning host's first token: %d", s)
	}
	var flooders []string
	for i := range 40 {
		flooders = append(flooders, fmt.Sprintf("198.51.100.%d", i+1))
	}
	for i := range 200 {
		flooders = append(flooders, fmt.Sprintf("2001:db8:7:9:%x:%x::1", i, i*3))
	}
	type outcome struct{ NewAdmitted, RefreshAdmitted int }
	var got outcome
	floodStatuses := map[int]int{}
	var latencies []time.Duration
	before := schemaRequests(env)
	for round := range 12 {
		for _, a := range flooders[round*len(flooders)/12 : (round+1)*len(flooders)/12] {
			for range 35 { // past one client's burst of 30
				floodStatuses[post(t, env.url, "Bearer "+randomBearer(t), toolsCallSchema, from(a)).Status]++
			}
		}
		start := time.Now()
		if post(t, env.url, "Bearer "+mint(), toolsCallSchema, from("203.0.113.50")).Status == http.StatusOK {
			got.NewAdmitted++
		}
		latencies = append(latencies, time.Since(start))
		if round == 6 && post(t, env.url, "Bearer "+mint(), toolsCallSchema, from(returning)).Status == http.StatusOK {
			got.RefreshAdmitted++
		}
	}
	slices.Sort(latencies)
	verifications := schemaRequests(env) - before
	t.Logf("flood statuses %v, %d schema reads; valid tokens %+v; their latency median %v, max %v",
		floodStatuses, verifications, got, latencies[len(latencies)/2], latencies[len(latencies)-1])
	if diff := cmp.Diff(outcome{NewAdmitted: 12, RefreshAdmitted: 1}, got); diff != "" {
		t.Errorf("valid tokens during the flood (-want +got):\n%s", diff)
	}
	// The flood's verification reads stay within the global budget, as
	// before (its burst of 300, the clock standing still: the reserve is
	// part of it, not more), plus the valid tokens' own 14 reads.
	if bound := 300 + 14; verifications > bound {
		t.Errorf("%d verification reads during the flood; bound %d", verifications, bound)
	}
}
