package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
)

// TestServeStdoutAndSIGTERM: serve's stdout is one JSON ready line (no
// plain text beside the JSON logs), and SIGTERM is logged — the drain and
// the stop — before a clean exit 0. Every stderr line is a JSON record.
func TestServeStdoutAndSIGTERM(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	metrics := freeLoopbackAddr(t)
	cmd := exec.Command(bin, "serve", "--provider-url", "http://127.0.0.1:1", "--addr", "127.0.0.1:0",
		"--metrics-addr", metrics, "--shutdown-timeout", "2s")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stderr testenv.Output
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(time.Minute):
		t.Fatalf("no ready line; stderr:\n%s", stderr.String())
	}
	var ready map[string]string
	if err := json.Unmarshal([]byte(first), &ready); err != nil {
		t.Fatalf("ready line %q is not JSON: %v", first, err)
	}
	if !strings.HasPrefix(ready["mcp_url"], "http://127.0.0.1:") || !strings.HasSuffix(ready["mcp_url"], "/mcp") {
		t.Errorf("mcp_url %q", ready["mcp_url"])
	}
	want := map[string]string{"mcp_url": ready["mcp_url"], "rs_url": "http://127.0.0.1:1", "metrics_url": "http://" + metrics + "/metrics"}
	if diff := cmp.Diff(want, ready); diff != "" {
		t.Errorf("ready line (-want +got):\n%s", diff)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
	if len(rest) > 0 {
		t.Errorf("stdout beyond the ready line: %q", rest)
	}
	var msgs []string
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var rec struct{ Msg string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Errorf("stderr line is not a JSON log record: %q", l)
			continue
		}
		msgs = append(msgs, rec.Msg)
	}
	for _, w := range []string{"serving", "shutting down: no new connections, draining in-flight requests", "stopped"} {
		if !strings.Contains(strings.Join(msgs, "\n"), w) {
			t.Errorf("no %q log record; got %q", w, msgs)
		}
	}
}
