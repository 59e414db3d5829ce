package rstest

import (
	"net/http/httptest"
	"time"
)

// TestServer is a mock RS listening on a loopback port, in the spirit of
// net/http/httptest.Server: start one per test with NewServer, point the
// code under test at URL, and Close it when done. The embedded *Server
// gives the request log (Requests, ResetRequests), fault injection
// (SetFaults) and token minting (MintClientToken).
type TestServer struct {
	*Server
	// URL is the base URL of the RS, http://127.0.0.1:port, no trailing
	// slash.
	URL string
	// Dataset is what the server serves (do not mutate it).
	Dataset *Dataset

	hs *httptest.Server
}

// Option configures NewServer.
type Option func(*Options)

// WithCapabilities sets the capability posture (default CapabilitiesFull).
func WithCapabilities(c Capabilities) Option { return func(o *Options) { o.Capabilities = c } }

// WithTokenTTL makes client access tokens expire after d on the server's
// clock, as the real RS's do after 600 s (default: never).
func WithTokenTTL(d time.Duration) Option { return func(o *Options) { o.TokenTTL = d } }

// WithClock sets the server's clock (token expiry, change retention).
func WithClock(now func() time.Time) Option { return func(o *Options) { o.Now = now } }

// WithFaults starts the server with fault injection (see Faults); change
// it later with SetFaults.
func WithFaults(f Faults) Option { return func(o *Options) { o.Faults = &f } }

// WithSemantic mounts semantic and hybrid search (default: lexical only,
// as a reference RS without an embedding backend).
func WithSemantic(on bool) Option { return func(o *Options) { o.Semantic = on } }

// WithChangesRetention compacts changes older than d (see
// Options.ChangesRetention).
func WithChangesRetention(d time.Duration) Option {
	return func(o *Options) { o.ChangesRetention = d }
}

// WithLexicalGaps leaves connection streams out of the lexical index (see
// Options.LexicalGaps).
func WithLexicalGaps(gaps ...LexicalGap) Option {
	return func(o *Options) { o.LexicalGaps = append(o.LexicalGaps, gaps...) }
}

// WithAuthServer mounts the minimal authorization server approving
// grantID (see Options.AuthGrantID); SetAuthDeny(true) makes it deny.
func WithAuthServer(grantID string) Option { return func(o *Options) { o.AuthGrantID = grantID } }

// WithRealAuthServer mounts the authorization server in the real AS's
// posture (Options.AuthRealPosture).
func WithRealAuthServer() Option { return func(o *Options) { o.AuthRealPosture = true } }

// WithRequestHook calls fn for every request, as it arrives.
func WithRequestHook(fn func(RecordedRequest)) Option { return func(o *Options) { o.OnRequest = fn } }

// WithOptions replaces every option set so far by opts.
func WithOptions(opts Options) Option { return func(o *Options) { *o = opts } }

// NewServer starts a mock RS serving ds on a loopback port. Like
// httptest.NewServer it panics when it cannot start (here also when ds is
// invalid: a test bug). The caller must Close it.
func NewServer(ds *Dataset, opts ...Option) *TestServer {
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	s, err := New(ds, o)
	if err != nil {
		panic("rstest: NewServer: " + err.Error())
	}
	hs := httptest.NewServer(s)
	return &TestServer{Server: s, URL: hs.URL, Dataset: ds, hs: hs}
}

// Close shuts the server down and blocks until its requests have finished.
func (ts *TestServer) Close() { ts.hs.Close() }

// OwnerToken is the dataset's first owner bearer ("" when it has none).
func (ts *TestServer) OwnerToken() string {
	if len(ts.Dataset.OwnerTokens) == 0 {
		return ""
	}
	return ts.Dataset.OwnerTokens[0]
}

// GrantToken is the dataset bearer of grantID ("" when unknown).
func (ts *TestServer) GrantToken(grantID string) string {
	for _, g := range ts.Dataset.Grants {
		if g.ID == grantID {
			return g.Token
		}
	}
	return ""
}
