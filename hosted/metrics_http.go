package hosted

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Auth outcomes of one /mcp request: the label values of
// pdpp_mcp_auth_outcomes_total.
const (
	authClient      = "client"      // a client token, served
	authMissing     = "missing"     // no or malformed bearer: 401
	authInvalid     = "invalid"     // unusable token (expired, bad signature, unknown): 401
	authRefused     = "refused"     // owner or control-plane token: 403
	authUnavailable = "unavailable" // the token could not be verified now: 503
	authRevoked     = "rs_refused"  // verified, then refused by the RS mid-call: 401
	authUnserved    = "unserved"    // a token the RS never serves here (package, revoked grant): 401 with the reason
)

var authOutcomes = []string{authClient, authMissing, authInvalid, authRefused, authUnavailable, authRevoked, authUnserved}

// httpMetrics are the door's own series; see NewMetrics.
type httpMetrics struct {
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	auth          *prometheus.CounterVec
	resourceReads *prometheus.CounterVec
	buildInfo     *prometheus.GaugeVec

	// authOutcome is each outcome's counter, resolved once: the map is
	// never written after construction.
	authOutcome map[string]prometheus.Counter
	// route is each route's request series (see series).
	route *series[routeStatus, routeSeries]
}

// routeStatus labels one answered request: the route pattern and status.
type routeStatus struct {
	route  string
	status int
}

// routeSeries are one route and status's request counter, and the route's
// latency histogram.
type routeSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func newHTTPMetrics() httpMetrics {
	m := httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pdpp_mcp_http_requests_total", Help: "HTTP requests to the hosted adapter by route pattern and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pdpp_mcp_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		auth: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pdpp_mcp_auth_outcomes_total", Help: "Bearer checks at /mcp by outcome (client, missing, invalid, refused, unavailable, rs_refused).",
		}, []string{"outcome"}),
		resourceReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pdpp_mcp_resource_reads_total", Help: "MCP resources/read calls by resource template and outcome.",
		}, []string{"resource", "outcome"}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "pdpp_mcp_build_info", Help: "Always 1; the labels name the running build.",
		}, []string{"version", "goversion"}),
	}
	m.authOutcome = make(map[string]prometheus.Counter, len(authOutcomes))
	for _, o := range authOutcomes {
		m.authOutcome[o] = m.auth.WithLabelValues(o) // every outcome exists from the start, at 0
	}
	m.route = newSeries(func(k routeStatus) routeSeries {
		return routeSeries{requests: m.requests.WithLabelValues(k.route, strconv.Itoa(k.status)), duration: m.duration.WithLabelValues(k.route)}
	})
	v := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	m.buildInfo.WithLabelValues(v, runtime.Version()).Set(1)
	return m
}

func (m httpMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.duration, m.auth, m.resourceReads, m.buildInfo}
}

// SetBuildInfo names the version in pdpp_mcp_build_info, for binaries
// whose version is stamped at link time rather than in the build info.
func (m *Metrics) SetBuildInfo(version string) {
	if m == nil {
		return
	}
	m.http.buildInfo.Reset()
	m.http.buildInfo.WithLabelValues(version, runtime.Version()).Set(1)
}

// observeRequest counts one request by the ServeMux pattern that served
// it (pattern): a fixed set, so paths with ids or junk never become
// labels. A nil *Metrics observes nothing.
func (m *Metrics) observeRequest(pattern string, status int, d time.Duration) {
	if m == nil {
		return
	}
	route := pattern
	if _, path, ok := strings.Cut(route, " "); ok {
		route = path // "GET /healthz" → "/healthz"
	}
	if route == "" {
		route = "unmatched"
	}
	rs := m.http.route.get(routeStatus{route: route, status: status})
	rs.requests.Inc()
	rs.duration.Observe(d.Seconds())
}

// observeAuth counts one bearer check outcome.
func (m *Metrics) observeAuth(outcome string) {
	if m == nil {
		return
	}
	if c, ok := m.http.authOutcome[outcome]; ok {
		c.Inc()
		return
	}
	m.http.auth.WithLabelValues(outcome).Inc()
}

// observeResourceRead counts a resources/read call from the JSON-RPC
// request and the held answer. Anything else (tools, lists, batches,
// undecodable bodies) is not a resource read and is skipped.
func (m *Metrics) observeResourceRead(request, answer []byte) {
	if m == nil || !mayReadResource(request) {
		return
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(request, &req) != nil || req.Method != "resources/read" {
		return
	}
	resource := "other"
	switch {
	case strings.HasPrefix(req.Params.URI, "pdpp://record/"):
		resource = "record"
	case strings.HasPrefix(req.Params.URI, "pdpp://field-window/"):
		resource = "field_window"
	}
	var resp struct {
		Error json.RawMessage `json:"error"`
	}
	outcome := "ok"
	if json.Unmarshal(answer, &resp) != nil || len(resp.Error) > 0 && string(resp.Error) != "null" {
		outcome = "error"
	}
	m.http.resourceReads.WithLabelValues(resource, outcome).Inc()
}
