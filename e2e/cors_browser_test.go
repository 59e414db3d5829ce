package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// corsFetchJS is what a browser MCP client (the MCP Inspector's web UI in
// direct mode) does: a cross-origin fetch of /mcp with a bearer and JSON,
// which makes Chromium send a pre-flight first. It reports the status, the
// challenge it could read, and the number of tools — or the TypeError a
// refused CORS check raises.
const corsFetchJS = `(async () => {
  const headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18"};
  if (%q !== "") headers["Authorization"] = "Bearer " + %q;
  try {
    const r = await fetch(%q, {method: "POST", headers, body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/list"})});
    const body = await r.text();
    let tools = 0;
    try { tools = (JSON.parse(body).result || {tools: []}).tools.length; } catch (e) {}
    return JSON.stringify({status: r.status, challenge: (r.headers.get("WWW-Authenticate") || "").split(" ")[0], tools});
  } catch (e) {
    return JSON.stringify({error: e.name});
  }
})()`

// corsOutcome is what the page's script saw.
type corsOutcome struct {
	Status    int    `json:"status,omitempty"`
	Challenge string `json:"challenge,omitempty"`
	Tools     int    `json:"tools,omitempty"`
	Error     string `json:"error,omitempty"`
}

// TestCrossOriginMCPInChromium: a page on an origin the operator allowed
// (--allowed-origins) calls /mcp from headless Chromium as the Inspector's
// web UI does — the pre-flight passes, tools/list answers, and without a
// bearer the 401's WWW-Authenticate is readable (sign-in can start). The
// same script on a page of another origin is refused by the browser.
//
// It takes a few seconds (measured alone): starting a real headless
// Chromium, which is the point.
func TestCrossOriginMCPInChromium(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	page := func() string { // a blank page; only its origin matters
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><title>browser MCP client</title>")
		}))
		t.Cleanup(hs.Close)
		return hs.URL
	}
	allowed, other := page(), page()

	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	mcp := httptest.NewServer(hosted.New(a, hosted.Options{AllowedOrigins: []string{allowed}}))
	t.Cleanup(mcp.Close)

	ctx := browserContext(t, false)
	run := func(origin, bearer string) corsOutcome {
		browserDo(t, ctx, chromedp.Navigate(origin+"/"))
		raw := browserRun(t, ctx, chromedp.Evaluate[string](fmt.Sprintf(corsFetchJS, bearer, bearer, mcp.URL+"/mcp"), chromedp.EvalAwaitPromise))
		var o corsOutcome
		if err := json.Unmarshal([]byte(raw), &o); err != nil {
			t.Fatalf("page script answered %q: %v", raw, err)
		}
		return o
	}
	got := map[string]corsOutcome{
		"allowed origin, client bearer": run(allowed, demodata.GmailToken),
		"allowed origin, no bearer":     run(allowed, ""),
		"other origin, client bearer":   run(other, demodata.GmailToken),
	}
	want := map[string]corsOutcome{
		"allowed origin, client bearer": {Status: 200, Tools: 6},
		"allowed origin, no bearer":     {Status: 401, Challenge: "Bearer"},
		"other origin, client bearer":   {Error: "TypeError"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cross-origin fetch of /mcp (-want +got):\n%s", diff)
	}
}
