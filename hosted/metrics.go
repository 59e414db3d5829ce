package hosted

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// Metrics are the adapter's Prometheus series: per tool calls,
// errors and latency, and RS answers by endpoint and status. Labels are
// bounded: tool names and RS endpoints are fixed sets, error codes come from
// a closed vocabulary (unknown ones fold into "other").
type Metrics struct {
	registry   *prometheus.Registry
	calls      *prometheus.CounterVec
	errors     *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	rsAnswers  *prometheus.CounterVec
	rsDuration *prometheus.HistogramVec
	http       httpMetrics

	// Children resolved once per label key (see series).
	toolSeries  *series[string, toolSeries]
	rsSeries    *series[rsAnswer, prometheus.Counter]
	rsDurSeries *series[string, prometheus.Observer]
}

// toolSeries are one tool's call counter and latency histogram.
type toolSeries struct {
	calls    prometheus.Counter
	duration prometheus.Observer
}

// rsAnswer labels one RS answer: endpoint and status, if any answered.
type rsAnswer struct {
	endpoint string
	answered bool
	status   int
}

// NewMetrics registers the adapter series on a fresh registry: tools, RS
// answers, HTTP requests by route, auth outcomes, resource reads and
// pdpp_mcp_build_info, plus the Go runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pdpp_mcp_tool_calls_total", Help: "MCP tool calls by tool.",
		}, []string{"tool"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pdpp_mcp_tool_errors_total", Help: "MCP tool calls that returned isError, by tool and error code.",
		}, []string{"tool", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pdpp_mcp_tool_duration_seconds", Help: "MCP tool call latency.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"tool"}),
		rsAnswers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pdpp_mcp_rs_responses_total", Help: "Resource server answers by endpoint and HTTP status (status \"error\" = no answer).",
		}, []string{"endpoint", "status"}),
		rsDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pdpp_mcp_rs_request_duration_seconds", Help: "Resource server request latency by endpoint.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"endpoint"}),
	}
	m.http = newHTTPMetrics()
	m.toolSeries = newSeries(func(tool string) toolSeries {
		return toolSeries{calls: m.calls.WithLabelValues(tool), duration: m.duration.WithLabelValues(tool)}
	})
	m.rsSeries = newSeries(func(a rsAnswer) prometheus.Counter {
		status := "error"
		if a.answered {
			status = strconv.Itoa(a.status)
		}
		return m.rsAnswers.WithLabelValues(a.endpoint, status)
	})
	m.rsDurSeries = newSeries(func(ep string) prometheus.Observer { return m.rsDuration.WithLabelValues(ep) })
	m.registry.MustRegister(m.calls, m.errors, m.duration, m.rsAnswers, m.rsDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.registry.MustRegister(m.http.collectors()...)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Transport wraps an RS round tripper to count answers per endpoint.
func (m *Metrics) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		start := time.Now()
		resp, err := base.RoundTrip(r)
		ep := rsEndpoint(r.URL.Path)
		m.rsDurSeries.get(ep).Observe(time.Since(start).Seconds())
		answer := rsAnswer{endpoint: ep}
		if err == nil {
			answer.answered, answer.status = true, resp.StatusCode
		}
		m.rsSeries.get(answer).Inc()
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// rsEndpoint maps an RS path to a bounded label (never ids or streams).
func rsEndpoint(path string) string {
	switch {
	case path == "/v1/schema":
		return "schema"
	case strings.HasPrefix(path, "/v1/search"):
		return "search" + strings.TrimPrefix(path, "/v1/search")
	case strings.HasPrefix(path, "/.well-known/"):
		return "metadata"
	case strings.HasSuffix(path, "/field-window"):
		return "field_window"
	case strings.HasSuffix(path, "/aggregate"):
		return "aggregate"
	case strings.HasSuffix(path, "/records"):
		return "records"
	case strings.Contains(path, "/records/"):
		return "record"
	}
	return "other"
}

// knownCodes bounds the error-code label.
var knownCodes = map[string]bool{
	"invalid_arguments": true, "invalid_filter": true, "invalid_expand": true, "invalid_id": true, "invalid_handle": true,
	"conflicting_connection_id": true, "invalid_field_window_selector": true, "invalid_cursor": true,
	"ambiguous_connection": true, "ambiguous_schema_detail": true, "connection_not_found": true, "unknown_connection": true, "unknown_stream": true, "source_unavailable": true,
	"invalid_aggregate": true, "search_mode_unavailable": true, "owner_token_refused": true, "no_credentials": true,
	"rs_unavailable": true, "rs_timeout": true, "response_too_large": true, "invalid_response": true,
	"invalid_request": true, "authentication_error": true, "grant_stream_not_allowed": true, "field_not_granted": true,
	"not_found": true, "field_not_found": true, "query_not_found": true, "field_not_text": true, "invalid_sort": true,
	"unknown_field": true, "cursor_expired": true, "grant_revoked": true, "grant_expired": true, "internal_error": true,
	adapter.CodePackageToken: true,
}

// ObserveTool counts one tool call: adapter.Config.Observer.
// A nil *Metrics observes nothing.
func (m *Metrics) ObserveTool(c adapter.ToolCall) {
	if m == nil {
		return
	}
	ts := m.toolSeries.get(c.Tool)
	ts.calls.Inc()
	ts.duration.Observe(c.Duration.Seconds())
	if c.IsError {
		code := c.ErrorCode
		if !knownCodes[code] {
			code = "other"
		}
		m.errors.WithLabelValues(c.Tool, code).Inc()
	}
}
