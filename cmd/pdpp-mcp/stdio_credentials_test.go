package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// stdioSession is the real binary driven line by line, as an MCP host
// does: one request at a time, each answered before the next.
type stdioSession struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan string
	stderr *testenv.Output
	id     int
}

func startStdio(t *testing.T, bin, dir string, args ...string) *stdioSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	stderr := &testenv.Output{}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stdioSession{t: t, stdin: stdin, lines: make(chan string, 16), stderr: stderr}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		wg.Wait()
		_ = cmd.Wait()
		cancel()
	})
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cred-test","version":"1"}}}`)
	s.read()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("write stdin: %v\nstderr:\n%s", err, s.stderr.String())
	}
}

func (s *stdioSession) read() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("stdout closed; stderr:\n%s", s.stderr.String())
		}
		return l
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no answer in 30s; stderr:\n%s", s.stderr.String())
	}
	return ""
}

// call runs one tools/call and returns its result's error code ("" on
// success) and text.
func (s *stdioSession) call(tool string, args map[string]any) (code, text string) {
	s.t.Helper()
	s.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	s.send(string(req))
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	line := s.read()
	if err := json.Unmarshal([]byte(line), &resp); err != nil || len(resp.Result.Content) == 0 {
		s.t.Fatalf("bad response %q: %v", line, err)
	}
	text = resp.Result.Content[0].Text
	if !resp.Result.IsError {
		return "", text
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(text), &env)
	return env.Error.Code, text
}

// mockClock is the mock RS's settable clock.
type mockClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *mockClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *mockClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Stdio: a running session heals when `pdpp connect` rewrites
// the credential cache — after the RS refused the token (401, D13) and
// after the cache's own expires_at passed — and says credential_expired,
// naming the exact `pdpp connect <url>` command, while no fresh token is
// there. The host is never restarted.
//
// Each rewrite serves the very next call, with no wait (the
// binary sees the file changed). It takes about 2 s, on purpose: a cached
// expires_at must pass on the real clock (1.6 s); a subprocess has no
// injected clock.
func TestStdioHealsFromRewrittenCredentialCache(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	clock := &mockClock{t: time.Now()}
	rs := testenv.StartRS(t, testenv.Options{TokenTTL: 10 * time.Minute, Now: clock.Now})
	dir := t.TempDir()
	cacheWith(t, dir, rs.URL, credJSON(demodata.GmailToken, ""))
	s := startStdio(t, bin, dir, "--provider-url", rs.URL)
	read := map[string]any{"stream": "messages", "limit": 2}
	reconnect := "pdpp-mcp connect " + rs.URL + " --cache-root " + filepath.Join(dir, ".pdpp")

	if code, text := s.call("query_records", read); code != "" {
		t.Fatalf("fresh token: %s", text)
	}

	// The RS's 600 s pass: the token is refused, the cache holds nothing newer.
	clock.Advance(11 * time.Minute)
	code, text := s.call("query_records", read)
	if code != "credential_expired" || !strings.Contains(text, "`"+reconnect+"`") {
		t.Fatalf("refused token, nothing fresh: code %q, want credential_expired naming %q:\n%s", code, reconnect, text)
	}

	// `pdpp-mcp connect` in another terminal writes a fresh token.
	fresh, err := rs.Server.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	cacheWith(t, dir, rs.URL, credJSON(fresh.AccessToken, ""))
	if code, text := s.call("query_records", read); code != "" {
		t.Fatalf("after the cache was rewritten: %s", text)
	}

	// expires_at in the cache is honoured without asking the RS.
	clock.Advance(11 * time.Minute) // the first fresh token is refused now
	soon := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	second, err := rs.Server.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	cacheWith(t, dir, rs.URL, credJSON(second.AccessToken, fmt.Sprintf(`,"expires_at":%q`, soon)))
	if code, text := s.call("query_records", read); code != "" {
		t.Fatalf("with the second token: %s", text)
	}
	// waits for the spawned adapter's real clock to pass the cached
	// expires_at: the binary has no clock a test can move.
	time.Sleep(1600 * time.Millisecond)
	before := len(rs.Server.Requests())
	code, text = s.call("query_records", read)
	if code != "credential_expired" || !strings.Contains(text, "`"+reconnect+"`") {
		t.Fatalf("expired by expires_at: code %q:\n%s", code, text)
	}
	if n := len(rs.Server.Requests()) - before; n != 0 {
		t.Errorf("a token past its cached expires_at reached the RS (%d requests)", n)
	}
	for _, tok := range []string{demodata.GmailToken, fresh.AccessToken, second.AccessToken} {
		if strings.Contains(s.stderr.String(), tok) {
			t.Errorf("stderr quotes a bearer (%.8s…)", tok)
		}
	}
}

// A cached token without a kind label is classified through the
// RS schema's bearer.token_kind at start-up. A lone owner token stops the
// adapter (exit 77); among client grants it is dropped with a warning and
// never used, and the client grants serve. Either way the owner token
// reaches the RS only for that one schema read.
func TestStdioUnlabelledOwnerToken(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	cases := []struct {
		name       string
		cache      string
		wantCode   int
		wantStderr []string
		wantIDs    []int
	}{
		{"single unlabelled owner token", credJSON(demodata.OwnerToken, ""), exitNoPerm,
			[]string{"is an owner token", "owner credentials are refused", "pdpp-mcp connect"}, nil},
		{"unlabelled owner among client grants",
			`{"credential":{"access_token":"` + demodata.GmailToken + `"},"credentials":[{"access_token":"` + demodata.OwnerToken + `"},{"access_token":"` + demodata.SlackToken + `"}]}`,
			exitOK, []string{"warning: cached credential 2 of 3", "is an owner token", "dropped and never used", "using 2 scoped credential(s)"}, []int{1, 2, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := testenv.StartRS(t, testenv.Options{})
			dir := t.TempDir()
			cacheWith(t, dir, rs.URL, tc.cache)
			stdin := mcpSession + `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"q":"roadmap","limit":3}}}` + "\n"
			if tc.wantIDs != nil {
				tc.wantIDs = append(tc.wantIDs, 4)
			} else {
				stdin = mcpSession
			}
			res := runBinary(t, bin, dir, nil, stdin, "--provider-url", rs.URL)
			if res.code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, tc.wantCode, res.stderr)
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, res.stderr)
				}
			}
			if strings.Contains(res.stderr+res.stdout, demodata.OwnerToken) {
				t.Error("output quotes the owner token")
			}
			if tc.wantIDs == nil {
				if res.stdout != "" {
					t.Errorf("stdout must stay empty, got:\n%s", res.stdout)
				}
			} else {
				checkJSONRPCStdout(t, res.stdout, tc.wantIDs)
				if strings.Contains(res.stdout, `"isError":true`) {
					t.Errorf("a call failed with the client grants serving:\n%s", res.stdout)
				}
			}
			var ownerReads []string
			for _, r := range rs.Server.Requests() {
				if r.Bearer == demodata.OwnerToken {
					ownerReads = append(ownerReads, r.Method+" "+r.Path)
				}
			}
			if len(ownerReads) != 1 || ownerReads[0] != "GET /v1/schema" {
				t.Errorf("owner token reached the RS as %v; want exactly one schema read", ownerReads)
			}
		})
	}
}

// Closing stdin with a call in flight (the host went away)
// reports the call as cancelled, not as an RS outage.
func TestStdioClosedStdinCancelsInFlightCalls(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	reads := testenv.NewArrivals("/v1/streams")
	rs := testenv.StartRS(t, testenv.Options{NoContract: true, OnRequest: reads.Observe}) // the slow answer is cut off, never written
	dir := t.TempDir()
	cacheWith(t, dir, rs.URL, credJSON(demodata.GmailToken, ""))
	s := startStdio(t, bin, dir, "--provider-url", rs.URL)
	if code, text := s.call("schema", map[string]any{}); code != "" {
		t.Fatalf("schema: %s", text)
	}
	rs.Server.SetFaults(&rstest.Faults{PathPrefix: "/v1/streams", Latency: time.Minute})
	s.send(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","limit":2}}}`)
	reads.Await(t, 1, 10*time.Second)
	_ = s.stdin.Close()
	if !s.stderr.WaitFor(`"tool":"query_records"`, 20*time.Second) {
		t.Fatalf("no log line for the cancelled call; stderr:\n%s", s.stderr.String())
	}
	log := s.stderr.String()
	if !strings.Contains(log, `"error_code":"cancelled"`) || strings.Contains(log, "rs_unavailable") {
		t.Errorf("the in-flight call was not reported as cancelled:\n%s", log)
	}
}
