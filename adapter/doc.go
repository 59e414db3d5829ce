// Package adapter is the MCP surface of pdpp-mcp: six read-only tools as
// data (one file per tool: description, handler, renderer; schemas in
// toolschemas/), their text renderers, typed errors, resources and the
// source set of grants. It is built on github.com/mark3labs/mcp-go and
// reads through rsclient; it never broadens a grant and never retries with
// other credentials. The HTTP door in front of it is package hosted.
//
// # Building a server
//
// A Server needs an RS client. Everything else has a safe default:
//
//	rs, err := rsclient.New(rsclient.Config{BaseURL: "https://rs.example"})
//	if err != nil {
//		log.Fatal(err)
//	}
//	srv, err := adapter.New(adapter.Config{
//		RS:     rs,
//		Grants: []adapter.Grant{adapter.NewGrant(clientToken)},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//
// # Serving stdio
//
// With a fixed set of grants (the stdio credential cache of `pdpp
// connect`), hand the MCP server to mcp-go's stdio transport:
//
//	err = server.NewStdioServer(srv.MCP()).Listen(ctx, os.Stdin, os.Stdout)
//
// # Mounting the hosted door
//
// Without Grants, every call reads with the grant of its own request,
// which the hosted door attaches (WithRequest, Request.Grant) after it has
// verified the bearer; metrics observe every tool call through
// Config.Observer:
//
//	metrics := hosted.NewMetrics()
//	srv, err := adapter.New(adapter.Config{RS: rs, Observer: metrics})
//	if err != nil {
//		log.Fatal(err)
//	}
//	h := hosted.New(srv, hosted.Options{PublicURL: "https://mcp.example", Metrics: metrics})
//	log.Fatal(http.ListenAndServe(":8080", h))
package adapter
