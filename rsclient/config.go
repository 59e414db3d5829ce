package rsclient

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// Defaults applied by New when the corresponding Config field is zero.
const (
	DefaultTimeout          = 15 * time.Second
	DefaultMaxBodyBytes     = 8 << 20
	DefaultMaxBytesInFlight = 64 << 20
	DefaultMaxConnsPerHost  = 64
	DefaultUserAgent        = "pdpp-mcp"
)

// Config configures a Client. Only BaseURL is required.
type Config struct {
	// BaseURL is the RS origin, e.g. "http://127.0.0.1:7663". Any path, query
	// or fragment is dropped: requests always go to <origin>/v1/..., like the
	// TS adapter's new URL("/v1/...", base).
	BaseURL string
	// Timeout is the per-call deadline (default 15s). The caller's context
	// deadline also applies; whichever is earlier wins.
	Timeout time.Duration
	// MaxBodyBytes caps every response body (default 8 MiB). A larger body
	// yields *TransportError{Code: CodeResponseTooLarge}, never a partial
	// decode.
	MaxBodyBytes int64
	// MaxBytesInFlight bounds the RS response bytes held at once across all
	// concurrent calls of this Client (default 64 MiB, and never less than
	// MaxBodyBytes). A call that would exceed it fails with
	// *TransportError{Code: CodeBusy} instead of growing the heap: 64
	// concurrent 8 MiB answers must not cost 512 MiB.
	MaxBytesInFlight int64
	// MaxConnsPerHost sizes the keep-alive pool to the RS (default 64): at
	// most this many connections are open at once and all of them may stay
	// idle for reuse, so concurrent calls and search fan-out reuse
	// connections (one TLS handshake each) instead of opening new ones.
	// Calls beyond it wait for a connection within their deadline. Size it
	// to the expected concurrent calls × grants fanned out.
	MaxConnsPerHost int
	// UserAgent is sent on every call (default "pdpp-mcp").
	UserAgent string
	// PDPPVersion, if non-empty, is sent as the PDPP-Version header. The
	// reference RS only accepts "2026-04-06".
	PDPPVersion string
	// Logger, if set, receives one debug line per call: method, path (no
	// query string), status, request id, duration. Never the bearer.
	Logger *slog.Logger
	// Transport overrides the HTTP transport (tests, metrics); the pool
	// settings above then do not apply.
	Transport http.RoundTripper
}

// Client is a stateless PDPP RS client, safe for concurrent use.
type Client struct {
	origin    *url.URL
	base      string
	timeout   time.Duration
	maxBody   int64
	userAgent string
	version   string
	logger    *slog.Logger
	http      *http.Client  // the pooled client underneath rest
	rest      *resty.Client // sends every call over http, in raw-body mode
	budget    *budget
	reach     reachTracker // whether the RS answers (Reachability)
}

// New validates cfg and builds a Client. BaseURL must be an absolute http or
// https URL with a host.
func New(cfg Config) (*Client, error) {
	origin, err := parseOrigin(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout < 0 || cfg.MaxBodyBytes < 0 || cfg.MaxBytesInFlight < 0 || cfg.MaxConnsPerHost < 0 {
		return nil, errors.New("rsclient: Timeout, MaxBodyBytes, MaxBytesInFlight and MaxConnsPerHost must not be negative")
	}
	c := &Client{
		origin:    origin,
		base:      origin.String(),
		timeout:   orDefault(cfg.Timeout, DefaultTimeout),
		maxBody:   orDefault(cfg.MaxBodyBytes, DefaultMaxBodyBytes),
		userAgent: cfg.UserAgent,
		version:   cfg.PDPPVersion,
		logger:    cfg.Logger,
	}
	inFlight := cfg.MaxBytesInFlight
	if inFlight == 0 {
		inFlight = max(DefaultMaxBytesInFlight, c.maxBody)
	}
	if inFlight < c.maxBody {
		return nil, errors.New("rsclient: MaxBytesInFlight must be at least MaxBodyBytes, or no answer of the allowed size could be read")
	}
	c.budget = newBudget(max(inFlight, c.maxBody+1)) // +1: reading one byte past the limit detects it
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if strings.ContainsAny(c.userAgent+c.version, "\r\n") {
		return nil, errors.New("rsclient: UserAgent and PDPPVersion must be single-line")
	}
	rt := cfg.Transport
	if rt == nil {
		rt = newTransport(orDefault(cfg.MaxConnsPerHost, DefaultMaxConnsPerHost), c.timeout)
	}
	// No cookie jar (resty.New would add one): a client shared by many
	// grants must not carry state from one bearer's exchange into another's.
	c.http = &http.Client{Transport: rt, Jar: nil}
	c.rest = resty.NewWithClient(c.http).
		SetDebug(false).
		SetDisableWarn(true).
		SetLogger(discardLogger{}).
		SetRetryCount(0).
		// The fixed headers are set once here: resty copies the client's
		// headers into each request, which costs less than setting them
		// on every request (a []string and a key canonicalisation each).
		SetHeader("Accept", "application/json").
		SetHeader("User-Agent", c.userAgent).
		// Raw-body mode: resty hands the body back unread, and do() reads
		// it once under the byte budget and decodes it once. resty's own
		// read (a copy outside the budget, grown 512 bytes at a time)
		// would hold every concurrent answer in memory unbounded.
		SetDoNotParseResponse(true).
		// Redirects are never followed: the 3xx itself is returned to do(),
		// which reports off-origin targets as CodeOffOrigin and the rest as
		// *Error. Following would risk sending the bearer elsewhere.
		SetRedirectPolicy(resty.RedirectPolicyFunc(func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}))
	if c.version != "" {
		c.rest.SetHeader("Pdpp-Version", c.version)
	}
	return c, nil
}

// BaseURL returns the normalised origin, e.g. "http://127.0.0.1:7663".
func (c *Client) BaseURL() string { return c.base }

func parseOrigin(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, errors.New("rsclient: BaseURL is not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		// raw is not quoted: a malformed BaseURL may still carry credentials.
		return nil, fmt.Errorf("rsclient: BaseURL scheme %q: must be http or https", u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("rsclient: BaseURL: host required")
	}
	if u.User != nil {
		return nil, errors.New("rsclient: BaseURL must not carry credentials")
	}
	return &url.URL{Scheme: u.Scheme, Host: strings.ToLower(u.Host)}, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// discardLogger silences resty's own logger: its messages may quote request
// details and are not routed through the caller's slog.Logger.
type discardLogger struct{}

func (discardLogger) Errorf(string, ...any) {}
func (discardLogger) Warnf(string, ...any)  {}
func (discardLogger) Debugf(string, ...any) {}
