package rstest

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// Options configures a Server.
type Options struct {
	// Semantic mounts /v1/search/semantic and /v1/search/hybrid and
	// advertises them in the protected-resource metadata. When false those
	// paths answer with Fastify's default 404 body, as the reference RS does
	// without an embedding backend.
	Semantic bool
	// PublicURL is the origin used for the PRM `resource` and the 401
	// `resource_metadata` link; "" derives it from the request Host.
	PublicURL string
	// TokenTTL, when positive, is the lifetime of client access tokens on
	// the Now clock (the real RS: 600 s). Dataset grant tokens count as
	// issued when New ran; MintClientToken issues fresh ones. Zero means
	// client tokens never expire. Owner tokens never expire.
	TokenTTL time.Duration
	// LexicalGaps are connection streams missing from the lexical index:
	// lexical search (and the lexical half of hybrid) never matches their
	// records, while meta.recall still claims complete, all_matches. That
	// is what the real RS did with one connection's bodies indexed and the
	// rest not (real-rs-differences D5, captures 0118-0123); semantic
	// search is unaffected.
	LexicalGaps []LexicalGap
	// AuthGrantID, when set, mounts the minimal authorization server
	// (oauth.go): its authorization endpoint approves this grant for every
	// registered client (AuthDeny or SetAuthDeny(true) makes it deny).
	AuthGrantID string
	// AuthDeny starts the authorization server denying every request.
	AuthDeny bool
	// AuthStateFile, when set, keeps the authorization server's state
	// (registered clients, refresh tokens, revoked sign-ins, issued access
	// tokens) in this file across restarts (oauth_persist.go): a host's
	// saved sign-in keeps working. It holds live bearers (written 0600).
	AuthStateFile string
	// OnPersistError, when set, hears a failure to write AuthStateFile.
	OnPersistError func(error)
	// AuthRealPosture mounts the authorization server in the real AS's
	// posture (oauth_selection.go, real-rs-differences D15): a generic
	// authorize request gets a grant-package token /v1 refuses,
	// connector_id a grant when the connector has one connection (else the
	// real AS's 400), authorization_details with instance_ids the grant
	// over exactly those connections. AuthGrantID is then not needed.
	AuthRealPosture bool
	// Capabilities is the posture schema documents advertise to client
	// tokens; "" means CapabilitiesFull.
	Capabilities Capabilities
	// OnRequest, when set, is called with every request as it arrives
	// (after it is logged, before it is answered). It must not block.
	OnRequest func(RecordedRequest)
	// Faults, when non-nil, injects failures (see Faults).
	Faults *Faults
	// Now is the clock; nil means time.Now. It decides which changes have
	// been compacted (ChangesRetention).
	Now func() time.Time
	// ChangesRetention, when positive, models the reference's change-log
	// compaction: changes older than Now()-ChangesRetention are gone, and a
	// changes_since from before the oldest retained change answers 410
	// cursor_expired. Zero keeps every change, as a fresh reference does.
	ChangesRetention time.Duration
}

// LexicalGap names one connection's stream missing from the lexical index.
type LexicalGap struct {
	ConnectionID string
	Stream       string
}

// Faults describes deterministic fault injection. A fault applies to every
// EveryN-th request whose path starts with PathPrefix ("" matches all);
// EveryN <= 1 means every matching request. Several kinds may be combined:
// Latency is applied first, then Reset, Status5xx, MalformedJSON and
// OversizedBytes in that order (the first that answers wins).
type Faults struct {
	PathPrefix string
	EveryN     int
	// Latency delays the response (bounded by the request context).
	Latency time.Duration
	// Status5xx answers with this status and the error envelope.
	Status5xx int
	// Reset hijacks the connection and closes it without a response.
	Reset bool
	// MalformedJSON answers 200 with a truncated JSON body.
	MalformedJSON bool
	// OversizedBytes pads a valid-looking JSON body to this many bytes.
	OversizedBytes int
}

// RecordedRequest is one request the server saw. Bearer is the raw token so
// tests can assert which credential reached the RS; Principal names it
// without revealing it, for logs.
type RecordedRequest struct {
	Method   string
	Path     string
	RawQuery string
	Bearer   string `json:"-"`
	// Principal is "owner", "grant:<grant_id>", "package:<grant_package_id>",
	// "none" (no bearer) or
	// "unknown" (a bearer the RS did not issue).
	Principal string
	Time      time.Time
}

// maxRecorded bounds the request log; older entries are dropped first.
const maxRecorded = 10000

// Server is the mock RS. It is an http.Handler and safe for concurrent use.
type Server struct {
	opts Options
	ds   *Dataset
	ix   *indexes

	// started is when dataset grant tokens count as issued.
	started time.Time
	tokens  tokenTable
	persist authPersister
	as      authServer

	mu       sync.Mutex
	recorded []RecordedRequest
	faults   *Faults
	faultSeq int
}

// Summary is what `pdpp-mcp mockrs --json` prints once ready.
type Summary struct {
	RSURL       string         `json:"rs_url"`
	OwnerBearer string         `json:"owner_bearer"`
	Grants      []GrantSummary `json:"grants"`
	// AuthorizationServer is the RFC 8414 metadata URL when the minimal
	// authorization server is mounted (Options.AuthGrantID).
	AuthorizationServer string `json:"authorization_server,omitempty"`
}

// GrantSummary describes one client grant of a running mock RS.
type GrantSummary struct {
	GrantID       string   `json:"grant_id"`
	ConnectorKey  string   `json:"connector_key"`
	Bearer        string   `json:"bearer"`
	ConnectionIDs []string `json:"connection_ids"`
	// ExpiresAt is when Bearer stops working (Options.TokenTTL); absent
	// when it never does.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// New validates ds and builds the indexes (records sorted per connection and
// stream, the search index). It returns a *ValidationError when the dataset
// is inconsistent.
func New(ds *Dataset, opts Options) (*Server, error) {
	if ds == nil {
		return nil, &ValidationError{Problems: []string{"nil dataset"}}
	}
	ix, err := buildIndexes(ds)
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	caps, err := ParseCapabilities(string(opts.Capabilities))
	if err != nil {
		return nil, err
	}
	opts.Capabilities = caps
	ix.lexicalGap = map[csKey]bool{}
	for _, g := range opts.LexicalGaps {
		ix.lexicalGap[csKey{g.ConnectionID, g.Stream}] = true
	}
	s := &Server{opts: opts, ds: ds, ix: ix, started: opts.Now()}
	s.as = authServer{deny: opts.AuthDeny, clients: map[string]*oauthClient{}, codes: map[string]*authCode{},
		refresh: map[string]*refreshToken{}, revoked: map[string]bool{}}
	if opts.AuthGrantID != "" && !s.hasGrant(opts.AuthGrantID) {
		return nil, &ValidationError{Problems: []string{"AuthGrantID " + opts.AuthGrantID + " is not a grant of the dataset"}}
	}
	if opts.AuthStateFile != "" {
		if err := s.loadAuthState(); err != nil {
			return nil, err
		}
	}
	if opts.Faults != nil {
		f := *opts.Faults
		s.faults = &f
	}
	return s, nil
}

// Requests returns a copy of the recorded requests, oldest first (at most
// the last 10,000).
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.recorded...)
}

// ResetRequests forgets every recorded request.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recorded = nil
}

// SetFaults replaces the fault configuration (nil disables faults) and
// restarts the EveryN counter.
func (s *Server) SetFaults(f *Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultSeq = 0
	if f == nil {
		s.faults = nil
		return
	}
	c := *f
	s.faults = &c
}

// Summary describes the running server for operators and e2e harnesses.
func (s *Server) Summary(rsURL string) Summary {
	sum := Summary{RSURL: rsURL, Grants: []GrantSummary{}}
	if s.asMounted() {
		sum.AuthorizationServer = strings.TrimRight(rsURL, "/") + pathASMetadata
	}
	if len(s.ds.OwnerTokens) > 0 {
		sum.OwnerBearer = s.ds.OwnerTokens[0]
	}
	for _, g := range s.ds.Grants {
		gs := GrantSummary{
			GrantID:       g.ID,
			ConnectorKey:  g.ConnectorKey,
			Bearer:        g.Token,
			ConnectionIDs: grantConnectionIDs(&g),
		}
		if s.opts.TokenTTL > 0 {
			at := s.started.Add(s.opts.TokenTTL).UTC()
			gs.ExpiresAt = &at
		}
		sum.Grants = append(sum.Grants, gs)
	}
	return sum
}

// grantConnectionIDs lists the distinct connections of a grant in first-seen
// order.
func grantConnectionIDs(g *Grant) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, gs := range g.Streams {
		for _, id := range gs.ConnectionIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

var _ http.Handler = (*Server)(nil)

// hasGrant reports whether the dataset holds grant id.
func (s *Server) hasGrant(id string) bool { return s.grant(id) != nil }
