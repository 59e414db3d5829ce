package rstest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// record appends a request to the bounded log.
func (s *Server) record(r *http.Request) {
	tok, _ := bearerToken(r.Header.Get("Authorization"))
	rr := RecordedRequest{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Bearer: tok,
		Principal: s.principalName(tok), Time: s.opts.Now()}
	s.mu.Lock()
	if len(s.recorded) >= maxRecorded {
		// Drop the oldest half at once so appends stay amortised O(1).
		s.recorded = append(s.recorded[:0], s.recorded[len(s.recorded)-maxRecorded/2:]...)
	}
	s.recorded = append(s.recorded, rr)
	s.mu.Unlock()
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(rr)
	}
}

// principalName names a bearer for the request log without revealing it.
func (s *Server) principalName(tok string) string {
	switch {
	case tok == "":
		return "none"
	case s.ix.owners[tok]:
		return "owner"
	}
	if g, _, ok := s.clientGrant(tok); ok {
		return "grant:" + g.ID
	}
	if pkg, ok := s.packageOf(tok); ok {
		return "package:" + pkg
	}
	return "unknown"
}

// injectFault applies the configured fault; true means it answered.
func (s *Server) injectFault(w http.ResponseWriter, r *http.Request) bool {
	fc, hit := s.nextFault(r)
	if !hit {
		return false
	}
	if !faultDelay(r, fc.Latency) {
		return true // the client went away while we waited
	}
	c := &call{w: w, r: r, reqID: requestID(r)}
	// Set even when the fault is only latency: the request then continues
	// to its handler with these headers already in place.
	w.Header().Set("Request-Id", c.reqID)
	w.Header().Set("PDPP-Version", pdppVersion)
	return s.answerFault(c, fc)
}

// nextFault counts a request under the fault's path prefix and returns a
// copy of the fault when this request is one of every EveryN it hits.
func (s *Server) nextFault(r *http.Request) (Faults, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	if f == nil || !strings.HasPrefix(r.URL.Path, f.PathPrefix) {
		return Faults{}, false
	}
	s.faultSeq++
	if f.EveryN <= 1 || s.faultSeq%f.EveryN == 0 {
		return *f, true
	}
	return Faults{}, false
}

// faultDelay waits out an injected latency; false means the request's
// context ended first.
func faultDelay(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		t.Stop()
		return false
	}
}

// answerFault answers with the first configured failure, in order: reset,
// 5xx, malformed JSON, oversized body; false when fc has none of them.
func (s *Server) answerFault(c *call, fc Faults) bool {
	switch {
	case fc.Reset:
		resetConn(c.w)
	case fc.Status5xx >= 500 && fc.Status5xx <= 599:
		e := &apiError{status: fc.Status5xx, code: "api_error", message: "Injected fault: upstream unavailable"}
		if fc.Status5xx == http.StatusServiceUnavailable {
			c.w.Header().Set("Retry-After", "1")
		}
		s.writeJSON(c, e.status, e.envelope(c.reqID))
	case fc.MalformedJSON:
		s.writeRaw(c, `{"object":"list","data":[{"object":"record","id":`)
	case fc.OversizedBytes > 0:
		s.writeRaw(c, paddedBody(fc.OversizedBytes))
	default:
		return false
	}
	return true
}

// resetConn drops the connection without a response: closed outright
// when the writer can be hijacked, else the stream is aborted (HTTP/2).
func resetConn(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // no hijacker (HTTP/2): abort the stream
}

// writeRaw writes a 200 JSON-typed body verbatim.
func (s *Server) writeRaw(c *call, body string) {
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	c.w.WriteHeader(http.StatusOK)
	if c.r.Method != http.MethodHead {
		_, _ = c.w.Write([]byte(body))
	}
}

// paddedBody is a syntactically valid list body of exactly n bytes (or the
// minimal body when n is smaller), so size limits are what trips a client.
func paddedBody(n int) string {
	const head = `{"object":"list","has_more":false,"data":[],"pad":"`
	const tail = `"}`
	if n < len(head)+len(tail) {
		return head + tail
	}
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}
