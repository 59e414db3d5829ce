package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// heldRS is the mock RS behind a gate: every request waits until release
// (or until its client gives up, which abandoned counts).
type heldRS struct {
	*testenv.RS
	gate      chan struct{}
	once      sync.Once
	arrived   atomic.Int32
	abandoned atomic.Int32
}

func startHeldRS(t *testing.T) *heldRS {
	h := &heldRS{gate: make(chan struct{})}
	h.RS = testenv.StartRS(t, testenv.Options{Raw: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.arrived.Add(1)
			select {
			case <-h.gate:
				next.ServeHTTP(w, r)
			case <-r.Context().Done():
				h.abandoned.Add(1)
			}
		})
	}})
	t.Cleanup(h.release) // before the RS closes: a held handler would block Close
	return h
}

func (h *heldRS) release() { h.once.Do(func() { close(h.gate) }) }

// tools/list never waits for the RS. With a cache that labels
// its token client, the adapter answers initialize and tools/list while
// the RS holds every request: none had been answered, and none given up
// (an adapter that waited out an RS timeout before serving would have
// abandoned its request). The tools are the catalog, byte for byte (the
// adapter's golden). Released, the RS serves the first call.
func TestStdioToolsListDoesNotWaitForRS(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := startHeldRS(t)
	dir := t.TempDir()
	cacheWith(t, dir, rs.URL, credJSON(demodata.GmailToken, `,"pdpp_token_kind":"client"`))
	s := startStdio(t, bin, dir, "--provider-url", rs.URL) // initialize answered
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	line := s.read()
	if n := rs.abandoned.Load(); n != 0 {
		t.Fatalf("tools/list was answered after the adapter gave up on %d RS request(s)", n)
	}
	var resp struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.Result.Tools == nil {
		t.Fatalf("tools/list answer %.300q: %v", line, err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, resp.Result.Tools, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	want, err := os.ReadFile(filepath.Join("..", "..", "adapter", "testdata", "tools_list.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("stdio tools/list differs from the catalog golden (-want +got):\n%s", diff)
	}

	rs.release()
	if code, text := s.call("schema", map[string]any{}); code != "" {
		t.Fatalf("schema after the RS answered: %s", text)
	}
	// Checked again a round trip later: the RS notices a client giving up
	// only when the connection closes.
	if n := rs.abandoned.Load(); n != 0 {
		t.Fatalf("the adapter gave up on %d held RS request(s) before serving", n)
	}
}

// A cache may label an owner token client. It is not asked about at
// start-up (the label is trusted there, as the TypeScript adapter did),
// but every call reads the grant's schema before any data and refuses it:
// the owner token reaches the RS only as schema reads, and no tool answers
// with data.
func TestStdioMislabelledOwnerTokenReadsNoData(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := testenv.StartRS(t, testenv.Options{})
	dir := t.TempDir()
	cacheWith(t, dir, rs.URL, credJSON(demodata.OwnerToken, `,"pdpp_token_kind":"client"`))
	s := startStdio(t, bin, dir, "--provider-url", rs.URL)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"query_records", map[string]any{"stream": "messages", "limit": 2}},
		{"search", map[string]any{"q": "roadmap"}},
		{"fetch", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID}},
	} {
		if code, text := s.call(tc.tool, tc.args); code != "owner_token_refused" {
			t.Errorf("%s with a mislabelled owner token: code %q, want owner_token_refused:\n%.300s", tc.tool, code, text)
		}
	}
	for _, r := range rs.Server.Requests() {
		if r.Bearer == demodata.OwnerToken && (r.Method != http.MethodGet || r.Path != "/v1/schema") {
			t.Errorf("owner token reached the RS as %s %s", r.Method, r.Path)
		}
	}
	if strings.Contains(s.stderr.String(), demodata.OwnerToken) {
		t.Error("stderr quotes the owner token")
	}
}

// BenchmarkStdioSpawnToToolsList is the stdio start-up figure: the built
// binary spawned on a client-labelled cache, initialize, initialized and
// tools/list, until the tools/list answer arrives (ns/op = one spawn).
// The RS is never asked on this path.
func BenchmarkStdioSpawnToToolsList(b *testing.B) {
	bin := buildBinary(b)
	rs := testenv.StartRS(b, testenv.Options{NoContract: true})
	dir := b.TempDir()
	cacheWith(b, dir, rs.URL, credJSON(demodata.GmailToken, `,"pdpp_token_kind":"client"`))
	const handshake = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
	const list = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	for b.Loop() {
		cmd := exec.Command(bin, "--provider-url", rs.URL, "--cache-root", filepath.Join(dir, ".pdpp"))
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 64<<10)
		_, _ = io.WriteString(stdin, handshake)
		if err := readLines(stdout, buf, 1); err != nil {
			b.Fatal(err)
		}
		_, _ = io.WriteString(stdin, list)
		if err := readLines(stdout, buf, 1); err != nil {
			b.Fatal(err)
		}
		_ = stdin.Close()
		_ = cmd.Wait()
	}
}

// readLines reads from r until n newlines arrived.
func readLines(r io.Reader, buf []byte, n int) error {
	for n > 0 {
		k, err := r.Read(buf)
		n -= bytes.Count(buf[:k], []byte("\n"))
		if err != nil && n > 0 {
			return fmt.Errorf("read: %w", err)
		}
	}
	return nil
}
