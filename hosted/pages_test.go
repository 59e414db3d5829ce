package hosted_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/golden"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// The setup pages never call the RS, so a fixed, unreachable provider URL
// and public origin make their output deterministic enough for goldens.
const (
	pagesOrigin   = "https://pdpp.example"
	pagesProvider = "https://rs.example"
	pagesMCPURL   = pagesOrigin + "/mcp"
)

// startPagesServer serves the hosted handler on a real loopback server.
// publicURL "" derives the origin from each request's Host.
func startPagesServer(t *testing.T, publicURL string) *httptest.Server {
	t.Helper()
	return startPagesServerWith(t, hosted.Options{PublicURL: publicURL})
}

// startPagesServerWith is startPagesServer with every hosted option.
func startPagesServerWith(t *testing.T, opts hosted.Options) *httptest.Server {
	t.Helper()
	rc, err := rsclient.New(rsclient.Config{BaseURL: pagesProvider})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(srv, opts))
	t.Cleanup(hs.Close)
	return hs
}

type pageResponse struct {
	status int
	header http.Header
	body   string
}

func fetchPage(t *testing.T, method, url, host string) pageResponse {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return pageResponse{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// pagesLocalStdio is a demo's stdio setup (a path with a space, so the
// shell quoting shows).
var pagesLocalStdio = &hosted.LocalStdio{Exe: "/opt/pdpp mcp/bin/pdpp-mcp", CacheRoot: "/home/ada/.cache/pdpp-mcp/demo"}

// TestSetupPagesGolden pins both pages byte for byte, as served in
// production and as the demo serves them (LocalStdio: no `pdpp connect`,
// the demo's own absolute paths); refresh with -update.
func TestSetupPagesGolden(t *testing.T) {
	t.Parallel()
	hs := startPagesServer(t, pagesOrigin)
	demo := startPagesServerWith(t, hosted.Options{PublicURL: pagesOrigin, LocalStdio: pagesLocalStdio})
	for _, tc := range []struct{ name, base, path, golden string }{
		{"/connect", hs.URL, "/connect", "connect.golden.html"},
		{"/llms.txt", hs.URL, "/llms.txt", "llms.golden.txt"},
		{"demo /connect", demo.URL, "/connect", "connect.demo.golden.html"},
		{"demo /llms.txt", demo.URL, "/llms.txt", "llms.demo.golden.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := fetchPage(t, http.MethodGet, tc.base+tc.path, "")
			if got.status != http.StatusOK {
				t.Fatalf("GET %s: status %d: %s", tc.path, got.status, got.body)
			}
			path := filepath.Join("testdata", tc.golden)
			want := golden.Read(t, path, []byte(got.body))
			if diff := cmp.Diff(string(want), got.body); diff != "" {
				t.Errorf("%s changed (-want +got); rerun with -update if intended:\n%s", tc.path, diff)
			}
		})
	}
}

// TestConnectPagePayload checks the one primary payload and every command
// a person copies, by element id, after HTML unescaping.
func TestConnectPagePayload(t *testing.T) {
	t.Parallel()
	body := fetchPage(t, http.MethodGet, startPagesServer(t, pagesOrigin).URL+"/connect", "").body

	primary := regexp.MustCompile(`(?s)<section class="primary"[^>]*>.*?</section>`).FindString(body)
	if !strings.Contains(primary, `<input id="mcp-url" type="text" readonly value="`+pagesMCPURL+`"`) {
		t.Errorf("primary section does not hold the MCP URL as its readonly input:\n%s", primary)
	}
	if !strings.Contains(primary, `data-copy="mcp-url"`) {
		t.Errorf("primary section has no copy button for the URL:\n%s", primary)
	}
	if first := strings.Index(body, pagesMCPURL); first < 0 || first < strings.Index(body, primary) {
		t.Errorf("the MCP URL first appears outside the primary payload (at %d)", first)
	}

	want := map[string]string{
		"cmd-export":             `export PDPP_BEARER="<your client token>"`,
		"cmd-claude-code":        `claude mcp add --transport http pdpp https://pdpp.example/mcp`,
		"cmd-codex":              `codex mcp add pdpp --url https://pdpp.example/mcp`,
		"cmd-claude-code-bearer": `claude mcp add --transport http pdpp https://pdpp.example/mcp --header "Authorization: Bearer $PDPP_BEARER"`,
		"cmd-codex-bearer":       `codex mcp add pdpp --url https://pdpp.example/mcp --bearer-token-env-var PDPP_BEARER`,
		"cmd-generic-header":     `Authorization: Bearer <your client token>`,
		"cmd-stdio-connect":      `pdpp-mcp connect https://rs.example --cache-root "$HOME/.pdpp"`,
		"cmd-stdio-claude-code":  `claude mcp add pdpp-stdio -- "$(command -v pdpp-mcp)" --provider-url https://rs.example --cache-root "$HOME/.pdpp"`,
		"cmd-stdio-codex":        `codex mcp add pdpp-stdio -- "$(command -v pdpp-mcp)" --provider-url https://rs.example --cache-root "$HOME/.pdpp"`,
		"cmd-stdio-config":       `{"mcpServers":{"pdpp-stdio":{"command":"/ABSOLUTE/PATH/TO/pdpp-mcp","args":["--provider-url","https://rs.example","--cache-root","/ABSOLUTE/PATH/TO/HOME/.pdpp"]}}}`,
		"entry-cli":              `pdpp-mcp connect https://rs.example --cache-root "$HOME/.pdpp"`,
		"entry-llms":             `https://pdpp.example/llms.txt`,
	}
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`<(?:code|a) id="([^"]+)"[^>]*>([^<]*)</(?:code|a)>`).FindAllStringSubmatch(body, -1) {
		got[m[1]] = html.UnescapeString(m[2])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands on /connect (-want +got):\n%s", diff)
	}
	for _, heading := range []string{"Connect an AI app", "Claude Code", "Codex", "Without sign-in: paste a client token", "ChatGPT, Claude.ai and other remote connectors", "Any other MCP client", "Run it locally instead (stdio)", "For agents"} {
		if !regexp.MustCompile(`<h[12][^>]*>` + regexp.QuoteMeta(heading) + `</h[12]>`).MatchString(body) {
			t.Errorf("no heading %q", heading)
		}
	}
	if !strings.Contains(body, `<html lang="en">`) {
		t.Error("page does not declare its language")
	}
	// Every command box has its own Copy button.
	buttons := map[string]bool{}
	for _, m := range regexp.MustCompile(`<button [^>]*data-copy="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		buttons[m[1]] = true
	}
	boxes := regexp.MustCompile(`<pre><code id="([^"]+)"`).FindAllStringSubmatch(body, -1)
	if len(boxes) < 10 {
		t.Errorf("only %d command boxes found", len(boxes))
	}
	for _, m := range boxes {
		if !buttons[m[1]] {
			t.Errorf("command box %s has no Copy button", m[1])
		}
	}
	// Where a client token comes from is said on the page.
	for _, want := range []string{"PDPP provider", "OAuth", "pdpp-mcp connect", "pdpp-mcp demo"} {
		if !strings.Contains(regexp.MustCompile(`(?s)<p id="token-source">.*?</p>`).FindString(body), want) {
			t.Errorf("the client-token source paragraph does not mention %q", want)
		}
	}
}

var (
	hex64      = regexp.MustCompile(`[0-9a-fA-F]{64}`)
	profileVoc = regexp.MustCompile(`(?i)\bprofiles?\b|\btool ?sets?\b|\bcore\b|\bfull\b`)
)

// TestSetupPagesPolicy: what both public pages must never carry, their
// size budgets and security headers.
func TestSetupPagesPolicy(t *testing.T) {
	t.Parallel()
	hs := startPagesServer(t, pagesOrigin)
	for _, tc := range []struct {
		path, contentType string
		maxBytes          int
	}{
		{"/connect", "text/html; charset=utf-8", 12 << 10},
		{"/llms.txt", "text/plain; charset=utf-8", 6 << 10},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			got := fetchPage(t, http.MethodGet, hs.URL+tc.path, "")
			if m := hex64.FindString(got.body); m != "" {
				t.Errorf("token-like 64-hex string on a public page: %s", m)
			}
			if m := profileVoc.FindString(got.body); m != "" {
				t.Errorf("profile vocabulary %q on %s", m, tc.path)
			}
			if len(got.body) >= tc.maxBytes {
				t.Errorf("%s is %d bytes; budget %d", tc.path, len(got.body), tc.maxBytes)
			}
			wantHeaders := map[string]string{
				"Content-Type":           tc.contentType,
				"X-Content-Type-Options": "nosniff",
				"Referrer-Policy":        "no-referrer",
				"Cache-Control":          "no-store",
				"X-Frame-Options":        "DENY",
			}
			gotHeaders := map[string]string{}
			for k := range wantHeaders {
				gotHeaders[k] = got.header.Get(k)
			}
			if diff := cmp.Diff(wantHeaders, gotHeaders); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			csp := got.header.Get("Content-Security-Policy")
			for _, directive := range []string{"default-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, directive) {
					t.Errorf("CSP %q lacks %q", csp, directive)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "http") {
				t.Errorf("CSP allows inline code or remote loads: %q", csp)
			}
		})
	}
}

// TestConnectPageCSPMatchesServedInline hashes the inline blocks as served
// (not as templated), so the policy provably admits them.
func TestConnectPageCSPMatchesServedInline(t *testing.T) {
	t.Parallel()
	got := fetchPage(t, http.MethodGet, startPagesServer(t, pagesOrigin).URL+"/connect", "")
	csp := got.header.Get("Content-Security-Policy")
	for _, tc := range []struct{ directive, re string }{
		{"script-src", `(?s)<script>(.*?)</script>`},
		{"style-src", `(?s)<style>(.*?)</style>`},
	} {
		m := regexp.MustCompile(tc.re).FindStringSubmatch(got.body)
		if m == nil {
			t.Fatalf("no inline block for %s", tc.directive)
		}
		sum := sha256.Sum256([]byte(m[1]))
		want := tc.directive + " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
}

// TestLLMsTxtToolsMatchCatalog: the tool list never drifts from tools/list.
func TestLLMsTxtToolsMatchCatalog(t *testing.T) {
	t.Parallel()
	body := fetchPage(t, http.MethodGet, startPagesServer(t, pagesOrigin).URL+"/llms.txt", "").body
	_, tools, _ := strings.Cut(body, "## Tools\n")
	tools, _, _ = strings.Cut(tools, "\n## ")
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^- ([a-z_]+): \S`).FindAllStringSubmatch(tools, -1) {
		got = append(got, m[1])
	}
	if diff := cmp.Diff(adapter.ToolNames(), got); diff != "" {
		t.Errorf("tools in /llms.txt (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"MCP URL: " + pagesMCPURL,
		"Streamable HTTP, stateless",
		`WWW-Authenticate: Bearer resource_metadata="https://pdpp.example/.well-known/oauth-protected-resource/mcp"`,
		"Owner and control-plane tokens are refused",
		`"$(command -v pdpp-mcp)" --provider-url ` + pagesProvider + ` --cache-root "$HOME/.pdpp"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/llms.txt lacks %q", want)
		}
	}
}

// TestSetupPagesMethodsAndOrigin: GET/HEAD only, the bare origin redirects
// to /connect, and without a public URL the Host header is never rendered:
// the pages name the listener's own address.
func TestSetupPagesMethodsAndOrigin(t *testing.T) {
	t.Parallel()
	hs := startPagesServer(t, "")
	for _, tc := range []struct {
		name, method, path, host string
		wantStatus               int
		wantHeader               map[string]string
		wantEmptyBody            bool
	}{
		{name: "post connect", method: http.MethodPost, path: "/connect", wantStatus: http.StatusMethodNotAllowed},
		{name: "put llms", method: http.MethodPut, path: "/llms.txt", wantStatus: http.StatusMethodNotAllowed},
		{name: "head connect", method: http.MethodHead, path: "/connect", wantStatus: http.StatusOK, wantEmptyBody: true,
			wantHeader: map[string]string{"Cache-Control": "no-store"}},
		{name: "root redirects", method: http.MethodGet, path: "/", wantStatus: http.StatusSeeOther,
			wantHeader: map[string]string{"Location": "/connect"}},
		{name: "unsafe host", method: http.MethodGet, path: "/connect", host: "evil$(id)", wantStatus: http.StatusOK},
		{name: "Host not reflected", method: http.MethodGet, path: "/llms.txt", host: "mcp.example:8443", wantStatus: http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := fetchPage(t, tc.method, hs.URL+tc.path, tc.host)
			if got.status != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %q", got.status, tc.wantStatus, got.body)
			}
			for k, v := range tc.wantHeader {
				if g := got.header.Get(k); g != v {
					t.Errorf("%s = %q, want %q", k, g, v)
				}
			}
			if tc.wantStatus == http.StatusMethodNotAllowed && !strings.Contains(got.header.Get("Allow"), http.MethodGet) {
				t.Errorf("Allow = %q, want GET listed", got.header.Get("Allow"))
			}
			if tc.wantEmptyBody && got.body != "" {
				t.Errorf("HEAD returned a body of %d bytes", len(got.body))
			}
			if tc.host == "mcp.example:8443" && (strings.Contains(got.body, "mcp.example") || !strings.Contains(got.body, "MCP URL: "+hs.URL+"/mcp")) {
				t.Errorf("Host header reflected instead of the listener address:\n%s", got.body)
			}
			if tc.host == "evil$(id)" && strings.Contains(got.body, "$(id)") {
				t.Errorf("unsafe host echoed: %q", got.body)
			}
		})
	}
}
