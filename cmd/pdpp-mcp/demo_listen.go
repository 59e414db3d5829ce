package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
)

// defaultDemoAddr is the demo adapter's default address: the MCP URL hosts
// store (`claude mcp add … http://127.0.0.1:7670/mcp`).
const defaultDemoAddr = "127.0.0.1:7670"

// startDemoRS binds the mock RS. When the address is the default (not
// asked for) and taken, typically by another demo, it falls back to a
// free port and returns a note saying the printed stdio setup then lasts
// for this run only; an address the user chose must bind or fail.
func startDemoRS(addr string, chosen bool, h http.Handler) (*startedServer, string, error) {
	return startDemoListener(demoListener{what: "mock RS", flag: "--rs-addr", lost: "stdio setup printed below works"}, addr, chosen, h)
}

// startDemoAdapter binds the hosted adapter the same way: a taken default
// port (another demo, or anything else on 7670) falls back to a free one
// with a note rather than ending the demo; a chosen one must bind.
func startDemoAdapter(addr string, chosen bool, h http.Handler) (*startedServer, string, error) {
	return startDemoListener(demoListener{what: "adapter", flag: "--addr", lost: "MCP URL and host commands printed below work"}, addr, chosen, h)
}

// demoListener names one of the demo's two listeners in its messages.
type demoListener struct {
	what string // "adapter", "mock RS"
	flag string // the flag that chooses its address
	lost string // what of the printed setup holds for this run only after a fallback
}

// startDemoListener binds addr. A default address that is taken falls back
// to a free port on the same host, with a note naming the port used and
// the flag that chooses one; a chosen address that is taken is an error
// naming the flag (and `make demo ARGS=…`, which passes it).
func startDemoListener(l demoListener, addr string, chosen bool, h http.Handler) (*startedServer, string, error) {
	srv, err := startHTTP(addr, h)
	if err == nil {
		return srv, "", nil
	}
	host, _, _ := net.SplitHostPort(addr) // requireLoopback checked the form
	if chosen {
		return nil, "", fmt.Errorf("%w; choose a free address with %s %s (port 0 picks one; with make: make demo ARGS='%s %s')",
			err, l.flag, net.JoinHostPort(host, "0"), l.flag, net.JoinHostPort(host, "0"))
	}
	srv, err2 := startHTTP(net.JoinHostPort(host, "0"), h)
	if err2 != nil {
		return nil, "", errors.Join(err, err2)
	}
	return srv, fmt.Sprintf("%s: %s is taken (%v); using %s instead. The %s while this run lasts; stop the other process, or choose an address with %s (make demo ARGS='%s …').",
		l.what, addr, err, srv.URL, l.lost, l.flag, l.flag), nil
}
