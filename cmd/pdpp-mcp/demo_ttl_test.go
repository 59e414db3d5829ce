package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestDemoTokenTTL: with --token-ttl the demo's client tokens expire, so a
// person can watch a host refresh: the ready line says when, the printed
// bearer works until then, and afterwards a call that reads data gets the
// 401 challenge that sends a host to sign in again. It waits out a 2 s lifetime on the
// real clock (the binary's clock cannot be faked), hence ~3 s.
func TestDemoTokenTTL(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	p := startDemo(t, bin, "--addr", "127.0.0.1:0", "--rs-addr", "127.0.0.1:0", "--json", "--token-ttl", "2s")
	line := p.line(t, 60*time.Second)
	var ready struct {
		MCPURL    string `json:"mcp_url"`
		RSURL     string `json:"rs_url"`
		CacheRoot string `json:"cache_root"`
		Bearer    string `json:"bearer"`
		Grants    []struct {
			Bearer    string     `json:"bearer"`
			ExpiresAt *time.Time `json:"expires_at"`
		} `json:"grants"`
	}
	if err := json.Unmarshal([]byte(line), &ready); err != nil {
		t.Fatalf("ready line %q: %v", line, err)
	}
	var expires time.Time
	for _, g := range ready.Grants {
		if g.Bearer == ready.Bearer && g.ExpiresAt != nil {
			expires = *g.ExpiresAt
		}
	}
	if left := time.Until(expires); left <= 0 || left > 2*time.Second {
		t.Fatalf("the demo bearer expires at %v (in %s), want within 2s", expires, left)
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if status, body := demoMCP(t, ready.MCPURL, ready.Bearer, list); status != http.StatusOK {
		t.Fatalf("before expiry: %d %.300s", status, body)
	}
	// waits for the spawned demo's real clock to pass the token's expiry:
	// the binary has no clock a test can move.
	time.Sleep(time.Until(expires) + 300*time.Millisecond)
	// A call that reads data meets the RS, which no longer takes the token.
	const read = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","limit":1}}}`
	req, _ := http.NewRequest(http.MethodPost, ready.MCPURL, strings.NewReader(read))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+ready.Bearer)
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(res.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("after expiry: %d, challenge %q: %.300s", res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
	}
	// Over stdio, on the demo's own cache, the expired credential's advice
	// names the demo, which renews it, not a connect command, which the demo
	// does not have.
	st := startStdio(t, bin, t.TempDir(), "--provider-url", ready.RSURL, "--cache-root", ready.CacheRoot)
	code, text := st.call("query_records", map[string]any{"stream": "messages", "limit": 1})
	if code != "credential_expired" || !strings.Contains(text, " demo`") || strings.Contains(text, "connect ") {
		t.Errorf("stdio after expiry: %s %s", code, text)
	}
}

func TestDemoTokenTTLMustNotBeNegative(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"demo", "--token-ttl", "-1s"}, func(string) string { return "" }, io.Discard, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "--token-ttl must not be negative") {
		t.Errorf("demo --token-ttl -1s: exit %d, stderr %q", code, stderr.String())
	}
}

// The printed setup says when tokens expire only when they do.
func TestDemoSetupSaysWhenTokensExpire(t *testing.T) {
	t.Parallel()
	ds, err := demodata.Build(demodata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := demoReady{MCPURL: "http://127.0.0.1:1/mcp", RSURL: "http://127.0.0.1:2", Bearer: demodata.GmailToken, CacheRoot: t.TempDir()}
	for _, ttl := range []time.Duration{0, 2 * time.Minute} {
		r.tokenTTL = ttl
		var out bytes.Buffer
		printDemoSetup(&out, r, ds, "http://127.0.0.1:1", true)
		says := strings.Contains(out.String(), "Client tokens expire 2m0s after they are issued")
		if says != (ttl > 0) {
			t.Errorf("ttl %s: expiry line shown = %v:\n%s", ttl, says, out.String())
		}
	}
}
