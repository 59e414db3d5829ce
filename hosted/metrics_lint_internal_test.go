package hosted

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// TestMetricsLint: every pdpp_mcp_* series passes client_golang's
// promtool-style lint (naming, units, help, counter suffixes), checked
// with each vector populated so the lint sees real series.
func TestMetricsLint(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	m.ObserveTool(adapter.ToolCall{Tool: "fetch", IsError: true, ErrorCode: "invalid_id"})
	m.observeAuth(authClient)
	m.observeResourceRead([]byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"pdpp://record/c/s:1"}}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	m.http.requests.WithLabelValues("/mcp", "200").Inc()
	m.http.duration.WithLabelValues("/mcp").Observe(0.1)
	m.rsAnswers.WithLabelValues("records", "200").Inc()
	m.rsDuration.WithLabelValues("records").Observe(0.1)
	for _, c := range append([]prometheus.Collector{m.calls, m.errors, m.duration, m.rsAnswers, m.rsDuration}, m.http.collectors()...) {
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
	// The whole registry, runtime collectors included, gathers cleanly.
	if problems, err := testutil.GatherAndLint(m.registry); err != nil {
		t.Fatal(err)
	} else {
		for _, p := range problems {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
}
