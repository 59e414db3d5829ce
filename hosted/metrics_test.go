package hosted_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func TestMetricsCountToolsErrorsAndRSStatuses(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	m := hosted.NewMetrics()
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL, Transport: m.Transport(nil)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.SlackToken)}, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	callTool(t, a, "schema", map[string]any{})
	callTool(t, a, "query_records", map[string]any{"stream": "messages", "limit": 2})
	callTool(t, a, "query_records", map[string]any{"stream": "messages", "sort": "text"}) // RS 400
	callTool(t, a, "fetch", map[string]any{"id": "../x"})                                 // adapter error
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`pdpp_mcp_tool_calls_total{tool="query_records"} 2`,
		`pdpp_mcp_tool_calls_total{tool="schema"} 1`,
		`pdpp_mcp_tool_errors_total{code="invalid_sort",tool="query_records"} 1`,
		`pdpp_mcp_tool_errors_total{code="invalid_id",tool="fetch"} 1`,
		`pdpp_mcp_rs_responses_total{endpoint="records",status="200"} 1`,
		`pdpp_mcp_rs_responses_total{endpoint="records",status="400"} 1`,
		`pdpp_mcp_tool_duration_seconds_count{tool="schema"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(string(body), demodata.SlackToken) {
		t.Error("bearer in metrics")
	}
}

func TestHostedServesMetrics(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	m := hosted.NewMetrics()
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{Metrics: m}))
	t.Cleanup(hs.Close)
	resp, err := hs.Client().Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "go_goroutines") {
		t.Errorf("GET /metrics: %d %.200s", resp.StatusCode, body)
	}
}
