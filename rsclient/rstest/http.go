package rstest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// pdppVersion is the only protocol version the RS accepts and echoes.
const pdppVersion = "2026-04-06"

// maxPathSegments bounds route matching work.
const maxPathSegments = 8

// call is the per-request state handlers share.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	reqID string
	q     *query
	p     *principal
}

// ServeHTTP routes a request, records it, and applies faults.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	if s.injectFault(w, r) {
		return
	}
	c := &call{w: w, r: r, reqID: requestID(r)}
	h := w.Header()
	h.Set("Request-Id", c.reqID)
	h.Set("PDPP-Version", pdppVersion)
	h.Set("Connection", "close")

	if s.serveMint(c) || s.serveOAuth(c) {
		return
	}
	segs, ok := splitPath(r.URL.EscapedPath())
	route := matchRoute(segs, s.opts.Semantic)
	if !ok || route == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		s.fastify404(c)
		return
	}
	if v := r.Header.Get("PDPP-Version"); v != "" && v != pdppVersion {
		s.fail(c, newErr("unsupported_version", "", "Unsupported PDPP-Version %q; supported version is %s", v, pdppVersion))
		return
	}
	if route.kind == routePRM {
		s.writeJSON(c, http.StatusOK, s.prm(r))
		return
	}
	q, qerr := parseQuery(r.URL.RawQuery)
	if qerr != nil {
		s.fail(c, newErr("invalid_request", qerr.Param, "%s", qerr.Msg))
		return
	}
	c.q = q
	p, aerr := s.authenticate(r)
	if aerr != nil {
		s.fail(c, aerr)
		return
	}
	c.p = p
	if err := s.enforceReadContext(c, route); err != nil {
		s.fail(c, err)
		return
	}
	body, err := s.dispatch(c, route)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.writeJSON(c, http.StatusOK, body)
}

// dispatch runs the handler of a matched /v1 route.
func (s *Server) dispatch(c *call, rt *route) (obj, *apiError) {
	switch rt.kind {
	case routeSchema:
		return s.schema(c)
	case routeStreams:
		return s.streamList(c)
	case routeStream:
		return s.streamMeta(c, rt.stream)
	case routeRecords:
		return s.records(c, rt.stream)
	case routeRecord:
		return s.recordDetail(c, rt.stream, rt.id)
	case routeFieldWindow:
		return s.fieldWindow(c, rt.stream, rt.id)
	case routeAggregate:
		return s.aggregate(c, rt.stream)
	case routeSearch:
		return s.search(c, rt.mode)
	}
	return nil, newErr("api_error", "", "unroutable")
}

// requestID echoes a sane inbound Request-Id, else mints req_<16 hex>.
func requestID(r *http.Request) string {
	if v := r.Header.Get("Request-Id"); v != "" && len(v) <= 128 && !strings.ContainsAny(v, "\r\n") {
		return v
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// fail writes the error envelope; 401s carry the RFC 9728 challenge.
func (s *Server) fail(c *call, e *apiError) {
	if e.status == http.StatusUnauthorized {
		md := s.origin(c.r) + "/.well-known/oauth-protected-resource"
		c.w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+md+`"`)
		e.extra = append(e.extra, kv{"resource_metadata", md}, kv{"next_step", nextStep})
	}
	s.writeJSON(c, e.status, e.envelope(c.reqID))
}

// introspectionFailed is the reference's message for a client token whose
// introspection context does not cover the request (a stream outside the
// grant, a connection outside its instance list).
const introspectionFailed = "Token introspection failed closed"

// enforceReadContext mirrors the reference's auth middleware: for a client
// token on any /v1/streams/{stream}/… route, the stream must be in the
// grant and a connection_id (or its alias) among the grant's instances, or
// the token is treated as inactive: 401 context.stream_not_allowed /
// context.instance_mismatch with the challenge (captures 0104, 0142, 0155).
// It reads like a dead token, which is exactly what clients must cope with.
func (s *Server) enforceReadContext(c *call, rt *route) *apiError {
	if c.p.owner || rt.stream == "" {
		return nil
	}
	gs := c.p.grantStream(rt.stream)
	if gs == nil {
		return newErr("context.stream_not_allowed", "", introspectionFailed)
	}
	connID, hasID := c.q.one("connection_id")
	if !hasID {
		connID, hasID = c.q.one("connector_instance_id")
	}
	if !hasID || connID == "" {
		return nil
	}
	for _, id := range gs.ConnectionIDs {
		if id == connID {
			return nil
		}
	}
	return newErr("context.instance_mismatch", "", introspectionFailed)
}

// nextStep is the reference RS's 401 guidance text.
const nextStep = "Fetch error.resource_metadata, then follow pdpp_agent_discovery.cli when token completion is available; otherwise request a scoped client grant without using an owner bearer token."

// fastify404 mimics Fastify's default not-found body for unmounted routes.
func (s *Server) fastify404(c *call) {
	body := obj{
		{"message", "Route " + c.r.Method + ":" + c.r.URL.Path + " not found"},
		{"error", "Not Found"},
		{"statusCode", 404},
	}
	s.writeJSON(c, http.StatusNotFound, body)
}

// writeJSON serialises and writes a body; HEAD gets headers only.
func (s *Server) writeJSON(c *call, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(newErr("api_error", "", "encoding failed").envelope(c.reqID))
	}
	h := c.w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	c.w.WriteHeader(status)
	if c.r.Method != http.MethodHead {
		_, _ = c.w.Write(b)
	}
}

// origin is the public origin of this RS.
func (s *Server) origin(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return strings.TrimRight(s.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// splitPath splits an escaped path and percent-decodes each segment with
// decodeURIComponent semantics, so %2F inside an id stays in the id.
func splitPath(escaped string) ([]string, bool) {
	escaped = strings.TrimPrefix(escaped, "/")
	if escaped == "" {
		return nil, true
	}
	raw := strings.Split(escaped, "/")
	if len(raw) > maxPathSegments {
		return nil, false
	}
	out := make([]string, len(raw))
	for i, s := range raw {
		d, err := url.PathUnescape(s)
		if err != nil {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}
