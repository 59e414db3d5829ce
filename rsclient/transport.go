package rsclient

import (
	"net"
	"net/http"
	"time"
)

// newTransport is the RS connection pool. Go's default keeps only 2 idle
// connections per host, so at 32 concurrent calls most answers closed
// their connection and the next call opened (and, against a TLS RS,
// handshook) a new one. Here every connection the pool may open can also
// stay idle, the number open at once is capped (calls beyond it queue for
// a free connection within their own deadline), and HTTP/2 is negotiated
// when the RS speaks TLS. Each phase has its own deadline below the call's,
// so a stalled dial or handshake fails like any slow answer.
func newTransport(conns int, callTimeout time.Duration) *http.Transport {
	dialer := &net.Dialer{Timeout: min(5*time.Second, callTimeout), KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment, // as Go's default transport
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		MaxConnsPerHost:       conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   min(10*time.Second, callTimeout),
		ResponseHeaderTimeout: callTimeout,
		ExpectContinueTimeout: time.Second,
	}
}
