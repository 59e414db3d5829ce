package rstest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// A downstream integration test: start the mock RS over the demo dataset
// with the real RS's capability posture, point the code under test (here
// rsclient) at it, inject a fault, and check what reached the RS. In a real
// test, replace the prints with assertions and defer rs.Close() after
// t-scoped setup.
func Example() {
	ds, err := demodata.Build(demodata.Options{})
	if err != nil {
		panic(err)
	}
	rs := rstest.NewServer(ds, rstest.WithCapabilities(rstest.CapabilitiesDeclared))
	defer rs.Close()

	c, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	bearer := rs.GrantToken(demodata.GmailGrantID)
	q := rsclient.RecordsQuery{Stream: "messages", ConnectionID: demodata.GmailWorkConnectionID, Limit: 3}
	page, _, err := c.Records(ctx, bearer, q)
	if err != nil {
		panic(err)
	}
	fmt.Println("records:", len(page.Data), "more:", page.HasMore)

	// The RS answers 503 for a while: the code under test must cope.
	rs.SetFaults(&rstest.Faults{PathPrefix: "/v1/streams/", Status5xx: 503})
	_, _, err = c.Records(ctx, bearer, q)
	var rsErr *rsclient.Error
	fmt.Println("during the fault:", errors.As(err, &rsErr) && rsErr.Status == 503)
	rs.SetFaults(nil)

	// A stream outside the grant reads like a dead token, as on the real RS.
	_, _, err = c.Records(ctx, bearer, rsclient.RecordsQuery{Stream: "no_such_stream"})
	if errors.As(err, &rsErr) {
		fmt.Println("outside the grant:", rsErr.Status, rsErr.Code)
	}

	// The request log names the credential, never shows it.
	last := rs.Requests()[len(rs.Requests())-1]
	fmt.Println("last request:", last.Path, last.Principal)
	// Output:
	// records: 3 more: true
	// during the fault: true
	// outside the grant: 401 context.stream_not_allowed
	// last request: /v1/streams/no_such_stream/records grant:grt_8c1d2e3f4a5b6c7d
}
