package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// runResult is one finished process.
type runResult struct {
	code           int
	stdout, stderr string
}

// runBinary runs bin with exactly env (nothing inherited but PATH), in
// dir. Like a real MCP client it keeps stdin open until every request in
// stdin has a response line (mcp-go cancels in-flight calls at EOF), then
// closes it. The process is killed if it outlives 30s.
func runBinary(t *testing.T, bin, dir string, env map[string]string, stdin string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr testenv.Output
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	pw, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	_, _ = io.WriteString(pw, stdin)
	wantLines := strings.Count(stdin, `"id":`)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
wait:
	for strings.Count(stdout.String(), "\n") < wantLines {
		select {
		case err = <-done:
			done <- err
			break wait
		case <-tick.C:
		case <-ctx.Done():
			break wait
		}
	}
	_ = pw.Close()
	err = <-done
	code := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("pdpp-mcp %v did not exit in time; stderr:\n%s", args, stderr.String())
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return runResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// cacheWith writes a `pdpp connect` cache for providerURL under dir/.pdpp.
func cacheWith(t testing.TB, dir, providerURL, content string) {
	t.Helper()
	path, err := credcache.CacheFilePath(filepath.Join(dir, ".pdpp"), providerURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func credJSON(tok string, extra string) string {
	return `{"credential":{"access_token":"` + tok + `"` + extra + `}}`
}

const mcpSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"exit-test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"schema","arguments":{}}}
`

// TestStdioExitCodes spawns the real binary for every exit code and checks
// that owner credentials never reach the RS.
func TestStdioExitCodes(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := testenv.StartRS(t, testenv.Options{})
	const expired = `,"expires_at":"2020-01-01T00:00:00Z"`
	cases := []struct {
		name       string
		cache      string // credential cache content for rs.URL; "" = none
		env        map[string]string
		args       []string
		stdin      string
		wantCode   int
		wantStderr []string
		noStderr   []string
	}{
		{"unknown flag", "", nil, []string{"--profile", "x"}, "", 64, []string{"flag provided but not defined", "usage:"}, nil},
		{"bad log level", "", nil, []string{"--provider-url", rs.URL, "--log-level", "loud"}, "", 64, []string{"--log-level"}, nil},
		{"bad log format from env", "", map[string]string{"PDPP_MCP_LOG_FORMAT": "xml"}, []string{"--provider-url", rs.URL}, "", 64, []string{"--log-format"}, nil},
		{"missing provider URL", "", nil, nil, "", 64, []string{"Missing --provider-url"}, nil},
		{"bad provider URL", "", nil, []string{"--provider-url", "ftp://x"}, "", 64, []string{"invalid provider URL"}, nil},
		{"provider URL without scheme", "", nil, []string{"--provider-url", "rs.example"}, "", 64, []string{`"rs.example" has no scheme: write https://rs.example`}, nil},
		{"unexpected argument", "", nil, []string{"--provider-url", rs.URL, "extra"}, "", 64, []string{`unexpected argument "extra"`}, nil},
		{"owner token in env", credJSON(demodata.GmailToken, ""), map[string]string{"PDPP_OWNER_TOKEN": demodata.OwnerToken},
			[]string{"--provider-url", rs.URL}, mcpSession, 77, []string{"Refusing to start: owner credentials"}, []string{demodata.OwnerToken}},
		{"owner cookie in env", credJSON(demodata.GmailToken, ""), map[string]string{"PDPP_OWNER_SESSION_COOKIE": "sid=owner-cookie"},
			[]string{"--provider-url", rs.URL}, mcpSession, 77, []string{"Refusing to start"}, []string{"owner-cookie"}},
		{"owner credential in cache", credJSON(demodata.OwnerToken, `,"pdpp_token_kind":"owner"`), nil,
			[]string{"--provider-url", rs.URL}, mcpSession, 77, []string{"is an owner token"}, []string{demodata.OwnerToken}},
		{"owner role among several cached grants", `{"credential":{"access_token":"` + demodata.GmailToken + `"},"credentials":[{"access_token":"` + demodata.OwnerToken + `","role":"owner"}]}`, nil,
			[]string{"--provider-url", rs.URL}, mcpSession, 77, []string{"is an owner token"}, []string{demodata.OwnerToken, demodata.GmailToken}},
		{"nothing cached", "", nil, []string{"--provider-url", rs.URL}, mcpSession, 78, []string{"Run `pdpp-mcp connect " + rs.URL + " --cache-root /"}, nil},
		{"expired credential", credJSON(demodata.GmailToken, expired), nil, []string{"--provider-url", rs.URL}, mcpSession, 78,
			[]string{"is expired", "pdpp-mcp connect " + rs.URL}, []string{demodata.GmailToken}},
		{"malformed cache", `{"credential":`, nil, []string{"--provider-url", rs.URL}, mcpSession, 78, []string{"not valid JSON", "pdpp-mcp connect"}, nil},
		{"provider URL from env, cache root from env", credJSON(demodata.SlackToken, ""), map[string]string{"PDPP_PROVIDER_URL": rs.URL, "PDPP_CACHE_ROOT": ".pdpp"},
			nil, mcpSession, 0, []string{"connected to " + rs.URL}, []string{demodata.SlackToken}},
		{"success over stdio", `{"credential":{"access_token":"` + demodata.GmailToken + `"},"credentials":[{"access_token":"` + demodata.GitHubToken + `"}]}`, nil,
			[]string{"--provider-url", rs.URL, "--cache-root", ".pdpp"}, mcpSession, 0, []string{"using 2 scoped credential(s)"}, []string{demodata.GmailToken, demodata.GitHubToken}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.cache != "" {
				cacheWith(t, dir, rs.URL, tc.cache)
			}
			res := runBinary(t, bin, dir, tc.env, tc.stdin, tc.args...)
			if res.code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, tc.wantCode, res.stderr)
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, res.stderr)
				}
			}
			for _, s := range tc.noStderr {
				if strings.Contains(res.stderr, s) || strings.Contains(res.stdout, s) {
					t.Errorf("output leaks a credential (%.8s…)", s)
				}
			}
			if tc.wantCode != 0 || tc.stdin == "" {
				if res.stdout != "" {
					t.Errorf("stdout must stay empty, got:\n%s", res.stdout)
				}
				return
			}
			checkJSONRPCStdout(t, res.stdout, []int{1, 2, 3})
		})
	}
	// Owner credentials (env or cache) never reached the RS; refused runs
	// made no RS request at all.
	for _, r := range rs.Server.Requests() {
		if r.Bearer == demodata.OwnerToken {
			t.Errorf("owner token reached the RS: %s %s", r.Method, r.Path)
		}
	}
}

// checkJSONRPCStdout asserts stdout holds only JSON-RPC responses, one per
// line, answering exactly wantIDs, with a tools/call that succeeded.
func checkJSONRPCStdout(t *testing.T, stdout string, wantIDs []int) {
	t.Helper()
	var ids []int
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 1<<20), 4<<20)
	for sc.Scan() {
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      *int            `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		if msg.ID == nil || msg.Error != nil {
			t.Fatalf("unexpected message: %s", sc.Text())
		}
		if *msg.ID == 3 && bytes.Contains(msg.Result, []byte(`"isError":true`)) {
			t.Errorf("schema call failed: %s", msg.Result)
		}
		ids = append(ids, *msg.ID)
	}
	slices.Sort(ids) // requests are served concurrently
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("response ids (-want +got):\n%s", diff)
	}
}

// TestServeExitCodes covers serve's flag validation: every problem is a
// usage error before anything listens.
func TestServeExitCodes(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keys, []byte(`{"keys":[{"kty":"oct","kid":"k","k":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	shortSecret := filepath.Join(dir, "short-secret")
	if err := os.WriteFile(shortSecret, []byte("too-short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`not keys`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"serve", "--provider-url", "http://127.0.0.1:1", "--addr", "127.0.0.1:0"}
	cases := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStderr string
	}{
		{"unknown flag", append(base, "--nope"), nil, 64, "flag provided but not defined"},
		{"missing provider", []string{"serve"}, nil, 64, "missing --provider-url"},
		{"provider URL without scheme", []string{"serve", "--provider-url", "rs.example:7662", "--addr", "127.0.0.1:0"}, nil, 64, `--provider-url "rs.example:7662" has no scheme: write https://rs.example:7662`},
		{"provider URL without scheme from env", []string{"serve", "--addr", "127.0.0.1:0"}, map[string]string{"PDPP_PROVIDER_URL": "localhost:7662"}, 64, "http://localhost:7662"},
		{"bad public URL", append(base, "--public-url", "https://x.example/path"), nil, 64, "--public-url"},
		{"bad trusted proxy", append(base, "--trusted-proxies", "10.0.0.0/99"), nil, 64, "--trusted-proxies"},
		{"keys without issuer", append(base, "--jwt-keys", keys), nil, 64, "need --jwt-issuer"},
		{"issuer without keys", append(base, "--jwt-issuer", "https://as.example"), nil, 64, "needs --jwt-keys or --jwks-url"},
		{"issuer without audience source", append(base, "--jwt-issuer", "https://as.example", "--jwt-keys", keys), nil, 64, "needs --public-url"},
		{"unreadable key file", append(base, "--jwt-issuer", "https://as.example", "--jwt-keys", bad, "--public-url", "https://mcp.example"), nil, 64, "neither a JWKS"},
		{"cleartext JWKS off loopback", append(base, "--jwt-issuer", "https://as.example", "--jwks-url", "http://as.example/jwks", "--public-url", "https://mcp.example"), nil, 64, "only allowed on loopback"},
		{"introspection id without secret", append(base, "--introspection-url", "https://as.example/introspect", "--introspection-client-id", "c"), nil, 64, "needs both"},
		{"short cursor secret", base, map[string]string{"PDPP_MCP_CURSOR_SECRET": "short"}, 78, "PDPP_MCP_CURSOR_SECRET is 5 bytes; it must be at least 32"},
		{"committed placeholder cursor secret", base, map[string]string{"PDPP_MCP_CURSOR_SECRET": "change-me-to-32-or-more-random-bytes-0000"}, 78, "example placeholder"},
		{"placeholder-looking cursor secret", base, map[string]string{"PDPP_MCP_CURSOR_SECRET": "please-replace-me-with-something-random"}, 78, "unedited placeholder"},
		{"short cursor secret file", base, map[string]string{"PDPP_MCP_CURSOR_SECRET_FILE": shortSecret}, 78, "PDPP_MCP_CURSOR_SECRET_FILE is 9 bytes"},
		{"missing cursor secret file", base, map[string]string{"PDPP_MCP_CURSOR_SECRET_FILE": filepath.Join(dir, "absent")}, 78, "PDPP_MCP_CURSOR_SECRET_FILE:"},
		{"cursor secret twice", base, map[string]string{"PDPP_MCP_CURSOR_SECRET": strings.Repeat("s", 40), "PDPP_MCP_CURSOR_SECRET_FILE": shortSecret}, 78, "set one"},
		{"bad log level", append(base, "--log-level", "chatty"), nil, 64, "--log-level"},
		{"bad shutdown timeout", base, map[string]string{"PDPP_MCP_SHUTDOWN_TIMEOUT": "soon"}, 64, "--shutdown-timeout"},
		{"metrics on the main address", append(base, "--metrics-addr", "127.0.0.1:0"), nil, 64, "--metrics-addr must differ"},
		{"port in use", []string{"serve", "--provider-url", "http://127.0.0.1:1", "--addr", "256.0.0.1:1"}, nil, 1, "listen on"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := runBinary(t, bin, dir, tc.env, "", tc.args...)
			if res.code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", res.code, tc.wantCode, res.stderr)
			}
			if !strings.Contains(res.stderr, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("stdout: %q", res.stdout)
			}
		})
	}
}
