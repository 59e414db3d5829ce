package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/ritest"
	"github.com/pdpp/pdpp-mcp/internal/testbin"
)

// mockRSSummary is the JSON line `pdpp-mcp mockrs --json` prints once ready.
type mockRSSummary struct {
	RSURL       string `json:"rs_url"`
	OwnerBearer string `json:"owner_bearer"`
	Grants      []struct {
		GrantID       string   `json:"grant_id"`
		ConnectorKey  string   `json:"connector_key"`
		Bearer        string   `json:"bearer"`
		ConnectionIDs []string `json:"connection_ids"`
	} `json:"grants"`
}

// bearer is the client bearer the mock RS issued for grantID (the
// demodata grant ids), read from its ready line rather than assumed.
func (s mockRSSummary) bearer(t testing.TB, grantID string) string {
	t.Helper()
	for _, g := range s.Grants {
		if g.GrantID == grantID {
			return g.Bearer
		}
	}
	t.Fatalf("mock RS has no grant %s", grantID)
	return ""
}

// Shared by every test of the package: one binary, one mock RS. The mock
// RS is read-only, so tests share it safely in parallel.
var (
	binPath string
	mockRS  mockRSSummary
)

// waitForDetails is the environment entry that makes an adapter wait for
// every refining read (its --wait-for-details flag).
const waitForDetails = "PDPP_MCP_WAIT_FOR_DETAILS=true"

// processTimeout bounds every client process a test runs; a hung client
// fails its test instead of hanging the suite.
const processTimeout = 2 * time.Minute

// serverTimeout bounds the servers a test starts (serve, demo, nginx, stdio
// servers): they live as long as their test, which on a loaded machine (two
// cores shared by many jobs) can run for minutes of client processes.
const serverTimeout = 10 * time.Minute

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// setup gets the pdpp-mcp binary, starts the shared mock RS, runs the tests and
// kills the mock RS by PID afterwards.
func setup(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "pdpp-mcp-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	// Every adapter the suite starts waits for its hit titles, probes and
	// slow sources however long a loaded machine takes: pages never depend
	// on the machine's speed (servers started with an explicit environment
	// take waitForDetails).
	if name, value, _ := strings.Cut(waitForDetails, "="); os.Setenv(name, value) != nil {
		return 0, errors.New("cannot set " + waitForDetails)
	}
	// The binary `make test` built before `go test` started, else one
	// build here, with no deadline of its own (see internal/testbin).
	if binPath, err = testbin.Binary(dir); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "mockrs", "--addr", "127.0.0.1:0", "--json")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line, err := readLine(stdout, 30*time.Second)
	if err != nil {
		return 0, fmt.Errorf("mockrs ready line: %v", err)
	}
	if err := json.Unmarshal([]byte(line), &mockRS); err != nil || mockRS.RSURL == "" {
		return 0, fmt.Errorf("mockrs ready line %q: %v", line, err)
	}
	// The RI tier's reference server starts on the first RI test only
	// (ritest.Shared) and stops here, by its process group.
	defer ritest.StopShared()
	return m.Run(), nil
}

// readLine reads the first stdout line of a starting process, or fails
// after timeout. The rest of stdout is drained so the process never blocks
// on a full pipe.
func readLine(r interface{ Read([]byte) (int, error) }, timeout time.Duration) (string, error) {
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		if sc.Scan() {
			got <- sc.Text()
		} else {
			got <- ""
		}
		for sc.Scan() {
		}
	}()
	select {
	case l := <-got:
		if strings.TrimSpace(l) == "" {
			return "", fmt.Errorf("process closed stdout without a ready line")
		}
		return l, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("no ready line within %v", timeout)
	}
}
