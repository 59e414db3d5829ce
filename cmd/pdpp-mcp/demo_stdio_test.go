package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// printedStdio is the stdio setup one demo run printed, each form parsed.
type printedStdio struct {
	claudeAdd, claudeAddJSON, codexAdd []string // argv after the host's subcommand words
	mcpJSON                            map[string]stdioServer
	rsURL                              string
}

// stdioServer is one stdio server entry as the demo prints it.
type stdioServer struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// readHumanDemo reads the human output of a started demo up to its last
// line.
func readHumanDemo(t *testing.T, p *demoProcess) []string {
	t.Helper()
	var all []string
	for l := p.line(t, 60*time.Second); ; l = p.line(t, 10*time.Second) {
		all = append(all, strings.TrimSpace(l))
		if l == "Press Ctrl-C to stop." {
			return all
		}
	}
}

// parsePrintedStdio picks the stdio forms out of the demo's lines. The
// test's paths hold no shell metacharacters, so the shell words are the
// space-separated fields (the add-json object is one quoted word).
func parsePrintedStdio(t *testing.T, lines []string) printedStdio {
	t.Helper()
	var s printedStdio
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "Mock PDPP resource server with demo data: "):
			s.rsURL = strings.Fields(strings.TrimPrefix(l, "Mock PDPP resource server with demo data: "))[0]
		case strings.HasPrefix(l, "claude mcp add pdpp-stdio "):
			s.claudeAdd = strings.Fields(strings.TrimPrefix(l, "claude mcp add "))
		case strings.HasPrefix(l, "claude mcp add-json "):
			name, obj, _ := strings.Cut(strings.TrimPrefix(l, "claude mcp add-json "), " ")
			if !strings.HasPrefix(obj, "'") || !strings.HasSuffix(obj, "'") {
				t.Fatalf("add-json object is not one single-quoted shell word: %s", l)
			}
			s.claudeAddJSON = []string{name, strings.Trim(obj, "'")}
		case strings.HasPrefix(l, "codex mcp add pdpp-stdio "):
			s.codexAdd = strings.Fields(strings.TrimPrefix(l, "codex mcp add "))
		case strings.HasPrefix(l, `{"mcpServers"`):
			var v struct {
				MCPServers map[string]stdioServer `json:"mcpServers"`
			}
			dec := json.NewDecoder(strings.NewReader(l))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&v); err != nil {
				t.Fatalf(".mcp.json block %s: %v", l, err)
			}
			s.mcpJSON = v.MCPServers
		}
	}
	return s
}

// TestDemoStdioSurvivesRestart: the printed stdio setup names the binary
// and the cache by absolute path, in each host's form, exactly; after the
// demo stops and starts again (same default-style fixed RS port, same user
// cache directory) the setup printed by the first run still lists tools.
func TestDemoStdioSurvivesRestart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	home := t.TempDir()
	rsAddr := freeLoopbackAddr(t)

	first := startDemoIn(t, bin, home, "--addr", "127.0.0.1:0", "--rs-addr", rsAddr)
	lines := readHumanDemo(t, first)
	got := parsePrintedStdio(t, lines)
	if !strings.Contains(strings.Join(lines, "\n"), "kept across demo restarts") {
		t.Errorf("the stdio heading does not say the setup lasts:\n%s", strings.Join(lines, "\n"))
	}
	first.stop(t, syscall.SIGINT)

	exe, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	// os.UserCacheDir: XDG_CACHE_HOME on Linux, ~/Library/Caches on macOS.
	cacheRoot := filepath.Join(home, ".cache", "pdpp-mcp", "demo")
	if runtime.GOOS == "darwin" {
		cacheRoot = filepath.Join(home, "Library", "Caches", "pdpp-mcp", "demo")
	}
	wantArgs := []string{"--provider-url", "http://" + rsAddr, "--cache-root", cacheRoot}
	want := printedStdio{
		claudeAdd:     append([]string{"pdpp-stdio", "--", exe}, wantArgs...),
		claudeAddJSON: []string{"pdpp-stdio", mustJSON(t, stdioServer{Type: "stdio", Command: exe, Args: wantArgs})},
		codexAdd:      append([]string{"pdpp-stdio", "--", exe}, wantArgs...),
		mcpJSON:       map[string]stdioServer{"pdpp-stdio": {Command: exe, Args: wantArgs}},
		rsURL:         "http://" + rsAddr,
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(printedStdio{})); diff != "" {
		t.Fatalf("printed stdio setup (-want +got):\n%s\noutput:\n%s", diff, strings.Join(lines, "\n"))
	}

	second := startDemoIn(t, bin, home, "--addr", "127.0.0.1:0", "--rs-addr", rsAddr)
	if again := parsePrintedStdio(t, readHumanDemo(t, second)); !cmp.Equal(got, again, cmp.AllowUnexported(printedStdio{})) {
		t.Errorf("the second run prints a different stdio setup:\n%s", cmp.Diff(got, again, cmp.AllowUnexported(printedStdio{})))
	}
	// The first run's .mcp.json entry, started the way a host starts it:
	// from an unrelated directory, with nothing but PATH.
	entry := got.mcpJSON["pdpp-stdio"]
	stdio := exec.Command(entry.Command, entry.Args...)
	stdio.Dir = t.TempDir()
	stdio.Env = []string{"PATH=" + os.Getenv("PATH")}
	stdio.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo-test","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	out, err := runBounded(t, stdio, 20*time.Second)
	if err != nil {
		t.Fatalf("the first run's stdio setup against the second run: %v", err)
	}
	var listLine string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(l, `"id":2`) {
			listLine = l
		}
	}
	if diff := cmp.Diff(adapter.ToolNames(), toolNames(t, listLine)); diff != "" {
		t.Errorf("stdio tools/list after a restart (-want +got):\n%s", diff)
	}
	second.stop(t, syscall.SIGTERM)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// freeLoopbackAddr is a loopback address whose port was free a moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
