package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// startBounded starts cmd and registers its end: killed by PID when the
// test ends, or earlier when it outlives serverTimeout.
func startBounded(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	watchProcess(t, cmd, true)
}

// startReady starts cmd as startBounded does and returns the first line
// it writes to stdout (its ready line), waiting at most 30 s; what names
// the process in a failure.
func startReady(t testing.TB, cmd *exec.Cmd, what string) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBounded(t, cmd)
	line, err := readLine(out, 30*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return line
}

// watchProcess kills an already started cmd by PID at cleanup or after
// serverTimeout. reap waits for it too; false when its starter (the Go
// SDK's CommandTransport) already waits for it, as Wait may run only once.
func watchProcess(t testing.TB, cmd *exec.Cmd, reap bool) {
	t.Helper()
	timer := time.AfterFunc(serverTimeout, func() { _ = cmd.Process.Kill() })
	t.Cleanup(func() {
		timer.Stop()
		_ = cmd.Process.Kill()
		if reap {
			_ = cmd.Wait()
		}
	})
}

// serveReady matches the JSON line `serve` prints once it listens.
var serveReady = regexp.MustCompile(`^\{"mcp_url":"(http://127\.0\.0\.1:\d+/mcp)"`)

// startServe runs `pdpp-mcp serve` against the shared mock RS and returns
// its MCP endpoint URL. Each test gets its own process: the adapter is
// stateless, and a private process keeps one test's logs out of another's.
func startServe(t testing.TB) string {
	t.Helper()
	url, _ := startServeEnv(t, "serve: ", nil)
	return url
}

// startServeEnv is startServe with extra VAR=value pairs in the process
// environment; it also returns the process, for tests that kill it early.
func startServeEnv(t testing.TB, logPrefix string, env []string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binPath, "serve", "--provider-url", mockRS.RSURL, "--addr", "127.0.0.1:0")
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = &testLogWriter{t: t, prefix: logPrefix}
	line := startReady(t, cmd, "serve")
	m := serveReady.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve ready line %q does not match %v", line, serveReady)
	}
	return m[1], cmd
}

// stdioCommand is the stdio server over a fresh `pdpp connect` style
// credential cache holding the given client bearers (one grant each).
func stdioCommand(t testing.TB, bearers ...string) *exec.Cmd {
	t.Helper()
	root := t.TempDir()
	path, err := credcache.CacheFilePath(root, mockRS.RSURL)
	if err != nil {
		t.Fatal(err)
	}
	type cred struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	file := struct {
		ProviderURL string `json:"provider_url"`
		Credentials []cred `json:"credentials"`
	}{ProviderURL: mockRS.RSURL}
	for _, b := range bearers {
		file.Credentials = append(file.Credentials, cred{AccessToken: b, TokenType: "Bearer"})
	}
	raw, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "--provider-url", mockRS.RSURL, "--cache-root", root)
	// Owner credentials in the environment make the stdio server refuse
	// to start; keep the test's environment out of it.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, waitForDetails}
	cmd.Stderr = &testLogWriter{t: t, prefix: "stdio: "}
	return cmd
}

// testLogWriter forwards a process's stderr to the test log (shown on
// failure or with -v), line by line.
type testLogWriter struct {
	t      testing.TB
	prefix string
	mu     sync.Mutex
	buf    strings.Builder
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		w.log(s[:i])
		w.buf.Reset()
		w.buf.WriteString(s[i+1:])
	}
	return len(p), nil
}

// log ignores lines written after the test finished (a process killed at
// cleanup may still flush); t.Log would panic then.
func (w *testLogWriter) log(line string) {
	defer func() { _ = recover() }()
	w.t.Log(w.prefix + line)
}
