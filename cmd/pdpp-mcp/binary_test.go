package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// builtBinary is the real pdpp-mcp, compiled once per test process: even
// from a warm build cache each `go build` links anew (1.5 s of CPU), and
// every test only executes the file.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildBinary returns the shared pdpp-mcp binary, built exactly as `go
// build` would (no -ldflags), failing the test if the build failed.
func buildBinary(t testing.TB) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "pdpp-mcp-test-")
		if b.err != nil {
			return
		}
		bin := filepath.Join(b.dir, "pdpp-mcp")
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		// Built as `make build` and releases build it: static, no cgo.
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		b.path = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// TestMain removes the shared binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		_ = os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}
