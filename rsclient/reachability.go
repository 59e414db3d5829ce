package rsclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Unreachable reports whether err means the RS could not be reached (no
// connection, no DNS answer, a failed TLS handshake, no answer in time)
// and says why in a few words fit for a person: "connection refused",
// "DNS lookup failed: no such host", "TLS certificate not accepted: …",
// "no answer in time". The words never carry the RS's address or a
// token; the caller names the RS where that is wanted (a log line). An
// answer of any status, a cancelled call or an over-budget read is not
// "unreachable".
func Unreachable(err error) (cause string, ok bool) {
	var te *TransportError
	if !errors.As(err, &te) {
		return "", false
	}
	switch te.Code {
	case CodeTimeout:
		return "no answer in time", true
	case CodeUnavailable:
		return unreachableCause(te), true
	}
	return "", false
}

// unreachableCause names the failure under a CodeUnavailable error.
func unreachableCause(te *TransportError) string {
	err := te.Err
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	switch {
	case err == nil:
		return "the request could not be sent"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "DNS lookup failed: no such host"
		}
		return "DNS lookup failed"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host"
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority), errors.As(err, &hostnameErr), errors.As(err, &invalidCert):
		return "TLS certificate not accepted: " + tlsReason(err)
	case errors.As(err, &recordErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http replaces the record error by that text when the
		// answer starts "HTTP/".
		return "TLS handshake failed: the server did not answer in TLS (an http:// server behind an https:// URL?)"
	case strings.Contains(err.Error(), "tls: "):
		return "TLS handshake failed: " + tlsReason(err)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was closed without an answer"
	}
	return "the connection failed"
}

// tlsReason is the TLS or x509 part of err's text: from "tls: " or
// "x509: " on, so the dialled address before it stays out.
func tlsReason(err error) string {
	s := err.Error()
	for _, marker := range []string{"x509: ", "tls: "} {
		if i := strings.Index(s, marker); i >= 0 {
			return s[i:]
		}
	}
	return "handshake error"
}

// Reachability is what the client learnt of the RS from its latest
// exchanges.
type Reachability struct {
	// Reachable is false after an exchange found the RS unreachable and
	// until one gets an answer again (any status counts as an answer).
	// A client that has not called yet counts as reachable.
	Reachable bool
	// Cause says why it is unreachable (Unreachable's words); empty when
	// it is reachable.
	Cause string
	// Since is when the current state began; zero before any change.
	Since time.Time
}

// Reachability returns the RS's state as the latest exchanges found it.
func (c *Client) Reachability() Reachability { return c.reach.state() }

// reachTracker keeps Reachability and logs each change once: a Warn
// naming the RS and the cause when it becomes unreachable, an Info when
// it answers again. Steady state costs one atomic load per exchange.
type reachTracker struct {
	down atomic.Bool
	mu   sync.Mutex
	cur  Reachability
}

func (r *reachTracker) state() Reachability {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.cur
	s.Reachable = !r.down.Load()
	return s
}

// unreachableWait is the least time without an answer that says
// something about the RS: a caller that gave it less (a budget for an
// optional read) learnt only about its own hurry. The client's own
// timeout counts when shorter.
const unreachableWait = 3 * time.Second

// noteReach records one exchange's outcome. resp is non-nil when an
// answer arrived. A timeout counts only when the RS had at least
// unreachableWait (or the client's whole timeout) from start: ctx, the
// caller's context, may have allowed less.
func (c *Client) noteReach(ctx context.Context, start time.Time, resp *Response, err error) {
	r := &c.reach
	switch {
	case resp != nil:
		if r.down.Load() {
			r.change(c, true, "", nil)
		}
	case err != nil:
		cause, ok := Unreachable(err)
		if !ok || r.down.Load() || errors.Is(ctx.Err(), context.Canceled) {
			return
		}
		var te *TransportError
		if errors.As(err, &te) && te.Code == CodeTimeout {
			if dl, ok := ctx.Deadline(); ok && dl.Sub(start) < min(c.timeout, unreachableWait) {
				return
			}
		}
		r.change(c, false, cause, err)
	}
}

// change moves to the given state unless another exchange already did,
// and logs the change.
func (r *reachTracker) change(c *Client, reachable bool, cause string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down.Load() == !reachable {
		return
	}
	now := time.Now()
	was := r.cur.Since
	r.down.Store(!reachable)
	r.cur = Reachability{Reachable: reachable, Cause: cause, Since: now}
	if c.logger == nil {
		return
	}
	if reachable {
		c.logger.LogAttrs(context.Background(), slog.LevelInfo, "resource server reachable again",
			slog.String("rs", c.base), slog.Duration("unreachable_for", now.Sub(was).Round(time.Millisecond)))
		return
	}
	c.logger.LogAttrs(context.Background(), slog.LevelWarn, "resource server unreachable",
		slog.String("rs", c.base), slog.String("cause", cause), slog.String("error", err.Error()))
}
