package hosted_test

import (
	"fmt"
	"io"
	"log"
	"net/http/httptest"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// The hosted door wraps an adapter without fixed grants: each request to
// /mcp brings its own bearer. Health needs neither a bearer nor the RS.
func ExampleNew() {
	rs, err := rsclient.New(rsclient.Config{BaseURL: "https://rs.example"})
	if err != nil {
		log.Fatal(err)
	}
	metrics := hosted.NewMetrics()
	srv, err := adapter.New(adapter.Config{RS: rs, Observer: metrics})
	if err != nil {
		log.Fatal(err)
	}
	door := httptest.NewServer(hosted.New(srv, hosted.Options{PublicURL: "https://mcp.example", Metrics: metrics}))
	defer door.Close()
	resp, err := door.Client().Get(door.URL + "/healthz")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.StatusCode, " ", string(body))
	// Output: 200 {"status":"ok"}
}
