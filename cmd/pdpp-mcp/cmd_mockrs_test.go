package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// mockRS runs `pdpp-mcp mockrs --json` in-process with extra flags and
// returns its summary; the server stops when the test ends.
func mockRS(t *testing.T, flags ...string) rstest.Summary {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runMockRS(ctx, append([]string{"--addr", "127.0.0.1:0", "--json", "--records", "200"}, flags...), nil, pw, io.Discard)
		_ = pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("mockrs exit %d", code)
			}
		case <-time.After(10 * time.Second):
			t.Error("mockrs did not stop")
		}
	})
	line, err := bufio.NewReader(pr).ReadBytes('\n')
	if err != nil {
		t.Fatalf("mockrs summary: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	var sum rstest.Summary
	if err := json.Unmarshal(line, &sum); err != nil {
		t.Fatalf("summary %q: %v", line, err)
	}
	return sum
}

// getJSON GETs path with a bearer and decodes the body.
func getJSON(t *testing.T, url, bearer string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

func TestMockRSCapabilitiesFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags      []string
		wantCursor bool
	}{{nil, true}, {[]string{"--capabilities", "declared"}, false}} {
		sum := mockRS(t, tc.flags...)
		g := sum.Grants[0]
		status, body := getJSON(t, sum.RSURL+"/v1/schema?view=compact", g.Bearer)
		if status != 200 {
			t.Fatalf("schema: %d %v", status, body)
		}
		advertised := false
		for _, c := range body["connectors"].([]any) {
			for _, st := range c.(map[string]any)["streams"].([]any) {
				if _, ok := st.(map[string]any)["cursor_field"]; ok {
					advertised = true
				}
			}
		}
		if advertised != tc.wantCursor {
			t.Errorf("%v: cursor_field advertised = %v", tc.flags, advertised)
		}
	}
}

// TestMockRSTokenTTL: with --token-ttl the summary says when bearers
// expire, and the owner-only mint route hands out a working token.
func TestMockRSTokenTTL(t *testing.T) {
	t.Parallel()
	sum := mockRS(t, "--token-ttl", "10m")
	g := sum.Grants[0]
	if g.ExpiresAt == nil || time.Until(*g.ExpiresAt) > 10*time.Minute || time.Until(*g.ExpiresAt) < 9*time.Minute {
		t.Fatalf("expires_at = %v", g.ExpiresAt)
	}
	req, _ := http.NewRequest(http.MethodPost, sum.RSURL+"/_mockrs/grants/"+g.GrantID+"/token", nil)
	req.Header.Set("Authorization", "Bearer "+sum.OwnerBearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m rstest.MintedToken
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || res.StatusCode != 200 || m.ExpiresIn != 600 {
		t.Fatalf("mint: %d %+v %v", res.StatusCode, m, err)
	}
	if status, body := getJSON(t, sum.RSURL+"/v1/schema", m.AccessToken); status != 200 {
		t.Errorf("minted token: %d %v", status, body)
	}
}

func TestMockRSRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--capabilities", "rich"}, {"extra"}, {"--token-ttl", "-1s"}, {"--token-ttl", "soon"},
		{"--fault-status", "404"}, {"--lexical-gap", "nocolon"}, {"--auth-deny"}, {"--fault-every", "0"}, {"--fault-latency", "-1s"}, {"--public-url", "rs.example"}, {"--public-url", "https://rs.example/path"}} {
		if code := runMockRS(context.Background(), args, nil, io.Discard, io.Discard); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestMockRSFaultsAndRequestLog: the CLI injects the configured fault and
// logs every request without its bearer.
func TestMockRSFaultsAndRequestLog(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "requests.jsonl")
	sum := mockRS(t, "--fault-path", "/v1/search", "--fault-status", "503", "--request-log", logPath)
	g := sum.Grants[0]
	if status, _ := getJSON(t, sum.RSURL+"/v1/search?q=x", g.Bearer); status != 503 {
		t.Errorf("faulted path: %d", status)
	}
	if status, _ := getJSON(t, sum.RSURL+"/v1/schema", g.Bearer); status != 200 {
		t.Errorf("other path: %d", status)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || strings.Contains(string(b), g.Bearer) {
		t.Fatalf("request log:\n%s", b)
	}
	var first requestLogLine
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Path != "/v1/search" || first.Query != "q=x" ||
		first.Principal != "grant:"+g.GrantID {
		t.Errorf("first line %+v (%v)", first, err)
	}
}

func TestMockRSLexicalGapFlag(t *testing.T) {
	t.Parallel()
	hits := func(sum rstest.Summary) int {
		status, body := getJSON(t, sum.RSURL+"/v1/search?q=invoice&streams=messages&limit=5", sum.Grants[0].Bearer)
		data, _ := body["data"].([]any)
		if status != 200 {
			t.Fatalf("search: %d %v", status, body)
		}
		return len(data)
	}
	if n := hits(mockRS(t)); n == 0 {
		t.Fatal("the query finds nothing even without gaps")
	}
	gapped := mockRS(t, "--lexical-gap", demodata.GmailWorkConnectionID+":messages", "--lexical-gap", demodata.GmailPersonalConnectionID+":messages")
	if n := hits(gapped); n != 0 {
		t.Errorf("lexical search over gaps: %d hits", n)
	}
}

// TestMockRSAuthServerFlag: --auth-grant mounts the authorization server
// the protected-resource metadata points at; an unknown grant fails.
func TestMockRSAuthServerFlag(t *testing.T) {
	t.Parallel()
	sum := mockRS(t, "--auth-grant", demodata.GmailGrantID)
	if sum.AuthorizationServer != sum.RSURL+"/.well-known/oauth-authorization-server" {
		t.Errorf("summary authorization_server = %q", sum.AuthorizationServer)
	}
	res, err := http.Get(sum.AuthorizationServer)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var meta map[string]any
	if err := json.NewDecoder(res.Body).Decode(&meta); err != nil || res.StatusCode != 200 || meta["issuer"] != sum.RSURL {
		t.Errorf("AS metadata: %d %v %v", res.StatusCode, meta, err)
	}
	if code := runMockRS(context.Background(), []string{"--addr", "127.0.0.1:0", "--auth-grant", "grt_nope"}, nil, io.Discard, io.Discard); code != exitFailure {
		t.Errorf("unknown grant: exit %d", code)
	}
}

// TestMockRSPublicURL: behind a tunnel, the mock names its public origin
// (not the request's Host) as the authorization server's issuer and
// endpoints, so a remote connector can sign in through it.
func TestMockRSPublicURL(t *testing.T) {
	t.Parallel()
	const public = "https://rs-tunnel.example"
	sum := mockRS(t, "--auth-grant", demodata.GmailGrantID, "--public-url", public+"/")
	res, err := http.Get(sum.RSURL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var meta map[string]any
	if err := json.NewDecoder(res.Body).Decode(&meta); err != nil || res.StatusCode != 200 {
		t.Fatalf("AS metadata: %d %v", res.StatusCode, err)
	}
	if meta["issuer"] != public || meta["token_endpoint"] != public+"/oauth/token" {
		t.Errorf("AS metadata names %v and %v, want the public origin %s", meta["issuer"], meta["token_endpoint"], public)
	}
}
