package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"time"
)

// callbackPath is the redirect URI's path on the loopback listener.
const callbackPath = "/callback"

// authResult is what the browser brought back to the redirect URI.
type authResult struct {
	code string
	err  error
}

// loopbackCallback is the RFC 8252 §7.3 loopback redirect: an HTTP server
// on 127.0.0.1 at an ephemeral port that takes exactly one authorization
// response carrying the expected state. A response with another state is
// answered with an error page and otherwise ignored: it is not the answer
// to this sign-in (a forged or stale redirect), and the real one may still
// come.
type loopbackCallback struct {
	ln     net.Listener
	srv    *http.Server
	state  string
	result chan authResult
}

// listenCallback starts the listener; Close stops it.
func listenCallback(state string) (*loopbackCallback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback redirect listener: %v", err)
	}
	cb := &loopbackCallback{ln: ln, state: state, result: make(chan authResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+callbackPath, cb.serve)
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb, nil
}

// redirectURI is the URI registered and sent in the authorize request.
func (cb *loopbackCallback) redirectURI() string {
	return "http://" + cb.ln.Addr().String() + callbackPath
}

// serve answers the browser's redirect.
func (cb *loopbackCallback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if q.Get("state") != cb.state {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("This sign-in link is not the one pdpp-mcp connect is waiting for (state mismatch). Start again from the terminal."))
		return
	}
	res := authResult{code: q.Get("code")}
	if e := q.Get("error"); e != "" || res.code == "" {
		if e == "" {
			e = "no code"
		}
		res = authResult{err: fmt.Errorf("the authorization server answered %s: %s", e, q.Get("error_description"))}
	}
	select {
	case cb.result <- res:
	default: // an answer was taken already
	}
	if res.err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("Sign-in failed: "+res.err.Error()))
		return
	}
	fmt.Fprint(w, page("pdpp-mcp is signed in. You can close this tab."))
}

func page(msg string) string {
	return "<!doctype html><meta charset=utf-8><title>pdpp-mcp connect</title><p>" + html.EscapeString(msg) + "</p>\n"
}

// wait returns the authorization code, or why there is none by ctx's end.
func (cb *loopbackCallback) wait(ctx context.Context) (string, error) {
	select {
	case res := <-cb.result:
		return res.code, res.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", errors.New("no sign-in came back before the timeout (--timeout); run connect again")
		}
		return "", ctx.Err()
	}
}

// Close stops the listener and any request in flight.
func (cb *loopbackCallback) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = cb.srv.Shutdown(ctx)
}
