package rsclient

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
)

// do performs exactly one GET of c.base+path?query. path must already be
// escaped (encodeURIComponent per segment) and query already serialised;
// the URL string is handed to resty as-is, and because url.Parse keeps an
// escaping it considers valid in RawPath, the wire bytes are ours.
//
// The body is read once, under the Client's byte budget, and handed to
// decode (2xx only) while the budget still counts it; decode returns the
// call's error, typed. do returns the Response whenever an answer arrived,
// and an error that is *Error for non-2xx answers, *TransportError for
// transport failures and unusable bodies, or a sentinel/QueryError for
// refused inputs (no request made).
func (c *Client) do(ctx context.Context, bearer string, auth bool, path, query string, decode func([]byte) error) (*Response, error) {
	if auth {
		if err := checkBearer(bearer); err != nil {
			return nil, err
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	target := c.base + path + "?" + query // one concatenation: one allocation
	if query == "" {
		target = target[:len(target)-1]
	}
	start := time.Now()
	resp, err := c.exchange(callCtx, bearer, auth, target, decode)
	if auth && resp != nil && err != nil && bytes.Contains(resp.Body, []byte(bearer)) {
		// An RS that echoes the bearer must not turn the error into a leak.
		resp.Body = bytes.ReplaceAll(resp.Body, []byte(bearer), []byte(redacted))
		redactError(err, bearer)
	}
	c.log(ctx, path, resp, err, time.Since(start))
	c.noteReach(ctx, start, resp, err)
	return resp, err
}

// exchange sends the request through resty, reads the body under the
// budget and classifies the outcome.
//
// target goes to resty whole, with no resty query or path params, so resty
// never re-encodes it: it only url.Parses and re-serialises the string, and
// url.Parse keeps our escaping in RawPath and RawQuery verbatim.
func (c *Client) exchange(callCtx context.Context, bearer string, auth bool, target string, decode func([]byte) error) (*Response, error) {
	req := c.rest.R().SetContext(callCtx) // Accept, User-Agent, Pdpp-Version: set on c.rest (New)
	if auth {
		req.SetAuthToken(bearer) // "Authorization: Bearer <bearer>"
	}
	rr, err := req.Get(target)
	switch {
	case rr == nil:
		// resty returns no Response only when the request could not be
		// built, before anything was sent.
		return nil, &TransportError{Code: CodeUnavailable, Message: "request URL could not be built", Err: err}
	case err != nil:
		return nil, transportError(callCtx, err)
	}
	raw := rr.RawBody() // unread: raw-body mode (see New)
	defer raw.Close()
	resp := &Response{Status: rr.StatusCode(), RequestID: rr.Header().Get("Request-Id"), Header: rr.Header()}
	body, held, err := c.budget.readBody(callCtx, raw, rr.RawResponse.ContentLength, c.maxBody)
	if err != nil {
		// No partial decode: status and headers only. Too large and busy
		// stay as they are, unless the caller cancelled (then that is
		// what happened); read failures are classified like send failures.
		var te *TransportError
		if errors.As(err, &te) && !errors.Is(callCtx.Err(), context.Canceled) {
			return resp, err
		}
		return resp, transportError(callCtx, err)
	}
	defer c.budget.give(held)
	resp.Body = body
	if err := c.classify(target, resp); err != nil {
		return resp, err
	}
	if decode != nil {
		return resp, decode(body)
	}
	return resp, nil
}

// classify maps a complete answer to nil (2xx), *Error or *TransportError.
func (c *Client) classify(target string, resp *Response) error {
	switch {
	case resp.Status >= 200 && resp.Status < 300:
		return nil
	case resp.Status >= 300 && resp.Status < 400:
		if loc := resp.Header.Get("Location"); loc != "" && c.offOrigin(target, loc) {
			return &TransportError{Code: CodeOffOrigin, Message: "resource server redirected to another origin; not followed"}
		}
	}
	return decodeError(resp.Status, resp.Header, resp.Body)
}

func transportError(callCtx context.Context, err error) error {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err // url.Error's text repeats the full URL, query included
	}
	var ne net.Error
	switch {
	case errors.Is(callCtx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return &TransportError{Code: CodeTimeout, Message: "resource server did not answer in time", Err: context.DeadlineExceeded}
	case errors.Is(callCtx.Err(), context.Canceled):
		return &TransportError{Code: CodeCancelled, Message: "the request was cancelled by its caller", Err: context.Canceled}
	}
	return &TransportError{Code: CodeUnavailable, Message: "resource server unreachable: " + cause.Error(), Err: err}
}

// offOrigin reports whether Location (resolved against the request URL)
// points at a different scheme, host or port than the RS origin.
func (c *Client) offOrigin(target, loc string) bool {
	base, err := url.Parse(target)
	if err != nil {
		return true
	}
	u, err := base.Parse(loc)
	if err != nil {
		return true
	}
	return !strings.EqualFold(u.Scheme, c.origin.Scheme) || !strings.EqualFold(u.Host, c.origin.Host)
}

// checkBearer accepts the project's one bearer grammar (RFC 6750
// b64token): anything else could split or smuggle headers, and it keeps
// redaction byte-exact.
func checkBearer(b string) error {
	if b == "" {
		return ErrNoBearer
	}
	if !bearer.WellFormed(b) {
		return ErrInvalidBearer
	}
	return nil
}

// redacted replaces an echoed bearer.
const redacted = "[REDACTED]"

// redactError removes the bearer from an RS error that echoed it, so it
// cannot leak through Error() or a forwarded Envelope.
func redactError(err error, bearer string) {
	var e *Error
	if bearer == "" || !errors.As(err, &e) {
		return
	}
	for _, s := range []*string{&e.Type, &e.Code, &e.Message, &e.Param, &e.RequestID} {
		*s = strings.ReplaceAll(*s, bearer, redacted)
	}
	for _, raw := range []*[]byte{(*[]byte)(&e.Envelope), (*[]byte)(&e.RetryWith), (*[]byte)(&e.AvailableConnections)} {
		if strings.Contains(string(*raw), bearer) {
			*raw = []byte(strings.ReplaceAll(string(*raw), bearer, redacted))
		}
	}
}

// log writes the single debug line per call. Only the path is logged: the
// query may hold user search text, and headers hold the bearer.
func (c *Client) log(ctx context.Context, path string, resp *Response, err error, d time.Duration) {
	if c.logger == nil || !c.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{slog.String("method", http.MethodGet), slog.String("path", path)}
	status, rid := 0, ""
	if resp != nil {
		status, rid = resp.Status, resp.RequestID
	}
	attrs = append(attrs, slog.Int("status", status), slog.String("request_id", rid), slog.Duration("duration", d))
	var te *TransportError
	var re *Error
	switch {
	case errors.As(err, &te):
		attrs = append(attrs, slog.String("error_code", te.Code))
	case errors.As(err, &re):
		attrs = append(attrs, slog.String("error_code", re.Code))
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "rs call", attrs...)
}
