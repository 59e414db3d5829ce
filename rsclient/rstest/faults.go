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
	return "unknown"
}

// injectFault applies the configured fault; true means it answered.
func (s *Server) injectFault(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	f := s.faults
	hit := false
	if f != nil && strings.HasPrefix(r.URL.Path, f.PathPrefix) {
		s.faultSeq++
		hit = f.EveryN <= 1 || s.faultSeq%f.EveryN == 0
	}
	var fc Faults
	if hit {
		fc = *f
	}
	s.mu.Unlock()
	if !hit {
		return false
	}
	if fc.Latency > 0 {
		t := time.NewTimer(fc.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return true
		}
	}
	c := &call{w: w, r: r, reqID: requestID(r)}
	w.Header().Set("Request-Id", c.reqID)
	w.Header().Set("PDPP-Version", pdppVersion)
	switch {
	case fc.Reset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler) // no hijacker (HTTP/2): abort the stream
	case fc.Status5xx >= 500 && fc.Status5xx <= 599:
		e := &apiError{status: fc.Status5xx, code: "api_error", message: "Injected fault: upstream unavailable"}
		if fc.Status5xx == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		s.writeJSON(c, e.status, e.envelope(c.reqID))
		return true
	case fc.MalformedJSON:
		body := `{"object":"list","data":[{"object":"record","id":`
		s.writeRaw(c, body)
		return true
	case fc.OversizedBytes > 0:
		s.writeRaw(c, paddedBody(fc.OversizedBytes))
		return true
	}
	return false
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
