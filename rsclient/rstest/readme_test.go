package rstest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func TestWithTheMockRS(t *testing.T) {
	t.Parallel()
	ds, err := demodata.Build(demodata.Options{}) // or build a *rstest.Dataset by hand
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now // any func() time.Time; a fake clock expires tokens on demand
	rs := rstest.NewServer(ds,
		rstest.WithCapabilities(rstest.CapabilitiesDeclared), // the real RS advertises no sort/search/aggregates
		rstest.WithTokenTTL(10*time.Minute),                  // client tokens expire (401 + challenge)
		rstest.WithClock(clock))
	defer rs.Close()

	bearer := rs.GrantToken(demodata.GmailGrantID) // the dataset's token, or mint a fresh one:
	minted, err := rs.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	_ = minted.AccessToken // with minted.ExpiresAt

	// … point the code under test at rs.URL with bearer; here, one request:
	req, _ := http.NewRequest(http.MethodGet, rs.URL+"/v1/schema", nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/schema: %d", resp.StatusCode)
	}

	rs.SetFaults(&rstest.Faults{PathPrefix: "/v1/search", Status5xx: 503}) // the RS fails for a while
	// What reached the RS: Principal is "owner", "grant:<id>", "none" or
	// "unknown", never the bearer.
	reqs := rs.Requests()
	if got := reqs[len(reqs)-1].Principal; got != "grant:"+demodata.GmailGrantID {
		t.Errorf("principal %q", got)
	}
}
