package hosted_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func resourceRead(uri string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"` + uri + `"}}`
}

// TestDoorMetrics: HTTP requests by route and status, bearer checks by
// outcome, resource reads by template and outcome, and the build info,
// all with bounded labels (no paths, ids or tokens).
func TestDoorMetrics(t *testing.T) {
	t.Parallel()
	m := hosted.NewMetrics()
	m.SetBuildInfo("v1.2.3")
	env := startHosted(t, hosted.Options{Metrics: m}, adapter.Config{Observer: m})
	bearer := "Bearer " + demodata.GmailToken
	record := contentladder.RecordURI(contentladder.RecordRef{ConnectionID: demodata.GmailWorkConnectionID, Stream: "messages", RecordID: demodata.SharedRecordID})
	steps := []struct {
		auth, body string
		wantStatus int
	}{
		{"", toolsList, 401},
		{"Bearer " + demodata.OwnerToken, toolsList, 403},
		{"Bearer " + demodata.ExpiredToken, toolsList, 401},
		{bearer, toolsList, 200},
		{bearer, resourceRead(record), 200},
		{bearer, resourceRead("pdpp://record/not-a-handle"), 200}, // a JSON-RPC error
		// JSON may escape the method's slash; it is the same method.
		{bearer, strings.Replace(resourceRead("pdpp://field-window/not-a-handle"), "resources/read", `resources\/read`, 1), 200},
	}
	for _, s := range steps {
		if got := post(t, env.url, s.auth, s.body, nil); got.Status != s.wantStatus {
			t.Fatalf("POST /mcp %.40s: %d, want %d: %s", s.body, got.Status, s.wantStatus, got.Body)
		}
	}
	for _, path := range []string{"/healthz", "/no/such/page/with-an-id-123"} {
		resp, err := http.Get(env.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	body := scrape(t, env.url+"/metrics")
	for _, want := range []string{
		`pdpp_mcp_http_requests_total{code="401",route="/mcp"} 2`,
		`pdpp_mcp_http_requests_total{code="403",route="/mcp"} 1`,
		`pdpp_mcp_http_requests_total{code="200",route="/mcp"} 4`,
		`pdpp_mcp_http_requests_total{code="200",route="/healthz"} 1`,
		`pdpp_mcp_http_requests_total{code="404",route="unmatched"} 1`,
		`pdpp_mcp_http_request_duration_seconds_count{route="/mcp"} 7`,
		`pdpp_mcp_auth_outcomes_total{outcome="client"} 4`,
		`pdpp_mcp_auth_outcomes_total{outcome="missing"} 1`,
		`pdpp_mcp_auth_outcomes_total{outcome="invalid"} 1`,
		`pdpp_mcp_auth_outcomes_total{outcome="refused"} 1`,
		`pdpp_mcp_auth_outcomes_total{outcome="unavailable"} 0`,
		`pdpp_mcp_resource_reads_total{outcome="ok",resource="record"} 1`,
		`pdpp_mcp_resource_reads_total{outcome="error",resource="record"} 1`,
		`pdpp_mcp_resource_reads_total{outcome="error",resource="field_window"} 1`,
		`pdpp_mcp_build_info{goversion="go`,
		`version="v1.2.3"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, leak := range []string{demodata.GmailToken, demodata.OwnerToken, "with-an-id-123", demodata.SharedRecordID} {
		if strings.Contains(body, leak) {
			t.Errorf("metrics carry an unbounded or secret value %.12s…", leak)
		}
	}
}

// TestMetricsServedElsewhere: with MetricsServedElsewhere the public
// handler has no /metrics, and still records into the registry that the
// separate listener serves.
func TestMetricsServedElsewhere(t *testing.T) {
	t.Parallel()
	m := hosted.NewMetrics()
	env := startHosted(t, hosted.Options{Metrics: m, MetricsServedElsewhere: true}, adapter.Config{Observer: m})
	resp, err := http.Get(env.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on the public handler: %d, want 404", resp.StatusCode)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if want := `pdpp_mcp_http_requests_total{code="404",route="unmatched"} 1`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("separate registry lacks %s", want)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return string(b)
}
