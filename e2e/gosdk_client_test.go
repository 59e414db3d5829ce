package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultProtocol stands for "whatever the Go SDK sends by default".
const defaultProtocol = ""

// protocolVersions are the versions every Go SDK journey runs with.
var protocolVersions = []string{"2025-06-18", "2025-11-25", defaultProtocol}

// toolResult is what a journey reads from a tools/call result.
type toolResult struct {
	IsError bool
	// Text is content[0].text: the only channel a content-only client reads.
	Text string
	// Structured is structuredContent as JSON (nil when absent).
	Structured json.RawMessage
	// Links are the URIs of resource_link content blocks.
	Links []string
	// ResourceLinks are the resource_link blocks: name and URI, as a host
	// shows them to the model.
	ResourceLinks []resourceLink
}

// resourceLink is one resource_link content block.
type resourceLink struct{ Name, URI, Description string }

// goSession is an official Go SDK client session plus the tools' output
// schemas, so every result is checked the way a strict client would.
type goSession struct {
	t       testing.TB
	cs      *mcp.ClientSession
	schemas map[string]*jsonschema.Resolved
}

// bearerTransport adds the client bearer to every request: the hosted
// adapter takes one per request and keeps no session.
type bearerTransport struct{ bearer string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.bearer)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects the Go SDK client to a hosted endpoint.
func connectHTTP(t testing.TB, url, bearer, version string) *goSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearerTransport{bearer}, Timeout: 30 * time.Second},
		MaxRetries: -1,
		// The stateless adapter serves POST only; a standalone GET stream
		// has nothing to carry.
		DisableStandaloneSSE: true,
	}
	return connect(t, tr, version)
}

// connectStdio starts the stdio server through the Go SDK's
// CommandTransport with a credential cache holding bearers.
func connectStdio(t testing.TB, version string, bearers ...string) *goSession {
	t.Helper()
	cmd := stdioCommand(t, bearers...)
	s := connect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, version)
	// CommandTransport started the process and reaps it on Close; make
	// sure it dies by PID even if Close does not get it.
	watchProcess(t, cmd, false)
	return s
}

func connect(t testing.TB, tr mcp.Transport, version string) *goSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "pdpp-mcp-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (protocol %q): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s := &goSession{t: t, cs: cs, schemas: map[string]*jsonschema.Resolved{}}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range tools.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(raw, &sch); err != nil {
			t.Fatalf("%s outputSchema: %v", tool.Name, err)
		}
		res, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s outputSchema does not resolve: %v", tool.Name, err)
		}
		s.schemas[tool.Name] = res
	}
	return s
}

// call runs tools/call. A protocol-level error fails the test: every
// failure the adapter reports must be an isError result the client takes.
func (s *goSession) call(name string, args map[string]any) toolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s(%v): client error: %v", name, args, err)
	}
	var out toolResult
	out.IsError = res.IsError
	for i, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if i == 0 {
				out.Text = c.Text
			}
		case *mcp.ResourceLink:
			out.Links = append(out.Links, c.URI)
			out.ResourceLinks = append(out.ResourceLinks, resourceLink{Name: c.Name, URI: c.URI, Description: c.Description})
		}
	}
	if res.StructuredContent != nil {
		// Compact, and without HTML escapes, as a host's JSON.stringify
		// writes it for the model.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res.StructuredContent); err != nil {
			s.t.Fatal(err)
		}
		raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		out.Structured = raw
		if sch := s.schemas[name]; sch != nil {
			var v any
			_ = json.Unmarshal(raw, &v)
			if err := sch.Validate(v); err != nil {
				s.t.Errorf("%s(%v): structuredContent violates outputSchema: %v", name, args, err)
			}
		}
	}
	return out
}

// protocol is the version the session negotiated.
func (s *goSession) protocol() string { return s.cs.InitializeResult().ProtocolVersion }
