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

// The stdio setup the demo prints for Claude Code: paths are quoted as
// shell words, so a home directory with a space stays one argument.
func ExampleClaudeCodeStdioCommand() {
	exe := "/home/ann/go/bin/pdpp-mcp"
	args := hosted.StdioArgs("http://127.0.0.1:7671", "/home/Ann Lee/.cache/pdpp-mcp/demo")
	fmt.Println(hosted.ClaudeCodeStdioCommand(hosted.StdioServerKey, hosted.ShellQuote(exe), hosted.ShellQuoteAll(args)))
	fmt.Println(hosted.ClaudeCodeAddJSONCommand(hosted.StdioServerKey, exe, args))
	// Output:
	// claude mcp add pdpp-stdio -- /home/ann/go/bin/pdpp-mcp --provider-url http://127.0.0.1:7671 --cache-root '/home/Ann Lee/.cache/pdpp-mcp/demo'
	// claude mcp add-json pdpp-stdio '{"type":"stdio","command":"/home/ann/go/bin/pdpp-mcp","args":["--provider-url","http://127.0.0.1:7671","--cache-root","/home/Ann Lee/.cache/pdpp-mcp/demo"]}'
}
